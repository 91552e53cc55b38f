"""Shortcut readers (``shortcut_readers.py``) against the scorer, in tool and context mode, on the default world
and a small world of each pack, in process and through the suite-mode MCP server with the official client.

Before the orgbench scoring profile (commit "GroundEval shortcut readers as tests"), on the default world in tool
mode: always-no scored S_adj 1.000 on temporal negatives (the oracle's score), zero-shot S_traj .920 on
Perspective, latest-timestamp .700 on absences with every verdict wrong, keyword-overlap .850 on silence/indirect.
"""

from __future__ import annotations


import pytest

from benchmark_builders.groundeval.build import build_suite
from benchmark_builders.groundeval.contracts import HARD_KINDS, TRACKS
from benchmark_builders.groundeval.question_lint import question_problems
from judges.groundeval.runtime import Corpus
from judges.groundeval.traces import load_corpus_world, load_suite, load_truth
from simulator.config import load_config
from simulator.simulate import simulate
from tests.judges.groundeval.shortcut_readers import CONSTANT, NO_EVIDENCE, READERS, RETRIEVAL, drive, drive_mcp, means

pytestmark = pytest.mark.slow
HARD = {f"{track}/{kind}" for track, kinds in HARD_KINDS.items() for kind in kinds}
WORLDS = {"default": {}, "hardware": {"days": 60, "people": 40}, "fintech": {"days": 60, "people": 40, "pack": "fintech"}}


@pytest.fixture(scope="module", params=sorted(WORLDS))
def suite(request, tmp_path_factory):
    """The default world (seed 7, 90 days, 60 people), and a small world of each pack (every kind is built)."""
    out = tmp_path_factory.mktemp("readers") / request.param
    build_suite(out, world=simulate(load_config(**WORLDS[request.param])), name=request.param, note=None)
    return out, Corpus(load_corpus_world(out))


def _bounds_broken(name: str, scores: dict[str, dict[str, float]]) -> list[str]:
    """Every bound of the issue's "what must hold" that ``name``'s scores break."""
    broken = []
    for key, got in scores.items():
        s_adj = got["s_adj"]
        if name in NO_EVIDENCE and key in TRACKS and s_adj > 0.55:
            broken.append(f"{key}: no evidence gathered, S_adj {s_adj}")
        if name in CONSTANT and "/" in key and s_adj > 0.45:
            broken.append(f"{key}: constant verdict, S_adj {s_adj}")
        if name in RETRIEVAL and key in HARD and s_adj > 0.55:
            broken.append(f"{key}: retrieval on a hard kind, S_adj {s_adj}")
        if "/" in key and got["verdict"] == 0.0 and s_adj > 0.45:
            broken.append(f"{key}: every verdict wrong, S_adj {s_adj}")
        if name == "oracle" and s_adj != 1.0:
            broken.append(f"{key}: oracle S_adj {s_adj}")
    return broken


@pytest.mark.parametrize("mode", ["tool", "context"])
def test_no_shortcut_scores_what_the_work_earns(suite, mode):
    path, corpus = suite
    broken = {}
    for name in (*READERS, "lazy", "zero-shot"):
        scores = means(drive(path, name, mode, corpus))
        broken[name] = _bounds_broken(name, scores)
        if name == "always-wrong":
            assert scores["all"]["verdict"] == 0.0
    assert broken == {name: [] for name in broken}


def test_through_the_mcp_server_too(suite, tmp_path):
    path, _ = suite
    names = ("always-no", "no-after-irrelevant-search", "zero-shot", "keyword-overlap", "latest-timestamp",
             "always-wrong", "oracle")
    over = drive_mcp(path, names, tmp_path)
    assert {name: _bounds_broken(name, means(rows)) for name, rows in over.items()} == {name: [] for name in names}
    assert {row.scoring for rows in over.values() for row in rows} == {"orgbench-2"}


def test_built_questions_name_only_what_they_are_about(suite):
    path, _ = suite
    truths = load_truth(path)
    contracts = load_suite(path)[1]
    assert {c.question_id: question_problems(c.question, c.subject, truths[c.question_id]) for c in contracts} == \
        {c.question_id: [] for c in contracts}
    assert any(truths[c.question_id].kind == "indirect" for c in contracts)
