"""The bootstrap every interval of the project comes from: seeded resample draws and percentile intervals.

Four ways to resample, one generator rule (``numpy.random.default_rng(seed)``,
indices drawn with ``integers(0, n, size=(resamples, n))``):

- **plain** (``draws``): items with replacement, e.g. Cohen's κ over items;
- **paired** (``paired_mean_delta``): the same draws for both runs, so the
  interval is of the per-item difference (GroundEval's S_adj, B − A);
- **stratified** (``pool_counts``): within each pool in turn from one
  generator, as resample counts (CARGO's DI: the should-not pool, then the
  should-penalise pool);
- **cluster** (``cluster_interval``): whole clusters with replacement, the
  statistic a ratio of sums (assurance's G per trajectory, clusters being
  shared user requests).

Intervals are the 2.5th / 97.5th percentiles (linear interpolation) of the
resampled statistic, NaN resamples left out (``percentile_interval``).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["BOOTSTRAP_SEED", "RESAMPLES", "cluster_interval", "draws", "paired_mean_delta", "percentile_interval",
           "pool_counts"]

RESAMPLES = 10_000
BOOTSTRAP_SEED = 0


def draws(n: int, resamples: int, seed: int | np.random.Generator) -> np.ndarray:
    """resamples × n indices into ``range(n)`` drawn with replacement (none drawn, and the generator untouched, when n is 0)."""
    if n == 0:
        return np.zeros((resamples, 0), dtype=np.int64)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.integers(0, n, size=(resamples, n))


def pool_counts(sizes: tuple[int, ...], resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    """For each pool in turn (one generator), resamples × size counts of how often each of its items is drawn."""
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        offsets = (np.arange(resamples, dtype=np.int64) * n)[:, None]
        counts = np.bincount((draws(n, resamples, rng) + offsets).ravel(), minlength=resamples * n)
        out.append(counts.reshape(resamples, n).astype(np.float64))
    return tuple(out)


def percentile_interval(resampled: np.ndarray, low: float = 2.5, high: float = 97.5,
                        axis: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``low`` / ``high`` percentiles of the resampled statistic (NaN resamples left out; all NaN gives NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a statistic never defined has an all-NaN interval
        bounds = np.nanpercentile(resampled, [low, high], axis=axis)
    return np.asarray(bounds[0]), np.asarray(bounds[1])


def paired_mean_delta(a: np.ndarray, b: np.ndarray, *, resamples: int, seed: int) -> tuple[float, float, float]:
    """(mean of b − a, 95% low, high): the same resampled items for both (0, 0, 0 when there are none)."""
    delta = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if len(delta) == 0:
        return 0.0, 0.0, 0.0
    low, high = percentile_interval(delta[draws(len(delta), resamples, seed)].mean(axis=1))
    return float(delta.mean()), float(low), float(high)


def cluster_interval(values: np.ndarray, sizes: np.ndarray, drawn: np.ndarray, scale: float = 1.0) -> list[float]:
    """95% interval (4 places) of Σ values / Σ sizes × scale over the cluster resamples ``drawn`` (per cluster)."""
    if len(sizes) == 0:
        return [0.0, 0.0]
    low, high = percentile_interval(values[drawn].sum(axis=1) / sizes[drawn].sum(axis=1) * scale)
    return [round(float(low), 4), round(float(high), 4)]
