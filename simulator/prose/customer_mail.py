"""Customer mail: the contact's request that opens a case, their reply, and support's emails to them.

Each contact writes in one register (terse, formal, upset or chatty), drawn
from their e-mail address by a stable hash, so a contact sounds the same in
every message; support answers in the customer's register and by its own
seniority (level 1 or level 2 and managers). The draft's variant seeds the
grammar (``Dice``), so the engine's random streams are untouched. Fact values
are added after the grammar's text is expanded and after any typo, so every
id and value stays exact.
"""

from __future__ import annotations

import zlib
from typing import Any, Mapping

from simulator.ledger import Draft
from simulator.prose.customer_words import REGISTERS
from simulator.prose.grammar import Records, Rng, Dice, tidy, typo
from simulator.prose.tickets import level
from simulator.prose.voice import GRAMMAR, Speaker, pick, speaker

#: How often a customer of each register slips a letter (never inside a fact).
TYPO_RATES = {"terse": 0.08, "formal": 0.02, "upset": 0.10, "chatty": 0.14}
#: Facts a request states in its header or sign-off rather than in its list of details.
_REQUEST_OWN = ("case_id", "contact_name", "account_name", "email_id", "subject", "from_external")
_EMAIL_OWN = ("case_id", "contact_name", "contact_email", "email_id", "subject", "to_external")


def register_of(email: Any) -> str:
    """The register a contact writes in, fixed by their address (stable under any PYTHONHASHSEED)."""
    return REGISTERS[zlib.crc32(str(email).encode("utf-8")) % len(REGISTERS)]


def loose(text: str, rng: Rng, rate: float) -> str:
    """``text`` tidied, with one typo at ``rate`` (use only on text without fact values)."""
    text = tidy(text)
    return typo(text, rng) if rng.random() < rate else text


def stated(facts: Mapping[str, Any], rng: Rng, skip: tuple[str, ...], names: Mapping[str, str]) -> list[str]:
    """The facts not in ``skip``, each in one of the pack's wordings."""
    from simulator.prose.phrases import fact_phrases

    return fact_phrases(facts, int(rng.random() * 3), skip, names)


def _details(said: list[str], lead: str, rng: Rng) -> str:
    if not said:
        return ""
    if len(said) > 1 and rng.random() < 0.4:
        return (lead + "\n" if lead else "") + "\n".join(f"- {s}" for s in said)
    return tidy(f"{lead} {'; '.join(said) if rng.random() < 0.5 else ', '.join(said)}.")


def customer_request(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """The customer's first message: their symptom in their own register, the details they know, the case id."""
    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    reg = register_of(f["from_external"])
    rate = TYPO_RATES[reg]
    symptom = str(c.get("symptom", "something is wrong"))
    opening = GRAMMAR.pool(f"cust_open_{reg}", rng)
    first = loose(f"{opening} {symptom}." if opening else f"{symptom[:1].upper()}{symptom[1:]}.", rng, rate)
    more = GRAMMAR.pool(f"cust_more_{reg}", rng)
    paragraph = first + (" " + loose(more, rng, rate) if more else "")
    details = _details(stated(f, rng, _REQUEST_OWN, names), GRAMMAR.pool(f"cust_facts_{reg}", rng), rng)
    ref = f"{GRAMMAR.pool('cust_ref', rng)} {f['case_id']}."
    ask = loose(GRAMMAR.pool(f"cust_ask_{reg}", rng), rng, rate)
    closing = f"{ask} {ref}" if rng.random() < 0.5 else f"{ref} {ask}"
    greet = GRAMMAR.pool(f"cust_greet_{reg}", rng)
    sign = GRAMMAR.pool(f"cust_sign_{reg}", rng)
    name, account = f["contact_name"], f["account_name"]
    if reg == "terse" and rng.random() < 0.5:
        signature = f"{sign} {name}, {account}".replace("— ", "— ").strip()
    else:
        signature = f"{sign}\n{name}\n{account}" if sign else f"{name}\n{account}"
    parts = [f"From: {name} <{f['from_external']}>", greet, paragraph, details, closing, signature]
    return "\n\n".join(p for p in parts if p)


def customer_reply(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """The customer's answer to support's last message on the case, in the contact's register."""
    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    reg = register_of(f["from_external"])
    rate = TYPO_RATES[reg]
    owner = speaker(cast, draft.author)
    greet = GRAMMAR.pool(f"cust_greet_{reg}", rng)
    if owner.first and rng.random() < 0.5:
        greet = GRAMMAR.say(f"[Hi|Hello|Dear|Thanks] {owner.first},", rng)
    delay = GRAMMAR.pool("cust_delay", rng)
    since = c.get("since")
    if since and rng.random() < 0.6:
        earlier = GRAMMAR.say("[You asked us on|Re your request from|About your question from]", rng) + f" {since}"
    else:
        earlier = GRAMMAR.say("[Re your request to confirm|About your question|On your follow-up]", rng)
    body = loose(f"{delay} {earlier} on {f['case_id']}:", rng, 0.0) + " " \
        + loose(GRAMMAR.pool(f"cust_reply_{reg}", rng), rng, rate)
    sign = GRAMMAR.pool(f"cust_sign_{reg}", rng)
    account = c.get("account_name", "")
    who = f"{f['contact_name']}, {account}" if account and rng.random() < 0.6 else f["contact_name"]
    return "\n\n".join(p for p in (f"From: {f['contact_name']} <{f['from_external']}>", greet, body,
                                   f"{sign}\n{who}" if sign else who) if p)


def customer_email(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """Support's email to the customer after a step: what was done, the details they need, what comes next."""
    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    who = speaker(cast, draft.author)
    writer = who.name or names.get(draft.author, str(draft.author))
    reg = register_of(f.get("contact_email") or f.get("to_external"))
    contact = str(f["contact_name"])
    formal = reg in ("formal", "upset") or rng.random() < 0.25
    greet = GRAMMAR.pool("sup_greet_formal" if formal else "sup_greet_warm", rng)
    greet = greet.replace("<<name>>", contact).replace("<<first>>", contact.split(" ")[0])
    opening = GRAMMAR.pool("sup_open_sorry" if reg == "upset" else ("sup_open_formal" if formal else "sup_open_warm"),
                           rng)
    account = c.get("account_name")
    subject = f"case {f['case_id']}" + (f" for {account}" if account and rng.random() < 0.5 else "")
    senior = level(c) != "l1"
    action = str(c.get("action", "work on your case")).replace("the customer", "you")
    did = GRAMMAR.pool("sup_did_l2" if senior else "sup_did_l1", rng).replace("<<action>>", action)
    paragraph = f"{tidy(opening)} {subject}. {tidy(did)}"
    details = _details(stated(f, rng, _EMAIL_OWN, names), GRAMMAR.pool("sup_facts", rng), rng)
    closing = loose(GRAMMAR.pool("sup_next", rng), rng, 0.0 if senior else 0.03)
    title = pick(rng, ("Customer Support", "Support team", f"{account} account team" if account else "Support",
                       "Level 2 Support" if senior else "Customer Support"))
    sign = f"{GRAMMAR.pool('sup_sign', rng)}\n{writer}\n{title}"
    to = f"To: {contact} <{f.get('contact_email') or f.get('to_external')}>"
    if f.get("contact_email") and f.get("to_external") and f["to_external"] != f["contact_email"]:
        to += f" (cc {f['to_external']})"
    return "\n\n".join(p for p in (to, greet, paragraph, details, closing, sign) if p)
