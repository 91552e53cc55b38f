"""A plugin from a separate package: pip-installed from tests/plugins/mycorp, found through the entry points.

Nothing in orgbench names ``mycorp``; ``orgbench judge``, ``run-agent``,
``reproduce``, ``sweep``, ``export`` and ``list`` reach its backend, agent and
export format through the ``orgbench.backends``, ``orgbench.agents`` and
``orgbench.export_formats`` entry-point groups. The package is installed into
a temporary site directory that only these tests' commands see, never into
the environment other tests run in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "mycorp"
DIST = "orgbench-mycorp-backend"
pytestmark = pytest.mark.slow      # the module fixture pip-installs the plugin (4-7 s setup, loaded machine)


REPO = Path(__file__).resolve().parents[2]
SITE: list[Path] = []       # the temporary site directory the plugin is installed into (set by the fixture)


def _orgbench(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *map(str, SITE)])}
    return subprocess.run([sys.executable, "-m", "orgbench.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """The plugin installed into a temporary site directory that this module's commands put on their path."""
    base = tmp_path_factory.mktemp("plugin")
    source = base / "mycorp"     # a copy: the build leaves nothing under tests/
    shutil.copytree(PLUGIN, source)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--no-deps", "--no-build-isolation", "--no-index", "--target", str(base / "site"),
                    str(source)], check=True, capture_output=True)
    SITE.append(base / "site")
    yield DIST
    SITE.clear()


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


def test_list_shows_what_the_plugin_registers_and_nothing_internal(plugin):
    listed = json.loads(_orgbench("list", "--json").stdout)
    backends = listed["judge and agent backends (SPEC kinds)"]
    assert backends["mycorp"].startswith("judge and agent (cargo, groundeval, assurance)")
    assert backends["mycorp-judge"].startswith("judge (cargo, assurance)")
    assert not {"gbnf", "pacing", "registry", "base", "token_f1"} & set(backends)      # modules, not backends
    assert "mycorp:MODEL" in listed["CARGO judges (judge --judge)"]
    assert "mycorp:MODEL" in listed["assurance judges (assure dispatch/contrast/run --judge)"]
    assert {"mycorp-first-hit", "mycorp:MODEL"} <= set(listed["GroundEval agents (run-agent --agent)"])
    assert "mycorp-judge:MODEL" not in listed["GroundEval agents (run-agent --agent)"]
    assert listed["export formats"]["export --format mycorp-people (world)"].startswith("a world's people")
    text = _orgbench("list").stdout
    assert "mycorp-first-hit" in text and "mycorp-people" in text
    # without the plugin none of it is there
    site = SITE.pop()
    try:
        plain = json.loads(_orgbench("list", "--json").stdout)
    finally:
        SITE.append(site)
    assert "mycorp" not in plain["judge and agent backends (SPEC kinds)"]


def test_export_in_a_plugin_format(plugin, fx, tmp_path):
    ran = _orgbench("export", fx["world"], "--format", "mycorp-people", "--out", tmp_path / "people")
    assert ran.returncode == 0, ran.stderr
    rows = (tmp_path / "people" / "people.csv").read_text().splitlines()
    actors = [json.loads(line) for line in (fx["world"] / "actors.jsonl").read_text().splitlines()]
    assert rows[0] == "actor_id,name,team,role" and len(rows) == 1 + len(actors)
    first = min(actors, key=lambda a: a["actor_id"])
    assert rows[1] == ",".join([first["actor_id"], first["name"], first["team"], first["role"]])
    assert json.loads((tmp_path / "people" / "EXPORT.json").read_text())["counts"] == {"people": len(actors)}


def test_run_agent_with_a_plugin_agent(plugin, fx, tmp_path):
    ran = _orgbench("run-agent", "--suite", fx["ge"], "--agent", "mycorp-first-hit", "--out", tmp_path / "run",
                    "--no-latency")
    assert ran.returncode == 0, ran.stderr
    answers = [json.loads(line) for line in (tmp_path / "run" / "answers.jsonl").read_text().splitlines()]
    traces = [json.loads(line) for line in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    assert len(answers) == len((fx["ge"] / "contracts.jsonl").read_text().splitlines())
    assert {a["agent"] for a in answers} == {"mycorp-first-hit"}
    assert all([c["tool"] for c in t["calls"]] == ["search_artifacts"] for t in traces)


def test_a_judge_only_plugin_is_refused_where_an_agent_is_needed(plugin, tmp_path):
    ran = _orgbench("reproduce", "groundeval", "--judge", "mycorp-judge:x", "--out", tmp_path / "out",
                    "--work-dir", tmp_path / "work")
    assert ran.returncode == 2 and ran.stdout == ""
    (line,) = ran.stderr.strip().splitlines()
    assert line == ("error: --judge 'mycorp-judge:x': cannot serve study groundeval (it needs an agent; "
                    "mycorp-judge:x is a judge for cargo, assurance)")
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_reproduce_with_the_plugin_in_every_study_it_serves(plugin, tmp_path):
    out, work = tmp_path / "results", tmp_path / "work"
    ran = _orgbench("reproduce", "--judge", "mycorp:strict", "--seeds", "0", "--out", out, "--work-dir", work)
    assert ran.returncode == 0, ran.stderr
    headline = (out / "cargo" / "table1_headline.csv").read_text()
    assert "mycorp:strict" in headline
    scores = json.loads((out / "cargo" / "scores.json").read_text())
    assert "mycorp:strict" in json.dumps(scores)
    agents = (out / "groundeval" / "table_agents.csv").read_text().splitlines()
    mine = [line for line in agents if line.startswith("mycorp:strict,")]
    assert {line.split(",")[1] for line in mine} == {"tool", "context"}
    assert any(line.startswith("oracle,") for line in agents)           # beside the built-in agents
    contrast = json.loads((out / "assurance" / "contrast.json").read_text())
    assert "mycorp:strict" in json.dumps(contrast)
    readme = (out / "README.md").read_text()
    assert "mycorp:strict" in readme


def test_sweep_with_the_plugin_as_judge_and_agent(plugin, tmp_path):
    sweep = tmp_path / "SWEEP.toml"
    sweep.write_text('[sweep]\nname = "plugin"\n\n[worlds.small]\nseeds = [0]\npeople = 25\ndays = 20\n\n'
                     '[groundeval]\nagents = ["oracle", "mycorp:reader", "mycorp-first-hit"]\nmodes = ["tool"]\n\n'
                     '[cargo]\nworlds_per_suite = 1\njudges = ["builtin:literal", "mycorp:strict"]\n'
                     'conditions = ["direct", "cargo"]\n')
    ran = _orgbench("sweep", sweep, "--executor", "serial", "--out", tmp_path / "out", "--work-dir", tmp_path / "work")
    assert ran.returncode == 0, ran.stderr
    table = (tmp_path / "out" / "table.csv").read_text().splitlines()
    assert any(line.startswith("groundeval,small,0,mycorp:reader,tool,all,s_adj,") for line in table)
    assert any(line.startswith("groundeval,small,0,mycorp-first-hit,tool,all,s_adj,") for line in table)
    assert any(line.startswith("cargo,small,0,mycorp:strict,cargo,all,di,") for line in table)
    bad = tmp_path / "BAD.toml"
    bad.write_text(sweep.read_text().replace('"mycorp:reader", ', '"mycorp-judge:x", '))
    refused = _orgbench("sweep", bad, "--executor", "serial", "--out", tmp_path / "o2", "--work-dir", tmp_path / "w2")
    assert refused.returncode == 2 and "groundeval.agents: unknown name 'mycorp-judge:x'" in refused.stderr
