"""What the arguments of a gated runtime call must be, and the form a trace keeps them in.

One rule for every way in (an in-process agent, the ``openai:`` loop, the MCP
servers) and for the scorer's re-derivation, so a call has the same outcome
wherever it was made:

- ``search_artifacts``: ``query`` a string, ``subsystem`` a string or null
  (absent: null), ``limit`` an integer ≥ 1 (absent: 10; above 50 it is capped
  at 50). ``"5"``, ``5.0``, ``True``, ``5.5``, ``0`` and ``-1`` are invalid.
- ``fetch_artifact``: ``artifact_id`` a string.

A trace holds JSON text, so a recorded argument is made writable first, and the
call is then answered from that form: a lone UTF-16 surrogate in a string
(``"\\ud800"`` sent as a JSON escape) becomes U+FFFD, as an undecodable byte
on the wire already does; a non-finite number (``1e400``) becomes
``{"non_finite_number": "inf"}``, which is no string and no integer, so the
call stays invalid. A string argument longer than ``MAX_ARG_CHARS`` is kept as
``{"too_long_chars": N}`` (``bounded``): the call is invalid, and neither the
trace nor the reply holds the long value.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

MAX_LIMIT = 50
MAX_ARG_CHARS = 2000
DEFAULT_LIMIT = 10
REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SEARCH_RULE = "query must be a string, subsystem a string or null, limit an integer of at least 1"
FETCH_RULE = "artifact_id must be a string"


def well_formed_text(value: Any) -> Any:
    """``value`` (any JSON) with every lone surrogate in its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(REPLACEMENT, value) if _LONE_SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {well_formed_text(k): well_formed_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [well_formed_text(v) for v in value]
    return value


#: A JSON escape of a surrogate code point (``\ud800``-``\udfff``, any case): UTF-8 text can hold one no other way.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def may_hold_surrogates(json_text: bytes) -> bool:
    """Could a value read from this JSON text (strict UTF-8) hold a lone surrogate? Only through an escape of one,
    so text without such an escape needs no ``well_formed_text``."""
    return _SURROGATE_ESCAPE.search(json_text) is not None


def recordable(value: Any) -> Any:
    """``value`` as a trace can hold it: lone surrogates replaced, non-finite numbers marked (see the module doc)."""
    if isinstance(value, str):
        return well_formed_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return {"non_finite_number": repr(value)}
    if isinstance(value, Mapping):
        return {recordable(str(k)): recordable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [recordable(v) for v in value]
    return value


def bounded(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A call's arguments as a trace keeps them: ``recordable``, each over-long string replaced by its length."""
    return {key: {"too_long_chars": len(value)} if isinstance(value, str) and len(value) > MAX_ARG_CHARS else value
            for key, value in recordable(arguments).items()}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def search_problem(args: Mapping[str, Any]) -> str | None:
    """Why these ``search_artifacts`` arguments are invalid, or None."""
    subsystem = args.get("subsystem")
    limit = args.get("limit", DEFAULT_LIMIT)
    if not isinstance(args.get("query"), str) or not (subsystem is None or isinstance(subsystem, str)) \
            or not _is_int(limit) or limit < 1:
        return SEARCH_RULE
    return None


def fetch_problem(args: Mapping[str, Any]) -> str | None:
    """Why these ``fetch_artifact`` arguments are invalid, or None."""
    return None if isinstance(args.get("artifact_id"), str) else FETCH_RULE


def capped(limit: int) -> int:
    """A valid limit as the search applies it (at most ``MAX_LIMIT``)."""
    return min(MAX_LIMIT, limit)
