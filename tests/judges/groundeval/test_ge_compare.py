"""`orgbench compare RUN_A RUN_B` on GroundEval agent runs: exactly the questions that changed, CI gates, bad input."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmark_builders.groundeval.build import build_suite
from benchmark_builders.groundeval.synthetic import synthetic_world
from judges.groundeval.run import run_agent, score_run
from orgbench.cli import cli


@pytest.fixture(scope="module")
def leaky_runs(rt_suite, rt_world, rt_corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("ge-compare")
    for name in ("a", "b"):
        run_agent(rt_suite, "leaky", "tool", root / name, record_latency=False, corpus=rt_corpus, world=rt_world)
    return root / "a", root / "b"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _edited_copy(run: Path, out: Path, edit) -> str:
    """A copy of ``run`` with ``edit(trace)`` applied to the first trace it changes; that trace's question id."""
    shutil.copytree(run, out)
    traces = _rows(out / "traces.jsonl")
    target = next(t for t in traces if edit(t))
    (out / "traces.jsonl").write_text("".join(json.dumps(t) + "\n" for t in traces))
    return target["question_id"]


def _withheld_fetch(world, suite: Path):
    """An edit that turns a trace's first fetch into one of an artifact the contract's actor may not read."""
    contracts = {json.loads(line)["question_id"]: json.loads(line) for line in (suite / "contracts.jsonl").read_text().splitlines()}

    def edit(trace: dict) -> bool:
        contract = contracts[trace["question_id"]]
        fetches = [c for c in trace["calls"] if c["tool"] == "fetch_artifact"]
        hidden = [v for v in world.artifacts if v.subsystem not in contract["subsystems"]]
        clean = not any(any(c["gates"].values()) for c in trace["calls"])      # a gate newly broken, not again
        if not fetches or not hidden or not clean:
            return False
        fetches[0]["args"] = {"artifact_id": hidden[0].ref}
        fetches[0]["returned_ids"], fetches[0]["outcome"] = [], "withheld"
        fetches[0]["gates"] = {"horizon": False, "actor": False, "subsystem": True}
        return True
    return edit


def test_one_changed_call_is_exactly_what_compare_reports(leaky_runs, rt_suite, rt_world, tmp_path):
    a, b = leaky_runs
    same = CliRunner().invoke(cli, ["compare", str(a), str(b), "--resamples", "500", "--out", str(tmp_path / "same")])
    assert same.exit_code == 0, same.output
    data = json.loads((tmp_path / "same" / "compare.json").read_text())
    assert data["questions"] == [] and data["summary"]["all"]["delta"] == 0.0 and data["summary"]["all"]["ci"] == [0.0, 0.0]
    assert (tmp_path / "same" / "compare.md").read_text().startswith("# Agent comparison")
    assert data["scoring"] == "orgbench-2" and "scoring orgbench-2" in (tmp_path / "same" / "compare.md").read_text()

    edited = _edited_copy(b, tmp_path / "b-edited", _withheld_fetch(rt_world, rt_suite))
    result = CliRunner().invoke(cli, ["compare", str(a), str(tmp_path / "b-edited"), "--resamples", "500",
                                      "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert [q["question_id"] for q in data["questions"]] == [edited]
    change = data["questions"][0]
    assert data["new_gates"] == [edited] and change["new_gates"] == ["subsystem"]
    assert data["tool_sequences_changed"] == [edited]
    # the per-question S_adj of each side is what `score groundeval` writes for that run, recomputed separately
    score_run(rt_suite, a, tmp_path / "sa")
    score_run(rt_suite, tmp_path / "b-edited", tmp_path / "sb")
    sa = {r["question_id"]: r["s_adj"] for r in _rows(tmp_path / "sa" / "questions.jsonl")}
    sb = {r["question_id"]: r["s_adj"] for r in _rows(tmp_path / "sb" / "questions.jsonl")}
    assert [q for q in sa if sa[q] != sb[q]] == [edited]
    assert (change["s_adj_a"], change["s_adj_b"]) == (sa[edited], sb[edited]) and sb[edited] < sa[edited]
    assert data["summary"]["all"]["delta"] == round((sum(sb.values()) - sum(sa.values())) / len(sa), 4)
    low, high = data["summary"]["all"]["ci"]
    assert low <= data["summary"]["all"]["delta"] <= high and low < 0
    assert edited in result.output and "subsystem" in result.output
    # seeded: the same comparison twice is byte-identical
    again = CliRunner().invoke(cli, ["compare", str(a), str(tmp_path / "b-edited"), "--resamples", "500",
                                     "--out", str(tmp_path / "cmp2")])
    assert again.exit_code == 0
    assert (tmp_path / "cmp2" / "compare.json").read_bytes() == (tmp_path / "cmp" / "compare.json").read_bytes()


def test_a_changed_query_that_scores_the_same_is_a_changed_tool_sequence_only(leaky_runs, tmp_path):
    a, b = leaky_runs

    def requery(trace: dict) -> bool:
        searches = [c for c in trace["calls"] if c["tool"] == "search_artifacts"]
        if not searches:
            return False
        searches[0]["args"] = {**searches[0]["args"], "limit": searches[0]["args"]["limit"] + 1}
        return True

    edited = _edited_copy(b, tmp_path / "b", requery)
    result = CliRunner().invoke(cli, ["compare", str(a), str(tmp_path / "b"), "--resamples", "200", "--out",
                                      str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert data["tool_sequences_changed"] == [edited] and [q["question_id"] for q in data["questions"]] == [edited]
    assert data["fixed"] == data["regressed"] == data["new_gates"] == []


def test_a_missing_answer_scores_0_in_compare_as_in_score_groundeval(leaky_runs, rt_suite, tmp_path):
    a, b = leaky_runs
    score_run(rt_suite, a, tmp_path / "sa")
    dropped = next(r["question_id"] for r in _rows(tmp_path / "sa" / "questions.jsonl") if r["s_adj"] > 0)
    shutil.copytree(b, tmp_path / "b")
    answers = _rows(tmp_path / "b" / "answers.jsonl")
    (tmp_path / "b" / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in answers
                                                          if r["question_id"] != dropped))
    result = CliRunner().invoke(cli, ["compare", str(a), str(tmp_path / "b"), "--resamples", "200", "--out",
                                      str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert [q["question_id"] for q in data["questions"]] == [dropped]
    change = data["questions"][0]
    assert change["s_adj_b"] == 0 and change["s_adj_a"] > 0
    score_run(rt_suite, tmp_path / "b", tmp_path / "sb")
    assert {r["question_id"]: r["s_adj"] for r in _rows(tmp_path / "sb" / "questions.jsonl")}[dropped] == 0


def test_fail_on_regression_exits_1_only_past_the_tolerance(leaky_runs, rt_suite, rt_world, rt_corpus, tmp_path):
    a, _ = leaky_runs
    run_agent(rt_suite, "oracle", "tool", tmp_path / "oracle", record_latency=False, corpus=rt_corpus, world=rt_world)
    better = CliRunner().invoke(cli, ["compare", str(a), str(tmp_path / "oracle"), "--resamples", "200",
                                      "--fail-on-regression", "0"])
    assert better.exit_code == 0, better.output
    worse = CliRunner().invoke(cli, ["compare", str(tmp_path / "oracle"), str(a), "--resamples", "200",
                                     "--fail-on-regression", "0.05"])
    assert worse.exit_code == 1 and "regression: mean ΔS_adj" in worse.output
    written = CliRunner().invoke(cli, ["compare", str(tmp_path / "oracle"), str(a), "--resamples", "200",
                                       "--out", str(tmp_path / "w")])
    assert written.exit_code == 0, written.output
    data = json.loads((tmp_path / "w" / "compare.json").read_text())
    drop = -data["summary"]["all"]["delta"]
    assert data["fixed"] == [] and len(data["regressed"]) > 0
    tolerated = CliRunner().invoke(cli, ["compare", str(tmp_path / "oracle"), str(a), "--resamples", "200",
                                         "--fail-on-regression", str(drop + 0.01)])
    assert tolerated.exit_code == 0, tolerated.output


def test_runs_of_other_suites_or_kinds_are_refused_in_one_line(leaky_runs, rt_suite, tmp_path):
    a, _ = leaky_runs
    bare = tmp_path / "mcp-out"                 # answers and traces only, as serve-mcp --out holds them
    bare.mkdir()
    for name in ("answers.jsonl", "traces.jsonl"):
        shutil.copy(a / name, bare / name)
    given = CliRunner().invoke(cli, ["compare", str(bare), str(a), "--suite", str(rt_suite), "--resamples", "100"])
    assert given.exit_code == 0 and "## Questions that changed (0)" in given.output, given.output
    other = tmp_path / "other-suite"
    build_suite(other, world=synthetic_world(seed=5, days=12, people=12), name="syn-5")
    run_agent(other, "leaky", "tool", tmp_path / "other-run", record_latency=False)
    cargo = tmp_path / "cargo-run"
    cargo.mkdir()
    (cargo / "judgments.jsonl").write_text("")
    neither = tmp_path / "empty"
    neither.mkdir()
    twice = tmp_path / "answered-twice"             # one answer line repeated: before, scored and compared, exit 0
    shutil.copytree(bare, twice)
    lines = (twice / "answers.jsonl").read_text().splitlines(keepends=True)
    (twice / "answers.jsonl").write_text("".join(lines) + lines[0])
    cases = [([str(a), str(tmp_path / "other-run")], "the runs answered different suites"),
             ([str(a), str(twice), "--suite", str(rt_suite)], f":{len(lines) + 1}: repeats the answer of line 1"),
             ([str(a), str(cargo)], "compare runs of one kind"),
             ([str(a), str(neither)], "not a CARGO judge run (judgments.jsonl), a GroundEval agent run (answers.jsonl) or a contrast run"),
             ([str(a), str(a), str(a)], "two at a time"),
             ([str(a), str(a), "--suite", str(other)], "not the suite this run answered"),
             ([str(a), str(a), "--prices", str(cargo / "judgments.jsonl")], "--prices"),
             ([str(bare), str(bare)], "pass --suite")]
    for args, message in cases:
        result = CliRunner().invoke(cli, ["compare", *args, "--out", str(tmp_path / "never")])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
        assert not (tmp_path / "never").exists()
