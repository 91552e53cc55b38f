"""Work a command must never lose: one writer per output folder, and committed results never replaced by a model run."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from orgbench.commands.reproduce import default_out, judges_held, judges_to_run
from orgbench.core.errors import InputError
from orgbench.outdir import lock_path, one_writer

ROOT = Path(__file__).resolve().parents[2]
HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from orgbench.outdir import one_writer
    with one_writer([("--out", Path(sys.argv[1]))], "orgbench judge"):
        print("holding", flush=True)
        time.sleep(120)
""")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def holder(tmp_path):
    """Another process holding the lock of tmp_path/out; yields it (killed at the end)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "out")], stdout=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path)
    assert proc.stdout is not None and proc.stdout.readline() == "holding\n"
    yield proc
    proc.kill()
    proc.wait()


def _simulate(out: Path):
    return CliRunner().invoke(cli, ["simulate", "--out", str(out), "--days", "3", "--people", "16"])


def test_a_second_writer_is_refused_naming_the_first_and_writes_nothing(tmp_path, holder):
    result = _simulate(tmp_path / "out")
    assert result.exit_code == 2
    assert result.output == (f"error: --out {tmp_path / 'out'}: in use by pid {holder.pid} (orgbench judge); wait "
                             f"for it to finish or choose another directory\n")
    assert not (tmp_path / "out").exists()
    (tmp_path / "suite").mkdir()
    (tmp_path / "run").mkdir()
    for command in (["judge", "--suite", str(tmp_path / "suite"), "--judge", "builtin:grounded"],
                    ["tables", "cargo", str(tmp_path / "run")], ["build", "cargo", "--seeds", "0"]):
        result = CliRunner().invoke(cli, [*command, "--out", str(tmp_path / "out")])
        assert result.exit_code == 2 and f"in use by pid {holder.pid}" in result.output, result.output


def test_the_lock_of_a_killed_writer_is_released_by_the_kernel(tmp_path, holder):
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert lock_path(tmp_path / "out").exists()          # the file stays; the lock on it went with the process
    result = _simulate(tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "world.json").is_file()
    assert not lock_path(tmp_path / "out").exists()      # released and removed by the one that finished


def test_the_lock_is_reentrant_within_a_process_and_removed_after(tmp_path):
    out = tmp_path / "out"
    with one_writer([("--out", out)], "orgbench reproduce"):
        with one_writer([("--out", out)], "orgbench reproduce"):
            assert lock_path(out).is_file()
        assert lock_path(out).is_file()
    assert not lock_path(out).exists()


def test_serve_mcp_shares_its_out_with_other_servers(tmp_path, holder):
    from orgbench.outdir import SHARED_OUT

    assert cli.commands["serve-mcp"].name in SHARED_OUT


def _results(folder: Path, agents: list[str] | None = None) -> None:
    """A committed-looking results folder (the offline one, or a model comparison when ``agents`` are given)."""
    (folder / "cargo").mkdir(parents=True)
    (folder / "README.md").write_text("# results\n", encoding="utf-8")
    (folder / "index.html").write_text("<html></html>\n", encoding="utf-8")
    (folder / "cargo" / "table1_headline.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    if agents:
        (folder / "groundeval").mkdir()
        (folder / "groundeval" / "compare.json").write_text(
            '{"agents": {%s}, "pairs": []}\n' % ", ".join(f'"{a}": {{}}' for a in agents), encoding="utf-8")


def test_reproduce_with_a_model_never_writes_into_committed_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _results(tmp_path / "results")
    _results(tmp_path / "results-local", ["local:smollm2", "local:gemma3-270m"])
    before = {name: _snapshot(tmp_path / name) for name in ("results", "results-local")}
    url = "http://127.0.0.1:9/v1"     # nothing listens there: a run that got past the guard would stop at the endpoint
    for args, message in (
            (["cargo", "--judge", "openai:a", "--out", "results"],
             "error: --out results: holds the results of the built-in judges (results/ as committed); a model run "
             "never writes there, --overwrite or not: leave --out out (the folder is then named after the models, "
             "results-openai-a) or choose another directory"),
            (["cargo", "--judge", "openai:a", "--out", "results", "--overwrite"],
             "error: --out results: holds the results of the built-in judges (results/ as committed); a model run "
             "never writes there, --overwrite or not: leave --out out (the folder is then named after the models, "
             "results-openai-a) or choose another directory"),
            (["--quick", "--judge", "openai:a", "--judge", "openai:b", "--out", "results-local"],
             "error: --out results-local: holds the results of local:gemma3-270m, local:smollm2, not of openai:a, "
             "openai:b; choose another directory, add --add to merge these into it (keeping its runs) or "
             "--overwrite to replace it"),
            (["--judge", "openai:a", "--add", "--out", "results"],
             "error: --out results: holds the results of the built-in judges (results/ as committed); a model run "
             "never writes there, --overwrite or not: leave --out out (the folder is then named after the models, "
             "results-openai-a) or choose another directory"),
            (["--add", "--out", "results-local"],
             "error: --add: --out results-local holds the results of local:gemma3-270m, local:smollm2; --add merges "
             "model runs only into a folder of model runs (choose another --out)"),
            (["--out", "results-local"],
             "error: --out results-local: holds the results of local:gemma3-270m, local:smollm2, not of the built-in "
             "judges; choose another directory, add --add to merge these into it (keeping its runs) or --overwrite "
             "to replace it")):
        endpoint = ["--base-url", url] if "--judge" in args else []   # refused where no judge would use it
        result = CliRunner().invoke(cli, ["reproduce", *args, *endpoint])
        assert result.exit_code == 2, result.output
        assert result.output.splitlines() == [message]
    # without --out: a folder named after the models; the unreachable endpoint stops it before anything is written
    result = CliRunner().invoke(cli, ["reproduce", "--quick", "--judge", "openai:a", "--judge", "openai:b",
                                      "--base-url", url])
    assert result.exit_code == 2 and "127.0.0.1:9" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results", "results-local"]
    assert {name: _snapshot(tmp_path / name) for name in ("results", "results-local")} == before


def test_the_default_folder_is_named_after_the_models_and_add_keeps_the_held_ones_first(tmp_path):
    assert default_out(()) == Path("results")
    assert default_out(("local:smollm2", "openai:gpt-x")) == Path("results-local-smollm2+openai-gpt-x")
    _results(tmp_path / "r", ["local:smollm2"])
    assert judges_held(tmp_path / "r") == ("local:smollm2",)
    assert judges_to_run(tmp_path / "r", ("openai:b", "local:smollm2"), add=True, overwrite=False) == \
        ("local:smollm2", "openai:b")
    assert judges_to_run(tmp_path / "r", ("openai:b",), add=False, overwrite=True) == ("openai:b",)
    assert judges_to_run(tmp_path / "r", ("local:smollm2",), add=False, overwrite=False) == ("local:smollm2",)
    with pytest.raises(InputError, match="choose one"):
        judges_to_run(tmp_path / "r", ("openai:b",), add=True, overwrite=True)
    _results(tmp_path / "builtin")                  # the built-in judges' results: a built-in --judge may replace them
    assert judges_to_run(tmp_path / "builtin", ("builtin:grounded",), add=False, overwrite=True) == ("builtin:grounded",)
    with pytest.raises(InputError, match="a model run never writes there"):
        judges_to_run(tmp_path / "builtin", ("builtin:grounded", "openai:b"), add=False, overwrite=True)
    assert judges_held(tmp_path / "empty") is None
    shutil.rmtree(tmp_path / "r")
