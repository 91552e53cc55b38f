"""Questions name only what they are about: a lint per track and kind over normalised question text.

Each kind lists the subject fields its question may name (its track's ``may_name``): the
actor, fact and value of a Perspective question; the cause and effect of a
Counterfactual one; the trigger of a Silence one. Every other id the truth or
subject knows (a search-space selector, the record a trigger is ``about``,
an evidence artifact) is a join value or an answer key the agent must
discover, and must not appear. Text is compared normalised: lower case, with
punctuation and spacing removed (``INC 6``, ``inc-6`` and ``INC_6`` are one
name), and a name ending in a digit does not match inside a longer number.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from benchmark_builders.groundeval.contracts import Truth
from benchmark_builders.groundeval.tracks import track


def allowed_fields(track_name: str, kind: str) -> tuple[str, ...]:
    """The subject fields a question of this track and kind may name (its track's ``may_name``)."""
    return tuple(track(track_name).may_name.get(kind, ()))


def normalised(text: str) -> str:
    """Lower case, every character but letters and digits removed."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _values(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        if isinstance(value.get("id"), str):
            yield value["id"]
    elif isinstance(value, (list, tuple)):
        yield from (v for v in value if isinstance(v, str))
    elif isinstance(value, str):
        yield value


def _named(text: str, name: str) -> bool:
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if not (name[-1].isdigit() and end < len(text) and text[end].isdigit()) and \
                not (name[0].isdigit() and start > 0 and text[start - 1].isdigit()):
            return True
        start = text.find(name, start + 1)
    return False


def question_problems(question: str, subject: Mapping[str, Any], truth: Truth) -> list[str]:
    """The ids the question names but may not (empty when it names only what it is about)."""
    may_name = allowed_fields(truth.track, truth.kind)
    allowed = {normalised(v) for key in may_name for v in _values(subject.get(key))}
    candidates = {str(item["selector"]) for item in truth.required_search_space}
    candidates |= set(_values(subject.get("about")))
    candidates |= {ref.rsplit("@", 1)[0] for ref in (*truth.required_evidence, *truth.permitted_evidence,
                                                     *truth.cause_evidence, *truth.effect_evidence)}
    candidates |= {v for key, value in subject.items() if key not in may_name for v in _values(value)
                   if key in ("about", "selectors")}
    text = normalised(question)
    return sorted(c for c in candidates if normalised(c) and normalised(c) not in allowed
                  and _named(text, normalised(c)))
