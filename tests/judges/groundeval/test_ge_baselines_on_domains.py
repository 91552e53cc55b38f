"""The built-in GroundEval baselines on imported domains (issue 31): bm25, proximity and follow read only the tools
an LLM agent has (search_artifacts / fetch_artifact through the gates), yet separate the answers there too.

Pooled over the repository's hand-written domain (``shapes_domain``) and each built-in pack's world exported in the
GroundEval layout, each agent's verdict accuracy per track is compared with the majority baseline (always the
track's commoner gold verdict), with a 95% percentile bootstrap interval recomputed here from the answer and truth
files; the three agents' answers must differ.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from tests.benchmark_builders.groundeval.shapes_domain import write_shapes_domain

PACKS = ("hardware", "fintech", "clinical", "utility")
AGENTS = ("bm25", "proximity", "follow")
VERDICT = {"perspective": "could_actor_have_known", "counterfactual": "outcome_changed", "silence": "exists"}
SHAPES_SIZES = "[groundeval.perspective]\ncount = 200\n[groundeval.counterfactual]\ncount = 50\n" \
               "[groundeval.silence]\ncount = 20\n"


def _cli(*args: str) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, f"{args}: {result.output}"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _domains(root: Path) -> list[Path]:
    """The hand-written domain, then each pack's world (45 days) exported in the GroundEval layout."""
    shapes = write_shapes_domain(root / "shapes")
    (root / "shapes.toml").write_text(SHAPES_SIZES, encoding="utf-8")
    _cli("build", "groundeval", "--domain", str(shapes), "--out", str(root / "shapes-suite"),
         "--config", str(root / "shapes.toml"))
    suites = [root / "shapes-suite"]
    for pack in PACKS:
        world, domain, suite = root / f"{pack}-world", root / f"{pack}-domain", root / f"{pack}-suite"
        _cli("simulate", "--pack", pack, "--days", "45", "--out", str(world))
        _cli("export", str(world), "--format", "groundeval", "--out", str(domain))
        _cli("build", "groundeval", "--domain", str(domain), "--out", str(suite))
        suites.append(suite)
    return suites


def _verdicts(suites: list[Path], root: Path) -> tuple[list[tuple[str, bool]], dict[str, list[object]]]:
    """Every question's (track, gold verdict), and each agent's verdict on it, in the same order."""
    gold: list[tuple[str, bool]] = []
    said: dict[str, list[object]] = {agent: [] for agent in AGENTS}
    for suite in suites:
        truth = _rows(suite / "truth.jsonl")
        gold += [(t["track"], t["gold"][VERDICT[t["track"]]]) for t in truth]
        for agent in AGENTS:
            run = root / f"{suite.name}-{agent}"
            _cli("run-agent", "--suite", str(suite), "--agent", agent, "--out", str(run), "--no-latency")
            answers = {a["question_id"]: a["answer"] for a in _rows(run / "answers.jsonl")}
            said[agent] += [answers[t["question_id"]].get(VERDICT[t["track"]]) for t in truth]
            for trace in _rows(run / "traces.jsonl"):      # everything it read came through the two tools
                assert {c["tool"] for c in trace["calls"]} <= {"search_artifacts", "fetch_artifact"}
    return gold, said


def _interval(correct: np.ndarray, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = correct[rng.integers(0, len(correct), size=(4000, len(correct)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


@pytest.mark.slow
def test_bm25_proximity_and_follow_beat_the_majority_on_imported_domains(tmp_path):
    suites = _domains(tmp_path)
    gold, said = _verdicts(suites, tmp_path)
    tracks = sorted({track for track, _ in gold})
    assert tracks == ["counterfactual", "perspective", "silence"]
    beaten: dict[str, list[str]] = {}
    for agent in AGENTS:
        beaten[agent] = []
        for number, track in enumerate(tracks):
            at = [i for i, (t, _) in enumerate(gold) if t == track]
            truth = [gold[i][1] for i in at]
            majority = max(truth.count(True), truth.count(False)) / len(truth)
            correct = np.array([said[agent][i] == gold[i][1] for i in at], dtype=float)
            low, high = _interval(correct, number)
            print(f"{agent} {track}: accuracy {correct.mean():.3f} [{low:.3f}, {high:.3f}] "
                  f"vs majority {majority:.3f} (n={len(at)})")
            if low > majority:
                beaten[agent].append(track)
    assert all(len(won) >= 2 for won in beaten.values()), beaten
    for one, other in ((0, 1), (0, 2), (1, 2)):              # three agents, three different answer sets
        assert said[AGENTS[one]] != said[AGENTS[other]], (AGENTS[one], AGENTS[other])
