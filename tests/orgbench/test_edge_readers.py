"""Readers at the edges refuse, or visibly flag, what they cannot use: nothing half-read ends in exit 0 silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from orgbench.core.storage import write_manifest
from tests.orgbench.clitools import copy, fails, ok, run, tree, write_rows

ROOT = Path(__file__).resolve().parents[2]


def _judge(fx, out: Path) -> list[str]:
    return ["judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--conditions", "direct,cargo",
            "--out", out]


def test_a_truncated_run_is_refused_by_tables_and_compare_until_resumed(fx, tmp_path):
    run_dir = copy(fx["judged"], tmp_path)
    log = run_dir / "judgments.jsonl"
    whole = log.read_bytes()
    log.write_bytes(whole[: len(whole) * 2 // 5])                     # cut to 40%, mid-line
    kept = whole[: len(whole) * 2 // 5].count(b"\n")
    for command in (["tables", "cargo", run_dir, "--suite", fx["cargo"], "--resamples", 10],
                    ["compare", run_dir, fx["judged"], "--suite", fx["cargo"]]):
        fails(*command, "--out", tmp_path / "t",
              says=(f"{log}:{kept + 1}: its last line is cut short (the run was killed while writing); run the "
                    "same `orgbench judge` command again to resume the run",))
        assert not (tmp_path / "t").exists()
    ok(*_judge(fx, run_dir))                                           # resumed: the missing judgments are made
    assert log.read_bytes() == whole
    ok("tables", "cargo", run_dir, "--suite", fx["cargo"], "--resamples", 10, "--out", tmp_path / "t")


def test_a_run_killed_between_two_lines_is_refused_by_tables_compare_and_flagged_by_view(fx, tmp_path):
    """A SIGKILL between flushes leaves whole lines: run.json's jobs tells the reader the run did not finish."""
    run_dir = copy(fx["judged"], tmp_path)
    log = run_dir / "judgments.jsonl"
    whole = log.read_bytes()
    lines = whole.splitlines(keepends=True)
    jobs = json.loads((run_dir / "run.json").read_text())["jobs"]
    assert jobs == len(lines)
    log.write_bytes(b"".join(lines[: len(lines) * 2 // 5]))          # whole lines only
    says = (f"{log}: {len(lines) * 2 // 5} of the {jobs} judgments {run_dir / 'run.json'} asks for (the run stopped "
            "before the end); run the same `orgbench judge` command again to resume the run")
    for command in (["tables", "cargo", run_dir, "--suite", fx["cargo"], "--resamples", 10],
                    ["compare", run_dir, fx["judged"], "--suite", fx["cargo"]]):
        fails(*command, "--out", tmp_path / "t", says=says)
        assert not (tmp_path / "t").exists()
    result = run("view", run_dir, "--out", tmp_path / "v.html")
    assert result.exit_code == 0 and says[0] in result.stderr, result.output
    assert "Not finished: " + says[0] in (tmp_path / "v.html").read_text()
    ok(*_judge(fx, run_dir))                                           # resumed
    assert log.read_bytes() == whole
    ok("tables", "cargo", run_dir, "--suite", fx["cargo"], "--resamples", 10, "--out", tmp_path / "t")


def test_answers_cut_short_between_lines_are_refused_by_score_and_flagged_by_view(fx, tmp_path):
    run_dir = copy(fx["answered"], tmp_path)
    lines = (run_dir / "answers.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "answers.jsonl").write_text("".join(lines[:5]))
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", run_dir, "--out", tmp_path / "s",
          says=(f"{run_dir / 'answers.jsonl'}: 5 answer lines, but {run_dir / 'run.json'} says the run answered "
                f"{len(lines)} questions (the file was cut short); run the same `orgbench run-agent` command again",))
    assert not (tmp_path / "s").exists()
    result = run("view", run_dir, "--out", tmp_path / "v.html")
    assert result.exit_code == 0 and f"5 of the {len(lines)} answers run.json records" in result.stderr
    assert f"Incomplete: 5 of the {len(lines)} answers run.json records" in (tmp_path / "v.html").read_text()


def test_duplicated_judgments_are_refused_naming_both_lines(fx, tmp_path):
    run_dir = copy(fx["judged"], tmp_path)
    log = run_dir / "judgments.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines) + lines[3])
    fails("tables", "cargo", run_dir, "--suite", fx["cargo"], "--out", tmp_path / "t",
          says=(f"{log}:{len(lines) + 1}: repeats the judgment of line 4", "again to resume the run"))
    assert not (tmp_path / "t").exists()


def _resealed(suite: Path, tmp_path: Path, keep: int | None) -> Path:
    other = copy(suite, tmp_path)
    contracts = (other / "contracts.jsonl").read_text().splitlines(keepends=True)
    (other / "contracts.jsonl").write_text("".join(contracts[:keep]) if keep else "")
    write_manifest(other)
    return other


def test_scoring_a_run_against_another_suite_is_refused(fx, tmp_path):
    other = _resealed(fx["ge"], tmp_path, keep=5)
    fails("score", "groundeval", "--suite", other, "--answers", fx["answered"], "--out", tmp_path / "s",
          says=(f"{fx['answered'] / 'run.json'}: the run answered another suite", "score it against the suite it "
                "answered"))
    assert not (tmp_path / "s").exists()
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", tmp_path / "s")


def test_run_agent_on_a_suite_without_contracts_is_refused(fx, tmp_path):
    empty = _resealed(fx["ge"], tmp_path, keep=None)
    fails("run-agent", "--suite", empty, "--agent", "oracle", "--out", tmp_path / "r",
          says=(f"{empty / 'contracts.jsonl'}: no contracts; nothing to answer",))
    assert not (tmp_path / "r").exists()


def test_repeated_unknown_and_ill_typed_answer_rows_are_refused_or_listed(fx, tmp_path):
    answers = [json.loads(line) for line in (fx["answered"] / "answers.jsonl").read_text().splitlines()]
    for rows, says in (
            ([*answers, answers[0]], f":{len(answers) + 1}: repeats the answer of line 1"),
            ([*answers, {**answers[0], "question_id": "GE-nope"}], "question_id 'GE-nope' is not a question of the suite"),
            ([*answers, {**answers[0], "agent": 7}], f":{len(answers) + 1}: field agent is int, not text"),
            ([*answers, {**answers[0], "question_id": 3}], "field question_id is int, not text")):
        path = tmp_path / "answers.jsonl"
        write_rows(path, rows)
        fails("score", "groundeval", "--suite", fx["ge"], "--answers", path, "--out", tmp_path / "s",
              says=(f"{path}", says, "nothing written (--on-error skip leaves such lines out)"))
        assert not (tmp_path / "s").exists()
        result = run("score", "groundeval", "--suite", fx["ge"], "--answers", path, "--out", tmp_path / "s",
                     "--on-error", "skip")
        assert result.exit_code == 0, result.output
        assert says in result.stderr                                   # listed, not dropped silently
        agents = json.loads((tmp_path / "s" / "summary.json").read_text())["agents"]
        assert list(agents) == ["oracle"]                              # no phantom agent "7"
        shutil.rmtree(tmp_path / "s")


def test_report_flags_a_missing_or_broken_study_summary(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results, ignore=shutil.ignore_patterns("*.png", "*.pdf", "index.html"))
    (results / "groundeval" / "summary.json").write_text("[1\n")
    result = run("report", "--results", results, "--out", tmp_path / "page.html")
    assert result.exit_code == 0, result.output
    why = f"{results / 'groundeval' / 'summary.json'}:2: invalid JSON"
    assert why in result.stderr
    page = (tmp_path / "page.html").read_text()
    assert "Not shown: files that could not be read" in page and why in page
    (results / "groundeval" / "summary.json").unlink()
    result = run("report", "--results", results, "--out", tmp_path / "page.html")
    assert f"{results / 'groundeval' / 'summary.json'}: file not found" in (tmp_path / "page.html").read_text()


def test_view_flags_unreadable_answer_lines(fx, tmp_path):
    run_dir = copy(fx["answered"], tmp_path)
    lines = (run_dir / "answers.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "answers.jsonl").write_text(lines[0] + "garbage\n" + "".join(lines[1:]))
    result = run("view", run_dir, "--out", tmp_path / "v.html")
    assert result.exit_code == 0, result.output
    why = f"{run_dir / 'answers.jsonl'}:2:"
    assert why in result.stderr
    assert f"{len(lines)} answers" in (tmp_path / "v.html").read_text()
    assert "1 unreadable line(s) left out" in (tmp_path / "v.html").read_text()
    assert tree(run_dir)                                               # nothing in the run was changed


def test_assure_verify_names_a_stage_record_that_is_not_an_object(fx, tmp_path):
    ok("assure", "run", "--source", fx["tr"], "--work", tmp_path / "w", "--judge", "stub")
    (tmp_path / "w" / "records" / "check.record.json").write_text("[1, 2, 3]\n")
    result = run("assure", "verify", tmp_path / "w")
    assert result.exit_code == 4 and not isinstance(result.exception, AttributeError), result.exception  # tampering
    assert (f"FAIL records/check.record.json record-present: {tmp_path / 'w' / 'records' / 'check.record.json'}: "
            "not a JSON object (a stage record)") in result.output
