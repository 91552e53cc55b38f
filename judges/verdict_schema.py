"""The verdict's JSON schema for constrained decoding, and the longest answer it admits (so a token budget provably holds).

A small model under a grammar does not stop on its own: it repeats one claim
until the array is full. So every part of the schema is bounded:

- claims: at most ``MAX_CLAIMS``, each text 1 to ``CLAIM_CHARS`` printable
  ASCII characters other than ``"`` and ``\\`` (a ``pattern``, so no
  character is escaped or multi-byte: one character, one byte);
- dimension scores: the tenths from 0 to 1 (an ``enum``: a free number may
  have any number of digits);
- dimension names: the rubrics' (free keys could be added without end).

The layout is not the schema's to bound: ``judges.backends.gbnf`` sends it as
a grammar that writes JSON as ``json.dumps`` does. :func:`longest_answer` is
the longest text the schema admits in that layout. Every token a model emits
is at least one byte, so a completion budget of :func:`token_bound` tokens
(those bytes and the end of sequence) can never cut a constrained verdict off.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from judges.verdict import CLAIM_STATUSES, RUBRIC_DIMENSIONS, VERDICTS

MAX_CLAIMS = 3
CLAIM_CHARS = 64
#: The scores a dimension may take (written as JSON numbers: 0, 0.1, ..., 1).
SCORES = (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1)
#: Printable ASCII but the quote and the backslash: each character is one byte in the JSON text, unescaped.
ONE_BYTE_CHARACTERS = " !#-\\[\\]-~"
#: The layout of a constrained answer: ``json.dumps``'s separators and no other whitespace.
ITEM_SEPARATOR, KEY_SEPARATOR = ", ", ": "


def one_byte_text_pattern(max_chars: int) -> str:
    """The ``pattern`` of a string of 1 to ``max_chars`` one-byte characters (``ONE_BYTE_CHARACTERS``)."""
    return f"^[{ONE_BYTE_CHARACTERS}]{{1,{max_chars}}}$"


def verdict_schema(statuses: tuple[str, ...] = CLAIM_STATUSES, *, max_claims: int = MAX_CLAIMS,
                   max_claim_chars: int = CLAIM_CHARS) -> dict[str, Any]:
    """The JSON schema of a verdict object, every part bounded (see the module docstring)."""
    return {
        "type": "object",
        "properties": {
            "dimensions": {"type": "object", "additionalProperties": False,
                           "properties": {name: {"enum": list(SCORES)} for name in RUBRIC_DIMENSIONS}},
            "claims": {"type": "array", "maxItems": max_claims, "items": {
                "type": "object",
                "properties": {"text": {"type": "string", "maxLength": max_claim_chars,
                                        "pattern": one_byte_text_pattern(max_claim_chars)},
                               "status": {"type": "string", "enum": list(statuses)}},
                "required": ["text", "status"], "additionalProperties": False}},
            "verdict": {"type": "string", "enum": list(VERDICTS)},
        },
        "required": ["dimensions", "claims", "verdict"],
        "additionalProperties": False,
    }


def longest_instance(schema: Mapping[str, Any]) -> Any:
    """The value ``schema`` admits whose JSON text is longest: every property present, every bound reached.

    ValueError names the first part without a bound (a number without an enum, an array without ``maxItems``, a
    string without the one-byte pattern, an object open to other keys).
    """
    if "enum" in schema:
        return max(schema["enum"], key=lambda value: len(json.dumps(value)))
    kind = schema.get("type")
    if kind == "object":
        if schema.get("additionalProperties", True) is not False:
            raise ValueError("an object open to other keys has no longest instance")
        return {name: longest_instance(part) for name, part in schema.get("properties", {}).items()}
    if kind == "array":
        if "maxItems" not in schema:
            raise ValueError("an array without maxItems has no longest instance")
        return [longest_instance(schema["items"])] * schema["maxItems"]
    if kind == "string" and schema.get("pattern") == one_byte_text_pattern(schema.get("maxLength", -1)):
        return "~" * schema["maxLength"]
    if kind == "string":
        raise ValueError("a string without the one-byte pattern has no longest instance")
    raise ValueError(f"a {kind or 'free'} value without an enum has no longest instance")


def longest_answer(schema: Mapping[str, Any]) -> str:
    """The longest JSON text ``schema`` admits, written as the grammar writes it (``json.dumps``'s separators)."""
    return json.dumps(longest_instance(schema), separators=(ITEM_SEPARATOR, KEY_SEPARATOR))


def token_bound(schema: Mapping[str, Any]) -> int:
    """The most tokens a completion constrained to ``schema`` can take: one per byte, and the end of sequence."""
    return len(longest_answer(schema).encode()) + 1
