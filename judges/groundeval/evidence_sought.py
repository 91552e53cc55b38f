"""Was evidence sought? The test a trace (tool mode) or a citation list (context mode) must pass to earn trajectory credit.

A question's scope is what it is about and where its evidence lies: the
records its subject names (the entity, the cause and effect, the trigger),
the selectors of its required search space, and every artifact of its
required, permitted, cause and effect evidence. In tool mode a call is
relevant when its query names something in scope, the id it fetches is in
scope, or what it returned is. In context mode the agent's own acts are its
citations: a cited artifact in scope, or a cited search (``search:<subsystem>``
/ ``search:*``) of the context whose query or results are in scope.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from judges.groundeval.runtime import tokenize

_SUBJECT_IDS = ("entity", "cause_entity", "effect_entity", "trigger_entity", "about")
_SUBJECT_LISTS = ("selectors", "trigger_records", "artifacts", "cause_records", "effect_records")


def subject_scope(subject: Mapping[str, Any] | None) -> set[str]:
    """The record ids a contract's subject names, lower-cased."""
    out: set[str] = set()
    if not subject:
        return out
    for key in _SUBJECT_IDS:
        entity = subject.get(key)
        if isinstance(entity, Mapping) and isinstance(entity.get("id"), str):
            out.add(entity["id"].lower())
    for key in _SUBJECT_LISTS:
        values = subject.get(key)
        if isinstance(values, list):
            out.update(v.lower() for v in values if isinstance(v, str))
    return {s for s in out if s}


def artifact_of(ref: str) -> str:
    """``ID@N`` or ``ID`` as the lower-cased artifact id."""
    return ref.rsplit("@", 1)[0].lower()


def _touches(ids: Iterable[str], scope: frozenset[str]) -> bool:
    return any(artifact_of(ref) in scope for ref in ids if isinstance(ref, str))


def relevant_call(call: Mapping[str, Any], scope: frozenset[str]) -> bool:
    """Does this call's query, requested id or result touch the scope?"""
    args = call["args"]
    query = args.get("query")
    if isinstance(query, str) and not scope.isdisjoint(tokenize(query)):
        return True
    requested = args.get("artifact_id")
    if isinstance(requested, str) and artifact_of(requested) in scope:
        return True
    return _touches(call["returned_ids"], scope)


def sought_in_tool_mode(calls: list[dict[str, Any]], scope: frozenset[str]) -> bool:
    """At least one recorded call is relevant."""
    return any(relevant_call(call, scope) for call in calls)


def sought_in_context(calls: list[dict[str, Any]], cited: Iterable[str], cited_searches: Iterable[str],
                      scope: frozenset[str]) -> bool:
    """The answer cites an artifact in scope, or one of the context's searches that was relevant."""
    if _touches(cited, scope):
        return True
    wanted = set(cited_searches)
    if not wanted:
        return False
    for call in calls:
        if call["tool"] != "search_artifacts":
            continue
        sub = call["args"].get("subsystem")
        if (sub if isinstance(sub, str) else "*") in wanted and relevant_call(call, scope):
            return True
    return False
