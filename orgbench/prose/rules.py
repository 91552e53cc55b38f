"""When a model's rewrite of an artifact body may replace the grammar's text: the facts stay, nothing is invented.

A rewrite is kept only if

- every fact value the grammar body states appears in it verbatim (a fact
  value is a scalar leaf of the version's ``facts``, as text; "states" and
  "appears" mean as a whole token: not inside a longer word or number), and
- it holds no foreign identifier: no id-shaped token (``CASE-10001``,
  ``P-0008``, ``SN-J4JF866J``, ``SEV2``, an e-mail address, an ISO date or
  time, a ``#channel``) that is neither in the grammar body nor in the facts.

Fact values the grammar body does not state (a chat message's own
``message_id``, a ``strategic: false`` flag) are not required: the text never
said them, and asking a model to add them would change what the text says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

#: Why a rewrite was not kept (the fallback's reasons, in world.json's prose record).
REASONS = ("empty", "missing_fact", "foreign_id", "refused")

_ID = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"                         # e-mail addresses
    r"|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?"      # ISO dates and times
    r"|#[a-z0-9][a-z0-9_-]*"                                # channels
    r"|\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b"                    # CASE-10001, P-0008, RB-BATTERY, SN-J4JF866J
    r"|\b[A-Z]+[0-9]+[A-Z0-9]*\b"                           # SEV2, P4, R380
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a rewrite is kept, and if not why (one of ``REASONS``) with the first offending value."""

    kept: bool
    reason: str = ""
    detail: str = ""


def fact_texts(facts: Mapping[str, Any]) -> list[str]:
    """Every scalar leaf of ``facts`` as text (None left out), depth first in key order, without repeats."""
    seen: dict[str, None] = {}

    def leaves(value: Any) -> Iterator[Any]:
        if isinstance(value, Mapping):
            for key in sorted(value):
                yield from leaves(value[key])
        elif isinstance(value, (list, tuple)):
            for item in value:
                yield from leaves(item)
        elif value is not None:
            yield value

    for leaf in leaves(facts):
        text = str(leaf).strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def _pattern(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])")


def states(text: str, value: str) -> bool:
    """True if ``value`` appears in ``text`` as a whole token (not inside a longer word or number)."""
    return _pattern(value).search(text) is not None


def required_values(body: str, facts: Mapping[str, Any]) -> list[str]:
    """The fact values the grammar ``body`` states, in the order they first appear in it."""
    found = [(m.start(), value) for value in fact_texts(facts) if (m := _pattern(value).search(body))]
    return [value for _, value in sorted(found)]


def identifiers(text: str) -> list[str]:
    """The id-shaped tokens of ``text``, in order, without repeats."""
    return list(dict.fromkeys(m.group(0) for m in _ID.finditer(text)))


def judge_rewrite(body: str, facts: Mapping[str, Any], rewrite: str) -> Verdict:
    """Whether ``rewrite`` may replace the grammar ``body`` of a version with these ``facts``."""
    if not rewrite.strip():
        return Verdict(False, "empty")
    for value in required_values(body, facts):
        if not states(rewrite, value):
            return Verdict(False, "missing_fact", value)
    known = set(identifiers(body))
    for value in fact_texts(facts):
        known.add(value)
        known.update(identifiers(value))
    for token in identifiers(rewrite):
        if token not in known:
            return Verdict(False, "foreign_id", token)
    return Verdict(True)


def clean_reply(text: str) -> str:
    """The model's reply as a body: trimmed, and without a Markdown fence around the whole of it."""
    text = text.strip()
    if len(text) >= 6 and text.startswith("```") and text.endswith("```"):
        inner = text[3:-3]
        tag, newline, rest = inner.partition("\n")
        text = (rest if newline and " " not in tag.strip() else inner).strip()
    return text
