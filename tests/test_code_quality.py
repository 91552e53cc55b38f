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


def test_mypy_checks_every_module_of_the_four_packages_strictly_enough():
    """The configuration the slow test runs: all four packages, untyped bodies checked, stale ignores reported, and
    nothing switched off per module (no ``ignore_errors``, no disabled error codes)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["orgbench", "simulator", "benchmark_builders", "judges"]
    assert config["check_untyped_defs"] is True and config["warn_unused_ignores"] is True
    assert "overrides" not in config and "disable_error_code" not in config and "ignore_errors" not in config
