"""The one bootstrap: its draws follow the documented generator rule and its intervals are percentiles of them."""

from __future__ import annotations

import numpy as np

from judges.bootstrap import cluster_interval, draws, paired_mean_delta, percentile_interval, pool_counts


def test_draws_are_numpys_integers_from_the_seed_and_none_for_an_empty_pool():
    assert (draws(4, 3, 11) == np.random.default_rng(11).integers(0, 4, size=(3, 4))).all()
    rng = np.random.default_rng(5)
    assert draws(0, 3, rng).shape == (3, 0)
    assert (draws(2, 1, rng) == np.random.default_rng(5).integers(0, 2, size=(1, 2))).all()  # generator untouched


def test_pool_counts_count_each_pools_draws_in_turn_from_one_generator():
    neg, pos = pool_counts((3, 2), 4, 9)
    rng = np.random.default_rng(9)
    first, second = rng.integers(0, 3, size=(4, 3)), rng.integers(0, 2, size=(4, 2))
    assert neg.tolist() == [[float((row == i).sum()) for i in range(3)] for row in first]
    assert pos.tolist() == [[float((row == i).sum()) for i in range(2)] for row in second]


def test_a_constant_difference_has_a_point_interval():
    assert paired_mean_delta(np.zeros(5), np.full(5, 0.25), resamples=50, seed=0) == (0.25, 0.25, 0.25)
    assert paired_mean_delta(np.zeros(0), np.zeros(0), resamples=50, seed=0) == (0.0, 0.0, 0.0)


def test_the_cluster_interval_is_a_ratio_of_sums_over_whole_clusters():
    values, sizes = np.array([2.0, 0.0]), np.array([1.0, 3.0])
    drawn = np.array([[0, 0], [1, 1], [0, 1], [1, 0]])     # Σ values / Σ sizes: 4/2, 0/6, 2/4, 2/4
    assert cluster_interval(values, sizes, drawn) == [round(0.0 + 0.025 * 3 * 0.5, 4), round(0.5 + 0.925 * 1.5, 4)]
    assert cluster_interval(values, np.array([]), drawn) == [0.0, 0.0]


def test_percentiles_leave_nan_resamples_out():
    low, high = percentile_interval(np.array([np.nan, 0.0, 1.0, 2.0, 3.0, 4.0]), 25.0, 75.0)
    assert (float(low), float(high)) == (1.0, 3.0)
