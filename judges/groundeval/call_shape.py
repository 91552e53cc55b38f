"""The shape of a recorded tool call: what a well-formed call carries, and why one is malformed.

A call is an object with a string ``tool`` and an object ``args``; ``seq`` (an
integer), ``returned_ids`` (a list of strings), ``outcome`` (a string) and
``gates`` (an object of booleans) have those types when present. The scorer
and the trace verifier both ask here first, so agent output of any shape is
reported, never raised on.

``CALL_FIELDS`` states these rules once: ``call_problem`` reads them to say
why a call is malformed, and the checks of whole traces (``well_shaped``,
``claim_parts``) run them as code written out from the same table, which
builds no reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Callable, cast


@dataclass(frozen=True)
class CallField:
    """One field of a recorded call: its kind, the kind of its items (a list's, or an object's values), and
    whether it must be there in a trace's claim and in a call as scored (a null counts as left out)."""

    name: str
    kind: type
    item: type | None
    needed_in_claim: bool
    needed_to_score: bool
    item_problem: str = ""      # why it is malformed when an item is of another kind: "{}" takes that kind's name


CALL_FIELDS: tuple[CallField, ...] = (
    CallField("tool", str, None, True, True),
    CallField("args", dict, None, True, True),
    CallField("seq", int, None, False, False),
    CallField("returned_ids", list, str, False, True, "returned_ids holds a {}, not only strings"),
    CallField("outcome", str, None, False, True),
    CallField("gates", dict, bool, False, True, "a gate is a {}, not a boolean"),
)
_KIND_NAMES: dict[type, str] = {str: "a string", dict: "an object", int: "an integer", list: "a list"}


def call_problem(call: Any, *, claim: bool = False) -> str | None:
    """Why one recorded call is malformed (``CALL_FIELDS``), or None.

    A call as scored (``claim=False``: re-derived, or given straight to ``score_question``) must carry every field
    but ``seq``; a trace's claim (``claim=True``) may leave out ``returned_ids``, ``outcome`` and ``gates``.
    """
    if type(call) is not dict:
        return f"not an object (a {type(call).__name__})"
    for field in CALL_FIELDS:
        value: Any = call.get(field.name)
        if value is None:
            if field.needed_in_claim if claim else field.needed_to_score:
                return f"no {field.name}"
        elif type(value) is not field.kind:
            return f"{field.name} is a {type(value).__name__}, not {_KIND_NAMES[field.kind]}"
        elif field.item is not None and (odd := _odd_item(value, field.item)) is not None:
            return field.item_problem.format(odd.__name__)
    return None


def _odd_item(value: Any, kind: type) -> type | None:
    """The first kind other than ``kind`` among a list's items or an object's values, or None."""
    return next((k for k in map(type, value.values() if type(value) is dict else value) if k is not kind), None)


_NAMES = tuple(field.name for field in CALL_FIELDS)
_READ = itemgetter(*_NAMES)


def _checker(claim: bool) -> Callable[[Any], tuple[Any, ...] | None]:
    """``CALL_FIELDS`` as one straight-line function: a call's field values (None where left out) when
    ``call_problem(call, claim=claim)`` finds nothing, else None.

    Written out once from the table, as a dataclass writes its methods, so that checking every call of every trace
    costs what hand-written checks would; it builds no reason (``call_problem`` does).
    """
    scope: dict[str, Any] = {"read": _READ, "names": _NAMES}
    values = [f"v{i}" for i in range(len(CALL_FIELDS))]
    wrong = []
    for i, field in enumerate(CALL_FIELDS):
        scope[f"kind{i}"] = field.kind
        test = f"{values[i]}.__class__ is not kind{i}"
        if field.item is not None:
            scope[f"items{i}"] = frozenset((field.item,))
            test += f" or not items{i}.issuperset(map(type, {values[i]}{'.values()' if field.kind is dict else ''}))"
        wrong.append(f"({test})" if (field.needed_in_claim if claim else field.needed_to_score)
                     else f"({values[i]} is not None and ({test}))")
    exec("def check(call):\n"
         "    if call.__class__ is not dict:\n        return None\n"
         "    try:\n        found = read(call)\n    except KeyError:\n        found = tuple(map(call.get, names))\n"
         f"    {', '.join(values)} = found\n"
         f"    return None if {' or '.join(wrong)} else found\n", scope)
    return cast(Callable[[Any], "tuple[Any, ...] | None"], scope["check"])


_claim_values, _scored_values = _checker(claim=True), _checker(claim=False)


def well_shaped(calls: list[Any]) -> bool:
    """``call_problem`` finds nothing in any call (a scored call)."""
    return None not in map(_scored_values, calls)


def claim_parts(call: Any) -> tuple[str, dict[str, Any], tuple[str, ...] | None, str | None,
                                    tuple[tuple[str, bool], ...] | None] | None:
    """A trace call's claim read in the pass that checks its shape: ``(tool, args, returned ids, outcome, gates'
    items)`` (the last three None when left out), or None when ``call_problem(call, claim=True)`` finds a problem."""
    values = _claim_values(call)
    if values is None:
        return None
    tool, args, _, returned, outcome, gates = values
    return (tool, args, None if returned is None else tuple(returned), outcome,
            None if gates is None else tuple(gates.items()))


class ShapedCalls(list):
    """Calls the trace verifier built itself from a well-formed claim: their shape needs no second check."""

    __slots__ = ()


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
