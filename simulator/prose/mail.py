"""Internal email (updates, questions and their replies) and ticket comments, in the writer's voice."""

from __future__ import annotations

from typing import Mapping

from simulator.ledger import Draft
from simulator.prose.chatter import life_line, work_line
from simulator.prose.grammar import Dice, Records, Rng, tidy
from simulator.prose.voice import GRAMMAR, Speaker, pick, speaker


def _greeting(rng: Rng, to_manager: bool, first: str) -> str:
    if to_manager and first:
        return pick(rng, (f"Hi {first},", f"{first},", f"Hello {first},", f"Hey {first},"))
    return GRAMMAR.say("[Hi all,|Hello,|Team,|Hi everyone,|Morning all,|Folks,]", rng)


def _sign(rng: Rng, name: str) -> str:
    return GRAMMAR.say("[Thanks,|Best,|Cheers,|Regards,|Thanks in advance,|—]", rng) + f"\n{name}"


def internal_email(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """An internal email: a team update, a question to a manager, a reply, or news repeated as a report."""
    from simulator.prose.phrases import report_phrases

    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    who = speaker(cast, draft.author, draft.context.get("team"))
    reply_to = c.get("reply_to")
    to = speaker(cast, c.get("to"))
    question = str(f.get("subject", "")).startswith("Quick question")
    paragraphs = []
    if c.get("news_kind"):
        skip = ("email_id", "subject", "in_reply_to")
        if c["news_kind"] == "case":
            said = [f"{f['case_id']} is {f['case_status']}"] + report_phrases(
                f, int(rng.random() * 3), ("case_id", "case_status", *skip), names)
        else:
            said = report_phrases(f, int(rng.random() * 3), skip, names)
        paragraphs.append(GRAMMAR.say("[A short note:|Sharing for visibility —|For those who missed it:|"
                                      "Quick status, {hedge}:]", rng) + " " + "; ".join(said) + ".")
    elif reply_to:
        asker = speaker(cast, reply_to.author, reply_to.team)
        paragraphs.append(f"Re your note ({f['in_reply_to']}): " + GRAMMAR.pool(f"answer_{who.group}", rng) + ".")
        paragraphs.append(GRAMMAR.say("[Happy to talk it through|Let's pick it up in our 1:1|Shout if you need "
                                      "more|I'll check back on Friday]", rng) + f", {asker.first}.")
    elif question:
        paragraphs.append(tidy(GRAMMAR.pool(f"{who.group}_ask", rng)))
        paragraphs.append(GRAMMAR.say("[No rush|Whenever you have a minute|Ideally before Thursday|It's blocking "
                                      "me a little]; {closer}.", rng))
    else:
        for topic in ("status", c.get("topic", "fyi")):
            paragraphs.append(tidy(work_line(who, topic, rng)))
        if rng.random() < 0.8:
            paragraphs.append(life_line(rng))
    head = _greeting(rng, question or bool(reply_to), to.first)
    return "\n\n".join([head, *paragraphs, _sign(rng, who.name or names.get(draft.author, ""))])


def ticket_comment(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """A support worker's comment on a case: what they did, what it showed, what happens next."""
    from simulator.prose.phrases import fact_phrases

    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    who = names.get(draft.author, draft.author)
    action = str(c.get("action", "worked the case"))
    said = fact_phrases(f, int(rng.random() * 3), ("case_id", "step_id"), names)
    opening = GRAMMAR.say("[Done:|Update:|Step done —|Worked this:|Picked this up.|Back on this.|]", rng)
    body = f"{opening} {action[:1].upper() + action[1:]} on {f['case_id']} [{c.get('step_id', 'triage')}]."
    if said:
        body += " " + tidy("; ".join(said)) + "."
    body += " " + GRAMMAR.say(
        "[Customer was [helpful|patient|in a hurry|hard to reach, left a voicemail first]|Took [ten|twenty|a few] "
        "minutes|Spoke to the contact by phone|Confirmed by email with the contact|Nothing unusual|Notes from "
        "the call are attached|For context, {customer_story}|Background: {customer_story}|Customer adds that the {=unit} is {symptom_detail} {symptom_when}]. [Next step per the runbook.|Moving to the next step.|Waiting on the customer "
        "now.|Will check back [tomorrow|this afternoon].|]", rng)
    return tidy(body) + f"\n— {who}"
