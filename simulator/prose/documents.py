"""Documents with structure: postmortems (timeline, impact, root cause, actions), runbook and wiki pages with
history, handbooks with sections, and meeting notes that cite the messages they discussed."""

from __future__ import annotations

from typing import Any, Mapping

from simulator.ledger import Draft
from simulator.prose.chatter import life_line
from simulator.prose.grammar import Dice, Grammar, Records, tidy
from simulator.prose.handbook import HANDBOOK, SERVICE_PAGE
from simulator.prose.voice import GRAMMAR, Speaker, pick, speaker

DOCS = Grammar({
    "impact": ["[Customers|Users|Several accounts] [saw|reported|ran into] <<symptom>> on <<service>>[ while it lasted|"
               " for the whole window| in bursts|], [and support took|with|which led to] [a spike of calls|a handful of "
               "tickets|escalations from two strategic accounts|complaints on social media|no data loss]."],
    "detect": ["[An alert|A synthetic probe|A customer ticket|The on-call dashboard|A spike in error rates] "
               "[caught|flagged|surfaced] it first."],
    "lesson": ["[We rolled out|The deploy went out] without [a canary|load testing at peak volume|a second look at "
               "the migration plan|a staged rollout].",
               "[Our alerting|The dashboards|The runbook] [lagged|did not cover this case|pointed the wrong way] "
               "[for the first few minutes|at first|until someone checked the logs].",
               "The decoy deploys made it [harder|slower] to [find|pin down] the [culprit|cause].",
               "[Rollback|Reverting] [worked|was quick] once [we had|someone had] [the right change|confidence]."],
    "went_well": ["[Paging worked|The handover was clean|Support kept customers informed|The rollback was "
                  "rehearsed|Everyone joined the bridge quickly]."],
})


def _latest(records: Records, artifact_id: str, minute: float) -> Mapping[str, Any]:
    found: Mapping[str, Any] = {}
    for draft in records.get(artifact_id, ()):
        if draft.minute <= minute:
            found = draft.facts
    return found


def keep_latest(drafts: list[Draft]) -> list[Draft]:
    """What a postmortem can still cite of an incident's drafts already rendered: the last one (``_latest``).

    Later drafts come later in time, so ``_latest`` never picks an earlier one; it reads minute and facts only.
    """
    return [d._replace(context={}) for d in drafts[-1:]]


def postmortem(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """A postmortem with summary, timeline, impact, root cause, what went well, and action items."""
    f, rng = draft.facts, Dice(draft.variant)
    incident = _latest(records, f["incident_id"], draft.minute)
    aliases = list(f.get("mechanism_aliases") or [str(f["mechanism"]).replace("_", " ")])
    cause, felt, later = aliases[0], (aliases[1:] or aliases)[0], aliases[2:]
    symptom = incident.get("symptom", felt)
    lines = [f"# {f['postmortem_id']}: {f['incident_id']} ({f['severity']}, {f['service']}) — {f['status']}", "",
             f"Root-cause category: {f['mechanism']}", "", "## Summary",
             tidy(GRAMMAR.say("[Deploying|The rollout of|Shipping]", rng) + f" {f['change_id']} "
                  f"(\"{draft.context.get('summary', '')}\") caused a {cause} on {f['service']}. "
                  + GRAMMAR.say("[What people noticed first was|On the dashboards it looked like|Responders "
                                "described it as]", rng) + f" {felt}."), "", "## Timeline"]
    if incident.get("opened_at"):
        lines.append(f"- {incident['opened_at']} — incident opened; on-call "
                     f"{names.get(incident.get('on_call') or '', incident.get('on_call', 'on-call'))} paged. "
                     + DOCS.say("{detect}", rng))
    lines.append(f"- {f['change_id']} identified as the trigger; {incident.get('mitigation', 'rolled back')}.")
    if incident.get("resolved_at"):
        lines.append(f"- {incident['resolved_at']} — resolved.")
    lines += ["", "## Impact", DOCS.say("{impact}", rng).replace("<<symptom>>", str(symptom))
              .replace("<<service>>", str(f["service"])), "", "## Root cause",
              tidy(f"A {cause} on {f['service']}, introduced by {f['change_id']}. "
                   + "".join(GRAMMAR.say("[In the logs it showed up as|Some alerts called it|The database team saw]",
                                         rng) + f" {alias}. " for alias in later) + DOCS.say("{lesson}", rng)),
              "", "## What went well", DOCS.say("{went_well}", rng), "", "## Action items"]
    lines += [f"- {item}" for item in f.get("action_items", [])]
    lines += ["", f"Author: {names.get(draft.author, draft.author)}"]
    return "\n".join(lines)


def _history(draft: Draft, names: Mapping[str, str], records: Records) -> list[str]:
    out = ["", "## History"]
    for earlier in records.get(draft.artifact_id, ()):
        if earlier.version > draft.version:
            break
        out.append(f"- r{earlier.version}: {earlier.facts.get('revision_note', 'edited')} "
                   f"({names.get(earlier.author, earlier.author)})")
    return out


def keep_history(drafts: list[Draft]) -> list[Draft]:
    """What a page's later revisions cite of its drafts already rendered: each one's number, note and author."""
    return [d._replace(facts={k: d.facts[k] for k in ("revision_note",) if k in d.facts}, context={})
            for d in drafts]


def wiki_runbook(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """A runbook page: purpose, steps (each with reads, writes, requires, escalation), pitfalls, history."""
    f, rng = draft.facts, Dice(draft.variant)
    lines = [f"# {f['wiki_id']} · {f['name']} ({f['procedure_id']})", "",
             (f"Revision {f['revision']}. " if "revision" in f else "")
             + GRAMMAR.say("[Use this runbook for|This page describes how we handle|Applies to]", rng)
             + f" cases in category {f['category']}. "
             + GRAMMAR.say("[A step starts only after every step it requires is done: skipping a required step, or "
                           "doing two dependent steps the other way round, is an error.|Order matters: never start "
                           "a step before the steps it requires are complete.|Each step lists what it requires; "
                           "those steps must be finished first.]", rng), "", "Steps, in order:"]
    for index, s in enumerate(f["step_details"], 1):
        lines.append(f"{index}. {s['step_id']}: {s['action']}.")
        lines.append(f"   Reads: {', '.join(s['reads']) if s['reads'] else 'nothing'}. "
                     f"Writes: {', '.join(s['writes']) if s['writes'] else 'nothing'}.")
        escalates = f" Escalates to: {s['escalates_to']}." if s.get("escalates_to") else ""
        lines.append(f"   Requires: {', '.join(s['requires']) if s['requires'] else 'nothing (it can start first)'}."
                     + escalates)
    lines += ["", "## Tips", HANDBOOK.say("{tip}", rng), HANDBOOK.say("{tip}", rng)]
    lines += _history(draft, names, records)
    lines.append(f"\nLast change: {f['revision_note']} ({names.get(draft.author, draft.author)}).")
    return "\n".join(lines)


def wiki_page(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """A service page or a handbook page with sections, and its history."""
    f, rng = draft.facts, Dice(draft.variant)
    if f.get("service"):
        lines = [f"# {f['wiki_id']} · {f['service']}", ""] + SERVICE_PAGE(str(f["service"]), rng)
    else:
        topic = str(f.get("topic", "general"))
        lines = [f"# {f['wiki_id']} · {topic[:1].upper() + topic[1:]}", "",
                 GRAMMAR.say("[Internal guidance on|What you need to know about|Reference page for|Our handbook on]",
                             rng) + f" {topic}."]
        for section in HANDBOOK.sections(topic):
            lines += ["", f"## {section}", HANDBOOK.paragraph(topic, section, rng)]
    lines += _history(draft, names, records)
    lines.append(f"\nLast change: {f['revision_note']} ({names.get(draft.author, draft.author)}).")
    return "\n".join(lines)


def meeting_notes(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """Meeting notes: attendees, each item with who spoke to it and where it was raised, decisions, actions."""
    from simulator.prose.phrases import report_phrases

    f, rng = draft.facts, Dice(draft.variant)
    attendees = [names.get(a, a) for a in f["attendees"]]
    chair = names.get(draft.author, draft.author)
    refs = draft.context.get("refs", [])
    lines = [GRAMMAR.say("[Notes|Meeting notes|Minutes|Weekly notes]", rng)
             + f" — {f['team']} weekly ({f['meeting_id']}), chaired by {chair}.",
             f"Attendees: {', '.join(attendees)}."]
    absent = draft.context.get("apologies")
    if absent:
        lines.append(f"Apologies: {names.get(absent, absent)}.")
    if f["items"]:
        lines.append(GRAMMAR.say("[Open items discussed:|We went through:|Agenda:|Items:]", rng))
        for index, item in enumerate(f["items"]):
            said = ", ".join(report_phrases(item, int(rng.random() * 3), (), names))
            ref = refs[index] if index < len(refs) else None
            where = f" (raised in {ref[1]}, {ref[0]})" if ref else ""
            voice = pick(rng, attendees)
            lines.append(f"- {said}{where}. " + tidy(GRAMMAR.say(  # one rule for every meeting: <<who>> filled after
                "[<<who>> [gave an update|summarised where it stands|is following up]|[Agreed|Decided] to "
                "[keep watching it|revisit next week|close it out once confirmed]|[No objections|Nothing to add]"
                "|Discussion ran long; {hedge} it needs another pass].", rng).replace("<<who>>", voice)))
    else:
        lines.append(GRAMMAR.say("[No open items; general updates only.|Nothing open this week; round-table "
                                 "only.|Quiet week: updates only.]", rng))
    who = speaker(cast, draft.author, draft.context.get("team"))
    lines += ["", "Round-table:"]
    for name in attendees[:3 + int(rng.random() * 3)]:
        aside = (" " + life_line(rng)) if rng.random() < 0.5 else ""
        lines.append(f"- {name}: " + tidy(GRAMMAR.say("{%s_update}" % who.group, rng)) + "." + aside)
    lines += ["", "Actions:", f"- {pick(rng, attendees)}: " + GRAMMAR.say(
        "[circulate the notes|book next week's slot|follow up on the open items|update the tracker|"
        "check with the other teams]", rng) + "."]
    return "\n".join(lines)
