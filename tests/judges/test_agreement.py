"""Agreement statistics against published worked examples and a brute-force recount."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np

from judges.agreement import cohen_kappa, krippendorff_alpha, paired_delta_di
from judges.metrics import discrimination_index

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers x 12 units example:
# nominal alpha = 0.743
_ = None
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]


def _str(rows):
    return [[None if v is None else str(v) for v in row] for row in rows]


def test_krippendorff_alpha_matches_the_published_example():
    alpha, items = krippendorff_alpha(_str(KRIPPENDORFF_2011))
    assert items == 11                      # the last unit has one value and is not pairable
    assert round(alpha, 3) == 0.743


def _alpha_by_pairs(ratings):
    """Nominal alpha recounted from every ordered pair of values within units (written apart from the module)."""
    units = [[r[i] for r in ratings if r[i] is not None] for i in range(len(ratings[0]))]
    units = [u for u in units if len(u) >= 2]
    values = [v for u in units for v in u]
    n = len(values)
    d_o = sum(sum(a != b for a, b in permutations(u, 2)) / (len(u) - 1) for u in units) / n
    d_e = sum(a != b for a, b in permutations(values, 2)) / (n * (n - 1))
    return 1 - d_o / d_e


def test_krippendorff_alpha_equals_a_pairwise_recount_with_missing_labels():
    rng = np.random.default_rng(3)
    labels = ["pass", "fail", "cannot_decide", None]
    ratings = [[labels[k] for k in rng.integers(0, 4, 30)] for _ in range(3)]
    decided = [[None if v == "cannot_decide" else v for v in r] for r in ratings]   # undecided counts as missing
    assert math.isclose(krippendorff_alpha(ratings)[0], _alpha_by_pairs(decided), rel_tol=1e-12)
    assert krippendorff_alpha(ratings)[1] == krippendorff_alpha(decided)[1]


def test_agreement_is_over_decided_items_only():
    """Two judges that decided nothing do not agree: no κ, over 0 items (not κ 0 over every item)."""
    kappa, n = cohen_kappa(["cannot_decide"] * 5, ["cannot_decide"] * 5)
    assert math.isnan(kappa) and n == 0
    kappa, n = cohen_kappa(["pass", "fail", "cannot_decide", "fail"], ["pass", "fail", "pass", "fail"])
    assert n == 3 and kappa == 1.0


def test_cohen_kappa_worked_example_and_missing_items():
    # 50 items: both yes 20, a yes b no 5, a no b yes 10, both no 15 -> p_o = 0.7, p_e = 0.5, kappa = 0.4
    a = ["fail"] * 25 + ["pass"] * 25
    b = ["fail"] * 20 + ["pass"] * 5 + ["fail"] * 10 + ["pass"] * 15
    kappa, n = cohen_kappa(a + [None], b + ["fail"])
    assert n == 50 and math.isclose(kappa, 0.4)
    assert math.isnan(cohen_kappa(["pass"] * 3, ["pass"] * 3)[0])


def test_paired_delta_di_is_the_difference_and_its_ci_brackets_it():
    should = np.array([True] * 10 + [False] * 10)
    a = np.array([1.0] * 8 + [0.0] * 2 + [0.0] * 9 + [1.0])
    b = np.array([1.0] * 5 + [0.0] * 5 + [0.0] * 6 + [1.0] * 3 + [np.nan])
    delta, low, high = paired_delta_di(a, b, should, resamples=2000)
    assert math.isclose(delta, discrimination_index(a, should) - discrimination_index(b, should))
    assert low <= delta <= high
    same = paired_delta_di(a, a, should, resamples=500)
    assert same == (0.0, 0.0, 0.0)          # paired draws: a judge against itself differs by exactly 0
