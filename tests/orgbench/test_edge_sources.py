"""Inputs read back from elsewhere: exports re-read, packs, names, run logs and MCP output folders.

Each is refused in one line naming the file and field (exit 2, no traceback, nothing half-written, nothing
already done lost), never waited on. The fixtures are the CLI tests' small world and what is built from it.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orgbench.core.storage import write_manifest
from tests.orgbench.clitools import copy, fails, ok, rows, run, tree

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "simulator" / "packs" / "fintech.toml"


def _orgbench(*args, timeout: int = 60) -> subprocess.CompletedProcess:
    """orgbench in a process of its own, standard input closed: a command that blocks fails the timeout."""
    return subprocess.run([sys.executable, "-m", "orgbench", *map(str, args)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=timeout)


def _one_line(done: subprocess.CompletedProcess, says: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"error: {says}"], done.stderr


def test_a_name_that_would_break_the_error_line_is_shown_escaped(tmp_path):
    fails("inspect", tmp_path / "no\nsuch\u202eworld", says=(f"{tmp_path}/no\\nsuch\\u202eworld: not a world",))


@pytest.mark.parametrize("char, shown", [("\\n", "\\n"), ("\\u202e", "\\u202e"), ("\\u200b", "\\u200b"),
                                         ("\\u0000", "\\x00")])
def test_a_pack_text_holding_a_control_direction_or_zero_width_character_is_refused(tmp_path, char, shown):
    pack = tmp_path / "pack.toml"
    pack.write_text(PACK.read_text().replace('"card-issuing"', f'"card{char}issuing"', 1))
    says = f"{pack}: engineering.services[5]: holds {shown} (a control, direction or zero-width character)"
    fails("pack", "check", pack, says=(says,))
    fails("simulate", "--pack", pack, "--days", 3, "--people", 16, "--out", tmp_path / "w", says=(says,))
    assert not (tmp_path / "w").exists()


@pytest.fixture(scope="module")
def domain(fx, tmp_path_factory) -> Path:
    """The CLI fixtures' world exported in the GroundEval domain layout (sealed by its MANIFEST.json)."""
    out = tmp_path_factory.mktemp("domain") / "export"
    ok("export", fx["world"], "--format", "groundeval", "--out", out)
    return out


@pytest.mark.parametrize("change, file", [
    (lambda d: (d / "events.jsonl").write_bytes(b"".join((d / "events.jsonl").read_bytes().splitlines(True)[:200])),
     "events.jsonl"),                                                           # cut between lines: reads as whole
    (lambda d: (d / "config.yaml").write_text((d / "config.yaml").read_text().replace("seed: ", "seed: 1")),
     "config.yaml"),
])
def test_an_export_changed_since_it_was_written_is_refused_as_a_domain(domain, tmp_path, change, file):
    copied = copy(domain, tmp_path)
    change(copied)
    fails("build", "groundeval", "--domain", copied, "--out", tmp_path / "suite",
          says=(f"{copied / file}: content differs from MANIFEST.json (sha256 mismatch); export it again, or delete "
                "its MANIFEST.json",))
    assert not (tmp_path / "suite").exists()


def test_a_suite_its_own_commands_would_refuse_is_not_exported_as_a_dataset(fx, tmp_path):
    pytest.importorskip("pyarrow")
    cargo = copy(fx["cargo"], tmp_path / "c")
    items = (cargo / "items.jsonl").read_bytes().splitlines(True)
    (cargo / "items.jsonl").write_bytes(b"".join(items) + items[0])            # an item twice, resealed
    write_manifest(cargo)
    fails("export", cargo, "--format", "hf", "--out", tmp_path / "hf",
          says=(f"{cargo / 'items.jsonl'}:{len(items) + 1}: item_id",))
    (cargo / "items.jsonl").write_bytes(b"".join(items[1:]))                    # truth for an item not there
    write_manifest(cargo)
    fails("export", cargo, "--format", "hf", "--out", tmp_path / "hf",
          says=(f"{cargo / 'truth.jsonl'}: holds truth for other items than the suite's inputs",))
    ge = copy(fx["ge"], tmp_path / "g")
    (ge / "contracts.jsonl").write_bytes(b"")
    write_manifest(ge)
    fails("export", ge, "--format", "hf", "--out", tmp_path / "hf",
          says=(f"{ge / 'contracts.jsonl'}: no contracts; nothing to export",))
    assert not (tmp_path / "hf").exists()


def test_a_fifo_where_a_judge_run_appends_is_refused_not_waited_on(fx, tmp_path):
    run_dir = copy(fx["judged"], tmp_path)
    (run_dir / "judgments.jsonl").unlink()
    os.mkfifo(run_dir / "judgments.jsonl")
    before = tree(run_dir)
    done = _orgbench("judge", "--suite", fx["cargo"], "--judge", "builtin:literal", "--conditions", "direct,cargo",
                     "--out", run_dir)
    _one_line(done, f"{run_dir / 'judgments.jsonl'}: a FIFO, not a regular file")
    assert tree(run_dir) == before


@pytest.mark.parametrize("name, kind", [("answers.jsonl", "a FIFO"), ("traces.jsonl", "a directory")])
def test_serve_mcp_refuses_at_start_a_log_it_could_not_append_to(fx, tmp_path, name, kind):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / name) if kind == "a FIFO" else (out / name).mkdir()
    _one_line(_orgbench("serve-mcp", "--suite", fx["ge"], "--out", out),
              f"{out / name}: {kind}, not a regular file")


def test_serve_mcp_refuses_a_suite_of_no_questions(fx, tmp_path):
    ge = copy(fx["ge"], tmp_path)
    (ge / "contracts.jsonl").write_bytes(b"")
    write_manifest(ge)
    fails("serve-mcp", "--suite", ge, "--out", tmp_path / "out",
          says=(f"{ge / 'contracts.jsonl'}: no contracts; nothing to serve",))
    assert not (tmp_path / "out").exists()


def test_a_trace_written_twice_for_one_answer_is_refused_and_skipping_keeps_the_first(fx, tmp_path):
    run_dir = copy(fx["answered"], tmp_path)
    lines = (run_dir / "traces.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    (run_dir / "traces.jsonl").write_text("\n".join([*lines, json.dumps({**first, "calls": []})]) + "\n")
    write_manifest(run_dir)                          # as a careful copier would: the reader itself must see it
    repeat = f"{run_dir / 'traces.jsonl'}:{len(lines) + 1}: repeats the trace of line 1 ({first['question_id']}, "
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", run_dir, "--out", tmp_path / "s", says=(repeat,))
    assert not (tmp_path / "s").exists()
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", run_dir, "--out", tmp_path / "s", "--on-error", "skip")
    row = next(r for r in rows(tmp_path / "s" / "questions.jsonl") if r["question_id"] == first["question_id"])
    assert row["n_calls"] == len(first["calls"]) > 0
    assert json.loads((tmp_path / "s" / "summary.json").read_text())["unreadable_lines"] == [repeat + "oracle, tool)"]


def test_a_run_whose_traces_were_cut_between_lines_is_refused_not_scored_without_them(fx, tmp_path):
    run_dir = copy(fx["answered"], tmp_path)
    traces = (run_dir / "traces.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "traces.jsonl").write_text("".join(traces[:-1]))          # whole lines: reads as a shorter run
    last = json.loads(traces[-1])
    line = next(n for n, r in enumerate(rows(run_dir / "answers.jsonl"), 1) if r["question_id"] == last["question_id"])
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", run_dir, "--out", tmp_path / "s",
          says=(f"{run_dir / 'answers.jsonl'}:{line}: no trace in traces.jsonl for ({last['question_id']}, oracle, "
                "tool)",))
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("fmt, name", [("jira", "issues.json"), ("parquet", "events.parquet")])
def test_a_disk_filling_up_while_an_export_writes_names_the_file_as_it_would_be_in_out(fx, tmp_path, monkeypatch,
                                                                                       fmt, name):
    """A full disk fails a write or close with no file name of its own (pyarrow's too): the line must still name it."""
    pytest.importorskip("pyarrow")
    import pyarrow.parquet

    def full():
        raise OSError(errno.ENOSPC, "No space left on device")

    real_bytes, real_table = Path.write_bytes, pyarrow.parquet.write_table
    monkeypatch.setattr(Path, "write_bytes", lambda self, data: full() if self.name == name else real_bytes(self, data))
    monkeypatch.setattr(pyarrow.parquet, "write_table", lambda table, where, **kw: full() if Path(where).name == name
                        else real_table(table, where, **kw))
    fails("export", fx["world"], "--format", fmt, "--out", tmp_path / "x",
          says=(f"{tmp_path / 'x' / name}: cannot be written: no space left on the device",))
    assert not [p for p in tmp_path.iterdir() if not p.name.endswith(".lock")]


def test_a_killed_model_run_resumed_with_other_settings_keeps_its_journal(fx, tmp_path):
    """The journal beside a killed run holds answers a model was paid for: another setting refuses, not restarts."""
    from tests.judges.groundeval.ge_tool_server import ToolChatServer

    out = tmp_path / "run"
    journal = tmp_path / ".run.journal.jsonl"

    def run_agent(url: str, *more) -> list[str]:
        return ["run-agent", "--suite", fx["ge"], "--agent", "openai:scripted", "--mode", "context", "--out", out,
                "--base-url", url, "--concurrency", 1, *more]

    with ToolChatServer(refuse_after=5) as server:
        assert run(*run_agent(server.base_url)).exit_code == 2          # the key refused after 5 answers
    kept = journal.read_bytes()
    assert len(kept.splitlines()) == 1 + 5 and not out.exists()
    with ToolChatServer() as server:
        fails(*run_agent(server.base_url, "--budget", 9000),
              says=(f"{journal}: written by another run (5 finished; its first line differs from this run's settings)",
                    "start afresh with --overwrite"))
        assert journal.read_bytes() == kept and not server.requests and not out.exists()
        ok(*run_agent(server.base_url, "--budget", 9000, "--overwrite"))
    assert not journal.exists() and len((out / "answers.jsonl").read_text().splitlines()) == len(server.requests)


def test_a_domain_config_giving_a_key_twice_is_refused_not_read_as_its_last(domain, tmp_path):
    copied = copy(domain, tmp_path)
    (copied / "MANIFEST.json").unlink()                                   # a domain of one's own, edited by hand
    config = (copied / "config.yaml").read_text()
    lines = config.splitlines()
    at = next(n for n, line in enumerate(lines, 1) if line.startswith("  P-0001: "))
    (copied / "config.yaml").write_text(config.replace(lines[at - 1] + "\n", f"{lines[at - 1]}\n  P-0001: sre\n", 1))
    fails("build", "groundeval", "--domain", copied, "--out", tmp_path / "suite",
          says=(f"{copied / 'config.yaml'}:{at + 1}: key 'P-0001' given twice (first at line {at}); YAML would keep "
                "only the last",))
    assert not (tmp_path / "suite").exists()


def test_one_judge_condition_in_two_runs_given_to_tables_is_refused_not_counted_twice(fx, tmp_path):
    """The same run twice, or a copy of it, wrote each of its rows twice and doubled every count of the breakdown."""
    copied = copy(fx["judged"], tmp_path)
    for runs in ([fx["judged"], fx["judged"]], [fx["judged"], copied]):
        fails("tables", "cargo", *runs, "--suite", fx["cargo"], "--resamples", 10, "--out", tmp_path / "t",
              says=(f"RUNS: {runs[1]} and {fx['judged']} both hold builtin:literal under ", "; give each run once"))
        assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("command, source, option", [
    (["export", "{in}", "--format", "jira"], "world", "SOURCE"),
    (["build", "groundeval", "--world", "{in}"], "world", "--world"),
    (["score", "groundeval", "--suite", "{ge}", "--answers", "{in}"], "answered", "--answers"),
])
def test_an_output_inside_a_sealed_input_is_refused_before_it_breaks_the_input(fx, tmp_path, command, source, option):
    """Files added to a world, suite or run break its MANIFEST.json: every later command would refuse it."""
    copied = copy(fx[source], tmp_path)
    before = tree(copied)
    for out in (copied / "out", copied):
        argv = [str(copied) if a == "{in}" else str(fx["ge"]) if a == "{ge}" else a for a in command]
        fails(*argv, "--out", out, "--overwrite",
              says=(f"--out {out}: inside {option} {copied}, which its MANIFEST.json seals; writing there would "
                    "break it",))
    assert tree(copied) == before


def test_view_refuses_scores_edited_since_scoring_as_tables_does(fx, tmp_path):
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", tmp_path / "s")
    rows_ = (tmp_path / "s" / "questions.jsonl").read_text().splitlines()
    (tmp_path / "s" / "questions.jsonl").write_text("\n".join([json.dumps({**json.loads(rows_[0]), "s_adj": 0.1}),
                                                               *rows_[1:]]) + "\n")
    says = f"{tmp_path / 's' / 'questions.jsonl'}: content differs from MANIFEST.json (sha256 mismatch); score the"
    fails("view", tmp_path / "s", "--out", tmp_path / "v.html", says=(says,))
    fails("tables", "groundeval", tmp_path / "s", "--out", tmp_path / "t", says=(says,))
    assert not (tmp_path / "v.html").exists()
