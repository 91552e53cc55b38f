"""A bounded JSON schema as a llama.cpp GBNF grammar with one fixed layout, and the longest text that grammar admits.

llama.cpp's servers turn a ``response_format`` schema into a grammar of
their own, with whitespace the schema cannot bound: llguidance (xllamacpp's
build) allows any run of spaces, tabs and newlines between tokens and
ignores ``x-guidance``; llama.cpp's GBNF converter allows up to 22 bytes
per gap. A grammar sent as the request's ``grammar`` field is enforced as
written by all three server programs (llguidance only takes grammars that
start with ``%llguidance``), so this one writes JSON exactly as
``json.dumps`` does (``", "`` and ``": "``, no other whitespace).

Covered: objects without other keys (properties in schema order; those not
``required`` may be left out), arrays with ``maxItems``, ``enum``, and
strings of the one-byte pattern ``judges.verdict_schema`` writes. Anything
else raises ValueError: it could not be bounded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from judges.verdict_schema import ITEM_SEPARATOR, KEY_SEPARATOR, ONE_BYTE_CHARACTERS, one_byte_text_pattern


@dataclass(frozen=True)
class Grammar:
    """GBNF rules (``root`` first) and, per rule, the most bytes a string it matches can have."""

    rules: dict[str, str] = field(default_factory=dict)
    longest: dict[str, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The grammar as llama.cpp reads it."""
        return "".join(f"{name} ::= {body}\n" for name, body in self.rules.items())

    @property
    def longest_answer_bytes(self) -> int:
        """The most bytes any text the grammar admits can have."""
        return self.longest["root"]


def _literal(text: str) -> str:
    return json.dumps(text)       # a GBNF literal is written with JSON's escapes


def _rule_name(*parts: str) -> str:
    """A GBNF rule name (letters, digits and hyphens) made of ``parts``."""
    return re.sub(r"[^A-Za-z0-9-]", "-", "-".join(parts))


def _one_byte_class() -> str:
    """``ONE_BYTE_CHARACTERS`` as a GBNF character class (hex escapes: no bracket or backslash inside it)."""
    ranges = re.findall(r"(\\?.)(?:-(\\?.))?", ONE_BYTE_CHARACTERS)
    hexed = [f"\\x{ord(lo[-1]):02X}" + (f"-\\x{ord(hi[-1]):02X}" if hi else "") for lo, hi in ranges]
    return "[" + "".join(hexed) + "]"


class _Builder:
    def __init__(self) -> None:
        self.rules: dict[str, str] = {"root": ""}
        self.longest: dict[str, int] = {}

    def add(self, name: str, body: str, longest: int) -> str:
        self.rules[name], self.longest[name] = body, longest
        return name

    def visit(self, schema: Mapping[str, Any], name: str) -> str:
        """The rule for ``schema`` (added under ``name``), its longest match recorded."""
        if "enum" in schema:
            texts = [json.dumps(value) for value in schema["enum"]]
            return self.add(name, " | ".join(_literal(t) for t in texts), max(len(t.encode()) for t in texts))
        kind = schema.get("type")
        if kind == "object":
            return self._object(schema, name)
        if kind == "array" and "maxItems" in schema:
            item = self.visit(schema["items"], f"{name}-item")
            most = schema["maxItems"]
            more = f' ({_literal(ITEM_SEPARATOR)} {item}){{0,{most - 1}}}' if most > 1 else ""
            body = f'"[" ({item}{more})? "]"' if most > 0 else '"[" "]"'
            return self.add(name, body, 2 + most * self.longest[item] + max(most - 1, 0) * len(ITEM_SEPARATOR))
        if kind == "string" and schema.get("pattern") == one_byte_text_pattern(schema.get("maxLength", -1)):
            most = schema["maxLength"]
            return self.add(name, f'"\\"" {_one_byte_class()}{{1,{most}}} "\\""', 2 + most)
        raise ValueError(f"{name}: no bounded grammar for {json.dumps(schema)[:80]}")

    def _object(self, schema: Mapping[str, Any], name: str) -> str:
        if schema.get("additionalProperties", True) is not False:
            raise ValueError(f"{name}: an object open to other keys has no bounded grammar")
        required = set(schema.get("required", ()))
        members = []          # (rule, required)
        for key, part in schema.get("properties", {}).items():
            value = self.visit(part, _rule_name(name, key))
            member = self.add(_rule_name(name, key, "kv"),
                              f"{_literal(json.dumps(key) + KEY_SEPARATOR)} {value}",
                              len(json.dumps(key)) + len(KEY_SEPARATOR) + self.longest[value])
            members.append((member, key in required))
        if not members:
            return self.add(name, '"{" "}"', 2)
        listed = self._members(members, name)
        may_be_empty = not any(needed for _, needed in members)
        return self.add(name, f'"{{" {listed}{"?" if may_be_empty else ""} "}}"', 2 + self.longest[listed])

    def _members(self, members: list[tuple[str, bool]], name: str) -> str:
        """The rule for a non-empty list of ``members`` in order, separated; an optional member may be left out.

        Built from the last member back: rule i lists members i.. with the first one listed at i or later.
        """
        sep, rest, rest_may_be_empty = _literal(ITEM_SEPARATOR), "", True
        for index in range(len(members) - 1, -1, -1):
            member, needed = members[index]
            if not rest:
                body, longest = member, self.longest[member]
            else:
                tail = f"({sep} {rest})?" if rest_may_be_empty else f"{sep} {rest}"
                body = f"{member} {tail}" if needed else f"{member} {tail} | {rest}"
                longest = self.longest[member] + len(ITEM_SEPARATOR) + self.longest[rest]
            rest = self.add(f"{name}-from{index}", body, longest)
            rest_may_be_empty = rest_may_be_empty and not needed
        return rest


def schema_grammar(schema: Mapping[str, Any]) -> Grammar:
    """The grammar of ``schema`` in ``json.dumps``'s layout (ValueError names a part it cannot bound)."""
    builder = _Builder()
    root = builder.visit(schema, "answer")
    builder.add("root", root, builder.longest[root])
    return Grammar(dict(builder.rules), dict(builder.longest))
