"""Shortcut readers as tests: they reproduce the leaks of earlier suites, and find none in today's.

The suites before issues 14 and 30 are kept (the texts and labels of their 246 items, as their builders wrote
them) in ``data/``; a reader counts only because it detects the leak there. The builder's own readers
(``benchmark_builders.cargo.readers``) are checked against the suite before issue 14; the readers written apart
from the builder (``independent_readers``: warranty/age arithmetic, rollback distance, step phrases, a
bag-of-words logistic regression, candidate-vs-reference diffs) against the suite before issue 30, and on the
default suite their 95% interval must hold the majority baseline on every family pair.
"""

from __future__ import annotations

import gzip
import json
import sys
from datetime import date
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from benchmark_builders.cargo.readers import READERS, reader_scores  # noqa: E402
from cargo_synthetic import default_world_suite  # noqa: E402

BEFORE = Path(__file__).with_name("data") / "suite_before_issue14.jsonl.gz"
BEFORE_30 = Path(__file__).with_name("data") / "suite_before_issue30.jsonl.gz"


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


def _before_30():
    rows = [json.loads(line) for line in gzip.decompress(BEFORE_30.read_bytes()).decode().splitlines()]
    return rows, rows


#: (family pair, reader) that detect the suite before issue 30: their interval lies above the majority baseline.
DETECTED_BEFORE_30 = {
    ("whole suite", "arithmetic"), ("P1+P3 vs P2", "arithmetic"), ("P3 vs extra P2", "arithmetic"),
    ("P1+P3 vs P4", "step_phrases"),
}


@pytest.mark.slow          # 31 cross-validations (about 20 s)
def test_the_independent_readers_detect_the_suite_before_issue_30():
    from independent_readers import score_suite

    scores = score_suite(*_before_30())
    for pair, reader in DETECTED_BEFORE_30:
        assert scores[pair][reader].leaks, (pair, reader, str(scores[pair][reader]))
    # the arithmetic flags every warranty-end change and no should-not item
    assert scores["P1+P3 vs P2"]["warranty_age"].flagged == 9
    assert scores["P1+P3 vs P2"]["arithmetic"].flagged == 18


def test_warranty_and_rollback_arithmetic_reads_free_text():
    from independent_readers import opening_day_of_year, rollback_distance, warranty_and_age

    text = "Checked the warranty end 2027-03-01 and the asset age at opening, 1408 days. Firmware 4.2.9 to 4.2.5."
    assert warranty_and_age(text)[1] == 1408
    assert opening_day_of_year(text) == (date(2027, 3, 1).toordinal() + 1408) % 365
    assert rollback_distance(text) == 4


def test_wilson_interval_and_grouped_folds():
    from independent_readers import Item, grouped_folds, wilson

    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    items = [Item("", "", i % 2 == 0, world) for world in range(10) for i in range(3)]
    folds = grouped_folds(items)
    assert len(folds) == 5 and all(len({items[i].world for i in f}) == 2 for f in folds)


@pytest.mark.slow          # the default suite (built once per session) and 31 cross-validations
def test_no_independent_reader_beats_the_majority_on_the_default_suite(default_suite):
    """Every reader's 95% interval holds the majority baseline: none lies above it (a leak) and none below it (the
    logistic readers choose their regularisation inside each training fold, so with no signal they answer the
    majority label rather than overfit beneath it)."""
    from independent_readers import score_suite

    scores = score_suite(default_suite.items, default_suite.truth)
    for pair, by_reader in scores.items():
        print(pair, {name: str(s) for name, s in by_reader.items()})
    leaks = [(pair, name, str(s)) for pair, by_reader in scores.items() for name, s in by_reader.items() if s.leaks]
    assert not leaks
    for pair, by_reader in scores.items():
        for name, s in by_reader.items():
            assert s.low <= s.majority <= s.high, (pair, name, str(s))


def test_the_tuned_logistic_reader_learns_a_signal_and_falls_back_to_the_majority_without_one():
    """Regularisation chosen inside the training fold: a planted feature is learnt (every held-out item right); pure
    noise gives the majority label (no worse than guessing), where a fixed weak penalty overfits below it."""
    import random

    from independent_readers import Item, LogisticReader, TunedLogisticReader, cross_validate

    rng = random.Random(7)
    planted = [Item(f"w{rng.randrange(40)} w{rng.randrange(40)}" + (" mark" if n % 4 == 0 else ""), "", n % 4 == 0,
                    n % 10) for n in range(200)]
    noise = [Item(" ".join(f"w{rng.randrange(60)}" for _ in range(6)), "", rng.random() < 0.3, n % 10)
             for n in range(200)]

    def words(item: Item) -> set[str]:
        return set(item.candidate.split())

    learnt = cross_validate(lambda: TunedLogisticReader("tuned", words), planted)
    assert learnt.accuracy == 1.0 and learnt.majority == 0.75
    tuned = cross_validate(lambda: TunedLogisticReader("tuned", words), noise)
    fixed = cross_validate(lambda: LogisticReader("fixed", words, l2=0.01), noise)
    assert tuned.accuracy == tuned.majority and tuned.flagged == 0
    assert fixed.accuracy < tuned.accuracy
