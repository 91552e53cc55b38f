"""Escalation mail between colleagues: support hands a case up (level 2, a manager, engineering, the on-call SRE)
and the person it reached answers, naming the escalation, case and incident by id.

The writer's register follows who they write to: a manager or an executive
gets a fuller, politer note, a peer a short one, an engineer or SRE a direct
ask. The answer refers back to the message it answers (its escalation id, and
often when it came in). The draft's variant seeds the grammar; ids and values
are added after any typo.
"""

from __future__ import annotations

from typing import Any, Mapping

from simulator.ledger import Draft
from simulator.prose.grammar import Dice, Grammar, Records, Rng, tidy
from simulator.prose.customer_mail import loose, stated
from simulator.prose.voice import GRAMMAR, Speaker, pick, speaker

TYPO_RATE = 0.04
#: Facts each escalation states in its own sentences (the rest go into the context line).
_OWN = ("email_id", "subject", "escalation_id", "escalated_to", "case_id", "incident_id", "target")

ESCALATION = Grammar({
    "up_open": ["[Hi <<to>>,|Hello <<to>>,|<<to>>,|Dear <<to>>,|Hi <<to>>, hope your day is going well.|"
                "Morning <<to>>,|Afternoon <<to>>,]"],
    "peer_open": ["[<<to>> —|Hey <<to>>,|Hi <<to>>,|<<to>>, quick one:|<<to>>, got a minute?|]"],
    "ask_up": ["[Could I ask you to|Would you be able to|Please could you] <<action>> for <<subject>>?",
               "[I need your sign-off to|I'd appreciate it if you could|The runbook says this needs you to] "
               "<<action>> for <<subject>>."],
    "ask_peer": ["[Can you|Could you|Mind if I hand this to you to|Would you|Can I ask you to] <<action>> for "
                 "<<subject>>?", "[Need you to|Handing you this to|Please] <<action>> for <<subject>>."],
    "why": ["", "[The customer is waiting on this.|It's the next step on the runbook.|I can't go further "
            "without it.|The contract level allows it, as far as I can tell.|I've done what I can from level 1.|"
            "Not urgent, but the customer has chased once already.|They have been patient so far.]"],
    "track": ["[I'm tracking this as|Logged as|Reference for this:|I've opened|Escalation]"],
    "close_up": ["[Thanks in advance,|Many thanks,|Thank you,|Appreciated,|Thanks,|Best,]"],
    "close_peer": ["[Thanks!|Cheers,|Ta,|Thanks,|Owe you one,|—]"],
    "ack": ["[On it|Got it|Picking this up|Thanks for flagging|Seen|Sure|Happy to help|Will do|Leave it with me]"],
    "when": ["", "", "[this morning|earlier today|an hour ago|just now|this afternoon|a moment ago]"],
    "done": ["[I'll <<action>>|I will <<action>>|I'm going to <<action>>|<<action>>: consider it done|"
             "I'm happy to <<action>>]"],
    "after": ["", "[I'll reply here when it's done.|Shout if the customer chases.|Keep the case with you for "
              "now.|You can tell the customer we're on it.|Let's take it offline if it gets complicated.|Nice "
              "work getting it this far.]"],
    "eng_ask": ["[Is this a known one?|Have you seen this before?|Does this ring a bell?|Before I go further, "
                "is this on your list?|Any chance this is the bug from the last release?]"],
    "sre_open": ["[My customer on <<case>> is hit by <<incident>>.|The customer behind <<case>> reports the "
                 "<<incident>> outage.|<<case>> looks like fallout from <<incident>>.|Customer on <<case>> is "
                 "seeing what sounds like <<incident>>.|I think <<case>> is <<incident>> again.]"],
    "sre_ask": ["[Can you tell me when <<incident>> is fixed?|Could you let me know once <<incident>> is fixed?|"
                "Please ping me when <<incident>> is resolved, the case depends on it.|Any ETA on <<incident>>? "
                "The customer is asking.|Tell us when <<incident>> is fixed, please; their case depends on it.]"],
    "sre_reply": ["[<<incident>> is being worked on|We are still on <<incident>>|<<incident>> is on the "
                  "incident bridge now|The team is mid-fix on <<incident>>|<<incident>> has our full "
                  "attention], [I'll update <<case>> via <<esc>>|<<case>> is linked to it through <<esc>>|"
                  "I've noted <<case>> against it (<<esc>>)|I'll ping you on <<esc>> when it clears for "
                  "<<case>>]."],
})


def _fill(text: str, **values: Any) -> str:
    for key, value in values.items():
        text = text.replace(f"<<{key}>>", str(value))
    return text


def _upward(target: str) -> bool:
    return "manager" in target or target == "executive"


def _route(route: Any, names: Mapping[str, str], rng: Rng) -> str:
    if not isinstance(route, (list, tuple)) or len(route) <= 2:
        return ""
    via = ", ".join(names.get(a, a) for a in route[1:-1])
    return pick(rng, (f"Routed via {via}.", f"{via} pointed me to you.", f"(Came to you through {via}.)",
                      f"Passed along by {via}."))


def escalation_email(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """Support asks someone up the graph to take a step on a case; the note fits the reader's seniority."""
    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    writer = speaker(cast, draft.author)
    to_id = f["escalated_to"]
    to = speaker(cast, to_id)
    to_name = names.get(to_id, to_id)
    up = _upward(str(f["target"]))
    first = to_name if up or rng.random() < 0.3 else (to.first or to_name)
    subject = f["case_id"] if "case_id" in f else f["incident_id"]
    action = str(c.get("action", "take a look"))
    head = _fill(ESCALATION.pool("up_open" if up else "peer_open", rng), to=first)
    lines = [tidy(_fill(ESCALATION.pool("ask_up" if up else "ask_peer", rng), action=action, subject=subject))]
    if str(f["target"]) == "engineering":
        lines.append(ESCALATION.pool("eng_ask", rng))
    why = ESCALATION.pool("why", rng) if "case_id" in f else ""
    if why:
        lines.append(loose(why, rng, TYPO_RATE))
    lines.append(f"{ESCALATION.pool('track', rng)} {f['escalation_id']} ({_target(f['target'], rng)}).")
    said = stated(f, rng, _OWN, names)
    if said:
        lines.append(tidy(pick(rng, ("Context:", "Details:", "What I have:", "For reference:")) + " "
                          + "; ".join(said)) + ".")
    route = _route(c.get("route"), names, rng)
    if to_name not in head:
        lines.append(pick(rng, (f"Assigning to {to_name}.", f"Owner: {to_name}.", f"For {to_name}.")))
    paragraphs = [head, " ".join(lines[:2]), "\n".join(lines[2:]) if rng.random() < 0.4 else " ".join(lines[2:]),
                  route]
    sign = ESCALATION.pool("close_up" if up else "close_peer", rng)
    paragraphs.append(f"{sign}\n{writer.name or names.get(draft.author, draft.author)}")
    return "\n\n".join(p for p in paragraphs if p)


def _target(target: Any, rng: Rng) -> str:
    return pick(rng, (f"needs {target}", f"for {target}", f"routed to {target}", f"target: {target}"))


def escalation_reply(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """The answer to an escalation: who took it, what they will do, with the escalation it answers."""
    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    to = speaker(cast, c.get("route", [None])[0] if c.get("route") else None)
    me = names.get(f["escalated_to"], f["escalated_to"])
    subject = f["case_id"] if "case_id" in f else f["incident_id"]
    when = ESCALATION.pool("when", rng)
    ack = ESCALATION.pool("ack", rng)
    greeting = f"{to.first}, " if to.first and rng.random() < 0.6 else ""
    refer = pick(rng, (f"re {f['escalation_id']}", f"on your {f['escalation_id']}",
                       f"for {f['escalation_id']}", f"({f['escalation_id']})"))
    head = f"{greeting}{ack.lower() if greeting else ack} {refer}" + (f", which came in {when}" if when else "") + "."
    done = _fill(ESCALATION.pool("done", rng), action=c.get("action", "take it from here"))
    body = [tidy(head), tidy(f"{done} for {subject}, {_target(f['target'], rng)}.")]
    said = stated(f, rng, _OWN, names)
    if said:
        body.append(tidy(pick(rng, ("Noted:", "For the record:", "What I see:", "")) + " " + "; ".join(said)) + ".")
    after = ESCALATION.pool("after", rng)
    if after:
        body.append(loose(after, rng, TYPO_RATE))
    sign = pick(rng, (f"— {me}", me, f"Thanks,\n{me}", f"Cheers,\n{me}", f"{me}\n({f['target']})"))
    split = 1 + int(rng.random() * len(body))
    return "\n\n".join(p for p in (" ".join(body[:split]), " ".join(body[split:]), sign.strip()) if p)


def escalation_incident_case(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str],
                             records: Records) -> str:
    """A case owner asks the on-call SRE about the incident their customer hit."""
    f, rng = draft.facts, Dice(draft.variant)
    to = names.get(f["escalated_to"], f["escalated_to"])
    writer = speaker(cast, draft.author)
    head = _fill(ESCALATION.pool("peer_open", rng), to=to) or f"{to},"
    if to not in head:
        head = f"{to},"
    said = _fill(ESCALATION.pool("sre_open", rng), case=f["case_id"], incident=f["incident_id"])
    ask = _fill(ESCALATION.pool("sre_ask", rng), incident=f["incident_id"])
    track = f"{ESCALATION.pool('track', rng)} {f['escalation_id']} ({_target(f['target'], rng)})."
    why = ESCALATION.pool("why", rng)
    body = " ".join(p for p in (said, ask, loose(why, rng, TYPO_RATE) if why else "", track) if p)
    return f"{head}\n\n{body}\n\n— {writer.name or names.get(draft.author, draft.author)}"


def escalation_incident_reply(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str],
                              records: Records) -> str:
    """The on-call SRE's answer: the incident is being worked, the case is linked to it."""
    f, rng = draft.facts, Dice(draft.variant)
    me = names.get(f["escalated_to"], f["escalated_to"])
    owner = speaker(cast, draft.author)
    ack = ESCALATION.pool("ack", rng)
    head = f"{ack}, {me} here for {f['target']}" if rng.random() < 0.5 else \
        f"{ack} — {me}, {f['target']} on call"
    text = _fill(ESCALATION.pool("sre_reply", rng), incident=f["incident_id"], case=f["case_id"],
                 esc=f["escalation_id"])
    if f["escalation_id"] not in text:
        text += f" ({f['escalation_id']})"
    after = GRAMMAR.say("[|| {hedge} it clears within the hour.| Status page is updated.| No ETA yet.]", rng)
    return f"{tidy(head)}. {text}{after}\n\n— {owner.name or names.get(draft.author, draft.author)}"
