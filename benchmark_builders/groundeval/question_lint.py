"""Questions name only what they are about: a lint per track and kind over normalised question text.

Each kind lists the subject fields its question may name (``ALLOWED``): the
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

from benchmark_builders.groundeval.contracts import COUNTERFACTUAL, KINDS, PERSPECTIVE, SILENCE, Truth

_PERSPECTIVE = ("entity", "artifacts", "value")
_COUNTERFACTUAL = ("cause_entity", "effect_entity", "cause_event_id", "effect_event_id", "cause_records", "effect_records")
_TRIGGER = ("trigger_entity", "trigger_event_id", "trigger_records")
#: The subject fields a question of each track and kind may name.
ALLOWED: dict[tuple[str, str], tuple[str, ...]] = {
    **{(PERSPECTIVE, kind): _PERSPECTIVE for kind in KINDS[PERSPECTIVE]},
    **{(COUNTERFACTUAL, kind): _COUNTERFACTUAL for kind in KINDS[COUNTERFACTUAL]},
    (SILENCE, "exists"): (*_TRIGGER, "selectors"),     # the trigger's own ids (its incident_id, escalation_id)
    (SILENCE, "absence"): (*_TRIGGER, "selectors"),
    (SILENCE, "indirect"): _TRIGGER,                   # not the incident it was about: that is the join
}


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
    allowed_fields = ALLOWED[(truth.track, truth.kind)]
    allowed = {normalised(v) for key in allowed_fields for v in _values(subject.get(key))}
    candidates = {str(item["selector"]) for item in truth.required_search_space}
    candidates |= set(_values(subject.get("about")))
    candidates |= {ref.rsplit("@", 1)[0] for ref in (*truth.required_evidence, *truth.permitted_evidence,
                                                     *truth.cause_evidence, *truth.effect_evidence)}
    candidates |= {v for key, value in subject.items() if key not in allowed_fields for v in _values(value)
                   if key in ("about", "selectors")}
    text = normalised(question)
    return sorted(c for c in candidates if normalised(c) and normalised(c) not in allowed
                  and _named(text, normalised(c)))
