"""The ``follow`` agent: answers by following join keys through the artifacts it reads, never the truth file.

Counterfactual: the cause is a record of some kind (``change CHG-7``); the
agent reads the effect's record and looks for that kind's join key
(``change_id``) on it — or, when the effect's record does not carry it, on the
records its other ``*_id`` facts name (an escalation email's ``incident_id``)
— and calls the link causal only if the stated value is the asked cause. A
record that merely mentions the cause (a suspect named in chat) does not
count. When no record states the key it falls back to bm25's reading (the
effect names the cause). Silence: it searches for the response by the
trigger's own selectors, then by the ids the trigger's record names.
Perspective: as bm25 (a track with no ``follow`` reading is read as bm25 reads it). On a domain's events (the
question names each event's records) the join key is the one by which the cause's record names itself.
"""

from __future__ import annotations

from typing import Any, Mapping

from benchmark_builders.groundeval.contracts import NO_LINK_MECHANISM, Contract
from judges.groundeval.agents import (
    Reader, _answer, _entity_artifact, cause_and_effect, heuristic_counterfactual, _mechanism, _mentions, _text, read_as,
)
from judges.groundeval.context import Context, search_citation
from judges.groundeval.runtime import GatedRuntime, tokenize
from orgbench.core.clock import parse_ts


def _named_ids(artifact: Mapping[str, Any], skip: set[str]) -> list[str]:
    """The ids a record's ``*_id`` facts name (not its own, not ``skip``), in key order."""
    out = []
    for key, value in sorted(artifact.get("facts", {}).items()):
        if key.endswith("_id") and isinstance(value, str) and value and value != artifact.get("artifact_id") \
                and value not in skip and value not in out:
            out.append(value)
    return out


def _own_key(artifact: Mapping[str, Any]) -> str | None:
    """The ``*_id`` fact by which a record names itself (``change_id`` on ``CHG-7``), if it has one."""
    return next((k for k, v in sorted(artifact.get("facts", {}).items())
                 if k.endswith("_id") and v == artifact.get("artifact_id")), None)


def follow_counterfactual(contract: Contract, reader: Reader) -> dict[str, Any]:
    subject = contract.subject
    cause_id, cause_kind = subject["cause_entity"]["id"], subject["cause_entity"]["kind"]
    key = f"{cause_kind}_id"
    if subject.get("cause_records"):   # a domain's events: the cause's record is named by its own key
        cause, effect = cause_and_effect(contract, reader)
        own = None if cause is None else _own_key(cause)
        if cause is None or own is None or set(subject["cause_records"]) & set(subject.get("effect_records") or []):
            return heuristic_counterfactual(contract, reader)
        cause_id, key = cause["artifact_id"], own
    else:
        effect = _entity_artifact(reader, subject["effect_entity"]["id"])
        cause = _entity_artifact(reader, cause_id)
    if effect is None or cause is None:
        return heuristic_counterfactual(contract, reader)
    stating = effect if effect.get("facts", {}).get(key) else None
    for other_id in ([] if stating else _named_ids(effect, {cause_id})):
        other = reader.fetch(other_id)
        if other is not None and other.get("facts", {}).get(key):
            stating = other
            break
    if stating is None:
        return heuristic_counterfactual(contract, reader)
    linked = stating["facts"][key] == cause_id
    evidence = list(dict.fromkeys(a["id"] for a in (cause, effect, stating)))
    people = sorted({a.get("author", "") for a in (cause, effect)} - {""})
    return _answer(contract, outcome_changed=linked,
                   causal_mechanism=_mechanism(contract, _text(stating)) if linked else NO_LINK_MECHANISM,
                   mechanism_direction="cause_to_effect" if linked else "no_causal_link",
                   evidence_artifacts=evidence, actors=people,
                   reasoning=f"{stating['artifact_id']} states {key} {stating['facts'][key]}")


def follow_silence(contract: Contract, reader: Reader) -> dict[str, Any]:
    subject = contract.subject
    selectors = list(subject.get("selectors") or [subject["trigger_entity"]["id"]])
    label_terms = {t for t in tokenize(str(subject.get("response", ""))) if len(t) > 3}
    after = parse_ts(subject["trigger_ts"])
    records = list(subject.get("trigger_records") or [subject["trigger_entity"]["id"]])
    followed: list[str] = []
    for record in records:
        artifact = reader.fetch(record)
        if artifact is not None:
            followed += [i for i in _named_ids(artifact, set(selectors)) if i not in followed]
    found: list[str] = []
    for needle in selectors + followed:
        for subsystem in contract.subsystems:
            for hit in reader.search(f"{needle} {subject.get('response', '')}", subsystem, 10):
                if (_mentions(hit, needle) and label_terms & set(tokenize(f"{hit['title']} {hit['kind']}"))
                        and parse_ts(hit["created_at"]) > after):
                    found.append(hit["id"])
        if found:
            break
    looked: list[str] = []
    if reader.context is not None:
        searched = {s["id"] for s in reader.context.searches}
        looked = [c for c in (search_citation(s) for s in contract.subsystems) if c in searched]
    return _answer(contract, exists=bool(found), evidence_artifacts=sorted(set(found)) + looked,
                   reasoning=("found it under " if found else "searched under ") + ", ".join(selectors + followed))


def follow_agent(contract: Contract, runtime: GatedRuntime | None, context: Context | None) -> dict[str, Any]:
    """Follow join keys through what it reads (see the module docstring)."""
    return read_as("follow", contract, Reader(runtime, context))


def follow_for(suite: Any, world: Any) -> Any:
    """The follow agent (it reads nothing of the suite beyond its contracts)."""
    return follow_agent
