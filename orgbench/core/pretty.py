"""Indented canonical JSON (``json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2)``), written faster.

With ``indent`` the standard library encodes in Python, one generator step per
value (its C encoder serves compact output only). ``indented`` writes the
same text from plain data — dicts with str keys, lists, tuples, str, int,
float, bool and None, each of exactly that type — with one function call per
container and the standard encoder's own functions for strings and numbers;
anything else (a subclass, a non-str key, an object a ``default`` would turn
into JSON) is handed to ``json.dumps`` whole, so the text is the standard
library's in every case.
"""

from __future__ import annotations

import json
from typing import Any

_text = json.encoder.encode_basestring  # what the encoder writes for a str when ensure_ascii is off
_int = int.__repr__
_float = float.__repr__
_INFINITY = float("inf")
_CONSTANTS = {True: "true", False: "false"}


def indented(obj: Any) -> str:
    """``json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2)``, the same text."""
    out: list[str] = []
    try:
        _write(obj, out, "\n")
    except (TypeError, RecursionError):  # what json.dumps writes its own way, or refuses naming why (a cycle)
        return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2)
    return "".join(out)


def _scalar(value: Any) -> str:
    """The JSON of a str, int, float, bool or None (TypeError for anything else: ``indented`` hands it on)."""
    cls = value.__class__
    if cls is str:
        return _text(value)
    if cls is int:
        return _int(value)
    if cls is float:
        if value != value:
            return "NaN"
        if value == _INFINITY:
            return "Infinity"
        return "-Infinity" if value == -_INFINITY else _float(value)
    if cls is bool:
        return _CONSTANTS[value]
    if value is None:
        return "null"
    raise TypeError(f"{cls.__name__}: left to json.dumps")


_CONTAINERS = frozenset((dict, list, tuple))


def _write(value: Any, out: list[str], newline: str) -> None:
    """Append the JSON of ``value`` to ``out``; ``newline`` is a line break and the indent of its own level."""
    cls = value.__class__
    if cls is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        lead = "{" + inner
        for key in sorted(value):  # keys that do not compare raise TypeError
            if key.__class__ is not str:
                raise TypeError("a key json.dumps turns into text")
            item = value[key]
            kind = item.__class__
            if kind is str:
                out.append(f"{lead}{_text(key)}: {_text(item)}")
            elif kind in _CONTAINERS:
                out.append(f"{lead}{_text(key)}: ")
                _write(item, out, inner)
            else:
                out.append(f"{lead}{_text(key)}: {_int(item) if kind is int else _scalar(item)}")
            lead = "," + inner
        out.append(newline + "}")
        return
    if cls is list or cls is tuple:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        lead = "[" + inner
        for item in value:
            if item.__class__ in _CONTAINERS:
                out.append(lead)
                _write(item, out, inner)
            else:
                out.append(lead + _scalar(item))
            lead = "," + inner
        out.append(newline + "]")
        return
    out.append(_scalar(value))
