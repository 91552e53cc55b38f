"""Perspective questions: as of T, could actor A have known fact F?

A fact is one (entity, key, value) that artifact versions state. Positives
pick an actor who could see the entity's own record state it at T (that
version is the required evidence; other visible statements are permitted); temporal negatives pick a
T before the first statement, for an actor whose role would otherwise have
shown it; permission negatives pick a T after it was stated, for an actor whom
the policy kept from every statement (role, private space, audience, not yet
joined or already left). Participation in an event opens its artifacts.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from benchmark_builders.groundeval.event_facts import FactSource, event_facts
from benchmark_builders.groundeval.contracts import (
    PERSPECTIVE, BuildConfig, Contract, Question, Rules, Truth, question_id,
)
from benchmark_builders.groundeval.worldview import WorldView, floor_minute, when
from simulator.model import ArtifactVersion
from simulator.policy import SUBSYSTEM

MAX_FACTS = 600
_SKIP_KEYS = frozenset({"id", "event_id", "artifact_id", "title", "body", "message_id", "email_id", "meeting_id",
                        "wiki_id", "hr_record_id", "channel", "subject", "summary", "revision_note", "symptom",
                        "mitigation", "to_external", "strategic", "name", "steps_completed"})


#: Kinds of entity a fact can be about; other artifacts (chat, email, notes) state facts about the entity they name.
RECORD_KINDS = frozenset({"case", "change", "incident", "postmortem", "account", "asset", "contact"})
_NAMED = (("case_id", "case"), ("incident_id", "incident"), ("change_id", "change"), ("account_id", "account"))


def subject_of(version: ArtifactVersion) -> tuple[str, str] | None:
    """The entity whose facts a version states: its own record, or the record a message names."""
    if version.entity.kind in RECORD_KINDS:
        return version.entity.kind, version.entity.id
    for key, kind in _NAMED:
        value = version.facts.get(key)
        if isinstance(value, str) and value:
            return kind, value
    return None


def _facts(view: WorldView) -> dict[tuple[str, str, str, str], FactSource]:
    """Facts of a simulated world: (entity kind, entity id, key, value), stated by the versions about that entity.

    A statement the world's truth sidecar labels stale, wrong or conflicting states no fact: truth never
    comes from it, and it is neither required nor permitted evidence.
    """
    stated: dict[tuple[str, str, str, str], list[ArtifactVersion]] = {}
    by_entity: dict[tuple[str, str], list[str]] = {}
    untrue = view.untrue
    for version in view.world.artifacts:
        subject = subject_of(version)
        if subject is None:
            continue
        if version.artifact_id not in by_entity.setdefault(subject, []):
            by_entity[subject].append(version.artifact_id)
        for key, value in version.facts.items():
            if key in _SKIP_KEYS or isinstance(value, bool) or not isinstance(value, (str, int, float)):
                continue
            if untrue and (version.ref, key) in untrue:
                continue
            text = str(value)
            if not text or len(text) > 60 or text in (subject[1], version.artifact_id):
                continue
            stated.setdefault((subject[0], subject[1], key, text), []).append(version)
    out = {}
    for fact, versions in stated.items():
        versions.sort(key=lambda v: (v.created_at, v.artifact_id, v.version))
        out[fact] = FactSource(tuple(versions), frozenset({fact[1]}), tuple(by_entity[(fact[0], fact[1])]),
                               {"entity": {"kind": fact[0], "id": fact[1]}, "fact": fact[2], "value": fact[3]})
    return out


def _refs(versions: list[ArtifactVersion]) -> tuple[str, ...]:
    latest: dict[str, ArtifactVersion] = {}
    for v in versions:
        if v.artifact_id not in latest or v.version > latest[v.artifact_id].version:
            latest[v.artifact_id] = v
    return tuple(sorted(v.ref for v in latest.values()))


def _question(view: WorldView, fact: tuple[str, str, str, str], source: FactSource, kind: str, difficulty: str,
              actor_id: str, at: datetime, gold: dict[str, Any], required: tuple[str, ...],
              permitted: tuple[str, ...], why: str) -> Question:
    entity_kind, entity_id, key, value = fact
    role = view.nearest_role(actor_id, at)   # never "not employed": that would give a negative away
    content = {"world": view.name, "kind": kind, "actor": actor_id, "as_of": when(at),
               "entity": [entity_kind, entity_id], "fact": key, "value": value}
    qid = question_id(PERSPECTIVE, content)
    text = ""
    wording = {
        "as_of": when(at), "actor": actor_id, "role": role, "fact": key.replace("_", " "),
        "entity_kind": entity_kind.replace("_", " "), "entity_id": entity_id, "value": value}
    if "event_type" in source.subject:     # an event of a domain: named by id, type and the records it names
        wording["entity_id"] = (f"{entity_id} ({source.subject['event_type'].replace('_', ' ')}, records "
                                f"{', '.join(source.subject['artifacts'])})")
    contract = Contract(qid, PERSPECTIVE, view.name, actor_id, role,
                        view.readable_subsystems(actor_id, at), at, text, dict(source.subject))
    truth = Truth(qid, PERSPECTIVE, kind, difficulty, gold, required, permitted, (), (), (), (), (), why)
    return Question(contract, truth, wording, str(source.subject.get("event_type", entity_kind)))


def perspective_candidates(view: WorldView, rng: random.Random, max_facts: int = MAX_FACTS,
                           actors_allowed: tuple[str, ...] | None = None) -> list[Question]:
    """Candidate Perspective questions of every kind (from at most ``max_facts`` sampled facts).

    Facts come from the events of an imported domain (``event_facts``), else from the world's records;
    ``actors_allowed`` limits whom the questions ask about.
    """
    stated = event_facts(view) if view.world.meta.get("source") == "groundeval-domain" else _facts(view)
    keys = sorted(stated)
    if len(keys) > max_facts:
        keys = sorted(rng.sample(keys, max_facts))
    out: list[Question] = []
    policy = view.policy
    pool = [a for a in view.actors if actors_allowed is None or a.actor_id in actors_allowed]
    for fact in keys:
        source = stated[fact]
        versions = list(source.versions)
        first = versions[0].created_at
        actors = list(pool)
        rng.shuffle(actors)

        def permitted(actor_id: str, at: datetime, required: tuple[str, ...]) -> tuple[str, ...]:
            others = [view.as_of(a, at) for a in source.related]
            extra = {v.ref for v in others if v is not None and policy.can_see(actor_id, v, at)}
            return tuple(sorted(extra | set(required)))

        # positive: someone could see a stating version at T
        at = floor_minute(first + timedelta(hours=rng.uniform(0.5, 72)) if first + timedelta(hours=72) <= view.end
                          else first + (view.end - first) * rng.random())
        said = [v for v in versions if v.created_at <= at]
        for actor in actors:
            seen = [v for v in said if policy.can_see(actor.actor_id, v, at)]
            record = [v for v in seen if v.artifact_id in source.primary]
            if record:   # the primary source is the entity's own record; other visible statements are permitted
                blocked_some = len(seen) < len(said)
                required = (max(record, key=lambda v: (v.created_at, v.artifact_id)).ref,)
                out.append(_question(view, fact, source, "positive", "hard" if blocked_some else "easy", actor.actor_id, at,
                                     {"could_actor_have_known": True, "blocked_subsystems": [],
                                      "evidence_artifacts": list(required)},
                                     required, permitted(actor.actor_id, at, _refs(seen)),
                                     f"{actor.actor_id} could see {', '.join(_refs(seen))} at {when(at)}"))
                break
        # temporal negative: before the first statement, for someone only the horizon stops
        lead = timedelta(hours=rng.uniform(1, 72))
        before = floor_minute(first - lead)
        if before > view.start:
            for actor in actors:
                if all(policy.violations(actor.actor_id, v, before) == ("horizon",) for v in versions[:1]):
                    out.append(_question(view, fact, source, "temporal_negative", "hard" if lead < timedelta(hours=12) else "easy",
                                         actor.actor_id, before,
                                         {"could_actor_have_known": False, "blocked_subsystems": [],
                                          "evidence_artifacts": []},
                                         (), permitted(actor.actor_id, before, ()),
                                         f"first stated at {when(first)}, after {when(before)}"))
                    break
        # permission negative: stated by T, but every statement withheld by actor or subsystem gates
        for actor in actors:
            gates = [policy.violations(actor.actor_id, v, at) for v in said]
            if said and all(g for g in gates):
                blocked = sorted({v.subsystem for v, g in zip(said, gates) if SUBSYSTEM in g})
                only_role = all(g == (SUBSYSTEM,) for g in gates)
                out.append(_question(view, fact, source, "permission_negative", "easy" if only_role else "hard",
                                     actor.actor_id, at,
                                     {"could_actor_have_known": False, "blocked_subsystems": blocked,
                                      "evidence_artifacts": []},
                                     (), permitted(actor.actor_id, at, ()),
                                     "withheld: " + "; ".join(f"{v.ref} by {'+'.join(g)}" for v, g in zip(said, gates))))
                break
    return out


def track_candidates(view: WorldView, rules: Rules, rng: random.Random, config: BuildConfig) -> list[Question]:
    """The Perspective track's candidates for a build: facts sampled in proportion to the count asked for."""
    return perspective_candidates(view, rng, max(60, 8 * int(config.counts.get(PERSPECTIVE, 0))),
                                  config.perspective_actors)
