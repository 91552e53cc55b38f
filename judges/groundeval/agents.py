"""The built-in GroundEval agents: oracle, leaky, lazy, proximity, bm25 and zero-shot.

Each agent answers one contract, in tool mode through a ``GatedRuntime`` or
in context mode from a ``Context``. Only ``oracle`` reads the truth file, and
only to choose what to fetch and say (it proves that a valid path exists);
its evidence still comes through the gates. ``leaky`` reads the raw world
files beside the runtime (a side channel, as a misconfigured deployment would
allow) and also asks the runtime for everything it used, so its trace shows
every gate it broke. The others read only what an LLM agent would read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Mapping

from benchmark_builders.groundeval.contracts import (
    COUNTERFACTUAL, NO_LINK_MECHANISM, PERSPECTIVE, Contract, Truth,
)
from judges.groundeval.context import Context, search_citation
from judges.groundeval.runtime import GatedRuntime, tokenize
from orgbench.core.clock import parse_ts
from simulator.world import World

BUILTIN_AGENTS = ("oracle", "leaky", "lazy", "proximity", "bm25", "follow", "zero-shot")   # follow: follow_agent.py


def _answer(contract: Contract, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"evidence_artifacts": [], "reasoning": ""}
    if contract.track == PERSPECTIVE:
        base |= {"could_actor_have_known": False, "blocked_subsystems": []}
    elif contract.track == COUNTERFACTUAL:
        base |= {"outcome_changed": False, "causal_mechanism": NO_LINK_MECHANISM,
                 "cause_event_id": contract.subject.get("cause_event_id", ""),
                 "effect_event_id": contract.subject.get("effect_event_id", ""),
                 "mechanism_direction": "no_causal_link", "actors": []}
    else:
        base |= {"exists": False}
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


def _heuristic_perspective(contract: Contract, reader: Reader) -> dict[str, Any]:
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


def _heuristic_counterfactual(contract: Contract, reader: Reader) -> dict[str, Any]:
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


# -- the agents ----------------------------------------------------------------------------------------

TrackReader = Callable[[Contract, Reader], dict[str, Any]]


def read_by_track(contract: Contract, reader: Reader, perspective: TrackReader, counterfactual: TrackReader,
                  silence: TrackReader) -> dict[str, Any]:
    """The answer of the reading strategy for the contract's track (silence for every other track)."""
    if contract.track == PERSPECTIVE:
        return perspective(contract, reader)
    if contract.track == COUNTERFACTUAL:
        return counterfactual(contract, reader)
    return silence(contract, reader)


def bm25_agent(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
    """Retrieval within the gates: search, fetch the hits, and answer from what was read."""
    return read_by_track(contract, Reader(runtime, context), _heuristic_perspective, _heuristic_counterfactual,
                         lambda c, reader: _heuristic_silence(c, reader, c.subsystems))


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
    if contract.track != COUNTERFACTUAL:
        return bm25_agent(contract, runtime, context)
    reader = Reader(runtime, context)
    subject = contract.subject
    cause = _entity_artifact(reader, subject["cause_entity"]["id"])
    effect = _entity_artifact(reader, subject["effect_entity"]["id"])
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
    """No tools and no reading: the prior that the question's premise holds."""
    if contract.track == PERSPECTIVE:
        return _answer(contract, could_actor_have_known=True, reasoning="people usually know such things")
    if contract.track == COUNTERFACTUAL:
        return _answer(contract, outcome_changed=True, causal_mechanism=_mechanism(contract),
                       mechanism_direction="cause_to_effect", reasoning="it came right after")
    return _answer(contract, exists=True, reasoning="it is normally done")


def make_oracle(truth: Mapping[str, Truth]) -> Callable[..., dict[str, Any]]:
    """The oracle: chooses from the truth file, gathers its evidence through the gates."""

    def oracle(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
        gold = truth[contract.question_id]
        if runtime is not None:
            entity = contract.subject.get("entity") if contract.track == PERSPECTIVE else None
            if isinstance(entity, Mapping):   # look where the fact would be: search the record it is about
                if not runtime.search_artifacts(str(entity.get("id")), None, 10).get("results"):
                    runtime.search_artifacts(contract.question, None, 5)
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


def make_leaky(world: World) -> Callable[..., dict[str, Any]]:
    """The leaky agent: reads the raw world (future and forbidden included) and asks the runtime for all it used."""
    by_entity: dict[str, list] = {}
    by_token: dict[str, list] = {}
    for version in world.artifacts:
        by_entity.setdefault(version.entity.id, []).append(version)
        by_entity.setdefault(version.artifact_id, []).append(version)
        for token in set(tokenize(f"{version.title} {version.body}")):
            if "-" in token:   # ids only: what a selector looks like
                by_token.setdefault(token, []).append(version)

    def touch(runtime: GatedRuntime | None, refs: list[str]) -> None:
        if runtime is not None:
            for ref in refs:
                runtime.fetch_artifact(ref)

    def leaky(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
        as_of: datetime = contract.as_of
        if contract.track == PERSPECTIVE:
            subject = contract.subject
            stating = [v for v in by_entity.get(subject["entity"]["id"], [])
                       if str(v.facts.get(subject["fact"])) == str(subject["value"])]
            refs = sorted({v.ref for v in stating})
            touch(runtime, refs)
            before = [v for v in stating if v.created_at <= as_of]
            in_role = [v for v in before if v.subsystem in contract.subsystems]
            blocked = sorted({v.subsystem for v in before if v.subsystem not in contract.subsystems})
            return _answer(contract, could_actor_have_known=bool(in_role), evidence_artifacts=refs,
                           blocked_subsystems=blocked if not in_role else [], reasoning="read every copy of the fact")
        if contract.track == COUNTERFACTUAL:
            cause_id = contract.subject["cause_entity"]["id"]
            effect_id = contract.subject["effect_entity"]["id"]
            cause = by_entity.get(cause_id, [])
            effect = by_entity.get(effect_id, [])
            refs = sorted({v.ref for v in cause + effect})
            touch(runtime, refs)
            linked = any(cause_id in map(str, v.facts.values()) or cause_id in v.body for v in effect)
            people = sorted({v.author for v in cause + effect})
            text = " ".join(f"{v.body} {v.facts}" for v in effect)
            return _answer(contract, outcome_changed=linked,
                           causal_mechanism=_mechanism(contract, text) if linked else NO_LINK_MECHANISM,
                           mechanism_direction="cause_to_effect" if linked else "no_causal_link",
                           evidence_artifacts=refs, actors=people, reasoning="read both records in full")
        selector = (contract.subject.get("selectors") or [contract.subject["trigger_entity"]["id"]])[0]
        label = {t for t in tokenize(str(contract.subject.get("response", ""))) if len(t) > 3}
        after = parse_ts(contract.subject["trigger_ts"])
        responses = [v for v in by_token.get(selector.lower(), ()) if v.created_at > after
                     and label & set(tokenize(f"{v.title} {v.kind} {v.body}"))]
        refs = sorted({v.ref for v in responses})
        for subsystem in sorted({v.subsystem for v in world.artifacts}):
            if runtime is not None:
                runtime.search_artifacts(selector, subsystem, 10)
        touch(runtime, refs)
        in_time = [v.ref for v in responses if v.created_at <= as_of]
        return _answer(contract, exists=bool(in_time), evidence_artifacts=refs, reasoning="looked everywhere")

    return leaky


AGENTS: dict[str, Callable[..., dict[str, Any]]] = {
    "lazy": lazy_agent, "proximity": proximity_agent, "bm25": bm25_agent, "zero-shot": zero_shot_agent,
}
