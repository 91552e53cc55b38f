"""A judge backend inside orgbench is one file: a module in judges/backends/ that registers its ``Backend``.

A scratch copy of the source tree gets one new file, ``judges/backends/echo.py``,
and nothing else is edited; ``orgbench judge --judge echo:…`` then runs with it
there (the registry reads the module's ``BACKEND`` record without importing it),
an unknown kind is still one line and exit 2, and making a built-in judge
imports no HTTP backend.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("orgbench", "simulator", "benchmark_builders", "judges")

ECHO = '''"""``echo:WORD``: a judge that passes every answer and signs with WORD."""

from judges.backends.base import JudgeBackend, JudgeRequest, JudgeResponse
from judges.backends.registry import Backend

BACKEND = Backend(kind="echo", roles=("judge",), usage="echo:WORD")


class EchoJudge(JudgeBackend):
    cacheable = False

    def __init__(self, word: str) -> None:
        self.name = f"echo:{word}"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        return JudgeResponse('{"dimensions": {}, "claims": [], "verdict": "pass"}', model=self.name)


def make(wanted) -> EchoJudge:
    return EchoJudge(wanted.model("echo:WORD"))
'''


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for package in PACKAGES
            for p in (root / package).rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A copy of the source tree with one file added: the echo backend."""
    root = tmp_path_factory.mktemp("tree")
    for package in PACKAGES:
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "judges" / "backends" / "echo.py").write_text(ECHO)
    return root


def _orgbench(root: Path, *args: object) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "orgbench.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=root, env=env)


def test_the_copy_differs_from_the_tree_by_one_added_file(scratch):
    mine, theirs = _files(scratch), _files(REPO)
    assert set(mine) - set(theirs) == {"judges/backends/echo.py"}
    assert set(theirs) - set(mine) == set()
    assert all(mine[name] == theirs[name] for name in theirs)


def test_the_added_module_is_a_judge_for_orgbench_judge(scratch, fx, tmp_path):
    found = subprocess.run([sys.executable, "-c", "import judges; print(judges.__file__)"], capture_output=True,
                           text=True, cwd=scratch, env={**os.environ, "PYTHONPATH": str(scratch)})
    assert found.stdout.strip() == str(scratch / "judges" / "__init__.py")      # the copy runs, not the tree
    ran = _orgbench(scratch, "judge", "--suite", fx["cargo"], "--judge", "echo:yes", "--conditions", "direct",
                    "--out", tmp_path / "run")
    assert ran.returncode == 0, ran.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "judgments.jsonl").read_text().splitlines()]
    assert len(rows) == len((fx["cargo"] / "items.jsonl").read_text().splitlines())
    assert {r["model"] for r in rows} == {"echo:yes"} and {r["verdict"]["verdict"] for r in rows} == {"pass"}
    assert {r["penalized"] for r in rows} == {False}
    assert json.loads((tmp_path / "run" / "run.json").read_text())["judge"] == "echo:yes"


def test_an_unknown_kind_is_one_line_and_exit_2_naming_the_new_one(scratch, fx, tmp_path):
    ran = _orgbench(scratch, "judge", "--suite", fx["cargo"], "--judge", "nosuch:x", "--out", tmp_path / "run")
    assert ran.returncode == 2 and ran.stdout == ""
    (line,) = ran.stderr.strip().splitlines()
    assert "unknown kind 'nosuch'" in line and "echo:…" in line and "builtin:…" in line
    # the tree itself has no echo backend
    here = _orgbench(REPO, "judge", "--suite", fx["cargo"], "--judge", "echo:yes", "--out", tmp_path / "other")
    assert here.returncode == 2 and "unknown kind 'echo'" in here.stderr


def test_finding_a_backend_imports_only_its_own_module():
    code = ("import sys; from judges.backends import make_backend; make_backend('builtin:grounded');"
            "import json; print(json.dumps(sorted(m for m in sys.modules if m.startswith('judges.backends.')"
            " or m == 'aiohttp')))")
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    loaded = json.loads(ran.stdout)
    assert "judges.backends.builtin" in loaded
    assert not {"aiohttp", "judges.backends.openai_compat", "judges.backends.local", "judges.backends.stub",
                "judges.backends.replay", "judges.backends.step"} & set(loaded)


def test_the_added_module_is_in_the_judging_stages_fingerprint(scratch):
    from orgbench.stages import import_closure

    files = {p.relative_to(scratch).as_posix() for p in import_closure("judges.cargo_run", root=scratch)}
    assert {"judges/backends/echo.py", "judges/backends/openai_compat.py", "judges/backends/step.py"} <= files
