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
(unparsed, an error, or not judged).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from typing import Sequence

import numpy as np

from judges.metrics import BOOTSTRAP_SEED, RESAMPLES, discrimination_index, resampled_di

Label = str | None


def cohen_kappa(a: Sequence[Label], b: Sequence[Label]) -> tuple[float, int]:
    """(κ, number of items both raters labelled)."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
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
    """(nominal α, number of pairable items) for ``ratings[rater][item]`` with None as missing."""
    if not ratings:
        return math.nan, 0
    items = len(ratings[0])
    if any(len(r) != items for r in ratings):
        raise ValueError("every rater must rate the same items (None for missing)")
    coincidence: Counter[tuple[str, str]] = Counter()
    pairable = 0
    for i in range(items):
        labels = [r[i] for r in ratings if r[i] is not None]
        m = len(labels)
        if m < 2:
            continue
        pairable += 1
        counts = Counter(labels)
        for c in counts:
            for k in counts:
                together = counts[c] * (counts[k] - (1 if c == k else 0))
                if together:
                    coincidence[(c, k)] += together / (m - 1)
    total = sum(coincidence.values())
    if total == 0:
        return math.nan, pairable
    marginal: Counter[str] = Counter()
    for (c, _), value in coincidence.items():
        marginal[c] += value
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanpercentile(resampled[:, 0] - resampled[:, 1], [2.5, 97.5])
    return float(delta), float(low), float(high)
