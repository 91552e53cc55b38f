"""A CARGO run is bound to its suite and settings: `orgbench judge` refuses a different resume, `tables cargo` a wrong suite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmark_builders" / "cargo"))

from benchmark_builders.cargo import SuiteConfig, build_suite, write_suite  # noqa: E402
from benchmark_builders.cargo.identity import suite_digest  # noqa: E402
from cargo_synthetic import synthetic_cases  # noqa: E402
from orgbench.cli import cli  # noqa: E402
from orgbench.core.jsonl import read_jsonl  # noqa: E402


@pytest.fixture(scope="module")
def suites(tmp_path_factory) -> Path:
    """Two small suites from the same worlds with different sizes (their ids overlap only where items are equal)."""
    root = tmp_path_factory.mktemp("cargo_runs")
    for name, sizes in (("suite", {"P1": 3, "P3": 5, "P2": 4, "P4": 4}), ("other", {"P1": 4, "P3": 4, "P2": 4, "P4": 4})):
        config = SuiteConfig(sizes=sizes, gating_per_world=2)
        write_suite(build_suite([(s, synthetic_cases(s, per_procedure=4)) for s in range(2)], config), root / name)
    return root


def _judge(suite: Path, out: Path, base_url: str, *extra: str):
    return CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "openai:judge-model",
                                    "--base-url", base_url, "--api-key-env", "ORGBENCH_NO_KEY",
                                    "--conditions", "cargo,direct", "--out", str(out), *extra])


def _snapshot(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.is_file() and not p.name.startswith("cache")}


def test_run_json_records_the_suite_and_every_answer_changing_setting(suites, chat, tmp_path):
    run = tmp_path / "run"
    result = _judge(suites / "suite", run, chat.base_url, "--seeds", "0,1", "--temperature", "0.2",
                    "--max-tokens", "300", "--extra", "top_p=0.5")
    assert result.exit_code == 0, result.output
    record = json.loads((run / "run.json").read_text())
    assert record == {
        "format_version": 2, "judge": "openai:judge-model",
        "backend": {"kind": "openai", "model": "judge-model", "base_url": chat.base_url},
        "parameters": {"suite_digest": suite_digest(suites / "suite"), "conditions": ["cargo", "direct"],
                       "seeds": [0, 1], "temperature": 0.2, "max_tokens": 300, "extra": {"top_p": 0.5}},
        "locations": {"suite": str((suites / "suite").resolve())},
        "jobs": 16 * 2 * 2,                      # items x conditions x seeds: what a reader checks the log against
    }
    assert len((run / "judgments.jsonl").read_text().splitlines()) == record["jobs"]


@pytest.mark.parametrize("args, field", [
    (["--temperature", "0.7"], "parameters.temperature is 0.0 in this run, 0.7 now"),
    (["--max-tokens", "64"], "parameters.max_tokens is null in this run, 64 now"),
    (["--extra", "top_p=0.9"], 'parameters.extra.top_p is null in this run, 0.9 now'),
    (["--seeds", "0,1"], "parameters.seeds is [0] in this run, [0,1] now"),
    (["--conditions", "cargo"], 'parameters.conditions is ["cargo","direct"] in this run, ["cargo"] now'),
    (["--judge", "openai:another-model"], 'judge is "openai:judge-model" in this run, "openai:another-model" now'),
])
def test_a_resume_with_a_changed_setting_is_refused(suites, chat, tmp_path, args, field):
    run = tmp_path / "run"
    assert _judge(suites / "suite", run, chat.base_url).exit_code == 0
    before, asked = _snapshot(run), chat.total
    result = _judge(suites / "suite", run, chat.base_url, *args)
    assert result.exit_code == 2
    assert result.output == f"error: {run / 'run.json'}: {field}; resume with the same settings or choose a new run directory\n"
    assert _snapshot(run) == before and chat.total == asked


def test_a_resume_that_changes_only_how_it_runs_is_accepted(suites, chat, tmp_path):
    run = tmp_path / "run"
    assert _judge(suites / "suite", run, chat.base_url, "--limit", "4").exit_code == 0
    result = _judge(suites / "suite", run, chat.base_url, "--concurrency", "3", "--timeout", "9",
                    "--max-retries", "1", "--cache", str(tmp_path / "elsewhere.sqlite"))
    assert result.exit_code == 0, result.output
    assert "24 requested, 8 already done" in result.output


def test_another_suite_into_the_same_run_is_refused(suites, chat, tmp_path):
    run = tmp_path / "run"
    assert _judge(suites / "suite", run, chat.base_url).exit_code == 0
    before, asked = _snapshot(run), chat.total
    result = _judge(suites / "other", run, chat.base_url)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert (f"error: {run / 'run.json'}: parameters.suite_digest is \"{suite_digest(suites / 'suite')}\" in this run, "
            f"\"{suite_digest(suites / 'other')}\" now") in result.output
    assert _snapshot(run) == before and chat.total == asked


def test_tables_find_the_suite_in_run_json_and_refuse_another(suites, chat, tmp_path, monkeypatch):
    run = tmp_path / "run"
    assert _judge(suites / "suite", run, chat.base_url).exit_code == 0
    monkeypatch.chdir(suites)  # ./suite and ./other are both here; run.json's absolute path decides
    result = CliRunner().invoke(cli, ["tables", "cargo", str(run), "--out", str(tmp_path / "t"), "--resamples", "100"])
    assert result.exit_code == 0, result.output
    judged = {r["item_id"] for r in read_jsonl(run / "judgments.jsonl").values}
    assert judged == {r["item_id"] for r in read_jsonl(suites / "suite" / "truth.jsonl").values}
    assert "| cargo | openai:judge-model |" in (tmp_path / "t" / "table1_headline.md").read_text()
    result = CliRunner().invoke(cli, ["tables", "cargo", str(run), "--suite", "other", "--out", str(tmp_path / "u")])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"error: {run / 'run.json'}: parameters.suite_digest is " in result.output
    assert "not the suite this run judged" in result.output and not (tmp_path / "u").exists()
