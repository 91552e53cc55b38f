"""ruff and mypy, as configured in pyproject.toml, pass on the tree (so the README's test command runs them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess:
    tool = command[0]
    probe = subprocess.run([sys.executable, "-m", tool, "--version"], capture_output=True, text=True, cwd=ROOT)
    assert probe.returncode == 0, f"{tool} is not installed: pip install -e '.[test]'"
    return subprocess.run([sys.executable, "-m", *command], capture_output=True, text=True, cwd=ROOT)


def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_passes_on_the_public_modules():
    done = _run("mypy")         # files and options: [tool.mypy] in pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
