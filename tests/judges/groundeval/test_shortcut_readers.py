"""Shortcut readers (``shortcut_readers.py``) against the scorer, in tool and context mode, on the default world's
pack (hardware) and the fintech pack, in process and through the suite-mode MCP server with the official client."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark_builders.groundeval.build import build_suite
from judges.groundeval.runtime import Corpus
from judges.groundeval.traces import load_corpus_world
from simulator.config import load_config
from simulator.simulate import simulate
from tests.judges.groundeval.shortcut_readers import drive, drive_mcp, means

pytestmark = pytest.mark.slow
PACKS = ("hardware", "fintech")


def _suite(tmp: Path, pack: str, **size) -> tuple[Path, Corpus]:
    out = tmp / f"suite-{pack}"
    world = simulate(load_config(pack=pack, **size))
    build_suite(out, world=world, name=f"readers-{pack}", note=None)
    return out, Corpus(load_corpus_world(out))


@pytest.fixture(scope="module", params=PACKS)
def pack_suite(request, tmp_path_factory):
    """A small world of each pack (60 days, 40 people: every kind is built)."""
    return _suite(tmp_path_factory.mktemp("readers"), request.param, days=60, people=40)


@pytest.fixture(scope="module")
def default_suite(tmp_path_factory):
    """The default world (seed 7, 90 days, 60 people)."""
    return _suite(tmp_path_factory.mktemp("readers-default"), "hardware")


def _scores(suite, corpus, name, mode):
    return means(drive(suite, name, mode, corpus))


def test_todays_scorer_lets_shortcuts_through(pack_suite):
    """The figures the issue reports, reproduced on the small worlds (the scoring change replaces this test)."""
    suite, corpus = pack_suite
    for mode in ("tool", "context"):
        no = _scores(suite, corpus, "always-no", mode)
        assert no["perspective/temporal_negative"]["s_adj"] == 1.0          # the oracle's score, without looking
        assert _scores(suite, corpus, "lazy", mode)["perspective/temporal_negative"]["s_adj"] == 1.0
        zero = _scores(suite, corpus, "zero-shot", mode)["perspective"]
        assert zero["s_traj"] == 0.92 and zero["s_adj"] == 0.68
        wrong = _scores(suite, corpus, "always-wrong", mode)
        assert wrong["silence/absence"]["verdict"] == 0.0 and wrong["silence/absence"]["s_adj"] == 0.7
        assert _scores(suite, corpus, "oracle", mode)["all"]["s_adj"] >= 0.99   # empty searches count as dead ends
    latest = _scores(suite, corpus, "latest-timestamp", "tool")["silence/absence"]
    assert latest["verdict"] <= 0.2 and latest["s_adj"] >= 0.65     # wrong on nearly every absence, still .65+


def test_todays_scorer_over_mcp(pack_suite, tmp_path):
    suite, corpus = pack_suite
    over = {name: means(rows) for name, rows in drive_mcp(suite, ("always-no", "lazy", "oracle"), tmp_path).items()}
    assert over["always-no"]["perspective/temporal_negative"]["s_adj"] == 1.0
    assert over["lazy"]["perspective/temporal_negative"]["s_adj"] == 1.0
    assert over["oracle"]["all"]["s_adj"] >= 0.99
