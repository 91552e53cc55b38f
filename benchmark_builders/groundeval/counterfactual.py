"""Counterfactual questions: did cause C lead to effect E?

True links are the event pairs that a causal rule joins by key (e.g. the
incident's ``change_id`` equals the change's id) within the rule's gap.
Decoys are events of the cause type close before the effect that share no
join key with it under any rule; their truth is "no causal link". A decoy
closer in time than the true cause (or with no true cause at all) is hard.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from datetime import datetime, timedelta

from benchmark_builders.groundeval.contracts import (
    COUNTERFACTUAL, NO_LINK_ALIASES, NO_LINK_MECHANISM, BuildConfig, CausalRule, Contract, Question, Rules, Truth,
    question_id,
)
from benchmark_builders.groundeval.joins import field_values, render
from benchmark_builders.groundeval.worldview import WorldView, at_most, floor_minute, when
from simulator.model import Event

MAX_EFFECTS = 400


def _stated_mechanism(view: WorldView, rule: CausalRule, effect: Event) -> tuple[str, tuple[str, ...], datetime] | None:
    """The mechanism the effect's artifacts state (name, aliases, when first stated), if the rule reads one."""
    if rule.mechanism_fact is None:
        return None
    found = []
    for ref in effect.artifacts:
        for version in view.world.versions(ref.rsplit("@", 1)[0]):
            value = version.facts.get(rule.mechanism_fact)
            if isinstance(value, str) and value and (version.ref, rule.mechanism_fact) not in view.untrue:
                found.append((version.created_at, value, version.facts.get(f"{rule.mechanism_fact}_aliases") or []))
    if not found:
        return None
    at, name, aliases = min(found, key=lambda x: x[0])
    return name, tuple(a for a in aliases if isinstance(a, str)), at


def _question(view: WorldView, rule: CausalRule, cause: Event, effect: Event, linked: bool, difficulty: str,
              rng: random.Random, mechanisms: tuple[str, ...]) -> Question | None:
    earliest = effect.ts
    mechanism, mechanism_aliases = rule.name, rule.aliases
    if rule.mechanism_fact is not None:
        stated = _stated_mechanism(view, rule, effect)
        if stated is None:
            return None
        mechanism, mechanism_aliases = stated[0], stated[1] + rule.aliases
        earliest = max(earliest, stated[2])
    at = floor_minute(earliest + timedelta(hours=rng.uniform(1, 36)) if earliest + timedelta(hours=37) <= view.end
                      else earliest + (view.end - earliest) * rng.random())
    if at < earliest:
        return None
    cause_versions = view.event_artifacts(cause, at)
    effect_versions = view.event_artifacts(effect, at)
    if not cause_versions or not effect_versions:
        return None
    involved = sorted(set(cause.actors) | set(effect.actors))
    actors = [a for a in view.actors if a.actor_id in involved] + [a for a in view.actors if a.actor_id not in involved]
    head, tail = actors[:len(involved)], actors[len(involved):]
    rng.shuffle(head)
    rng.shuffle(tail)
    for actor in head + tail:
        seen_cause = view.visible(actor.actor_id, cause_versions, at)
        seen_effect = view.visible(actor.actor_id, effect_versions, at)
        if seen_cause and seen_effect:
            break
    else:
        return None
    kind = "causal" if linked else "decoy"
    content = {"world": view.name, "kind": kind, "rule": rule.name, "actor": actor.actor_id, "as_of": when(at),
               "cause": cause.event_id, "effect": effect.event_id}
    qid = question_id(COUNTERFACTUAL, content)
    text = ""
    wording = {
        "cause_event_id": cause.event_id, "cause_type": cause.type, "cause_entity": view.describe(cause),
        "cause_ts": when(cause.ts), "effect_event_id": effect.event_id, "effect_type": effect.type,
        "effect_entity": view.describe(effect), "effect_ts": when(effect.ts), "as_of": when(at),
        "actor": actor.actor_id}
    cause_refs = tuple(sorted(v.ref for v in seen_cause))
    effect_refs = tuple(sorted(v.ref for v in seen_effect))
    required = tuple(sorted(set(cause_refs) | set(effect_refs)))
    premise = _filled(view, rule.premise_template, cause, effect)
    outcome = _filled(view, rule.outcome_template, cause, effect)
    if premise is not None and outcome is not None:
        wording["premise"], wording["outcome"] = premise, outcome
    gold = {
        "outcome_changed": linked and rule.outcome_changed,
        "causal_mechanism": mechanism if linked else NO_LINK_MECHANISM,
        "cause_event_id": cause.event_id, "effect_event_id": effect.event_id,
        "mechanism_direction": "cause_to_effect" if linked else "no_causal_link",
        "evidence_artifacts": list(required), "actors": involved,
    }
    aliases = (mechanism, *mechanism_aliases) if linked else (NO_LINK_MECHANISM, *NO_LINK_ALIASES)
    join = ", ".join(f"{a}={b}" for a, b in rule.join)
    why = (f"{rule.name}: joined on {join}" if linked
           else f"no join ({join}) between {cause.event_id} and {effect.event_id}; {effect.ts - cause.ts} apart")
    contract = Contract(qid, COUNTERFACTUAL, view.name, actor.actor_id,
                        view.policy.role_at(actor.actor_id, at), view.readable_subsystems(actor.actor_id, at), at, text,
                        {"cause_event_id": cause.event_id, "effect_event_id": effect.event_id,
                         "cause_ts": when(cause.ts), "effect_ts": when(effect.ts),
                         "cause_entity": cause.entity.to_json(), "effect_entity": effect.entity.to_json(),
                         **({"cause_records": view.records(cause), "effect_records": view.records(effect)}
                            if view.records(cause) or view.records(effect) else {})},
                        {"mechanisms": list(mechanisms)})
    truth = Truth(qid, COUNTERFACTUAL, kind, difficulty, gold, required, required, (), tuple(aliases), tuple(involved),
                  cause_refs, effect_refs, why)
    return Question(contract, truth, wording, effect.type, rule.name)


def _filled(view: WorldView, template: str | None, cause: Event, effect: Event) -> str | None:
    """A premise or outcome template filled from ``{cause.PATH}`` / ``{effect.PATH}`` (None: no template or value)."""
    if template is None:
        return None

    def resolve(name: str) -> tuple[str, ...]:
        side, _, path = name.partition(".")
        return field_values(cause if side == "cause" else effect, path, view.subsystem_of)

    return render(template, resolve)


def mechanism_names(view: WorldView, rules: Rules) -> tuple[str, ...]:
    """The mechanism options of the world's causal rules (named, or stated by effects), then ``no_causal_link``."""
    names = set()
    for rule in rules.causal:
        if rule.mechanism_fact is None:
            names.add(rule.name)
            continue
        for effect in view.events_by_type.get(rule.effect_event_type, []):
            stated = _stated_mechanism(view, rule, effect)
            if stated is not None:
                names.add(stated[0])
    return tuple(sorted(names)) + (NO_LINK_MECHANISM,)


def counterfactual_candidates(view: WorldView, rules: Rules, rng: random.Random) -> list[Question]:
    """Candidate causal and decoy questions for every causal rule."""
    out: list[Question] = []
    mechanisms = mechanism_names(view, rules)
    lookup = view.subsystem_of
    for rule in rules.causal:
        causes = view.events_by_type.get(rule.cause_event_type, [])
        times = [c.ts for c in causes]
        effects = at_most(view.events_by_type.get(rule.effect_event_type, []), MAX_EFFECTS, rng)
        for effect in effects:
            lo = 0 if rule.max_gap is None else bisect_left(times, effect.ts - rule.max_gap)
            hi = bisect_left(times, effect.ts)        # a cause comes strictly before its effect
            window = [c for c in causes[lo:hi] if c.event_id != effect.event_id and rule.matches(c, lookup)]
            true = [c for c in window if rule.joined(c, effect, lookup)]
            decoys = [c for c in window if not any(r.joined(c, effect, lookup) for r in rules.causal
                                                    if r.cause_event_type == c.type)]
            nearest_true = max((c.ts for c in true), default=None)
            for cause in true:
                closer_decoy = any(d.ts > cause.ts for d in decoys)
                q = _question(view, rule, cause, effect, True, "hard" if closer_decoy else "easy", rng, mechanisms)
                if q is not None:
                    out.append(q)
            decoys.sort(key=lambda d: (effect.ts - d.ts, d.event_id))
            for decoy in decoys[:1]:   # the decoy nearest the effect: what proximity would blame
                hard = nearest_true is None or decoy.ts > nearest_true
                q = _question(view, rule, decoy, effect, False, "hard" if hard else "easy", rng, mechanisms)
                if q is not None:
                    out.append(q)
    return out


def track_candidates(view: WorldView, rules: Rules, rng: random.Random, config: BuildConfig) -> list[Question]:
    """The Counterfactual track's candidates for a build (``counterfactual_candidates``)."""
    return counterfactual_candidates(view, rules, rng)
