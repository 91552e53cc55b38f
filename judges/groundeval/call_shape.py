"""The shape of a recorded tool call: what a well-formed call carries, and why one is malformed.

A call is an object with a string ``tool`` and an object ``args``; ``seq`` (an
integer), ``returned_ids`` (a list of strings), ``outcome`` (a string) and
``gates`` (an object of booleans) have those types when present. The scorer
and the trace verifier both ask here first, so agent output of any shape is
reported, never raised on.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

# (field, type, required: True always, False when scored (a claim may leave it out), None never — seq)
_CALL_FIELDS: tuple[tuple[str, type, bool | None], ...] = (("tool", str, True), ("args", dict, True), ("seq", int, None), ("returned_ids", list, False),
                ("outcome", str, False), ("gates", dict, False))
_KIND_NAMES: dict[type, str] = {str: "a string", dict: "an object", int: "an integer", list: "a list"}


def call_problem(call: Any, *, claim: bool = False) -> str | None:
    """Why one recorded call is malformed, or None.

    Always: an object with a string ``tool`` and an object ``args``; ``seq`` (an integer), ``returned_ids`` (a
    list of strings), ``outcome`` (a string) and ``gates`` (an object of booleans) have those types when
    present. A call as scored (``claim=False``: re-derived, or given straight to ``score_question``) must also
    carry ``returned_ids``, ``outcome`` and ``gates``; a trace's claim (``claim=True``) may leave them out.
    """
    if type(call) is not dict:
        return f"not an object (a {type(call).__name__})"
    for key, kind, required in _CALL_FIELDS:
        value: Any = call.get(key)
        if value is None:
            if required or (required is False and not claim):
                return f"no {key}"
        elif type(value) is not kind:
            return f"{key} is a {type(value).__name__}, not {_KIND_NAMES[kind]}"
        elif (problem := _item_problem(key, value)) is not None:
            return problem
    return None


def _item_problem(key: str, value: Any) -> str | None:
    """Why a list or object field of the right type holds an item of the wrong one (returned_ids, gates), or None."""
    if key == "returned_ids" and not only_strings(value):
        return f"returned_ids holds a {next(type(i).__name__ for i in value if type(i) is not str)}, not only strings"
    if key == "gates" and not _only_booleans(value):
        return f"a gate is a {next(type(v).__name__ for v in value.values() if type(v) is not bool)}, not a boolean"
    return None


def well_shaped(calls: list[Any]) -> bool:
    """``call_problem`` finds nothing in any call (inline: the scorer's hot path; any doubt, ``trace_problems`` says why)."""
    try:
        for call in calls:
            seq = call.get("seq")
            returned = call["returned_ids"]
            gates = call["gates"]
            if (call["tool"].__class__ is not str or call["args"].__class__ is not dict
                    or call["outcome"].__class__ is not str or returned.__class__ is not list
                    or gates.__class__ is not dict or (seq is not None and seq.__class__ is not int)
                    or not _only_booleans(gates) or not only_strings(returned)):
                return False
    except (KeyError, TypeError, AttributeError):
        return False
    return True


_CLAIM_FIELDS = itemgetter("tool", "args", "seq", "returned_ids", "outcome", "gates")


def claim_parts(call: Any) -> tuple[str, dict[str, Any], tuple[str, ...] | None, str | None,
                                    tuple[tuple[str, bool], ...] | None] | None:
    """A trace call's claim read in the pass that checks its shape: ``(tool, args, returned ids, outcome, gates'
    items)`` (the last three None when left out), or None when ``call_problem(call, claim=True)`` finds a problem."""
    if call.__class__ is not dict:
        return None
    try:
        tool, args, seq, returned, outcome, gates = _CLAIM_FIELDS(call)     # all present: the common case, in C
    except KeyError:
        get = call.get
        tool, args, seq, returned, outcome, gates = (get("tool"), get("args"), get("seq"), get("returned_ids"),
                                                     get("outcome"), get("gates"))
    if tool.__class__ is not str or args.__class__ is not dict or (seq is not None and seq.__class__ is not int):
        return None
    if returned is not None:
        if returned.__class__ is not list:
            return None
        returned = tuple(returned)
        if not _STR.issuperset(map(type, returned)):
            return None
    if outcome is not None and outcome.__class__ is not str:
        return None
    if gates is not None:
        if gates.__class__ is not dict or not _BOOL.issuperset(map(type, gates.values())):
            return None
        gates = tuple(gates.items())
    return tool, args, returned, outcome, gates


class ShapedCalls(list):
    """Calls the trace verifier built itself from a well-formed claim: their shape needs no second check."""

    __slots__ = ()


_BOOL, _STR = frozenset((bool,)), frozenset((str,))


def _only_booleans(gates: dict[str, Any]) -> bool:
    return _BOOL.issuperset(map(type, gates.values()))


def only_strings(items: Any) -> bool:
    """Is every item exactly a ``str`` (no subclass)? (True when there are none.)"""
    return _STR.issuperset(map(type, items))


def trace_problems(calls: Any, *, claim: bool = False) -> list[dict[str, Any]]:
    """Every malformed call of a trace (``{"call": position, "problem": reason}``); one entry if it is not a list."""
    if not isinstance(calls, list):
        return [{"call": None, "problem": f"the trace is a {type(calls).__name__}, not a list of calls"}]
    if (None not in map(claim_parts, calls)) if claim else well_shaped(calls):      # the common case: no reasons built
        return []
    out = []
    for position, call in enumerate(calls, start=1):
        problem = call_problem(call, claim=claim)
        if problem is not None:
            out.append({"call": position, "problem": problem})
    return out
