"""Judge metrics: penalty rates per family, the discrimination index with bootstrap CIs, and risk–coverage.

Definitions (CARGO.md):

- An item's *value* under one judge seed is 1 if the judge penalised it
  (verdict ``fail``), 0 if it passed it, and missing (NaN) when it was not
  judged: ``cannot_decide``, ``unparsed``, an error, or no judgment at all.
  Missing values are counted and reported, never folded into 0.
- With several judge seeds, an item's value is its mean over the seeds where
  it was judged ("mean of seeds"); each seed is also scored on its own.
- Penalty rate of a family = mean value over its judged items.
- TP = rate pooled over the should-penalise items (P2 ∪ P4); FP = rate pooled
  over the should-not items (P1 ∪ P3); DI = TP − FP.
- 95% CI: item-level bootstrap (``judges.bootstrap``), 10,000 resamples, seeded. Items are drawn
  with replacement *within* the should-penalise pool and within the should-not
  pool (each resample keeps both pools' sizes), in this order::

      rng = numpy.random.default_rng(seed)
      neg = rng.integers(0, n_neg, size=(resamples, n_neg))
      pos = rng.integers(0, n_pos, size=(resamples, n_pos))

  and the interval is the 2.5th / 97.5th percentile (linear interpolation) of
  the resampled DIs. The draws depend only on the pool sizes and the seed, so
  conditions scored over the same items share their resamples (a paired
  bootstrap). All of it is one matrix product of resample counts with values.

Risk–coverage (retrieval gating): each item has a *margin* (top-1 minus top-2
similarity; higher = more confident) and a *loss* it incurs if it is judged
rather than abstained on. Use :func:`gating_loss`: an in-scope item's loss is
1 when the judge's decision on it is wrong or missing, 0 when right; an
out-of-scope item (its procedure has no golden reference, so abstaining is
right) always has loss 1. At threshold τ the items with margin ≥ τ are judged:
coverage = their share, selective risk = their mean loss. AURC is the area
under that step curve, Σ Δcoverage × risk over thresholds taken from the
highest margin down (ties enter together).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from judges.bootstrap import BOOTSTRAP_SEED, RESAMPLES, percentile_interval, pool_counts
from benchmark_builders.cargo.records import DEFAULT_SIZES, FAMILIES, SHOULD_PENALIZE
from orgbench.core.errors import InputError

if TYPE_CHECKING:
    from judges.judgments import Judgment



@dataclass(frozen=True)
class PenaltyTable:
    """One condition's judgments as an items × seeds array of 1 / 0 / NaN, with what was not judged."""

    condition: str
    item_ids: tuple[str, ...]
    families: tuple[str, ...]
    seeds: tuple[int, ...]
    values: np.ndarray = field(repr=False)
    cannot_decide: int = 0
    unparsed: int = 0
    errors: int = 0
    missing: int = 0

    @property
    def should_penalize(self) -> np.ndarray:
        """Boolean array: does each item's family deserve a penalty."""
        return np.array([SHOULD_PENALIZE[f] for f in self.families], dtype=bool)

    def item_means(self) -> np.ndarray:
        """Each item's value averaged over the seeds where it was judged (NaN if none)."""
        judged = ~np.isnan(self.values)
        count = judged.sum(axis=1)
        total = np.where(judged, self.values, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)


@dataclass(frozen=True)
class Score:
    """Family rates, TP, FP and DI with its bootstrap CI, for one set of item values."""

    rates: Mapping[str, float]
    judged: Mapping[str, int]
    tp: float
    fp: float
    di: float
    ci_low: float
    ci_high: float
    #: The judge gave one verdict to every judged item (all penalised, or none): no CI, as resampling can only
    #: return the same DI (``ci_low``/``ci_high`` are NaN).
    one_verdict: bool = False

    def to_json(self) -> dict[str, Any]:
        """The score as a JSON object (NaN written as null)."""
        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(float(x), 6)
        return {"rates": {f: num(self.rates[f]) for f in FAMILIES if f in self.rates},
                "judged": {f: self.judged[f] for f in FAMILIES if f in self.judged},
                "tp": num(self.tp), "fp": num(self.fp), "di": num(self.di),
                "ci": [num(self.ci_low), num(self.ci_high)], "one_verdict": self.one_verdict}


@dataclass(frozen=True)
class ConditionScore:
    """A condition scored on the mean of seeds and on each seed, with the counts of what was not judged."""

    condition: str
    mean: Score
    per_seed: Mapping[int, Score]
    cannot_decide: int
    unparsed: int
    errors: int
    missing: int

    def to_json(self) -> dict[str, Any]:
        """The condition's scores as a JSON object."""
        return {"condition": self.condition, "mean_of_seeds": self.mean.to_json(),
                "per_seed": {str(s): self.per_seed[s].to_json() for s in sorted(self.per_seed)},
                "cannot_decide": self.cannot_decide, "unparsed": self.unparsed,
                "errors": self.errors, "missing": self.missing}


def penalty_table(judgments: Iterable[Judgment], families: Mapping[str, str], condition: str,
                  seeds: Sequence[int] | None = None) -> PenaltyTable:
    """Collect one condition's judgments over the items of ``families`` (item_id → family)."""
    for item_id, family in families.items():
        if family not in SHOULD_PENALIZE:
            raise InputError(f"item {item_id}: unknown family {family!r} (expected one of {', '.join(FAMILIES)})")
    rows = [r for r in judgments if r.condition == condition]
    seed_list = sorted({r.seed for r in rows}) if seeds is None else sorted(set(int(s) for s in seeds))
    item_ids = tuple(sorted(families))
    row_of = {item: i for i, item in enumerate(item_ids)}
    col_of = {seed: j for j, seed in enumerate(seed_list)}
    values = np.full((len(item_ids), len(seed_list)), np.nan)
    seen = np.zeros(values.shape, dtype=bool)
    cannot_decide = unparsed = errors = 0
    for row in rows:
        item, seed = row.item_id, row.seed
        if item not in row_of:
            raise InputError(f"judgment for item {item!r} (condition {condition}): item not in the suite's truth")
        if seed not in col_of:
            continue
        i, j = row_of[item], col_of[seed]
        seen[i, j] = True
        penalized = row.penalized
        if penalized is not None:
            values[i, j] = 1.0 if penalized else 0.0
        elif row.error:
            errors += 1
        elif row.verdict is not None and row.verdict.verdict == "cannot_decide":
            cannot_decide += 1
        else:
            unparsed += 1
    return PenaltyTable(condition, item_ids, tuple(families[i] for i in item_ids), tuple(seed_list), values,
                        cannot_decide, unparsed, errors, int((~seen).sum()))


def _pooled(values: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Mean of the judged values of ``pool`` items, per column (NaN when none judged)."""
    sub = values[pool]
    judged = ~np.isnan(sub)
    count = judged.sum(axis=0)
    total = np.where(judged, sub, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def penalty_rate(values: np.ndarray) -> float:
    """Penalised share of the judged values (NaN = not judged; NaN when none was judged)."""
    values = np.asarray(values, dtype=float).reshape(-1, 1)
    return float(_pooled(values, np.ones(len(values), dtype=bool))[0])


def discrimination_index(values: np.ndarray, should_penalize: np.ndarray) -> float:
    """DI = TP − FP for one vector of item values (NaN = not judged)."""
    values = np.asarray(values, dtype=float)[:, None]
    should = np.asarray(should_penalize, dtype=bool)
    return float(_pooled(values, should)[0] - _pooled(values, ~should)[0])


def di_from_family_rates(rates: Mapping[str, float], sizes: Mapping[str, int] = DEFAULT_SIZES) -> float:
    """DI from published family rates and family sizes (how the paper's DI follows from its rates)."""
    pos = [f for f in sizes if SHOULD_PENALIZE[f]]
    neg = [f for f in sizes if not SHOULD_PENALIZE[f]]
    tp = sum(rates[f] * sizes[f] for f in pos) / sum(sizes[f] for f in pos)
    fp = sum(rates[f] * sizes[f] for f in neg) / sum(sizes[f] for f in neg)
    return tp - fp


@lru_cache(maxsize=8)
def _pool_counts(n_neg: int, n_pos: int, resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    """Resample counts for the should-not and should-penalise pools (see the module docstring for the draw order)."""
    return pool_counts((n_neg, n_pos), resamples, seed)


def resampled_di(values: np.ndarray, should_penalize: np.ndarray, *, resamples: int = RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """DI of each column of ``values`` (items × k, NaN = not judged) under every resample: resamples × k."""
    should = np.asarray(should_penalize, dtype=bool)
    neg_counts, pos_counts = _pool_counts(int((~should).sum()), int(should.sum()), resamples, seed)

    def pooled(counts: np.ndarray, sub: np.ndarray) -> np.ndarray:
        judged = ~np.isnan(sub)
        weight = counts @ judged.astype(np.float64)
        total = counts @ np.where(judged, sub, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(weight > 0, total / np.maximum(weight, 1e-300), np.nan)

    return pooled(pos_counts, values[should]) - pooled(neg_counts, values[~should])


def bootstrap_di(values: np.ndarray, should_penalize: np.ndarray, *, resamples: int = RESAMPLES,
                 seed: int = BOOTSTRAP_SEED, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap CI of DI for each column of ``values`` (items × k, NaN = not judged); returns (low, high)."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    di = resampled_di(values, np.asarray(should_penalize, dtype=bool), resamples=resamples, seed=seed)
    tail = (1.0 - level) / 2.0 * 100.0
    return percentile_interval(di, tail, 100.0 - tail, axis=0)      # a column never judged has an all-NaN CI


def _scores(values: np.ndarray, families: Sequence[str], ci: tuple[np.ndarray, np.ndarray]) -> list[Score]:
    fam = np.array(families)
    should = np.array([SHOULD_PENALIZE[f] for f in families], dtype=bool)
    tp = _pooled(values, should)
    fp = _pooled(values, ~should)
    present = [f for f in FAMILIES if (fam == f).any()]
    rates = {f: _pooled(values, fam == f) for f in present}
    judged = {f: (~np.isnan(values[fam == f])).sum(axis=0) for f in present}
    out = []
    for k in range(values.shape[1]):
        seen = values[:, k][~np.isnan(values[:, k])]
        one = bool(seen.size) and bool((seen == seen[0]).all())   # one verdict everywhere: no interval to give
        low, high = (math.nan, math.nan) if one else (float(ci[0][k]), float(ci[1][k]))
        out.append(Score({f: float(rates[f][k]) for f in present}, {f: int(judged[f][k]) for f in present},
                         float(tp[k]), float(fp[k]), float(tp[k] - fp[k]), low, high, one))
    return out


def score_condition(table: PenaltyTable, *, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> ConditionScore:
    """Score one condition: mean of seeds and each seed, each with its DI bootstrap CI."""
    values = np.column_stack([table.item_means(), table.values]) if table.seeds else table.item_means()[:, None]
    ci = bootstrap_di(values, table.should_penalize, resamples=resamples, seed=seed)
    scores = _scores(values, table.families, ci)
    return ConditionScore(table.condition, scores[0], dict(zip(table.seeds, scores[1:])),
                          table.cannot_decide, table.unparsed, table.errors, table.missing)


def score_conditions(tables: Sequence[PenaltyTable], *, resamples: int = RESAMPLES,
                     seed: int = BOOTSTRAP_SEED) -> list[ConditionScore]:
    """Score several conditions; those over the same items share their bootstrap resamples."""
    return [score_condition(table, resamples=resamples, seed=seed) for table in tables]


# ---------------------------------------------------------------- risk–coverage


@dataclass(frozen=True)
class RiskCoverage:
    """The risk–coverage curve of a gate: one point per distinct margin threshold, highest first."""

    thresholds: np.ndarray
    coverage: np.ndarray
    risk: np.ndarray
    aurc: float

    def selective_risk(self, coverage: float) -> tuple[float, float, float]:
        """(risk, achieved coverage, τ) at the highest threshold whose coverage reaches ``coverage``."""
        if not 0.0 < coverage <= 1.0:
            raise ValueError(f"coverage must be in (0, 1], got {coverage}")
        j = int(np.searchsorted(self.coverage, coverage - 1e-12, side="left"))
        return float(self.risk[j]), float(self.coverage[j]), float(self.thresholds[j])

    def to_rows(self) -> list[dict[str, float]]:
        """The curve as rows (tau, coverage, risk), for CSV."""
        return [{"tau": float(t), "coverage": float(c), "risk": float(r)}
                for t, c, r in zip(self.thresholds, self.coverage, self.risk)]


def gating_loss(judged_correctly: np.ndarray, in_scope: np.ndarray) -> np.ndarray:
    """Loss if judged: in scope → 0 when the judge was right, 1 when wrong or undecided (NaN); out of scope → 1."""
    correct = np.asarray(judged_correctly, dtype=float)
    in_scope = np.asarray(in_scope, dtype=bool)
    right = np.where(np.isnan(correct), 0.0, correct)
    return np.where(in_scope, 1.0 - right, 1.0)


def risk_coverage(margin: np.ndarray, loss: np.ndarray) -> RiskCoverage:
    """The risk–coverage curve and AURC of judging items with margin ≥ τ (see the module docstring)."""
    margin = np.asarray(margin, dtype=float)
    loss = np.asarray(loss, dtype=float)
    if margin.shape != loss.shape or margin.ndim != 1 or margin.size == 0:
        raise ValueError("margin and loss must be non-empty 1-D arrays of the same length")
    if np.isnan(margin).any() or np.isnan(loss).any():
        raise ValueError("margin and loss must not contain NaN")
    order = np.argsort(-margin, kind="stable")
    sorted_margin, cum_loss = margin[order], np.cumsum(loss[order])
    # the last position of each run of equal margins: a threshold admits the whole run
    ends = np.flatnonzero(np.append(sorted_margin[1:] != sorted_margin[:-1], True))
    accepted = ends + 1
    coverage = accepted / margin.size
    risk = cum_loss[ends] / accepted
    aurc = float(np.sum(np.diff(coverage, prepend=0.0) * risk))
    return RiskCoverage(sorted_margin[ends], coverage, risk, aurc)
