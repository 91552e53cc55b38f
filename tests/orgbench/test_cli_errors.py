"""Bad input a user can give any command ends in one line naming the file and field, and exit code 2.

Each test corrupts a copy of small fixtures (one world, the suites and runs
built from it, built once for the module) or passes a bad option value, runs
the command through click's CliRunner and checks the exit code, the single
``error:`` line on stderr, and that nothing the user already had was replaced.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbench.cli import cli

from tests.orgbench.clitools import (SIZES, closed_port, copy, fails, ok, rows, run, tree, usage_error,
                                     write_rows)


# --- output paths: never replace a file, or a directory that holds something else -----------------------------

def test_simulate_out_under_a_regular_file(fx):
    fails("simulate", "--out", fx["file"] / "w", "--days", 5, "--people", 16,
          says=(f"--out {fx['file'] / 'w'}", f"{fx['file']} is a file"))


@pytest.mark.parametrize("command, what", [
    (["build", "cargo", *SIZES], "a CARGO suite"),
    (["build", "groundeval"], "a GroundEval suite"),
    (["build", "trajectories", "--n", "3"], "a trajectory suite"),
])
def test_build_refuses_to_replace_a_directory_of_another_kind(fx, tmp_path, command, what):
    other = copy(fx["world"], tmp_path)           # another world (the input itself as --out: test_edge_sources)
    before = tree(other)
    fails(*command, "--world", fx["world"], "--out", other,
          says=(f"--out {other}: exists and is not {what}", "refusing to replace it"))
    assert tree(other) == before


def test_build_cargo_refuses_to_replace_a_groundeval_suite(fx):
    before = tree(fx["ge"])
    fails("build", "cargo", "--world", fx["world"], "--out", fx["ge"], *SIZES, says=("is not a CARGO suite",))
    assert tree(fx["ge"]) == before


def test_run_agent_out_is_a_regular_file_which_is_kept(fx):
    fails("run-agent", "--suite", fx["ge"], "--agent", "oracle", "--out", fx["file"],
          says=(f"--out {fx['file']}: exists and is not a directory",))
    assert fx["file"].read_text() == "mine\n"


def test_score_refuses_to_replace_a_world(fx):
    before = tree(fx["world"])
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", fx["world"],
          says=("holds a world, not GroundEval scores", "--overwrite"))
    assert tree(fx["world"]) == before


@pytest.mark.parametrize("command", [
    ["judge", "--judge", "builtin:literal", "--suite", "{cargo}", "--out", "{file}/run"],
    ["tables", "cargo", "{judged}", "--suite", "{cargo}", "--out", "{file}/tables"],
    ["assure", "contrast", "--source", "{tr}", "--out", "{file}/contrast"],
    ["report", "--results", "{world}", "--out", "{file}/index.html"],
])
def test_out_under_a_regular_file(fx, command):
    fails(*[part.format(**fx) for part in command], says=(f"{fx['file']}",))


@pytest.mark.parametrize("command", [
    ["judge", "--judge", "builtin:literal", "--suite", "{cargo}", "--out", "{world}"],
    ["tables", "cargo", "{judged}", "--suite", "{cargo}", "--out", "{world}"],
    ["assure", "contrast", "--source", "{tr}", "--out", "{world}"],
    ["assure", "build", "--source", "{tr}", "--work", "{world}"],
    ["serve-mcp", "--suite", "{ge}", "--contract", "X", "--out", "{answered}"],
])
def test_commands_that_add_files_refuse_a_sealed_directory(fx, command):
    target = Path(command[-1].format(**fx))
    before = tree(target)
    fails(*[part.format(**fx) for part in command], says=(f"{target}: holds a",))
    assert tree(target) == before


def test_serve_mcp_refuses_an_out_it_cannot_write_before_serving(fx, tmp_path):
    import errno

    from tests.orgbench.edge_fuzz import Injected

    with Injected(errno.EROFS, under=tmp_path / "ro"):      # before, the agent learnt it at its first submit
        fails("serve-mcp", "--suite", fx["ge"], "--out", tmp_path / "ro" / "run",
              says=(f"{tmp_path / 'ro' / 'run'}: cannot be used: read-only file system",))
    assert not (tmp_path / "ro").exists()


def test_assure_work_and_reproduce_work_dir_that_are_files(fx):
    fails("assure", "build", "--source", fx["tr"], "--work", fx["file"],
          says=(f"--work {fx['file']}: exists and is not a directory",))
    fails("reproduce", "cargo", "--out", fx["file"].parent / "results", "--work-dir", fx["file"],
          says=(f"--work-dir {fx['file']}: exists and is not a directory",))


# --- judge: the suite's items, the options, the endpoint ------------------------------------------------------

def test_judge_with_no_condition_named(fx, tmp_path):
    fails("judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--conditions", ",", "--out", tmp_path / "r",
          says=("--conditions: no condition named",))


def test_judge_with_a_condition_named_twice(fx, tmp_path):          # before: "job (ITEM, 'cargo', 0): given twice"
    fails("judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--conditions", "cargo,direct,cargo",
          "--out", tmp_path / "r", says=("--conditions: cargo named twice in 'cargo,direct,cargo'",))
    assert not (tmp_path / "r").exists()


def test_judge_suite_with_empty_duplicate_or_mistyped_items(fx, tmp_path):
    suite = copy(fx["cargo"], tmp_path)
    items = rows(suite / "items.jsonl")
    judge = ("judge", "--suite", suite, "--judge", "builtin:literal", "--out", tmp_path / "r")
    (suite / "items.jsonl").write_text("")
    fails(*judge, says=(f"{suite / 'items.jsonl'}: no items",))
    write_rows(suite / "items.jsonl", [items[0], {**items[1], "question": 5}])
    fails(*judge, says=(f"{suite / 'items.jsonl'}:2: field 'question' missing or not text",))
    write_rows(suite / "items.jsonl", [items[0], items[1], {**items[2], "item_id": items[0]["item_id"]}])
    fails(*judge, says=(f"{suite / 'items.jsonl'}:3: item_id {items[0]['item_id']!r} repeats line 1",))
    assert not (tmp_path / "r").exists()


def test_judge_resuming_a_log_with_a_non_utf8_line(fx, tmp_path):
    run_dir = copy(fx["judged"], tmp_path)
    count = len((run_dir / "judgments.jsonl").read_text().splitlines())
    with open(run_dir / "judgments.jsonl", "ab") as log:
        log.write(b'{"item_id": "\xff"}\n')
    fails("judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--conditions", "direct,cargo",
          "--out", run_dir, says=(f"{run_dir / 'judgments.jsonl'}:{count + 1}: not UTF-8",))


def test_judge_base_url_that_is_not_a_url_writes_nothing(fx, tmp_path):
    fails("judge", "--suite", fx["cargo"], "--judge", "openai:m", "--base-url", "notaurl", "--out", tmp_path / "r",
          says=("--base-url: 'notaurl' is not an http(s) URL",))
    assert not (tmp_path / "r").exists()


def test_judge_unreachable_endpoint(fx, tmp_path):
    port = closed_port()
    fails("judge", "--suite", fx["cargo"], "--judge", "openai:m", "--base-url", f"http://127.0.0.1:{port}/v1",
          "--conditions", "direct", "--limit", 1, "--max-retries", 0, "--out", tmp_path / "r",
          says=(f"--base-url: http://127.0.0.1:{port}/v1 is unreachable", "nothing was written"))
    assert not (tmp_path / "r").exists()   # checked before anything is written: no run.json, no cache


def test_judge_whose_every_request_failed(fx, tmp_path, refusing_url):
    out = tmp_path / "r"
    fails("judge", "--suite", fx["cargo"], "--judge", "openai:m", "--base-url", refusing_url, "--conditions", "direct",
          "--limit", 2, "--max-retries", 0, "--out", out,
          says=(f"{out / 'judgments.jsonl'}: every request failed", "HTTP 400", "run again"))


def test_numeric_options_out_of_range(fx, tmp_path):
    usage_error("judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--limit", 0, "--out", tmp_path / "r",
                option="--limit")
    usage_error("judge", "--suite", fx["cargo"], "--judge", "openai:m", "--max-retries", -1, "--out", tmp_path / "r",
                option="--max-retries")
    usage_error("judge", "--suite", fx["cargo"], "--judge", "openai:m", "--temperature", -1, "--out", tmp_path / "r",
                option="--temperature")
    usage_error("run-agent", "--suite", fx["ge"], "--agent", "bm25", "--mode", "context", "--budget", 0,
                "--out", tmp_path / "a", option="--budget")
    usage_error("inspect", fx["world"], "--samples", -1, option="--samples")
    usage_error("judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--concurrency", 0, "--out", tmp_path / "r",
                option="--concurrency")                 # was refused later, as "concurrency: must be at least 1"
    usage_error("build", "cargo", "--out", tmp_path / "c", "--golden-per-procedure", 0,
                option="--golden-per-procedure")        # was refused after simulating, naming the config field


# --- tables cargo: judgments and run.json ---------------------------------------------------------------------

def test_tables_from_broken_judgments(fx, tmp_path):
    run_dir = copy(fx["judged"], tmp_path)
    log = run_dir / "judgments.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    tables = ("tables", "cargo", run_dir, "--suite", fx["cargo"], "--resamples", 10, "--out", tmp_path / "t")
    log.write_bytes(lines[0] + b"7\n" + b"".join(lines[1:]))
    fails(*tables, says=(f"{log}:2: not a JSON object",))
    log.write_bytes(lines[0] + b'{"x": "\xfe"}\n')
    fails(*tables, says=(f"{log}:2: not UTF-8",))
    first = json.loads(lines[0])
    log.write_text(json.dumps({**first, "penalized": "yes"}) + "\n")
    fails(*tables, says=(f"{log}:1: field 'penalized' not true, false or null",))
    log.write_bytes(lines[0] + lines[1][:-5] + "é".encode()[:1])     # a killed run's torn last line: resume it
    fails(*tables, says=(f"{log}:2: its last line is cut short (the run was killed while writing); run the same "
                         "`orgbench judge` command again to resume the run",))
    log.write_bytes(lines[0] + lines[0])
    fails(*tables, says=(f"{log}:2: repeats the judgment of line 1",))
    log.write_text("")                # killed before its first judgment was written: resume it
    fails(*tables, says=(f"{log}: 0 of the {len(lines)} judgments", "run the same `orgbench judge` command again"))
    assert not (tmp_path / "t").exists()


def test_tables_run_json_naming_no_suite(fx, tmp_path):
    run_dir = copy(fx["judged"], tmp_path)
    for meta in ({"parameters": 3}, {"parameters": {"suite": 5}}):
        (run_dir / "run.json").write_text(json.dumps(meta))
        fails("tables", "cargo", run_dir, "--out", tmp_path / "t", says=(f"{run_dir / 'run.json'}: names no suite",))


def test_tables_from_a_suite_with_broken_truth_files(fx, tmp_path):
    suite = copy(fx["cargo"], tmp_path)
    tables = ("tables", "cargo", fx["judged"], "--suite", suite, "--resamples", 10, "--out", tmp_path / "t")
    truth = rows(suite / "truth.jsonl")
    write_rows(suite / "truth.jsonl", [truth[0], {**truth[1], "family": "P9"}])
    fails(*tables, says=(f"{suite / 'truth.jsonl'}:2: field 'family' is 'P9'",))
    write_rows(suite / "truth.jsonl", truth)
    retrieval = rows(suite / "retrieval.jsonl")
    write_rows(suite / "retrieval.jsonl", [{**retrieval[0], "margin": "wide"}])
    fails(*tables, says=(f"{suite / 'retrieval.jsonl'}:1: field 'margin' is not a number",))
    fails("tables", "cargo", fx["judged"], "--suite", fx["ge"], "--out", tmp_path / "t",
          says=(f"{fx['ge'] / 'truth.jsonl'}:1: field 'item_id'",))


def test_judge_cache_under_a_regular_file(fx, tmp_path):
    fails("judge", "--suite", fx["cargo"], "--judge", "openai:m", "--cache", fx["file"] / "cache.sqlite",
          "--out", tmp_path / "r", says=(f"--cache {fx['file'] / 'cache.sqlite'}: {fx['file']} is a file",))


# --- run-agent and score groundeval ---------------------------------------------------------------------------

def test_run_agent_openai_without_a_model_or_with_a_bad_url(fx, tmp_path):
    fails("run-agent", "--suite", fx["ge"], "--agent", "openai:", "--out", tmp_path / "a",
          says=("--agent 'openai:': name the model",))
    fails("run-agent", "--suite", fx["ge"], "--agent", "openai:m", "--base-url", "ftp://127.0.0.1/", "--out",
          tmp_path / "a", says=("--base-url: 'ftp://127.0.0.1/' is not an http(s) URL",))
    assert list(tmp_path.iterdir()) == []       # no run, no journal


def test_run_agent_unreachable_endpoint(fx, tmp_path):
    port = closed_port()
    fails("run-agent", "--suite", fx["ge"], "--agent", "openai:m", "--base-url", f"http://127.0.0.1:{port}",
          "--concurrency", 2, "--out", tmp_path / "a", says=("--base-url:", f"127.0.0.1:{port}", "unreachable"))
    assert not (tmp_path / "a").exists()


def test_run_agent_whose_every_question_failed_writes_nothing(fx, tmp_path, refusing_url):
    fails("run-agent", "--suite", fx["ge"], "--agent", "openai:m", "--base-url", refusing_url, "--out", tmp_path / "a",
          says=("--base-url: every question failed", "HTTP 400", "nothing written"))
    assert list(tmp_path.iterdir()) == []       # no run, and no journal claiming the questions were done


def test_run_agent_resumes_past_a_journal_line_cut_inside_a_character(fx, tmp_path, refusing_url):
    from orgbench.core.storage import sha256_file

    header = {"journal": 1, "suite_contracts_sha256": sha256_file(fx["ge"] / "contracts.jsonl"), "agent": "openai:m",
              "mode": "tool", "budget": 24_000, "max_turns": 12}
    torn = json.dumps({"question_id": "Q", "answer": "caf\u00e9"}, ensure_ascii=False).encode("utf-8")[:-3]
    (tmp_path / ".a.journal.jsonl").write_bytes(json.dumps(header).encode() + b"\n" + torn)
    fails("run-agent", "--suite", fx["ge"], "--agent", "openai:m", "--base-url", refusing_url, "--out", tmp_path / "a",
          says=("--base-url: every question failed",))


def test_score_empty_answers_and_a_run_without_traces(fx, tmp_path):
    answered = copy(fx["answered"], tmp_path)
    score = ("score", "groundeval", "--suite", fx["ge"], "--answers", answered, "--out", tmp_path / "s")
    (answered / "traces.jsonl").unlink()
    fails(*score, says=(f"{answered / 'traces.jsonl'}: file not found",))
    (answered / "traces.jsonl").write_text("")
    (answered / "answers.jsonl").write_text("")
    fails(*score, says=(f"{answered / 'answers.jsonl'}: 0 answer lines, but {answered / 'run.json'} says the run "
                        "answered",))
    (answered / "run.json").unlink()                  # answers from elsewhere record no count
    fails(*score, says=(f"{answered / 'answers.jsonl'}: no answer lines",))
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", fx["file"], "--out", tmp_path / "s",
          says=(f"{fx['file']}: no answer lines", "1 unreadable"))
    assert not (tmp_path / "s").exists()


def test_score_with_a_cargo_suite_names_the_suite_not_a_digest_of_none(fx, tmp_path):
    for command in (("score", "groundeval", "--answers", fx["answered"]), ("run-agent", "--agent", "bm25")):
        fails(*command, "--suite", fx["cargo"], "--out", tmp_path / "s",
              says=(f"{fx['cargo']}: not a GroundEval suite (no contracts.jsonl)",))
    assert not (tmp_path / "s").exists()


def test_tables_groundeval_refuses_scores_edited_after_scoring(fx, tmp_path):
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", tmp_path / "s")
    questions = tmp_path / "s" / "questions.jsonl"
    edited = re.sub(r'"s_adj":[0-9.]+', '"s_adj":0.99', questions.read_text(), count=1)
    assert edited != questions.read_text()
    questions.write_text(edited)                      # before: exit 0, tables made with the edited figure
    fails("tables", "groundeval", tmp_path / "s", "--out", tmp_path / "t",
          says=(f"{questions}: content differs from MANIFEST.json", "score the answers again"))
    assert not (tmp_path / "t").exists()


def test_score_stops_at_a_non_utf8_answer_line(fx, tmp_path):
    answered = copy(fx["answered"], tmp_path)
    count = len((answered / "answers.jsonl").read_text().splitlines())
    with open(answered / "answers.jsonl", "ab") as handle:
        handle.write(b'{"question_id": "\xff"}\n')
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", answered, "--out", tmp_path / "s",
          says=(f"{answered / 'answers.jsonl'}:{count + 1}: not UTF-8", "--on-error skip"))
    assert not (tmp_path / "s").exists()
    result = run("score", "groundeval", "--suite", fx["ge"], "--answers", answered, "--out", tmp_path / "s",
                 "--on-error", "skip")
    assert result.exit_code == 0, result.output
    assert "skipped 1 unreadable line(s)" in result.stderr
    assert f"{answered / 'answers.jsonl'}:{count + 1}: not UTF-8 (invalid start byte)" in result.stderr


# --- builders' inputs -----------------------------------------------------------------------------------------

def test_build_cargo_from_one_world_given_twice(fx, tmp_path):
    fails("build", "cargo", "--world", fx["world"], "--world", fx["world"], "--out", tmp_path / "s", *SIZES,
          says=(f"--world {fx['world']}: world seed", "already given"))
    assert not (tmp_path / "s").exists()


def test_import_trajectories_from_a_directory_or_an_empty_file(fx, tmp_path):
    fails("build", "trajectories", "--import", tmp_path, "--out", tmp_path / "t",
          says=(f"{tmp_path}: is a directory",))
    (tmp_path / "empty.jsonl").write_text("\n")
    fails("build", "trajectories", "--import", tmp_path / "empty.jsonl", "--out", tmp_path / "t",
          says=(f"{tmp_path / 'empty.jsonl'}: no trajectory records",))


def test_groundeval_config_that_is_not_a_table_or_not_a_file(fx, tmp_path):
    config = tmp_path / "ge.toml"
    config.write_text("groundeval = 3\n")
    build = ("build", "groundeval", "--world", fx["world"], "--out", tmp_path / "s", "--config")
    fails(*build, config, says=(f"{config}: groundeval: expected a table",))
    fails(*build, tmp_path, says=(f"{tmp_path}: is a directory",))
    config.write_bytes(b"[groundeval]\nseed = \xff\n")
    fails(*build, config, says=(f"{config}: not UTF-8",))


def test_groundeval_domain_with_non_utf8_events_or_a_config_directory(tmp_path):
    from tests.benchmark_builders.groundeval.test_ge_importer import write_domain

    root = write_domain(tmp_path / "d")
    with open(root / "events.jsonl", "ab") as handle:
        handle.write(b'{"id": "\xff"}\n')
    count = len((root / "events.jsonl").read_bytes().splitlines())
    build = ("build", "groundeval", "--domain", root, "--out", tmp_path / "s")
    fails(*build, says=(f"{root / 'events.jsonl'}:{count}: not UTF-8",))
    (root / "config.yaml").unlink()
    (root / "config.yaml").mkdir()
    fails(*build, says=(f"{root / 'config.yaml'}: is a directory",))
    assert not (tmp_path / "s").exists()


# --- assurance: the trajectory suite and the judge ---------------------------------------------------------------

def test_trajectory_suite_with_mistyped_labels_or_no_trajectories(fx, tmp_path):
    from orgbench.core.storage import write_manifest

    suite = copy(fx["tr"], tmp_path)
    labels = rows(suite / "labels.jsonl")
    write_rows(suite / "labels.jsonl", [{**labels[0], "labels": "all fine"}, *labels[1:]])
    (suite / "MANIFEST.json").unlink()
    write_manifest(suite)                       # sealed again: the content itself is wrong
    for command in (["assure", "contrast", "--source", suite, "--out", tmp_path / "c"],
                    ["assure", "build", "--source", suite, "--work", tmp_path / "w"]):
        fails(*command, says=(f"{suite / 'labels.jsonl'}:1: field labels must be an object",))
    (suite / "trajectories.jsonl").write_text("")
    (suite / "labels.jsonl").write_text("")
    (suite / "MANIFEST.json").unlink()
    write_manifest(suite)
    fails("assure", "contrast", "--source", suite, "--out", tmp_path / "c",
          says=(f"{suite / 'trajectories.jsonl'}: no trajectories",))
    assert not (tmp_path / "c").exists()


def test_stub_judge_log_that_cannot_be_written(fx, tmp_path):
    fails("assure", "contrast", "--source", fx["tr"], "--out", tmp_path / "c", "--judge", f"stub:{tmp_path}",
          says=(f"judge spec 'stub:{tmp_path}'", "cannot be a log file"))
    fails("assure", "contrast", "--source", fx["tr"], "--out", tmp_path / "c", "--judge",
          f"stub:{tmp_path / 'no' / 'log.jsonl'}", says=("cannot be a log file",))


# --- assurance against an endpoint that is not there ----------------------------------------------------------

def test_contrast_unreachable_endpoint_writes_nothing(fx, tmp_path):
    port = closed_port()
    fails("assure", "contrast", "--source", fx["tr"], "--out", tmp_path / "c", "--judge", "openai:m",
          "--base-url", f"http://127.0.0.1:{port}", "--draws", 1, says=("--base-url:", "unreachable"))
    assert not (tmp_path / "c").exists()


def test_dispatch_unreachable_endpoint_is_refused_before_the_stage_starts(fx, tmp_path):
    work = tmp_path / "work"
    for step in ("build", "check", "stage", "emit"):
        ok("assure", step, "--source", fx["tr"], "--work", work, "--draws", 1)
    fails("assure", "dispatch", "--source", fx["tr"], "--work", work, "--draws", 1, "--judge", "openai:m",
          "--base-url", f"http://127.0.0.1:{closed_port()}", says=("--base-url:", "unreachable"))
    assert not (work / "records" / "dispatch.record.json").exists()   # checked before the stage starts


def test_usage_errors_are_one_line_naming_the_option() -> None:
    import subprocess
    import sys

    for args, needle in ((["simulate", "--days", "x"], "'--days'"), (["nosuch"], "No such command 'nosuch'"),
                         (["simulate"], "Missing option '--out'")):
        proc = subprocess.run([sys.executable, "-m", "orgbench", *args], capture_output=True, text=True)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], proc.stderr


@pytest.mark.parametrize("damage, message", [
    ("assurance/faults.csv", "column case missing"),
    ("cargo/table1_headline.csv", "not UTF-8"),
    ("groundeval/drilldown.jsonl", "record 1: expected an object"),
])
def test_report_on_damaged_results_names_the_file(tmp_path, damage, message) -> None:
    results = Path(__file__).resolve().parents[2] / "results"
    if not (results / "cargo").is_dir():
        pytest.skip("results/ not committed")
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    payload = {"assurance/faults.csv": b"", "cargo/table1_headline.csv": b"\xff\xfe",
               "groundeval/drilldown.jsonl": b"[1, 2]\n"}[damage]
    (copy / damage).write_bytes(payload)
    result = CliRunner().invoke(cli, ["report", "--results", str(copy)])
    assert result.exit_code == 2 and message in result.output and damage.split("/")[1] in result.output
