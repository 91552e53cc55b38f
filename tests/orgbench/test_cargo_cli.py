"""The CARGO commands end to end: build cargo, judge (dry run and built-in), tables cargo, reproduce cargo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from orgbench.core.storage import verify_manifest
from orgbench.core.jsonl import read_jsonl

SMALL = ["--seeds", "0,1", "--people", "30", "--days", "45", "--sizes", "P1=4,P3=8,P2=4,P4=4"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cargo_cli") / "suite"
    result = CliRunner().invoke(cli, ["build", "cargo", "--out", str(out), *SMALL])
    assert result.exit_code == 0, result.output
    assert "20 items (P1 4, P3 8, P2 4, P4 4)" in result.output
    return out


def test_build_writes_a_verified_suite(suite):
    assert verify_manifest(suite) == []
    for name in ("suite.json", "items.jsonl", "truth.jsonl", "golden.jsonl", "retrieval.jsonl", "gating.jsonl",
                 "gating_truth.jsonl"):
        assert (suite / name).is_file()
    meta = json.loads((suite / "suite.json").read_text())
    assert meta["counts"] == {"P1": 4, "P2": 4, "P3": 8, "P4": 4} and meta["world_seeds"] == [0, 1]


def test_dry_run_writes_rendered_requests_only(suite, tmp_path):
    out = tmp_path / "dry"
    result = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "openai:none", "--conditions",
                                      "cargo,direct", "--seeds", "0,1", "--limit", "5", "--out", str(out), "--dry-run"])
    assert result.exit_code == 0, result.output
    rows = read_jsonl(out / "requests.jsonl").values
    assert len(rows) == 2 * 5 * 2
    assert {r["condition"] for r in rows} == {"cargo", "direct"}
    assert not (out / "judgments.jsonl").exists()


def test_judge_and_tables(suite, tmp_path):
    run = tmp_path / "run"
    result = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "builtin:grounded",
                                      "--conditions", "cargo,direct", "--rubric-swap", "--out", str(run)])
    assert result.exit_code == 0, result.output
    rows = read_jsonl(run / "judgments.jsonl").values
    assert len(rows) == 20 * 6
    penalized = {(r["condition"]): 0 for r in rows}
    for r in rows:
        penalized[r["condition"]] += bool(r["penalized"])
    assert penalized["direct"] == 20 and penalized["cargo"] == 8  # world-dependent: every P2 (a derived count too), every P4
    again = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "builtin:grounded",
                                     "--conditions", "cargo,direct", "--rubric-swap", "--out", str(run)])
    assert "0 requested, 120 already done" in again.output
    tables = tmp_path / "tables"
    result = CliRunner().invoke(cli, ["tables", "cargo", str(run), "--out", str(tables), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert "| cargo | builtin:grounded | .00 | .00 | 1.00 | 1.00 | 1.00 |" in (tables / "table1_headline.md").read_text()


@pytest.mark.parametrize("args, message", [
    (["--seeds", "x"], "--seeds: expected a list like 0-9"),
    (["--sizes", "P5=3"], "--sizes: expected FAMILY=COUNT"),
])
def test_bad_build_options_end_in_one_line(tmp_path, args, message):
    result = CliRunner().invoke(cli, ["build", "cargo", "--out", str(tmp_path / "s"), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "s").exists()


def test_unknown_condition_and_judge_end_in_one_line(suite, tmp_path):
    result = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "builtin:grounded",
                                      "--conditions", "cargo,oracle", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "unknown condition 'oracle'" in result.output
    result = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "builtin:oracle",
                                      "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "no built-in CARGO judge is called 'oracle'" in result.output


@pytest.mark.parametrize("option, value", [("--extra", "top_p=0.5"), ("--base-url", "http://127.0.0.1:9/v1"),
                                           ("--temperature", "0.0"), ("--max-tokens", "64"), ("--timeout", "5")])
def test_a_request_option_with_a_built_in_judge_is_refused_in_one_line(tmp_path, option, value):
    """A built-in judge sends no request: the option would be ignored (even given at its default), so it is refused
    before anything is read."""
    (tmp_path / "suite").mkdir()
    result = CliRunner().invoke(cli, ["judge", "--suite", str(tmp_path / "suite"), "--judge", "builtin:grounded",
                                      option, value, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and not (tmp_path / "r").exists()
    users = "openai:MODEL" if option == "--base-url" else "openai:MODEL or local:MODEL"     # local: has no URL
    assert result.output == (f"error: {option}: builtin:grounded is a built-in judge and sends no request for it to "
                             f"shape; drop {option}, or use it with {users}\n")


@pytest.mark.slow              # runs `orgbench reproduce cargo` twice (about 100 s here)
def test_reproduce_cargo_is_cached_and_byte_identical(tmp_path):
    args = ["reproduce", "cargo", "--seeds", "0,1", "--work-dir", str(tmp_path / "work")]
    first = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "b")])
    assert second.exit_code == 0, second.output
    suite = tmp_path / "work" / "cargo" / "suite"
    assert f"{suite}: built (" in first.output and f"{suite}: reused (" in second.output   # live stage lines
    assert first.output.splitlines()[-1].startswith("total: ") and first.output.splitlines()[-1].endswith(" s wall")
    files = sorted(p.name for p in (tmp_path / "a" / "cargo").iterdir())
    assert "table1_headline.md" in files and "risk_coverage.png" in files and "NOTES.md" in files
    for name in files:
        assert (tmp_path / "a" / "cargo" / name).read_bytes() == (tmp_path / "b" / "cargo" / name).read_bytes(), name


def test_build_from_a_world_directory(tmp_path):
    world = tmp_path / "world"
    result = CliRunner().invoke(cli, ["simulate", "--out", str(world), "--seed", "4", "--people", "30", "--days", "45"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "suite"
    result = CliRunner().invoke(cli, ["build", "cargo", "--out", str(out), "--world", str(world),
                                      "--sizes", "P1=3,P3=6,P2=3,P4=4"])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "suite.json").read_text())
    assert meta["world_seeds"] == [4] and meta["counts"]["P4"] == 4
    result = CliRunner().invoke(cli, ["build", "cargo", "--out", str(tmp_path / "x"), "--world", str(tmp_path)])
    assert result.exit_code == 2 and "MANIFEST.json" in result.output


def test_judge_through_an_openai_compatible_server(suite, tmp_path, monkeypatch):
    """The LLM path: rendered prompts over HTTP to a local server whose 'model' reads them like builtin:grounded."""
    from judges.backends.base import JudgeRequest, Message
    from judges.backends.builtin import make_builtin
    from tests.judges.chat_server import ChatServer

    reader = make_builtin("grounded")

    def answer(body: dict) -> str:
        messages = tuple(Message(m["role"], m["content"]) for m in body["messages"])
        return "Let me check the claims.\n```json\n" + reader.judge_text(JudgeRequest(messages)).splitlines()[-1] + "\n```"

    monkeypatch.setenv("CARGO_TEST_KEY", "k")
    with ChatServer(answer=answer) as server:
        args = ["judge", "--suite", str(suite), "--judge", "openai:judge-model", "--base-url", server.base_url,
                "--api-key-env", "CARGO_TEST_KEY", "--conditions", "cargo,direct", "--seeds", "0,1",
                "--out", str(tmp_path / "llm")]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert server.total == 20 * 2 * 2
        again = CliRunner().invoke(cli, args)
        assert again.exit_code == 0 and server.total == 80
    rows = read_jsonl(tmp_path / "llm" / "judgments.jsonl").values
    truth = {r["item_id"]: r["should_penalize"] for r in read_jsonl(suite / "truth.jsonl").values}
    assert len(rows) == 80 and all(r["error"] is None for r in rows)
    items = {r["item_id"]: r for r in read_jsonl(suite / "items.jsonl").values}
    from judges.conditions import CONDITIONS, render
    from judges.verdict import parse_verdict
    # over HTTP the verdicts are exactly the reader's, and the reader separates the families on this suite
    assert all(r["penalized"] == parse_verdict(reader.judge_text(render(CONDITIONS["cargo"], items[r["item_id"]],
                                                                        r["seed"]))).penalized
               for r in rows if r["condition"] == "cargo")
    assert sum(r["penalized"] == truth[r["item_id"]] for r in rows if r["condition"] == "cargo") >= 30
    assert all(r["penalized"] is True for r in rows if r["condition"] == "direct")


@pytest.mark.slow          # simulates and builds in subprocesses (8-10 s, loaded machine)
def test_suite_from_simulated_worlds_is_byte_identical_under_any_hash_seed(tmp_path):
    import os
    import subprocess
    import sys

    digests = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"suite{hash_seed}"
        subprocess.run([sys.executable, "-m", "orgbench", "build", "cargo", "--out", str(out), *SMALL], check=True,
                       env={**os.environ, "PYTHONHASHSEED": hash_seed}, capture_output=True)
        digests.append((out / "MANIFEST.json").read_bytes())
    assert digests[0] == digests[1]


def test_extra_parameters_reach_the_endpoint_and_a_shared_cache_answers_a_second_run(suite, tmp_path):
    """--extra passes through to the request body; --cache shares answers between run directories."""
    from tests.judges.chat_server import ChatServer

    cache = tmp_path / "shared-cache.sqlite"
    with ChatServer() as server:
        base = ["judge", "--suite", str(suite), "--judge", "openai:judge-model", "--base-url", server.base_url,
                "--conditions", "cargo", "--limit", "3", "--extra", "reasoning_effort=high", "--extra", "top_p=0.5",
                "--cache", str(cache)]
        first = CliRunner().invoke(cli, base + ["--out", str(tmp_path / "a")])
        assert first.exit_code == 0, first.output
        assert server.total == 3
        assert all(b["reasoning_effort"] == "high" and b["top_p"] == 0.5 for b in server.bodies)
        second = CliRunner().invoke(cli, base + ["--out", str(tmp_path / "b")])
        assert second.exit_code == 0, second.output
        assert server.total == 3  # answered from the shared cache
    assert read_jsonl(tmp_path / "a" / "judgments.jsonl").values == read_jsonl(tmp_path / "b" / "judgments.jsonl").values
    bad = CliRunner().invoke(cli, base[:-2] + ["--extra", "novalue", "--out", str(tmp_path / "c")])
    assert bad.exit_code == 2 and "--extra 'novalue'" in bad.output
