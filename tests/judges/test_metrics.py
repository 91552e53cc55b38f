"""Metrics against slow pure-Python references, and the paper's DI from its family rates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judges.judgments import Judgment
from judges.verdict import Verdict
from judges.metrics import (
    DEFAULT_SIZES,
    PenaltyTable,
    bootstrap_di,
    di_from_family_rates,
    discrimination_index,
    gating_loss,
    penalty_rate,
    penalty_table,
    risk_coverage,
    score_condition,
)
from orgbench.core.errors import InputError

NAN = float("nan")

# CARGO.md: (P1, P3, P2, P4) → published DI. Tables 1–2 (mean of 3 seeds) and the rubric swap (Table 3).
PAPER_ROWS = {
    "NoRef": ((.44, .64, .96, .66), .24),
    "Direct": ((1.0, 1.0, 1.0, 1.0), .00),
    "Direct+Ctx": ((1.0, 1.0, 1.0, 1.0), .00),
    "CARGO+Auth": ((.00, .04, 1.00, .20), .57),
    "CARGO-Ctx": ((.00, .06, .92, .20), .52),
    "CARGO-Exemplar": ((.00, .02, 1.00, .20), .59),
    "CARGO-unv": ((.00, .02, 1.00, .20), .59),
    "swap Direct/golden-ref": ((1.0, 1.0, 1.0, 1.0), .00),
    "swap Direct/ctx-grounded": ((.03, .17, .90, .33), .49),
    "swap CARGO/golden-ref": ((.23, .40, 1.00, .47), .39),
    "swap CARGO/ctx-grounded": ((.00, .02, 1.00, .10), .54),
}


@pytest.mark.parametrize("row", sorted(PAPER_ROWS))
def test_paper_di_from_family_rates_with_default_sizes(row):
    (p1, p3, p2, p4), published = PAPER_ROWS[row]
    assert abs(di_from_family_rates({"P1": p1, "P3": p3, "P2": p2, "P4": p4}) - published) <= 0.01


def test_paper_di_from_items_built_to_the_paper_rates():
    """Items with the exact counts the rates imply give the same DI through the item-level path."""
    rates = {"P1": 0.0, "P3": 0.04, "P2": 1.0, "P4": 0.2}
    families, values = [], []
    for family in ("P1", "P3", "P2", "P4"):
        n = DEFAULT_SIZES[family]
        k = round(rates[family] * n)
        families += [family] * n
        values += [1.0] * k + [0.0] * (n - k)
    should = np.array([f in ("P2", "P4") for f in families])
    assert discrimination_index(np.array(values), should) == pytest.approx(60 / 100 - 4 / 146)
    assert round(discrimination_index(np.array(values), should), 2) == 0.57


# ------------------------------------------------------------- slow references


def ref_pooled(values, pool):
    judged = [v for v, p in zip(values, pool) if p and not math.isnan(v)]
    return sum(judged) / len(judged) if judged else NAN


def ref_item_means(matrix):
    out = []
    for row in matrix:
        judged = [v for v in row if not math.isnan(v)]
        out.append(sum(judged) / len(judged) if judged else NAN)
    return out


def ref_di(values, should):
    return ref_pooled(values, should) - ref_pooled(values, [not s for s in should])


def ref_percentile(xs, q):
    xs = sorted(x for x in xs if not math.isnan(x))
    pos = (len(xs) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def ref_bootstrap(values, should, resamples, seed):
    """The documented draw order, then loops: resample within each pool, pooled rates, percentiles."""
    rng = np.random.default_rng(seed)
    neg = [v for v, s in zip(values, should) if not s]
    pos = [v for v, s in zip(values, should) if s]
    neg_draws = rng.integers(0, len(neg), size=(resamples, len(neg))).tolist()
    pos_draws = rng.integers(0, len(pos), size=(resamples, len(pos))).tolist()
    dis = []
    for b in range(resamples):
        fp = ref_pooled([neg[i] for i in neg_draws[b]], [True] * len(neg))
        tp = ref_pooled([pos[i] for i in pos_draws[b]], [True] * len(pos))
        dis.append(tp - fp)
    return ref_percentile(dis, 2.5), ref_percentile(dis, 97.5)


@pytest.fixture(scope="module")
def small():
    """18 items × 3 seeds with a few unjudged cells (NaN), one item never judged."""
    rng = np.random.default_rng(42)
    families = ("P1",) * 4 + ("P3",) * 5 + ("P2",) * 4 + ("P4",) * 5
    p = {"P1": 0.1, "P3": 0.3, "P2": 0.9, "P4": 0.5}
    values = np.array([[float(rng.random() < p[f]) for _ in range(3)] for f in families])
    values[1, 2] = NAN
    values[6, 0] = NAN
    values[12, :] = NAN
    ids = tuple(f"item-{i:02d}" for i in range(len(families)))
    return PenaltyTable("cargo", ids, families, (0, 1, 2), values)


def test_di_and_rates_match_the_reference(small):
    should = [f in ("P2", "P4") for f in small.families]
    means = ref_item_means(small.values.tolist())
    assert np.allclose(small.item_means(), means, equal_nan=True)
    score = score_condition(small, resamples=500)
    assert score.mean.di == pytest.approx(ref_di(means, should), abs=1e-12)
    for family in ("P1", "P3", "P2", "P4"):
        assert score.mean.rates[family] == pytest.approx(
            ref_pooled(means, [f == family for f in small.families]), abs=1e-12)
    assert score.mean.judged == {"P1": 4, "P3": 5, "P2": 3, "P4": 5}
    for j, seed in enumerate(small.seeds):
        column = small.values[:, j].tolist()
        assert score.per_seed[seed].di == pytest.approx(ref_di(column, should), abs=1e-12)
        assert score.per_seed[seed].tp == pytest.approx(ref_pooled(column, should), abs=1e-12)


def test_bootstrap_ci_matches_the_reference(small):
    should = [f in ("P2", "P4") for f in small.families]
    means = ref_item_means(small.values.tolist())
    low, high = bootstrap_di(np.array(means), np.array(should), resamples=3000, seed=7)
    ref_low, ref_high = ref_bootstrap(means, should, 3000, 7)
    assert low[0] == pytest.approx(ref_low, abs=1e-12)
    assert high[0] == pytest.approx(ref_high, abs=1e-12)
    column = small.values[:, 1].tolist()
    low, high = bootstrap_di(small.values, np.array(should), resamples=3000, seed=7)
    assert (low[1], high[1]) == pytest.approx(ref_bootstrap(column, should, 3000, 7), abs=1e-12)


def test_bootstrap_is_seeded_paired_and_brackets_the_estimate(small):
    a = score_condition(small)
    b = score_condition(small)
    assert a == b
    assert a.mean.ci_low < a.mean.di < a.mean.ci_high
    assert score_condition(small, seed=1).mean.ci_low != a.mean.ci_low
    twin = PenaltyTable("cargo+auth", small.item_ids, small.families, small.seeds, small.values.copy())
    assert score_condition(twin).mean == a.mean  # same items → same resamples


def test_default_bootstrap_width_is_the_papers(small):
    """With the default sizes and the CARGO+Auth rates the 95% CI is about ±0.10, as published (.57 [.47, .67])."""
    families = ("P1",) * 50 + ("P3",) * 96 + ("P2",) * 50 + ("P4",) * 50
    values = np.array([0.0] * 50 + [1.0] * 4 + [0.0] * 92 + [1.0] * 50 + [1.0] * 10 + [0.0] * 40)
    should = np.array([f in ("P2", "P4") for f in families])
    low, high = bootstrap_di(values, should)
    assert 0.46 <= low[0] <= 0.49 and 0.65 <= high[0] <= 0.68


def test_penalty_table_from_runner_rows_counts_what_was_not_judged():
    families = {"a": "P1", "b": "P2", "c": "P3", "d": "P4"}
    rows = [
        {"item_id": "a", "condition": "cargo", "seed": 0, "penalized": False, "verdict": {"verdict": "pass"}, "error": None},
        {"item_id": "a", "condition": "cargo", "seed": 1, "penalized": True, "verdict": {"verdict": "fail"}, "error": None},
        {"item_id": "b", "condition": "cargo", "seed": 0, "penalized": True, "verdict": {"verdict": "fail"}, "error": None},
        {"item_id": "b", "condition": "cargo", "seed": 1, "penalized": None, "verdict": {"verdict": "cannot_decide"}, "error": None},
        {"item_id": "c", "condition": "cargo", "seed": 0, "penalized": None, "verdict": {"verdict": "unparsed"}, "error": None},
        {"item_id": "c", "condition": "cargo", "seed": 1, "penalized": None, "verdict": None, "error": "HTTP 400"},
        {"item_id": "d", "condition": "cargo", "seed": 0, "penalized": False, "verdict": {"verdict": "pass"}, "error": None},
        {"item_id": "d", "condition": "direct", "seed": 1, "penalized": True, "verdict": {"verdict": "fail"}, "error": None},
    ]
    rows = [Judgment.from_json(row, "judgments.jsonl") for row in rows]   # the typed records a run is read as
    assert [r.penalized for r in rows] == [False, True, True, None, None, None, False, True]
    table = penalty_table(rows, families, "cargo")
    assert table.item_ids == ("a", "b", "c", "d") and table.seeds == (0, 1)
    assert np.array_equal(table.values, np.array([[0, 1], [1, NAN], [NAN, NAN], [0, NAN]]), equal_nan=True)
    assert (table.cannot_decide, table.unparsed, table.errors, table.missing) == (1, 1, 1, 1)
    score = score_condition(table, resamples=200)
    assert score.mean.rates == {"P1": 0.5, "P3": pytest.approx(NAN, nan_ok=True), "P2": 1.0, "P4": 0.0}
    assert score.mean.judged == {"P1": 1, "P3": 0, "P2": 1, "P4": 1}
    assert score.mean.tp == 0.5 and score.mean.fp == 0.5 and score.mean.di == 0.0
    assert score.to_json()["mean_of_seeds"]["rates"]["P3"] is None
    with pytest.raises(InputError, match="item 'zz'"):
        penalty_table(rows + [Judgment("zz", "cargo", 0, verdict=Verdict("fail"))], families, "cargo")
    with pytest.raises(InputError, match="unknown family 'P9'"):
        penalty_table(rows, {"a": "P9"}, "cargo")


# ---------------------------------------------------------------- risk–coverage


def ref_aurc_no_ties(margin, loss):
    order = sorted(range(len(margin)), key=lambda i: -margin[i])
    total, risks = 0.0, []
    for k, i in enumerate(order, start=1):
        total += loss[i]
        risks.append(total / k)
    return sum(risks) / len(risks)


def test_risk_coverage_matches_the_reference_without_ties():
    rng = np.random.default_rng(3)
    margin = rng.random(40)
    loss = (rng.random(40) < 0.3).astype(float)
    curve = risk_coverage(margin, loss)
    assert curve.aurc == pytest.approx(ref_aurc_no_ties(margin.tolist(), loss.tolist()), abs=1e-12)
    assert len(curve.coverage) == 40 and curve.coverage[-1] == 1.0
    assert curve.risk[-1] == pytest.approx(loss.mean())


def test_risk_coverage_with_ties_and_fixed_coverages():
    margin = np.array([0.9, 0.9, 0.5, 0.5, 0.5, 0.1])
    loss = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    curve = risk_coverage(margin, loss)
    assert curve.thresholds.tolist() == [0.9, 0.5, 0.1]
    assert curve.coverage.tolist() == pytest.approx([2 / 6, 5 / 6, 1.0])
    assert curve.risk.tolist() == pytest.approx([1 / 2, 2 / 5, 3 / 6])
    assert curve.aurc == pytest.approx(2 / 6 * 1 / 2 + 3 / 6 * 2 / 5 + 1 / 6 * 3 / 6)
    assert curve.selective_risk(0.3) == pytest.approx((0.5, 2 / 6, 0.9))
    assert curve.selective_risk(0.5) == pytest.approx((0.4, 5 / 6, 0.5))
    assert curve.selective_risk(1.0) == pytest.approx((0.5, 1.0, 0.1))
    assert curve.to_rows()[0] == {"tau": 0.9, "coverage": pytest.approx(1 / 3), "risk": 0.5}
    with pytest.raises(ValueError):
        curve.selective_risk(0.0)


def test_gating_loss_makes_judging_out_of_scope_items_an_error():
    correct = np.array([1.0, 0.0, NAN, 1.0, 0.0])
    in_scope = np.array([True, True, True, False, False])
    assert gating_loss(correct, in_scope).tolist() == [0.0, 1.0, 1.0, 1.0, 1.0]
    curve = risk_coverage(np.array([0.8, 0.6, 0.4, 0.2, 0.05]), gating_loss(correct, in_scope))
    assert curve.selective_risk(0.2)[0] == 0.0


def test_penalty_rate_ignores_what_was_not_judged():
    assert penalty_rate(np.array([1.0, 0.0, NAN, 1.0])) == pytest.approx(2 / 3)
    assert math.isnan(penalty_rate(np.array([NAN, NAN])))


def test_a_condition_with_no_judgments_scores_as_missing():
    table = penalty_table([], {"a": "P1", "b": "P2"}, "cargo")
    assert table.seeds == () and table.missing == 0
    score = score_condition(table, resamples=100)
    assert math.isnan(score.mean.di) and math.isnan(score.mean.ci_low) and score.per_seed == {}
    table = penalty_table([], {"a": "P1", "b": "P2"}, "cargo", seeds=[0, 1])
    assert table.missing == 4
