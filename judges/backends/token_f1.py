"""SQuAD-style token F1 between two texts: what the ``builtin:token-f1`` judge scores a candidate by."""

from __future__ import annotations

import re

__all__ = ["token_f1"]


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in re.findall(r"[A-Za-z0-9@.+-]+", text) if t.strip(".")]


def token_f1(candidate: str, reference: str) -> float:
    """SQuAD-style token F1 between two texts."""
    cand, ref = _tokens(candidate), _tokens(reference)
    if not cand or not ref:
        return 0.0
    counts: dict[str, int] = {}
    for t in ref:
        counts[t] = counts.get(t, 0) + 1
    common = 0
    for t in cand:
        if counts.get(t, 0) > 0:
            counts[t] -= 1
            common += 1
    if common == 0:
        return 0.0
    precision, recall = common / len(cand), common / len(ref)
    return round(2 * precision * recall / (precision + recall), 4)
