"""Question wording: jinja2 templates per track, and the check that wording never gives the answer away."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import jinja2

from benchmark_builders.groundeval.contracts import DIRECTIONS, NO_LINK_ALIASES, NO_LINK_MECHANISM, Truth
from benchmark_builders.groundeval.tracks import track

TEMPLATES = Path(__file__).with_name("templates")
VARIANTS = 3


@lru_cache(maxsize=None)
def _environment(folder: str) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined,
                              autoescape=False, keep_trailing_newline=False)


def render_question(track_name: str, question_id: str, values: Mapping[str, Any], shift: int = 0) -> str:
    """Render a track's template (``<track>.j2`` in its ``templates`` folder, else orgbench's); the variant is
    chosen from the question id (plus ``shift``), so it is stable."""
    variant = (int(question_id.rsplit("-", 1)[1], 16) + shift) % VARIANTS
    folder = track(track_name).templates or str(TEMPLATES)
    text = _environment(folder).get_template(f"{track_name}.j2").render(variant=variant, **values).strip()
    return text[:1].upper() + text[1:]


def word_question(track: str, question_id: str, values: Mapping[str, Any], truth: Truth,
                  subject_ids: tuple[str, ...]) -> str | None:
    """The first wording (the id's own variant, then the others in turn) that reveals nothing; None if all do.
    Questions of a pair pass the same id (their pair's), so they are worded alike."""
    for shift in range(VARIANTS):
        text = render_question(track, question_id, values, shift)
        if not answer_leaks(text, truth, subject_ids):
            return text
    return None


def _words(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9@]+", " ", text.lower()) + " "


#: Words too common to reveal anything when a label happens to be one of them ("none", "no", "yes", …).
COMMON_WORDS = frozenset({
    "a", "an", "and", "the", "of", "to", "in", "on", "off", "at", "by", "for", "or", "is", "it", "as",
    "yes", "no", "none", "null", "nil", "n", "y", "na", "n a", "true", "false", "ok", "not", "unknown", "other",
})

#: Phrases that would state a Perspective verdict outright (the actor gate must be found, not read).
GIVEAWAYS = ("not employed", "no longer employed", "not yet employed", "before joining", "after leaving")


def distinctive(label: str) -> bool:
    """True if a label is specific enough that finding it in a question would reveal it (not a common word)."""
    phrase = _words(label).strip()
    return bool(phrase) and phrase not in COMMON_WORDS and len(phrase.replace(" ", "")) >= 3


def answer_leaks(question: str, truth: Truth, subject_ids: tuple[str, ...] = ()) -> list[str]:
    """What of the gold answer the wording would reveal (empty when none).

    Checked, as whole words: the mechanism name and its aliases and the
    direction labels where they are distinctive (a common word such as
    "none" reveals nothing), evidence ids other than the question's own
    subjects, and phrases that state a verdict outright ("not employed").
    A boolean verdict is never revealed by a common word such as "no" or
    "true" in a fact's value.
    """
    text = _words(question)
    found = [phrase for phrase in GIVEAWAYS if f" {phrase} " in text]
    labels = list(truth.mechanism_aliases) + list(DIRECTIONS) + [NO_LINK_MECHANISM, *NO_LINK_ALIASES]
    mechanism = truth.gold.get("causal_mechanism")
    if isinstance(mechanism, str):
        labels.append(mechanism)
    for label in labels:
        phrase = _words(label).strip()
        if distinctive(label) and f" {phrase} " in text:
            found.append(label)
    own = {s.lower() for s in subject_ids}
    for ref in set(truth.required_evidence) | set(truth.cause_evidence) | set(truth.effect_evidence):
        artifact_id = ref.rsplit("@", 1)[0].lower()
        if artifact_id not in own and re.search(rf"(?<![a-z0-9-]){re.escape(artifact_id)}(?![a-z0-9-])", question.lower()):
            found.append(ref)
    return sorted(set(found))
