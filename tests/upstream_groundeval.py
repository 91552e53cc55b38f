"""A local copy of upstream GroundEval for tests that run its own code — located at test time, never vendored.

Upstream is not on the package index and has no licence file, so the repository never holds its code. A test
that runs it needs ``GROUNDEVAL_UPSTREAM``: a git clone (bare or not) of upstream holding its branches
``paper/preprint-2026`` and ``main``. Each branch's tree at the commit the comparisons were made against (``PINS``)
is extracted with ``git archive`` into the test's temporary directory and run with its ``src`` on ``PYTHONPATH``, under ``GROUNDEVAL_PYTHON`` if set, else a pyenv Python
3.13 (upstream declares >= 3.13) that has PyYAML, else the interpreter running the tests (its code runs on
3.11). Without the variable the test skips, saying what to set; CI reaches only package registries, so there it
skips unless the machine's environment names a copy (``.ci/run`` then gives it a Python 3.13 with upstream's
dependencies from the package index).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

VARIABLE = "GROUNDEVAL_UPSTREAM"
PREPRINT = "paper/preprint-2026"
MAIN = "main"
#: The commit of each branch the comparisons were made against (docs/spec/groundeval.md names main's): a newer
#: upstream is compared again before a pin moves.
PINS = {MAIN: "6d4eb6afc47d48bec18aab2700109b134d00e1fd", PREPRINT: "bb772dc857b66b7b23a4973399dd4ab1bddddac0"}
#: What to set, as every skip says it.
HOW = (f"set {VARIABLE}=DIR, DIR a git clone of tenurehq/GroundEval holding branches {MAIN} and {PREPRINT} "
       "(git clone --mirror), and GROUNDEVAL_PYTHON=a Python 3.13 with upstream main's dependencies (pip install "
       "pyyaml python-dotenv openai anthropic json-repair jsonschema reportlab); upstream is on no package index, "
       "so CI has no copy unless the machine's environment sets these")


def upstream_tree(branch: str, into: Path) -> Path:
    """``into`` holding upstream's ``branch`` at its pinned commit (its ``src/groundeval`` among it); skips when no copy
    is named."""
    repo = os.environ.get(VARIABLE)
    if not repo:
        pytest.skip(HOW)
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", repo, "archive", PINS[branch]], capture_output=True, check=False)
    if archive.returncode != 0:
        pytest.fail(f"{VARIABLE}={repo}: git archive {PINS[branch]} ({branch}'s pinned commit) failed: "
                    f"{archive.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    assert (into / "src" / "groundeval" / "__init__.py").exists(), f"{repo}@{branch} has no src/groundeval"
    return into


def _has_yaml(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import yaml"], capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def upstream_python() -> str:
    """The interpreter that runs upstream: GROUNDEVAL_PYTHON, a pyenv 3.13 with PyYAML, or this one."""
    chosen = os.environ.get("GROUNDEVAL_PYTHON")
    if chosen:
        return chosen
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for candidate in sorted(root.glob("3.13*/bin/python")):
        if _has_yaml(str(candidate)):
            return str(candidate)
    return sys.executable


def require_modules(*modules: str) -> None:
    """Skip, saying what to set, when the interpreter that runs upstream lacks one of ``modules``."""
    python = upstream_python()
    found = subprocess.run([python, "-c", f"import {', '.join(modules)}"], capture_output=True, check=False)
    if found.returncode != 0:
        pytest.skip(f"{python} lacks one of {', '.join(modules)} (upstream main's CLI imports them): {HOW}")


def run_upstream(tree: Path, args: list[str], cwd: Path,
                 env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGS`` with upstream ``tree``'s ``src`` (and nothing of orgbench) on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(tree / "src")
    env.update(env_extra or {})
    return subprocess.run([upstream_python(), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1800, check=False)


def run_upstream_json(tree: Path, script: str, *argv: str, cwd: Path) -> object:
    """Run a small driver ``script`` (text) against upstream's modules and return the JSON it prints."""
    path = cwd / "upstream_driver.py"
    path.write_text(script, encoding="utf-8")
    done = run_upstream(tree, [str(path), *argv], cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
