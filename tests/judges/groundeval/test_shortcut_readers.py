"""Shortcut readers (``shortcut_readers.py``) against the scorer, through the suite-mode MCP server with the official
client in tool and context mode, on the default world and a small world of each domain pack.

Before the orgbench scoring profile (commit "GroundEval shortcut readers as tests"), on the default world in tool
mode: always-no scored S_adj 1.000 on temporal negatives (the oracle's score), zero-shot S_traj .920 on
Perspective, latest-timestamp .700 on absences with every verdict wrong, keyword-overlap .850 on silence/indirect.
The ``preprint`` profile keeps those weights: the first and third still show there.
"""

from __future__ import annotations


import pytest

from benchmark_builders.groundeval.build import build_suite
from benchmark_builders.groundeval.contracts import KINDS
from benchmark_builders.groundeval.question_lint import question_problems
from judges.groundeval.traces import load_suite, load_truth
from simulator.config import load_config
from simulator.packs import BUILTIN_PACKS
from simulator.simulate import simulate
from tests.judges.groundeval.shortcut_readers import ALL, bounds_broken, drive_mcp, means

pytestmark = pytest.mark.slow
WORLDS = {"default": {}, **{pack: {"days": 60, "people": 40, "pack": pack} for pack in BUILTIN_PACKS}}


#: Bounds still broken (kept exact so a change either way shows): none. Before named_decoy questions came in pairs
#: (both verdicts about one post, worded alike) and 12 were asked for, latest-timestamp got 4 of 6 right on the
#: utility pack's small world in tool mode (S_adj .556).
KNOWN_BREACHES: dict[tuple[str, str], dict[str, list[str]]] = {}


@pytest.fixture(scope="module", params=sorted(WORLDS))
def suite(request, tmp_path_factory):
    """The default world (seed 7, 90 days, 60 people), and a small world of each pack (every kind is built)."""
    out = tmp_path_factory.mktemp("readers") / request.param
    build_suite(out, world=simulate(load_config(**WORLDS[request.param])), name=request.param, note=None)
    return out


@pytest.mark.parametrize("mode", ["tool", "context"])
def test_no_shortcut_scores_what_the_work_earns_over_mcp(suite, mode, tmp_path):
    """Every reader, and lazy and zero-shot, through the MCP server: every bound of issue 29 holds, on every kind."""
    over = drive_mcp(suite, ALL, tmp_path, mode)
    scores = {name: means(rows) for name, rows in over.items()}
    known = KNOWN_BREACHES.get((suite.name, mode), {})
    assert {name: bounds_broken(name, got) for name, got in scores.items()} == \
        {name: known.get(name, []) for name in ALL}
    kinds = {f"{track}/{kind}" for track, kinds in KINDS.items() for kind in kinds}
    assert kinds <= set(scores["oracle"])                       # every kind was built and held to its bounds
    assert scores["always-wrong"]["all"]["verdict"] == 0.0 and scores["oracle"]["all"]["s_adj"] == 1.0
    if (suite.name, mode) == ("default", "tool"):  # docs/spec/groundeval.md: the oracle's evidence, every verdict
        wrong = scores["always-wrong"]               # flipped, scores 0 on Perspective and below .1 on Counterfactual
        assert wrong["perspective"]["s_adj"] == 0.0 and wrong["counterfactual"]["s_adj"] < 0.1
    assert {row.scoring for rows in over.values() for row in rows} == {"orgbench-2"}
    assert {row.mode for rows in over.values() for row in rows} == {mode}


def _scored(row):
    """A row's scores (the stdio server records each call's latency; the in-process one was told not to)."""
    return (row.question_id, row.mode, row.s_answer, row.s_traj, row.v, row.s_adj, row.answer_correct, row.n_calls,
            row.scoring)


def test_serve_mcp_over_stdio_scores_as_in_process(suite, tmp_path):
    """``python -m orgbench serve-mcp`` with ClientSession on stdio_client: the same rows as the in-process server
    (one world: the transport, not the world, is what differs)."""
    if suite.name != "clinical":
        pytest.skip("the stdio transport is checked on one world, the smallest")
    names = ("no-after-irrelevant-search", "oracle")
    for mode in ("tool", "context"):
        stdio = drive_mcp(suite, names, tmp_path / f"stdio-{mode}", mode, "stdio")
        memory = drive_mcp(suite, names, tmp_path / f"memory-{mode}", mode)
        assert {n: [_scored(r) for r in rows] for n, rows in stdio.items()} == \
            {n: [_scored(r) for r in rows] for n, rows in memory.items()}
        assert {n: bounds_broken(n, means(rows)) for n, rows in stdio.items()} == {n: [] for n in names}


def test_the_preprint_profile_still_lets_the_shortcuts_through(suite, tmp_path):
    """The readers find what they were written to find: under ``preprint`` (upstream's weights) a "no" without
    looking still scores the oracle's 1.000 on temporal negatives, and wrong verdicts outscore chance on absences."""
    if suite.name != "default":
        pytest.skip("the figures of the issue are the default world's")
    over = drive_mcp(suite, ("always-no", "latest-timestamp"), tmp_path, "tool", profile="preprint")
    no, latest = means(over["always-no"]), means(over["latest-timestamp"])
    assert no["perspective/temporal_negative"]["s_adj"] == 1.0
    assert latest["silence/absence"]["verdict"] == 0.0 and latest["silence/absence"]["s_adj"] == 0.7
    assert {row.scoring for rows in over.values() for row in rows} == {"preprint-1"}


def test_built_questions_name_only_what_they_are_about(suite):
    truths = load_truth(suite)
    contracts = load_suite(suite)[1]
    assert {c.question_id: question_problems(c.question, c.subject, truths[c.question_id]) for c in contracts} == \
        {c.question_id: [] for c in contracts}
    assert any(truths[c.question_id].kind == "indirect" for c in contracts)
