"""Shortcut readers as tests: they reproduce the leak of the suite before issue 14, and find none in today's.

The suite before issue 14 is kept (question, reference, candidate and label of its 246 items, as its builder
wrote them) in ``data/suite_before_issue14.jsonl.gz``; a reader counts only because it beats the majority
label there by far.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from benchmark_builders.cargo.readers import READERS, reader_scores  # noqa: E402
from cargo_synthetic import default_world_suite  # noqa: E402

BEFORE = Path(__file__).with_name("data") / "suite_before_issue14.jsonl.gz"


def _before():
    rows = [json.loads(line) for line in gzip.decompress(BEFORE.read_bytes()).decode().splitlines()]
    truth = [{"item_id": r["item_id"], "family": r["family"], "should_penalize": r["should_penalize"]} for r in rows]
    return rows, truth


def test_each_reader_reproduces_the_leak_of_the_suite_before():
    scores = reader_scores(*_before())
    assert scores["candidate"]["accuracy"] >= 0.85 and scores["candidate"]["majority"] < 0.6
    assert scores["candidate+question"]["accuracy"] >= 0.85
    assert scores["candidate+reference"]["excess"] >= 0.08  # P2 against P1 and P3 only
    assert {r.name for r in READERS} == set(scores)


@pytest.mark.slow          # the default suite (built once per process, 15+ s)
def test_every_reader_is_within_005_of_the_majority_on_the_default_suite():
    suite = default_world_suite()
    printed = suite.meta["shortcut_readers"]
    assert printed == reader_scores(suite.items, suite.truth)
    for name, score in printed.items():
        assert score["accuracy"] <= score["majority"] + 0.05, (name, score)
    assert printed["candidate+reference"]["families"] == "P1+P3+P2"
    assert printed["candidate"]["items"] == 246


def test_a_suite_smaller_than_the_folds_still_builds():
    """Eight items over five folds leave folds empty: they are passed over (one item: nothing to hold out)."""
    from benchmark_builders.cargo.readers import cross_validate

    data = [({"a"}, True), ({"b"}, False), ({"a"}, True), ({"b"}, False)]
    scores = cross_validate(data)
    assert scores == {"accuracy": 1.0, "majority": 0.5}      # each test fold: one of each label; a tied train fold guesses False
    assert cross_validate([({"a"}, True)]) == {"accuracy": None, "majority": None}
