"""Offline retrieval of golden references: hashed TF-IDF embeddings of questions, cosine similarity.

The live question is embedded and matched against the golden set's
questions; the margin between the best and second-best similarity is what
CARGO's gate compares with its threshold τ. Identifiers and other tokens with
digits are left out, so matching is on what the customer describes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

DIMENSIONS = 4096
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*[A-Za-z0-9]|[A-Za-z]")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+")
#: Function words, identifiers' labels and the boilerplate of support questions ("how was this handled?").
_STOP = frozenset("a an and the to of on in for is are was were it its this that with after from by "
                  "be been has have had not no can cannot will new case account asset serial customer "
                  "how what which who done writes incoming support request report describe handling "
                  "handled steps taken outcome resolve".split())


def tokens(text: str) -> list[str]:
    """Words and word bigrams of a question, without stop words, names or identifiers.

    Names and identifiers are the capitalised words that do not open a
    sentence (customer names, serials, case ids): they say who is asking,
    not what must be done.
    """
    words = []
    for sentence in _SENTENCE_END.split(text):
        for index, word in enumerate(_WORD.findall(sentence)):
            if word.islower() or (index == 0 and word[1:].islower()):
                if word.lower() not in _STOP:
                    words.append(word.lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


def _bucket(token: str) -> int:
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "big") % DIMENSIONS


def _counts(texts: Sequence[str]) -> np.ndarray:
    matrix = np.zeros((len(texts), DIMENSIONS), dtype=np.float64)
    for row, text in enumerate(texts):
        for token in tokens(text):
            matrix[row, _bucket(token)] += 1.0
    return matrix


@dataclass(frozen=True)
class GoldenIndex:
    """Embedded golden questions and the IDF weights learnt from them."""

    ids: tuple[str, ...]
    idf: np.ndarray
    vectors: np.ndarray

    @staticmethod
    def build(ids: Sequence[str], questions: Sequence[str]) -> "GoldenIndex":
        """Index a golden set (at least two questions, so a margin exists)."""
        counts = _counts(questions)
        df = (counts > 0).sum(axis=0)
        idf = np.log((1.0 + len(questions)) / (1.0 + df))
        return GoldenIndex(tuple(ids), idf, _normalise(np.log1p(counts) * idf))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length TF-IDF vectors for new questions."""
        return _normalise(np.log1p(_counts(texts)) * self.idf)

    def rank(self, question: str) -> list[tuple[str, float]]:
        """Golden ids with their cosine similarity to ``question``, best first (ties by id)."""
        sims = self.vectors @ self.embed([question])[0]
        order = sorted(range(len(self.ids)), key=lambda i: (-round(float(sims[i]), 12), self.ids[i]))
        return [(self.ids[i], round(float(sims[i]), 6)) for i in order]


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def margin(ranking: Sequence[tuple[str, float]]) -> float:
    """similarity(top-1) − similarity(top-2) of a ranking (0 for the second of two equals)."""
    return round(ranking[0][1] - (ranking[1][1] if len(ranking) > 1 else 0.0), 6)


def best_per_group(ranking: Sequence[tuple[str, float]], group_of: dict[str, str]) -> list[tuple[str, float]]:
    """Keep each group's best entry (e.g. one reference per runbook), in ranking order."""
    seen: set[str] = set()
    out = []
    for golden_id, sim in ranking:
        group = group_of[golden_id]
        if group not in seen:
            seen.add(group)
            out.append((golden_id, sim))
    return out


def best_of_revision(ranking: Sequence[tuple[str, float]], top: tuple[str, float], group_of: dict[str, str],
                     revision_of: dict[str, int], revision: int) -> tuple[str, float]:
    """Within ``top``'s runbook, the best-ranked reference of ``revision`` (the runbook version the case
    followed, which the ticket states), or ``top`` itself when that runbook has no reference of it."""
    for golden_id, sim in ranking:
        if group_of[golden_id] == group_of[top[0]] and revision_of[golden_id] == revision:
            return golden_id, sim
    return top


def best_allowed(ranking: Sequence[tuple[str, float]], top1: str, group_of: dict[str, str],
                 revision_of: dict[str, int], allowed: Callable[[str], bool]) -> tuple[str, float] | None:
    """Within ``top1``'s runbook and revision, the best-ranked reference that ``allowed`` accepts (None if none)."""
    return next(((golden_id, sim) for golden_id, sim in ranking if group_of[golden_id] == group_of[top1]
                 and revision_of[golden_id] == revision_of[top1] and allowed(golden_id)), None)
