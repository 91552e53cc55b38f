"""Agreement between judges (or seeds of one judge) and paired differences of their DI.

- **Cohen's κ** of two raters over the items both labelled:
  κ = (p_o − p_e) / (1 − p_e), p_o the share of items with the same label,
  p_e = Σ_k p₁(k)·p₂(k) from each rater's own label shares. κ is NaN when
  p_e = 1 (both raters gave one and the same label to everything).
- **Krippendorff's α** (nominal) of any number of raters with missing labels:
  α = 1 − D_o / D_e over the coincidence matrix of the items with at least
  two labels (Krippendorff 2011, "Computing Krippendorff's alpha-reliability").
- **Paired bootstrap ΔDI**: DI(a) − DI(b) on the same items, both columns
  resampled with the *same* draws (``judges.metrics``' pool resampling, so
  the CI of the difference is of the paired difference), 95% percentile CI.

Labels are strings (``pass``, ``fail``, ``cannot_decide``); None is missing
(unparsed, an error, or not judged). Agreement is over *decided* items only:
``cannot_decide`` counts as missing, not as a category (two judges that
decided nothing do not agree), and every figure comes with the number of
items it is over.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from judges.bootstrap import BOOTSTRAP_SEED, RESAMPLES, draws, percentile_interval
from judges.metrics import discrimination_index, resampled_di

Label = str | None


def decided(label: Label) -> Label:
    """The label if it is a decision (pass or fail), else None (undecided counts as missing)."""
    return None if label is None or label == "cannot_decide" else label


def cohen_kappa(a: Sequence[Label], b: Sequence[Label]) -> tuple[float, int]:
    """(κ, number of items both raters decided)."""
    pairs = [(x, y) for x, y in zip(map(decided, a), map(decided, b), strict=True) if x is not None and y is not None]
    n = len(pairs)
    if n == 0:
        return math.nan, 0
    observed = sum(x == y for x, y in pairs) / n
    left, right = Counter(x for x, _ in pairs), Counter(y for _, y in pairs)
    expected = sum(left[k] * right[k] for k in left) / (n * n)
    if expected >= 1.0:
        return math.nan, n
    return (observed - expected) / (1.0 - expected), n


def krippendorff_alpha(ratings: Sequence[Sequence[Label]]) -> tuple[float, int]:
    """(nominal α, number of pairable items) for ``ratings[rater][item]`` with None (and undecided) as missing."""
    if not ratings:
        return math.nan, 0
    ratings = [[decided(label) for label in rater] for rater in ratings]
    items = len(ratings[0])
    if any(len(r) != items for r in ratings):
        raise ValueError("every rater must rate the same items (None for missing)")
    coincidence: dict[tuple[str, str], float] = {}
    pairable = 0
    for i in range(items):
        labels = [label for r in ratings if (label := r[i]) is not None]
        m = len(labels)
        if m < 2:
            continue
        pairable += 1
        counts = Counter(labels)
        for c in counts:
            for k in counts:
                together = counts[c] * (counts[k] - (1 if c == k else 0))
                if together:
                    coincidence[(c, k)] = coincidence.get((c, k), 0) + together / (m - 1)
    total = sum(coincidence.values())
    if total == 0:
        return math.nan, pairable
    marginal: dict[str, float] = {}
    for (c, _), value in coincidence.items():
        marginal[c] = marginal.get(c, 0) + value
    observed = sum(v for (c, k), v in coincidence.items() if c != k)
    expected = total * total - sum(v * v for v in marginal.values())     # Σ_{c≠k} n_c·n_k
    if expected == 0:
        return math.nan, pairable
    return 1.0 - (total - 1) * observed / expected, pairable


def paired_delta_di(a: np.ndarray, b: np.ndarray, should_penalize: np.ndarray, *, resamples: int = RESAMPLES,
                    seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """(ΔDI = DI(a) − DI(b), 95% low, high) over the same items, paired resamples (NaN = not judged)."""
    should = np.asarray(should_penalize, dtype=bool)
    values = np.column_stack([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    delta = discrimination_index(values[:, 0], should) - discrimination_index(values[:, 1], should)
    resampled = resampled_di(values, should, resamples=resamples, seed=seed)
    low, high = percentile_interval(resampled[:, 0] - resampled[:, 1])
    return float(delta), float(low), float(high)


def kappa_interval(a: Sequence[Label], b: Sequence[Label], *, resamples: int = RESAMPLES,
                   seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """95% percentile CI of Cohen's κ, the items resampled with replacement (NaN, NaN when it cannot be had)."""
    codes = {label: i for i, label in enumerate(sorted({x for x in (*a, *b) if x is not None}))}
    left = np.array([codes.get(x, -1) if x is not None else -1 for x in a])
    right = np.array([codes.get(y, -1) if y is not None else -1 for y in b])
    if len(left) == 0 or not codes:
        return math.nan, math.nan
    drawn = draws(len(left), resamples, seed)
    x, y = left[drawn], right[drawn]
    both = (x >= 0) & (y >= 0)
    n = both.sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = ((x == y) & both).sum(axis=1) / n
        expected = sum(((x == k) & both).sum(axis=1) * ((y == k) & both).sum(axis=1) for k in codes.values()) / (n * n)
        kappa = np.where(expected < 1.0, (observed - expected) / (1.0 - expected), np.nan)
    if np.isnan(kappa).all():
        return math.nan, math.nan
    low, high = percentile_interval(kappa)
    return float(low), float(high)
