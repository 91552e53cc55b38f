"""The built-in GroundEval agents: oracle, leaky, lazy, proximity, bm25 and zero-shot.

Each agent answers one contract, in tool mode through a ``GatedRuntime`` or
in context mode from a ``Context``. Only ``oracle`` reads the truth file, and
only to choose what to fetch and say (it proves that a valid path exists);
its evidence still comes through the gates. ``leaky`` reads the raw world
files beside the runtime (a side channel, as a misconfigured deployment would
allow) and also asks the runtime for everything it used, so its trace shows
every gate it broke. The others read only what an LLM agent would read.
How each agent reads a track is that track's behaviour (``track_behaviour.py``;
orgbench's tracks: ``track_readings.py``), never a branch on its name here.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping

from benchmark_builders.groundeval.contracts import NO_LINK_MECHANISM, Contract, Truth
from benchmark_builders.groundeval.tracks import track
from judges.groundeval.agent_registry import BUILTIN_AGENTS as BUILTIN_AGENTS  # named once, in OWN_AGENTS
from judges.groundeval.context import Context, search_citation
from judges.groundeval.runtime import GatedRuntime, tokenize
from judges.groundeval.track_behaviour import behaviour
from orgbench.core.clock import parse_ts
from simulator.world import World



def _answer(contract: Contract, **fields: Any) -> dict[str, Any]:
    """The track's "no" answer (``Track.blank_answer``) with ``fields`` set."""
    base = track(contract.track).blank_answer(contract.subject)
    base.update(fields)
    return base


def _mechanism(contract: Contract, text: str = "") -> str:
    """The mechanism option the text names (spaces or underscores), else the first option."""
    names = [m for m in contract.options.get("mechanisms", []) if m != NO_LINK_MECHANISM]
    lowered = text.lower()
    for name in names:
        if name.lower() in lowered or name.lower().replace("_", " ") in lowered:
            return name
    return names[0] if names else "causal_link"


# -- a small reading toolkit shared by the heuristic agents --------------------------------------------

class Reader:
    """What a heuristic agent has read: through the runtime (tool mode) or from its context."""

    def __init__(self, runtime: GatedRuntime | None = None, context: Context | None = None) -> None:
        self.runtime = runtime
        self.context = context
        self.read: dict[str, dict[str, Any]] = {}
        if context is not None:
            for item in context.items:
                self.read[item["id"]] = item

    def search(self, query: str, subsystem: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        """Search hits (tool mode) or the context items that share a term with the query (context mode)."""
        if self.runtime is not None:
            return list(self.runtime.search_artifacts(query, subsystem, limit).get("results", ()))
        terms = set(tokenize(query))
        hits = [i for i in self.read.values() if (subsystem is None or i["subsystem"] == subsystem)
                and terms & set(tokenize(f"{i['artifact_id']} {i['title']} {i['body']}"))]
        return hits[:limit]

    def fetch(self, ref: str) -> dict[str, Any] | None:
        """The artifact if it can be read, else None."""
        if self.runtime is not None:
            artifact = self.runtime.fetch_artifact(ref).get("artifact")
            if artifact is not None:
                self.read[artifact["id"]] = artifact
            return artifact
        if ref in self.read:
            return self.read[ref]
        current = [i for i in self.read.values() if i["artifact_id"] == ref]
        return max(current, key=lambda i: i["version"]) if current else None


def _text(artifact: Mapping[str, Any]) -> str:
    facts = " ".join(f"{k} {v}" for k, v in sorted(artifact.get("facts", {}).items()))
    return f"{artifact['title']} {artifact.get('body', artifact.get('snippet', ''))} {facts}".lower()


def _mentions(artifact: Mapping[str, Any], needle: str) -> bool:
    return needle.lower() in set(tokenize(_text(artifact)))


def _states(artifact: Mapping[str, Any], fact: str, value: str) -> bool:
    """Whether the record says ``fact`` is ``value``: its fact of that name, else its text."""
    facts = artifact.get("facts", {})
    return str(facts[fact]) == value if fact in facts else value.lower() in _text(artifact)


def _event_perspective(contract: Contract, reader: Reader) -> dict[str, Any]:
    """Perspective on a domain's event: search for the records the question names and read those it finds; known if
    one states the fact."""
    subject = contract.subject
    fact, value = str(subject["fact"]), str(subject["value"])
    records = list(subject["artifacts"])
    hits = reader.search(f"{' '.join(records)} {value} {fact.replace('_', ' ')}", None, 10)
    read = [a for a in (reader.fetch(hit["id"]) for hit in hits if hit["artifact_id"] in records) if a is not None]
    evidence = [a["id"] for a in read if _states(a, fact, value)]
    return _answer(contract, could_actor_have_known=bool(evidence), evidence_artifacts=evidence,
                   reasoning="a record it could read states it" if evidence
                   else "no record it could read states it" if read else "it could read none of the records")


def heuristic_perspective(contract: Contract, reader: Reader) -> dict[str, Any]:
    if contract.subject.get("artifacts"):      # a domain's event: named by the records it touched
        return _event_perspective(contract, reader)
    entity = contract.subject["entity"]["id"]
    value = str(contract.subject["value"])
    hits = reader.search(f"{entity} {value} {contract.subject['fact'].replace('_', ' ')}", None, 10)
    evidence = []
    for hit in hits:
        artifact = reader.fetch(hit["id"])
        if artifact is None:
            continue
        text = _text(artifact)
        if entity.lower() in text and value.lower() in text:
            evidence.append(artifact["id"])
    looked: list[str] = []
    if reader.context is not None and not evidence:   # context mode: cite the search of the record it read through
        looked = [c for c in (search_citation(None),) if c in {s["id"] for s in reader.context.searches}]
    return _answer(contract, could_actor_have_known=bool(evidence), evidence_artifacts=evidence + looked,
                   reasoning="found the fact in visible artifacts" if evidence else "no visible artifact states it")


def _entity_artifact(reader: Reader, entity_id: str) -> dict[str, Any] | None:
    artifact = reader.fetch(entity_id)
    if artifact is not None:
        return artifact
    for hit in reader.search(entity_id, None, 5):
        if _mentions(hit, entity_id) or hit["artifact_id"] == entity_id:
            return reader.fetch(hit["id"])
    return None


def event_records(reader: Reader, refs: list[str]) -> list[dict[str, Any]]:
    """The records of a domain's event that ``reader`` can read, in the question's order."""
    return [a for a in (reader.fetch(ref) for ref in refs) if a is not None]


def _event_counterfactual(contract: Contract, reader: Reader) -> dict[str, Any]:
    """bm25 on a domain's events: search both events' records; linked when a record it reads names one of each."""
    subject = contract.subject
    cause_refs, effect_refs = list(subject["cause_records"]), list(subject.get("effect_records") or [])
    read = [a for a in (reader.fetch(hit["id"]) for hit in reader.search(" ".join(effect_refs + cause_refs), None, 10))
            if a is not None]

    def names(artifact: Mapping[str, Any], refs: list[str]) -> bool:
        return any(artifact["artifact_id"] == ref or _mentions(artifact, ref) for ref in refs)

    joining = [a for a in read if names(a, cause_refs) and names(a, effect_refs)]
    linked = bool(joining)
    people = sorted({a.get("author", "") for a in joining} - {""})
    return _answer(contract, outcome_changed=linked,
                   causal_mechanism=_mechanism(contract, " ".join(map(_text, joining))) if linked else NO_LINK_MECHANISM,
                   mechanism_direction="cause_to_effect" if linked else "no_causal_link",
                   evidence_artifacts=[a["id"] for a in (joining or read[:2])], actors=people,
                   reasoning=f"{', '.join(a['artifact_id'] for a in joining)} names both" if linked
                   else "no record it found names both")


def cause_and_effect(contract: Contract, reader: Reader) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The cause's and the effect's record: the entity's own, or (a domain's events) the first it can read."""
    subject = contract.subject
    if subject.get("cause_records"):
        causes = event_records(reader, subject["cause_records"])
        effects = event_records(reader, subject.get("effect_records") or [])
        return (causes[0] if causes else None), (effects[0] if effects else None)
    return (_entity_artifact(reader, subject["cause_entity"]["id"]),
            _entity_artifact(reader, subject["effect_entity"]["id"]))


def heuristic_counterfactual(contract: Contract, reader: Reader) -> dict[str, Any]:
    if contract.subject.get("cause_records"):      # a domain's events: named by the records they touched
        return _event_counterfactual(contract, reader)
    cause_id = contract.subject["cause_entity"]["id"]
    effect_id = contract.subject["effect_entity"]["id"]
    cause = _entity_artifact(reader, cause_id)
    effect = _entity_artifact(reader, effect_id)
    evidence = [a["id"] for a in (cause, effect) if a is not None]
    linked = effect is not None and _mentions(effect, cause_id)
    people = sorted({a.get("author", "") for a in (cause, effect) if a} - {""})
    text = " ".join(_text(a) for a in (cause, effect) if a is not None)
    return _answer(contract, outcome_changed=linked, causal_mechanism=_mechanism(contract, text) if linked else NO_LINK_MECHANISM,
                   mechanism_direction="cause_to_effect" if linked else "no_causal_link",
                   evidence_artifacts=evidence, actors=people,
                   reasoning="the effect's record names the cause" if linked else "no record joins them")


def _heuristic_silence(contract: Contract, reader: Reader, subsystems: tuple[str, ...]) -> dict[str, Any]:
    selectors = contract.subject.get("selectors") or [contract.subject["trigger_entity"]["id"]]
    label = str(contract.subject.get("response", "")).lower()
    label_terms = {t for t in tokenize(label) if len(t) > 3}
    found = []
    after = parse_ts(contract.subject["trigger_ts"])
    for subsystem in subsystems:
        for hit in reader.search(f"{selectors[0]} {label}", subsystem, 10):
            title_terms = set(tokenize(f"{hit['title']} {hit['kind']}"))
            if (_mentions(hit, selectors[0]) and label_terms & title_terms
                    and parse_ts(hit["created_at"]) > after):
                found.append(hit["id"])
    looked: list[str] = []
    if reader.context is not None:   # context mode: cite the context's searches it read through
        searched = {s["id"] for s in reader.context.searches}
        looked = [c for c in (search_citation(s) for s in subsystems) if c in searched]
    return _answer(contract, exists=bool(found), evidence_artifacts=sorted(set(found)) + looked,
                   reasoning="found a matching record" if found else "searched and found none")


def heuristic_silence_in_role(contract: Contract, reader: Reader) -> dict[str, Any]:
    """bm25's Silence reading: the contract's own subsystems."""
    return _heuristic_silence(contract, reader, contract.subsystems)


# -- the agents ----------------------------------------------------------------------------------------

def read_as(agent: str, contract: Contract, reader: Reader, fallback: str | None = "bm25") -> dict[str, Any]:
    """How ``agent`` reads the contract's track (its track behaviour's reading; else ``fallback``'s; else "no")."""
    readings = behaviour(contract.track).readings
    reading = readings.get(agent) or (readings.get(fallback) if fallback else None)
    if reading is None:
        return _answer(contract, reasoning=f"{agent} has no reading of the {contract.track} track")
    return reading(contract, reader)


def bm25_agent(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
    """Retrieval within the gates: search, fetch the hits, and answer from what was read."""
    return read_as("bm25", contract, Reader(runtime, context))


def _moment(artifact: Mapping[str, Any], before: datetime) -> datetime:
    """When a record says its thing happened: the latest ``*_at`` fact not after ``before``, else its creation."""
    found = []
    for key, value in artifact.get("facts", {}).items():
        if key.endswith("_at") and isinstance(value, str):
            try:
                moment = parse_ts(value)
            except ValueError:
                continue
            if moment <= before:
                found.append(moment)
    return max(found) if found else parse_ts(artifact["created_at"])


def proximity_agent(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
    """Like bm25, but calls the asked cause causal only if no record of its kind came closer before the effect."""
    return read_as("proximity", contract, Reader(runtime, context))


def proximity_counterfactual(contract: Contract, reader: Reader) -> dict[str, Any]:
    """proximity's Counterfactual reading: causal only if no record of the cause's kind came closer."""
    subject = contract.subject
    cause, effect = cause_and_effect(contract, reader)
    if cause is None or effect is None:
        return _answer(contract, reasoning="could not read both events")
    effect_at = parse_ts(subject["effect_ts"])
    cause_at = parse_ts(subject["cause_ts"])
    kind = subject["cause_entity"]["kind"]
    nearer = []
    for hit in reader.search(f"{kind} {effect_at.date().isoformat()} {cause_at.date().isoformat()}", cause["subsystem"], 30):
        if hit["artifact_id"] == cause["artifact_id"] or hit["kind"] != cause["kind"]:
            continue
        other = reader.fetch(hit["id"])
        if other is not None and cause_at < _moment(other, effect_at) <= effect_at:
            nearer.append(other["artifact_id"])
    linked = not nearer
    mechanism = _mechanism(contract, f"{_text(cause)} {_text(effect)}")
    return _answer(contract, outcome_changed=linked, causal_mechanism=mechanism if linked else NO_LINK_MECHANISM,
                   mechanism_direction="cause_to_effect" if linked else "no_causal_link",
                   evidence_artifacts=[cause["id"], effect["id"]],
                   reasoning=f"{', '.join(sorted(nearer))} came closer before the effect" if nearer
                   else "nothing of its kind came closer before the effect")


def lazy_agent(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
    """Claims that nothing happened and nothing was knowable, without looking."""
    return _answer(contract, reasoning="nothing suggests it")


def zero_shot_agent(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
    """No tools and no reading: the prior that the question's premise holds (its track's ``zero-shot`` reading)."""
    return read_as("zero-shot", contract, Reader(), fallback=None)


def prior_perspective(contract: Contract, reader: Reader) -> dict[str, Any]:
    """zero-shot on Perspective: people usually know such things."""
    return _answer(contract, could_actor_have_known=True, reasoning="people usually know such things")


def prior_counterfactual(contract: Contract, reader: Reader) -> dict[str, Any]:
    """zero-shot on Counterfactual: it came right after, so it caused it."""
    return _answer(contract, outcome_changed=True, causal_mechanism=_mechanism(contract),
                   mechanism_direction="cause_to_effect", reasoning="it came right after")


def prior_silence(contract: Contract, reader: Reader) -> dict[str, Any]:
    """zero-shot on Silence: it is normally done."""
    return _answer(contract, exists=True, reasoning="it is normally done")


def make_oracle(truth: Mapping[str, Truth]) -> Callable[..., dict[str, Any]]:
    """The oracle: chooses from the truth file, gathers its evidence through the gates."""

    def oracle(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
        gold = truth[contract.question_id]
        if runtime is not None:
            looks = behaviour(contract.track).oracle_looks
            if looks is not None:
                looks(contract, runtime)
            for item in gold.required_search_space:
                runtime.search_artifacts(str(item["selector"]), str(item["subsystem"]), 10)
            for ref in gold.required_evidence:
                runtime.fetch_artifact(ref)
        answer = dict(gold.gold)
        answer["evidence_artifacts"] = list(gold.required_evidence)
        if context is not None:   # context mode: where it looked is the context's searches of the search space
            searched = {s["id"] for s in context.searches}
            wanted = [search_citation(str(item["subsystem"])) for item in gold.required_search_space]
            wanted.append(search_citation(None))   # the unfiltered searches of the records the question names
            answer["evidence_artifacts"] += [c for c in dict.fromkeys(wanted) if c in searched]
        answer["reasoning"] = gold.why
        return answer

    return oracle


def oracle_looks_at_entity(contract: Contract, runtime: GatedRuntime) -> None:
    """The oracle on Perspective looks where the fact would be: a search for the record it is about."""
    entity = contract.subject.get("entity")
    if isinstance(entity, Mapping) and not runtime.search_artifacts(str(entity.get("id")), None, 10).get("results"):
        runtime.search_artifacts(contract.question, None, 5)


class RawWorld:
    """The raw world files the leaky agent reads beside the runtime: versions by entity and by id token."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.by_entity: dict[str, list] = {}
        self.by_token: dict[str, list] = {}
        for version in world.artifacts:
            self.by_entity.setdefault(version.entity.id, []).append(version)
            self.by_entity.setdefault(version.artifact_id, []).append(version)
            for token in set(tokenize(f"{version.title} {version.body}")):
                if "-" in token:   # ids only: what a selector looks like
                    self.by_token.setdefault(token, []).append(version)

    @staticmethod
    def touch(runtime: GatedRuntime | None, refs: list[str]) -> None:
        """Ask the runtime for every ref it used (so its trace shows each gate it broke)."""
        if runtime is not None:
            for ref in refs:
                runtime.fetch_artifact(ref)


def leaky_perspective(contract: Contract, raw: RawWorld, runtime: GatedRuntime | None) -> dict[str, Any]:
    """leaky on Perspective: every copy of the fact, then which the actor's role could have read in time."""
    subject = contract.subject
    stating = [v for v in raw.by_entity.get(subject["entity"]["id"], [])
               if str(v.facts.get(subject["fact"])) == str(subject["value"])]
    refs = sorted({v.ref for v in stating})
    raw.touch(runtime, refs)
    before = [v for v in stating if v.created_at <= contract.as_of]
    in_role = [v for v in before if v.subsystem in contract.subsystems]
    blocked = sorted({v.subsystem for v in before if v.subsystem not in contract.subsystems})
    return _answer(contract, could_actor_have_known=bool(in_role), evidence_artifacts=refs,
                   blocked_subsystems=blocked if not in_role else [], reasoning="read every copy of the fact")


def leaky_counterfactual(contract: Contract, raw: RawWorld, runtime: GatedRuntime | None) -> dict[str, Any]:
    """leaky on Counterfactual: both records in full; linked when the effect's names the cause."""
    cause_id = contract.subject["cause_entity"]["id"]
    effect_id = contract.subject["effect_entity"]["id"]
    cause = raw.by_entity.get(cause_id, [])
    effect = raw.by_entity.get(effect_id, [])
    refs = sorted({v.ref for v in cause + effect})
    raw.touch(runtime, refs)
    linked = any(cause_id in map(str, v.facts.values()) or cause_id in v.body for v in effect)
    people = sorted({v.author for v in cause + effect})
    text = " ".join(f"{v.body} {v.facts}" for v in effect)
    return _answer(contract, outcome_changed=linked,
                   causal_mechanism=_mechanism(contract, text) if linked else NO_LINK_MECHANISM,
                   mechanism_direction="cause_to_effect" if linked else "no_causal_link",
                   evidence_artifacts=refs, actors=people, reasoning="read both records in full")


def leaky_silence(contract: Contract, raw: RawWorld, runtime: GatedRuntime | None) -> dict[str, Any]:
    """leaky on Silence: every later record naming the trigger and the response, searched in every subsystem."""
    selector = (contract.subject.get("selectors") or [contract.subject["trigger_entity"]["id"]])[0]
    label = {t for t in tokenize(str(contract.subject.get("response", ""))) if len(t) > 3}
    after = parse_ts(contract.subject["trigger_ts"])
    responses = [v for v in raw.by_token.get(selector.lower(), ()) if v.created_at > after
                 and label & set(tokenize(f"{v.title} {v.kind} {v.body}"))]
    refs = sorted({v.ref for v in responses})
    for subsystem in sorted({v.subsystem for v in raw.world.artifacts}):
        if runtime is not None:
            runtime.search_artifacts(selector, subsystem, 10)
    raw.touch(runtime, refs)
    in_time = [v.ref for v in responses if v.created_at <= contract.as_of]
    return _answer(contract, exists=bool(in_time), evidence_artifacts=refs, reasoning="looked everywhere")


def make_leaky(world: World) -> Callable[..., dict[str, Any]]:
    """The leaky agent: reads the raw world (future and forbidden included) and asks the runtime for all it used."""
    raw = RawWorld(world)

    def leaky(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
        reading = behaviour(contract.track).leaky
        if reading is None:
            return _answer(contract, reasoning=f"leaky has no reading of the {contract.track} track")
        return reading(contract, raw, runtime)

    return leaky


def oracle_for(suite: Path, world: World) -> Callable[..., dict[str, Any]]:
    """The oracle for ``suite``: it reads the suite's truth."""
    from judges.groundeval.traces import load_truth

    return make_oracle(load_truth(suite))


def leaky_for(suite: Path, world: World) -> Callable[..., dict[str, Any]]:
    """The leaky agent for the suite's corpus ``world``."""
    return make_leaky(world)


def _same(procedure: Callable[..., dict[str, Any]]) -> Callable[[Path, World], Callable[..., dict[str, Any]]]:
    """The factory of an agent that reads nothing of the suite beyond its contracts."""
    return lambda suite, world: procedure


lazy_for, proximity_for, bm25_for, zero_shot_for = map(_same, (lazy_agent, proximity_agent, bm25_agent,
                                                               zero_shot_agent))
