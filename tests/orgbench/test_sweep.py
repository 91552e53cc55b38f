"""``orgbench sweep``: SWEEP.toml errors, serial vs local Ray (byte for byte), reruns, a SIGKILL and resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from orgbench.sweep import run_sweep
from orgbench.sweep.graph import expand
from orgbench.sweep.spec import load_sweep
from tests.orgbench.clitools import fails

SMALL = """[sweep]
name = "small"

[worlds.small]
seeds = "0-1"
people = 30
days = 45

[groundeval]
agents = ["oracle", "bm25"]
modes = ["tool"]

[cargo]
worlds_per_suite = 1
judges = ["builtin:literal"]
conditions = ["noref", "cargo"]
"""
REPO = Path(__file__).resolve().parents[2]


def _write(directory: Path, text: str = SMALL) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "SWEEP.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("text, says", [
    (SMALL.replace("modes =", "mode ="), "groundeval.mode: unknown key"),
    (SMALL.replace("[sweep]", "[sweeps]"), "sweeps: unknown key"),
    (SMALL.replace("people = 30", "poeple = 30"), "worlds.small.poeple: unknown key"),
    (SMALL.replace('"0-1"', '"zero"'), "worlds.small.seeds"),
    (SMALL.replace("worlds_per_suite = 1", "worlds_per_suite = 0"), "cargo.worlds_per_suite"),
    (SMALL.replace('"builtin:literal"', '"builtin:litteral"'), "cargo.judges: unknown name 'builtin:litteral'"),
    (SMALL.replace('"noref", ', '"norf", '), "cargo.conditions: unknown name 'norf'"),
    (SMALL.replace("name = ", "name == "), "invalid TOML"),
    ("[sweep]\nname = 'x'\n", "worlds: missing"),
    (SMALL.replace('agents = ["oracle", "bm25"]', 'agents = ["oracle", "openai:m"]\nbase_url = "http://127.0.0.1:9/v1"'),
     "groundeval.base_url: http://127.0.0.1:9/v1 is unreachable"),       # before: worlds and suites built first
])
def test_a_bad_sweep_file_is_one_line_naming_file_and_key(tmp_path, text, says):
    path = _write(tmp_path, text)
    fails("sweep", path, "--out", tmp_path / "out", "--work-dir", tmp_path / "work", says=(str(path), says))
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_the_grid_expands_into_keyed_stages_each_after_what_it_needs(tmp_path):
    stages = expand(load_sweep(_write(tmp_path)), tmp_path / "work", tmp_path / "out")
    names = [s.name for s in stages]
    assert names[:2] == ["worlds/small/seed-0", "worlds/small/seed-1"]
    assert sum(s.kind == "groundeval-run" for s in stages) == 2 * 2 * 1  # worlds × agents × modes
    assert sum(s.kind == "cargo-suite" for s in stages) == 2              # one world per suite
    for index, stage in enumerate(stages):
        assert all(names.index(need) < index for need in stage.needs)
    assert len({s.key for s in stages}) == len(stages)
    # a different seed changes the world's key and, through it, every stage downstream of it
    other = expand(load_sweep(_write(tmp_path / "b", SMALL.replace('"0-1"', '"0,2"'))), tmp_path / "w", tmp_path / "o")
    keys = {s.name: s.key for s in stages}
    assert keys["worlds/small/seed-0"] == next(s.key for s in other if s.name == "worlds/small/seed-0")
    assert keys["combined"] != other[-1].key



def test_on_ray_a_suite_its_built_in_runs_and_scores_are_one_task_and_model_runs_their_own(tmp_path):
    from orgbench.sweep.executors import ray_units

    units = [[s.name for s in unit] for unit in ray_units(expand(load_sweep(_write(tmp_path)), tmp_path / "w", tmp_path / "o"))]
    base = "groundeval/small/seed-0"
    assert [f"{base}/suite", f"{base}/runs/oracle-tool", f"{base}/runs/bm25-tool", f"{base}/scores"] in units
    assert ["worlds/small/seed-0"] in units and ["cargo/small/seeds-0/suite"] in units and units[-1] == ["combined"]
    assert sorted(n for unit in units for n in unit) == sorted(s.name for s in expand(
        load_sweep(tmp_path / "SWEEP.toml"), tmp_path / "w", tmp_path / "o"))
    # a model agent's run waits for its endpoint's permits in a task of its own; the scores that need it too
    text = SMALL.replace('agents = ["oracle", "bm25"]', 'agents = ["oracle", "openai:m"]\nbase_url = "http://127.0.0.1:9/v1"')
    units = [[s.name for s in unit] for unit in ray_units(expand(load_sweep(_write(tmp_path / "m", text)),
                                                                 tmp_path / "w", tmp_path / "o"))]
    assert [f"{base}/suite", f"{base}/runs/oracle-tool"] in units
    assert [f"{base}/runs/openai-m-tool"] in units and [f"{base}/scores"] in units

@pytest.mark.slow
def test_serial_and_local_ray_give_the_same_bytes_and_a_rerun_redoes_nothing(tmp_path):
    pytest.importorskip("ray", reason="needs the ray extra (pip install 'orgbench[ray]')")
    root = tmp_path / "grid"
    path = _write(root)
    serial = run_sweep(path, root / "out", root / "work", executor="serial")
    assert serial.executor == "serial" and not serial.reused
    assert len(serial.built) == len(expand(load_sweep(path), root / "work", root / "out"))
    table = (root / "out" / "table.csv").read_text(encoding="utf-8").splitlines()
    assert table[0] == "study,world,seeds,agent,condition,slice,metric,value"
    assert any(line.startswith("groundeval,small,1,oracle,tool,all,s_adj,") for line in table)
    assert any(line.startswith("cargo,small,0,builtin:literal,cargo,all,di,") for line in table)
    os.replace(root, tmp_path / "serial")   # run.json records absolute paths: Ray runs in the same place
    path = _write(root)
    on_ray = run_sweep(path, root / "out", root / "work", executor="ray", workers=2)
    assert on_ray.executor == "ray" and not on_ray.reused
    assert _tree(tmp_path / "serial") == _tree(root)
    again = run_sweep(path, root / "out", root / "work", executor="ray", workers=2)
    assert not again.built and len(again.reused) == len(on_ray.built)


def _finished(work: Path) -> dict[str, int]:
    return {p.parent.relative_to(work).as_posix(): p.parent.stat().st_ino for p in work.rglob("MANIFEST.json")
            if ".partial" not in p.as_posix() and not (p.parent.parent / "MANIFEST.json").exists()}


@pytest.mark.slow
def test_a_sweep_killed_with_sigkill_resumes_and_redoes_nothing_that_had_finished(tmp_path):
    path = _write(tmp_path)
    command = [sys.executable, "-m", "orgbench", "sweep", str(path), "--out", str(tmp_path / "out"),
               "--work-dir", str(tmp_path / "work"), "--executor", "serial"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
                            start_new_session=True)
    built = []
    for line in proc.stdout:
        if line.startswith("built "):
            built.append(line.split()[1])
        if len(built) == 6:   # of 13 stages
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _finished(tmp_path / "work")
    assert set(built) <= set(before) and len(before) < 13
    result = run_sweep(path, tmp_path / "out", tmp_path / "work", executor="serial")
    assert not set(result.built) & set(before)
    assert set(result.reused) == set(before)
    after = _finished(tmp_path / "work")
    assert all(after[name] == inode for name, inode in before.items())   # the very same directories
    assert not list((tmp_path / "work").rglob("*.partial"))
    assert (tmp_path / "out" / "table.csv").is_file()


@pytest.mark.slow          # a whole sweep in a subprocess (15-18 s, loaded machine)
def test_without_ray_the_sweep_runs_serially_and_says_so_once(tmp_path):
    blocker = tmp_path / "blocked"
    blocker.mkdir()
    (blocker / "ray.py").write_text("raise ImportError('ray is blocked for this test')\n", encoding="utf-8")
    path = _write(tmp_path, SMALL.replace('"0-1"', '"0"').replace("[cargo]", "[nothing]").split("[nothing]")[0])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), str(REPO)])}
    proc = subprocess.run([sys.executable, "-m", "orgbench", "sweep", str(path), "--out", str(tmp_path / "out"),
                           "--work-dir", str(tmp_path / "work")], capture_output=True, text=True, env=env, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stdout.splitlines() if "ray is not installed" in line]
    assert len(said) == 1
    assert proc.stdout.strip().splitlines()[-1].startswith("sweep: 6 stages built, 0 reused (serial)")


class _CountingServer:
    """The in-repo chat server, counting how many requests it holds at once."""

    def __init__(self) -> None:
        import threading

        from tests.judges.chat_server import ChatServer

        self.server = ChatServer(delay=0.05)
        self.open = self.peak = 0
        lock = threading.Lock()
        answer = self.server._reply

        async def counted(body, number):
            with lock:
                self.open += 1
                self.peak = max(self.peak, self.open)
            try:
                return await answer(body, number)
            finally:
                with lock:
                    self.open -= 1

        self.server._reply = counted


@pytest.mark.slow
def test_model_stages_on_ray_share_one_endpoint_budget(tmp_path, monkeypatch):
    pytest.importorskip("ray", reason="needs the ray extra (pip install 'orgbench[ray]')")
    counting = _CountingServer()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with counting.server:
        url = counting.server.base_url
        text = SMALL.split("[groundeval]")[0] + f"""
[cargo]
worlds_per_suite = 1
judges = ["openai:test-judge"]
conditions = ["cargo"]
base_url = "{url}"

[endpoints."{url}"]
concurrency = 2
"""
        result = run_sweep(_write(tmp_path, text), tmp_path / "out", tmp_path / "work", executor="ray", workers=2)
        requests = counting.server.total
    assert dict(result.peaks) == {url: 2}          # the two judge stages never held more than the budget
    assert 1 <= counting.peak <= 2 and requests > 10
    assert any(line.startswith("cargo,small,1,openai:test-judge,cargo,all,di,")
               for line in (tmp_path / "out" / "table.csv").read_text(encoding="utf-8").splitlines())
