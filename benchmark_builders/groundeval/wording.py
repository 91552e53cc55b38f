"""Question wording: jinja2 templates per track, and the check that wording never gives the answer away."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import jinja2

from benchmark_builders.groundeval.contracts import DIRECTIONS, NO_LINK_ALIASES, NO_LINK_MECHANISM, Truth

TEMPLATES = Path(__file__).with_name("templates")
VARIANTS = 3


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                              autoescape=False, keep_trailing_newline=False)


def render_question(track: str, question_id: str, values: Mapping[str, Any]) -> str:
    """Render a track's template; the variant is chosen from the question id, so it is stable."""
    variant = int(question_id.rsplit("-", 1)[1], 16) % VARIANTS
    text = _environment().get_template(f"{track}.j2").render(variant=variant, **values).strip()
    return text[:1].upper() + text[1:]


def _words(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9@]+", " ", text.lower()) + " "


def answer_leaks(question: str, truth: Truth, subject_ids: tuple[str, ...] = ()) -> list[str]:
    """What of the gold answer the wording would reveal (empty when none).

    Checked: boolean verdict words, the mechanism name and its aliases,
    direction labels, and evidence ids other than the question's own subjects.
    """
    text = _words(question)
    found = []
    for word in ("true", "false", "yes", "no"):
        if f" {word} " in text:
            found.append(word)
    labels = list(truth.mechanism_aliases) + list(DIRECTIONS) + [NO_LINK_MECHANISM, *NO_LINK_ALIASES]
    mechanism = truth.gold.get("causal_mechanism")
    if isinstance(mechanism, str):
        labels.append(mechanism)
    for label in labels:
        phrase = _words(label).strip()
        if phrase and f" {phrase} " in text:
            found.append(label)
    own = {s.lower() for s in subject_ids}
    for ref in set(truth.required_evidence) | set(truth.cause_evidence) | set(truth.effect_evidence):
        artifact_id = ref.rsplit("@", 1)[0].lower()
        if artifact_id not in own and re.search(rf"(?<![a-z0-9-]){re.escape(artifact_id)}(?![a-z0-9-])", question.lower()):
            found.append(ref)
    return sorted(set(found))
