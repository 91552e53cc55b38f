"""A backend from a separate package: pip-installed from tests/plugins/mycorp, found through the entry points.

Nothing in orgbench names ``mycorp``; ``orgbench judge`` and ``orgbench
run-agent`` reach it through the ``orgbench.backends`` entry-point group.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "mycorp"
DIST = "orgbench-mycorp-backend"
pytestmark = pytest.mark.slow      # the module fixture pip-installs the plugin (4-7 s setup, loaded machine)


def _orgbench(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "orgbench.cli", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """The plugin installed into this test environment for the module's tests, and uninstalled after."""
    source = tmp_path_factory.mktemp("plugin") / "mycorp"     # a copy: the build leaves nothing under tests/
    shutil.copytree(PLUGIN, source)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--no-deps", "--no-build-isolation", "--no-index", str(source)], check=True,
                   capture_output=True)
    yield DIST
    subprocess.run([*pip, "uninstall", "-y", DIST], check=True, capture_output=True)


def test_judge_with_a_plugin_backend(plugin, fx, tmp_path):
    ran = _orgbench("judge", "--suite", fx["cargo"], "--judge", "mycorp:strict", "--conditions", "direct,cargo",
                    "--out", tmp_path / "run")
    assert ran.returncode == 0, ran.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "judgments.jsonl").read_text().splitlines()]
    items = len((fx["cargo"] / "items.jsonl").read_text().splitlines())
    assert len(rows) == 2 * items
    assert {r["model"] for r in rows} == {"mycorp:strict"} and {r["penalized"] for r in rows} == {True}
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["judge"] == "mycorp:strict" and record["backend"] == {"kind": "mycorp", "model": "strict"}
    # the same spec resumes: nothing asked twice
    again = _orgbench("judge", "--suite", fx["cargo"], "--judge", "mycorp:strict", "--conditions", "direct,cargo",
                      "--out", tmp_path / "run")
    assert again.returncode == 0 and "0 requested" in again.stdout, again.stdout + again.stderr


def test_run_agent_with_a_plugin_backend(plugin, fx, tmp_path):
    ran = _orgbench("run-agent", "--suite", fx["ge"], "--agent", "mycorp:reader", "--out", tmp_path / "run",
                    "--no-latency")
    assert ran.returncode == 0, ran.stderr
    contracts = len((fx["ge"] / "contracts.jsonl").read_text().splitlines())
    answers = [json.loads(line) for line in (tmp_path / "run" / "answers.jsonl").read_text().splitlines()]
    traces = [json.loads(line) for line in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    assert len(answers) == contracts and {a["agent"] for a in answers} == {"mycorp:reader"}
    # every tool call went through the gated runtime and is in the trace
    assert all([c["tool"] for c in t["calls"]][:1] == ["search_artifacts"] for t in traces)
    assert f"totals: {sum(1 + len(t['calls']) for t in traces):,} requests" in ran.stdout
    assert not (tmp_path / ".run.journal.jsonl").exists()


def test_an_unknown_kind_names_the_installed_ones(plugin, fx, tmp_path):
    ran = _orgbench("judge", "--suite", fx["cargo"], "--judge", "othercorp:x", "--out", tmp_path / "run")
    assert ran.returncode == 2 and "unknown kind 'othercorp'" in ran.stderr and "mycorp:…" in ran.stderr
