"""CARGO-Bench (and the assurance contrast) in inspect_ai: the same requests as `orgbench judge` (`tables
assurance`), and the same numbers.

Both paths talk to the in-repo OpenAI-compatible server (tests/judges/chat_server.py), which records every
request body; inspect uses its own `openai/` provider (the openai package), orgbench its aiohttp client.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.judges.chat_server import ChatServer
from tests.orgbench.clitools import SIZES, fails, ok

inspect_ai = pytest.importorskip("inspect_ai", reason="needs the inspect extra (pip install 'orgbench[inspect]')")
pytest.importorskip("openai", reason="needs the inspect extra (pip install 'orgbench[inspect]')")

ROOT = Path(__file__).resolve().parents[2]
MODEL = "gpt-4o-mini"      # a chat-completions model name: inspect sends a system role and temperature for it


def verdict_by_hash(body: dict) -> str:
    """A judge answer that fails about half the requests, decided by the request's user message and seed."""
    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    digest = hashlib.sha256(f"{user}|{body.get('seed')}".encode()).digest()
    verdict = "fail" if digest[0] % 2 else "pass"
    return "Checked against the live context.\n```json\n" + json.dumps(
        {"dimensions": {"accuracy": 3}, "claims": [], "verdict": verdict}) + "\n```"


def _key(body: dict) -> tuple[str, int]:
    return body["messages"][-1]["content"], body["seed"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("inspect-cargo")
    ok("simulate", "--out", base / "world", "--days", 20, "--people", 25)
    ok("build", "cargo", "--world", base / "world", "--out", base / "suite", *SIZES)
    return base / "suite"


def inspect_eval(task: str, server: ChatServer, log_dir: Path, *params: str) -> tuple[Path, str]:
    """``inspect eval TASK`` as a user types it (inspect's CLI finding the task through orgbench's entry point), in
    a subprocess with Hugging Face and inspect offline; the log written and everything the command printed."""
    # PYTHONPATH as the caller has it: pointing it at a source tree holding orgbench.egg-info (pip install -e
    # leaves one) hides the install's direct_url.json, and inspect then files the tasks without "orgbench/"
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "HF_HUB_OFFLINE": "1",
           "NO_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", task, "--model", f"openai/{MODEL}",
                           "--model-base-url", server.base_url, "--log-dir", str(log_dir), "--display", "plain",
                           "--log-format", "eval", *params], env=env, cwd=log_dir.parent, capture_output=True,
                          text=True, timeout=600)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    logs = sorted(log_dir.glob("*.eval"))
    assert len(logs) == 1, said
    return logs[0], said


@pytest.mark.slow       # a suite, orgbench judge and `inspect eval` over HTTP, three table builds (about 40 s)
def test_inspect_sends_what_orgbench_judge_sends_and_tables_give_the_same_numbers(suite, tmp_path, monkeypatch):
    with ChatServer(answer=verdict_by_hash) as server:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        ok("judge", "--suite", suite, "--judge", f"openai:{MODEL}", "--base-url", server.base_url,
           "--conditions", "cargo", "--seeds", "0,1", "--out", tmp_path / "run")
        judged = {_key(b): b for b in server.bodies}
        server.reset()
        log, said = inspect_eval("orgbench/cargo_bench", server, tmp_path / "logs", "-T", f"suite={suite}",
                                 "-T", "condition=cargo", "-T", "seeds=0,1")
        inspected = {_key(b): b for b in server.bodies}
    assert "WARNING" not in said and "Traceback" not in said, said     # no warning per sample, none at the start
    assert "DI_ci_low" in said                                         # inspect shows orgbench's metric
    assert len(judged) == 12 * 2 and len(server.bodies) == len(inspected)
    assert inspected == judged              # every request body, item by item: model, messages, temperature, seed
    for body in judged.values():
        assert [m["role"] for m in body["messages"]] == ["system", "user"]

    from orgbench.harness.inspect_log import inspect_runs
    from judges.cargo_scores import load_cargo_judgments

    with inspect_runs([log]) as run_of:
        from_log = {(j.item_id, j.condition, j.seed): (j.verdict.verdict, j.request_hash, j.penalized)
                    for j in load_cargo_judgments(run_of[log])}
    from_run = {(j.item_id, j.condition, j.seed): (j.verdict.verdict, j.request_hash, j.penalized)
                for j in load_cargo_judgments(tmp_path / "run")}
    assert from_log == from_run and {v[0] for v in from_run.values()} == {"pass", "fail"}

    ok("tables", "cargo", tmp_path / "run", "--out", tmp_path / "t-run", "--resamples", 500)
    ok("tables", "cargo", log, "--out", tmp_path / "t-log", "--resamples", 500)
    ok("tables", "cargo", log, "--out", tmp_path / "t-log2", "--resamples", 500)
    scores = [json.loads((tmp_path / t / "scores.json").read_text())["runs"] for t in ("t-run", "t-log")]
    assert scores[0][0]["conditions"] == scores[1][0]["conditions"]     # rates, DI and its CI
    assert scores[1][0]["judge"] == f"inspect:openai/{MODEL}"
    for name in ("table1_headline.csv", "scores.json", "breakdown.csv"):      # deterministic: the same log, the same bytes
        assert (tmp_path / "t-log" / name).read_bytes() == (tmp_path / "t-log2" / name).read_bytes()

    # inspect's own metric is orgbench's: the log's results hold the same rates and DI
    from inspect_ai.log import read_eval_log

    metrics = {k: v.value for k, v in read_eval_log(str(log)).results.scores[0].metrics.items()}
    mean = scores[0][0]["conditions"]["cargo"]["mean_of_seeds"]
    assert metrics["DI"] == pytest.approx(mean["di"], abs=1e-6)
    for family, rate in mean["rates"].items():
        assert metrics[f"penalty_rate_{family}"] == pytest.approx(rate, abs=1e-6)

    compared = ok("compare", tmp_path / "run", log, "--resamples", 200)
    assert f"openai:{MODEL}" in compared and f"inspect:openai/{MODEL}" in compared


def test_the_entry_point_names_the_task_module_and_its_tasks():
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    assert entry["inspect_ai"] == {"orgbench": "orgbench.harness.inspect_tasks"}
    import orgbench.harness.inspect_tasks as tasks
    from inspect_ai._util.registry import registry_info

    for name in ("cargo_bench", "groundeval", "assurance_contrast"):
        assert registry_info(getattr(tasks, name)).name.endswith(name)


def test_seeds_come_as_inspect_parses_them():
    from orgbench.harness.inspect_tasks import _seeds

    assert _seeds(["0", "1"]) == _seeds("0,1") == _seeds("0-1") == (0, 1) and _seeds(3) == (3,)


def test_a_log_of_another_task_is_refused_in_one_line(tmp_path):
    log = tmp_path / "other.json"
    log.write_text('{"version": 2}', encoding="utf-8")
    fails("tables", "cargo", log, "--out", tmp_path / "t", says=("other.json",))
    assert not (tmp_path / "t").exists()


@pytest.mark.slow       # a trajectory suite, the checked pipeline twice and 2 x 48 packet requests over HTTP
def test_the_contrast_task_sends_what_tables_assurance_sends_and_gives_the_same_g(tmp_path, monkeypatch):
    from inspect_ai.log import read_eval_log

    ok("simulate", "--out", tmp_path / "world", "--days", 20, "--people", 25)
    ok("build", "trajectories", "--world", tmp_path / "world", "--out", tmp_path / "tr", "--n", 6)
    with ChatServer(answer=verdict_by_hash) as server:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        ok("tables", "assurance", "--source", tmp_path / "tr", "--judge", f"openai:{MODEL}", "--base-url",
           server.base_url, "--out", tmp_path / "t")
        judged = {_key(b): b for b in server.bodies}
        server.reset()
        log, said = inspect_eval("orgbench/assurance_contrast", server, tmp_path / "logs", "-T",
                                 f"suite={tmp_path / 'tr'}")
        inspected = {_key(b): b for b in server.bodies}
    assert "WARNING" not in said and "Traceback" not in said, said
    assert judged and inspected == judged                 # every packet and draw: the same request body
    summary = json.loads((tmp_path / "t" / "contrast.json").read_text())
    assert any(cell["flags"] for cell in summary["cells"].values())
    metrics = {k: v.value for k, v in read_eval_log(str(log)).results.scores[0].metrics.items()}
    for name in ("original", "restored", "reduction"):
        assert metrics[f"G_{name}"] == summary["G"][name]
        assert [metrics[f"G_{name}_ci_low"], metrics[f"G_{name}_ci_high"]] == summary["G_ci95"][name]


@pytest.mark.parametrize("params, says", [
    ({"suite": "/nowhere"}, "-T suite: /nowhere/items.jsonl not found"),
    ({"condition": "bogus"}, "-T condition: unknown condition 'bogus'; known: noref"),
    ({"limit": "ten"}, "-T limit: expected a whole number, got 'ten'"),
    ({"seeds": "x"}, "-T seeds: expected a list like 0-9 or 0,1,2, got 'x'"),
])
def test_a_bad_task_parameter_is_one_line_inspect_prints_without_a_traceback(params, says, tmp_path):
    from inspect_ai._util.error import PrerequisiteError

    from orgbench.harness.inspect_tasks import cargo_bench

    (tmp_path / "items.jsonl").write_text("", encoding="utf-8")    # the parameters are checked before it is read
    with pytest.raises(PrerequisiteError) as raised:
        cargo_bench(**{"suite": str(tmp_path), **params})
    assert raised.value.message.startswith("orgbench: " + says), raised.value.message
