"""Silence questions: did response R follow trigger X?

For every silence rule, a trigger either got a joined response within the
rule's gap (``exists``) or did not (``absence``). The required search space
is derived only from the policy (the rule's subsystems that the actor could
read at ``as_of``) and the response's selectors (the trigger's join values),
one item per subsystem; nothing is padded. An absence whose response came
only after ``as_of`` is hard (the future would say otherwise); so is a
response that came late in the window.
"""

from __future__ import annotations

import random
from bisect import bisect_right

from benchmark_builders.groundeval.contracts import (
    SILENCE, BuildConfig, Contract, Question, Rules, SilenceRule, Truth, question_id,
)
from benchmark_builders.groundeval.joins import field_values
from benchmark_builders.groundeval.worldview import WorldView, at_most, floor_minute, when
from simulator.model import Event

MAX_TRIGGERS = 400


def _selector_text(rule: SilenceRule, trigger: Event, view: WorldView) -> str:
    """How the question names the trigger's join values (``incident_id INC-4``) or its artifact ids."""
    parts = []
    for trigger_path, _ in rule.join:
        values = field_values(trigger, trigger_path, view.subsystem_of)
        if values:
            parts.append(f"{trigger_path.split('.', 1)[-1] if '.' in trigger_path else trigger_path} {', '.join(values)}")
    return "; ".join(parts)


def _question(view: WorldView, rule: SilenceRule, trigger: Event, responses: list[Event], late: list[Event],
              rng: random.Random) -> Question | None:
    at = _as_of(view, rule, trigger)
    if rule.max_gap is not None and at - trigger.ts < rule.max_gap / 2 or at <= trigger.ts:
        return None
    items = rule.search_items(trigger, view.subsystem_of)
    selectors = tuple(dict.fromkeys(i["selector"] for i in items))
    if not selectors:
        return None
    responses = [r for r in responses if r.ts <= at]
    exists = bool(responses)
    response_versions = [v for r in responses for v in view.event_artifacts(r, at)]
    trigger_versions = view.event_artifacts(trigger, at)
    actors = list(view.actors)
    rng.shuffle(actors)
    for actor in actors:
        readable = set(view.readable_subsystems(actor.actor_id, at))
        space = [i for i in items if i["subsystem"] in readable]
        if not space:
            continue
        seen = view.visible(actor.actor_id, response_versions, at)
        if exists and not seen:
            continue
        break
    else:
        return None
    kind = "exists" if exists else "absence"
    if exists:
        hard = rule.max_gap is not None and any(r.ts - trigger.ts > rule.max_gap / 2 for r in responses)
    else:
        hard = bool(late)
    content = {"world": view.name, "kind": kind, "rule": rule.name, "actor": actor.actor_id, "as_of": when(at),
               "trigger": trigger.event_id}
    qid = question_id(SILENCE, content)
    text = ""
    wording = {
        "trigger_entity": view.describe(trigger), "trigger_type": trigger.type, "trigger_event_id": trigger.event_id,
        "trigger_ts": when(trigger.ts), "selectors": _selector_text(rule, trigger, view), "as_of": when(at),
        "response_label": rule.response_label or rule.response_event_type, "actor": actor.actor_id}
    required = tuple(sorted({v.ref for v in seen})) if exists else ()
    trigger_refs = {v.ref for v in view.visible(actor.actor_id, trigger_versions, at)}
    permitted = tuple(sorted(set(required) | trigger_refs))
    search_space = tuple(sorted(space, key=lambda i: (i["subsystem"], i["selector"], i["mode"], i["value"])))
    why = (f"{rule.name}: response {', '.join(r.event_id for r in responses)} joined on "
           + (", ".join(f"{a}={b}" for a, b in rule.join) or "type alone (no join)")) if exists else (
        f"{rule.name}: no joined response by {when(at)}"
        + (f" (a late one, {late[0].event_id}, came at {when(late[0].ts)})" if late else ""))
    contract = Contract(qid, SILENCE, view.name, actor.actor_id,
                        view.policy.role_at(actor.actor_id, at), tuple(sorted(readable)), at, text,
                        {"trigger_event_id": trigger.event_id, "trigger_entity": trigger.entity.to_json(),
                         **({"trigger_records": view.records(trigger)} if view.records(trigger) else {}),
                         "trigger_ts": when(trigger.ts),
                         "response": rule.response_label or rule.response_event_type, "selectors": list(selectors)})
    truth = Truth(qid, SILENCE, kind, "hard" if hard else "easy", {"exists": exists, "evidence_artifacts": list(required)}, required, permitted,
                  search_space, (), (), (), (), why)
    return Question(contract, truth, wording, trigger.type, rule.name)


def _as_of(view: WorldView, rule: SilenceRule, trigger: Event):
    """The end of the rule's window after the trigger (with no gap limit: the end of the source), to the minute."""
    end = view.end if rule.max_gap is None else min(trigger.ts + rule.max_gap, view.end)
    return floor_minute(end)


def silence_candidates(view: WorldView, rules: Rules, rng: random.Random) -> list[Question]:
    """Candidate exists and absence questions for every silence rule."""
    out: list[Question] = []
    for rule in rules.silence:
        responses = view.events_by_type.get(rule.response_event_type, [])
        times = [r.ts for r in responses]
        triggers = at_most(view.events_by_type.get(rule.trigger_event_type, []), MAX_TRIGGERS, rng)
        for trigger in triggers:
            if not rule.matches(trigger, view.subsystem_of):
                continue
            lo = bisect_right(times, trigger.ts)
            hi = len(times) if rule.max_gap is None else bisect_right(times, trigger.ts + rule.max_gap)
            joined = [r for r in responses[lo:hi] if rule.joined(trigger, r, view.subsystem_of)]
            later = [r for r in responses[hi:] if rule.joined(trigger, r, view.subsystem_of)]
            at = _as_of(view, rule, trigger)
            late = [r for r in joined if r.ts > at] + later
            q = _question(view, rule, trigger, joined, late, rng)
            if q is not None:
                out.append(q)
    return out


def track_candidates(view: WorldView, rules: Rules, rng: random.Random, config: BuildConfig) -> list[Question]:
    """The Silence track's candidates for a build (``silence_candidates``)."""
    return silence_candidates(view, rules, rng)
