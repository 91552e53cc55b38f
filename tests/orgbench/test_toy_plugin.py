"""One addition of each kind from a separate package: a CARGO family, a GroundEval track, an export format, a backend.

The package (tests/plugins/toys) is pip-installed into a temporary site
directory that only these tests' commands see. Each addition is one module of
it plus one entry-point line; nothing in orgbench names any of them. The
tests run build → judge / run-agent → score → tables with them and check the
outputs against what is recomputed here from the world and suite files.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "tests" / "plugins" / "toys"
pytestmark = pytest.mark.slow      # pip-installs the plugin, simulates a world and runs every stage


def _orgbench(site: Path, *args: object) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    return subprocess.run([sys.executable, "-m", "orgbench.cli", *map(str, args)], capture_output=True, text=True,
                          env=env)


@pytest.fixture(scope="module")
def toys(tmp_path_factory) -> dict[str, Path]:
    """The plugin installed, a world, and a CARGO and a GroundEval suite built with the plugin present."""
    base = tmp_path_factory.mktemp("toys")
    shutil.copytree(PLUGIN, base / "src")           # a copy: the build leaves nothing under tests/
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-deps",
                    "--no-build-isolation", "--no-index", "--target", str(base / "site"), str(base / "src")],
                   check=True, capture_output=True)
    paths = {"base": base, "site": base / "site", "world": base / "world", "cargo": base / "cargo", "ge": base / "ge",
             "config": base / "authorship.toml"}
    paths["config"].write_text("[groundeval.authorship]\n", encoding="utf-8")     # the plugin's track, named
    for args in (("simulate", "--out", paths["world"], "--days", 20, "--people", 25),
                 ("build", "cargo", "--world", paths["world"], "--out", paths["cargo"],
                  "--sizes", "P1=4,P3=4,P2=4,P4=4,P5=5"),
                 ("build", "groundeval", "--world", paths["world"], "--out", paths["ge"], "--config", paths["config"]),
                 # the defaults, with the plugin installed and without: what a default build (and reproduce) makes
                 ("build", "cargo", "--world", paths["world"], "--out", base / "cargo-default"),
                 ("build", "groundeval", "--world", paths["world"], "--out", base / "ge-default")):
        ran = _orgbench(paths["site"], *args)
        assert ran.returncode == 0, ran.stderr
    return paths


def test_an_installed_plugin_leaves_the_default_suites_as_they_are(toys, tmp_path):
    """A plugin's family or track joins a suite only when named (--sizes P5=N, [groundeval.authorship])."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}        # the plugin not installed
    for args in (("build", "cargo", "--world", toys["world"], "--out", tmp_path / "cargo-default"),
                 ("build", "groundeval", "--world", toys["world"], "--out", tmp_path / "ge-default")):
        ran = subprocess.run([sys.executable, "-m", "orgbench.cli", *map(str, args)], capture_output=True, text=True,
                             env=env)
        assert ran.returncode == 0, ran.stderr
    for name in ("cargo-default", "ge-default"):
        with_plugin, without = toys["base"] / name, tmp_path / name
        files = sorted(p.relative_to(without) for p in without.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(with_plugin) for p in with_plugin.rglob("*") if p.is_file())
        for rel in files:
            if rel.name in ("MANIFEST.json", ".orgbench-out.json"):     # they name the folder they were written to
                continue
            assert (with_plugin / rel).read_bytes() == (without / rel).read_bytes(), rel
    truth = _jsonl(toys["base"] / "cargo-default" / "truth.jsonl")
    assert {t["family"] for t in truth} == {"P1", "P2", "P3", "P4"}
    assert "P5" not in json.loads((toys["base"] / "cargo-default" / "suite.json").read_text())["counts"]
    assert not [c for c in _jsonl(toys["base"] / "ge-default" / "contracts.jsonl") if c["track"] == "authorship"]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_plugin_is_listed_and_orgbench_names_none_of_it(toys):
    listed = json.loads(_orgbench(toys["site"], "list", "--json").stdout)
    assert listed["CARGO families (build cargo --sizes)"]["P5"] == "verbatim reference; penalise; default size 8"
    assert list(listed["CARGO families (build cargo --sizes)"]) == ["P1", "P3", "P2", "P4", "P5"]
    assert listed["GroundEval tracks and question kinds"]["authorship"] == "author, not_author"
    assert "toys:MODEL" in listed["CARGO judges (judge --judge)"]
    assert "export --format toys-authors (world)" in listed["export formats"]
    # each addition is one module of the package; orgbench's source names none of them
    assert sorted(p.name for p in (PLUGIN / "orgbench_toys").glob("*.py")) == [
        "__init__.py", "backend.py", "export.py", "family.py", "track.py"]
    for folder in ("simulator", "benchmark_builders", "judges", "orgbench"):
        for source in (REPO / folder).rglob("*.py"):
            text = source.read_text(encoding="utf-8")
            assert "orgbench_toys" not in text and "authorship" not in text and '"P5"' not in text, source


def test_a_plugin_family_is_built_judged_and_tabled(toys, tmp_path):
    truth = {t["item_id"]: t for t in _jsonl(toys["cargo"] / "truth.jsonl")}
    items = {i["item_id"]: i for i in _jsonl(toys["cargo"] / "items.jsonl")}
    p5 = sorted(i for i, t in truth.items() if t["family"] == "P5")
    assert len(p5) == 5
    assert all(items[i]["candidate"] == items[i]["reference"] for i in p5)        # the reference, word for word
    assert all(truth[i]["should_penalize"] and truth[i]["family_name"] == "verbatim reference" for i in p5)
    assert not any(items[i]["candidate"] == items[i]["reference"] for i in items if i not in p5)
    runs = []
    for judge in ("toys:dup", "builtin:literal"):
        run = tmp_path / judge.replace(":", "-")
        ran = _orgbench(toys["site"], "judge", "--suite", toys["cargo"], "--judge", judge, "--conditions",
                        "direct,cargo", "--out", run)
        assert ran.returncode == 0, ran.stderr
        runs.append(run)
    judged = _jsonl(runs[0] / "judgments.jsonl")
    # the toy judge fails exactly the candidates that repeat their reference
    assert sorted({j["item_id"] for j in judged if j["penalized"]}) == p5
    tables = tmp_path / "tables"
    ran = _orgbench(toys["site"], "tables", "cargo", *runs, "--out", tables, "--resamples", 200)
    assert ran.returncode == 0, ran.stderr
    rows = list(csv.DictReader(io.StringIO((tables / "table1_headline.csv").read_text(encoding="utf-8"))))
    assert list(rows[0])[2:7] == ["P1", "P3", "P2", "P4", "P5"]
    cells = {(r["condition"], r["judge"]): r for r in rows}
    assert cells[("direct", "toys:dup")]["P5"] == "1.00" and cells[("direct", "toys:dup")]["P1"] == ".00"
    assert cells[("cargo", "paper: gpt-oss-120b")]["P5"] == "–"          # the paper has no P5


def test_a_plugin_track_is_built_answered_scored_and_tabled(toys, tmp_path):
    contracts = [c for c in _jsonl(toys["ge"] / "contracts.jsonl") if c["track"] == "authorship"]
    truth = {t["question_id"]: t for t in _jsonl(toys["ge"] / "truth.jsonl") if t["track"] == "authorship"}
    assert len(contracts) == 6 and all(c["question_id"].startswith("AUT-") for c in contracts)
    assert all(c["answer_schema"] == {"wrote_it": "bool", "evidence_artifacts": "[artifact id]", "reasoning": "str"}
               for c in contracts)
    # the truth, recomputed from the world's own artifact file: who wrote each record's first version
    first_author = {a["artifact_id"]: a["author"] for a in _jsonl(toys["world"] / "artifacts.jsonl")
                    if a["version"] == 1}
    for c in contracts:
        assert truth[c["question_id"]]["gold"]["wrote_it"] is (first_author[c["subject"]["record"]] ==
                                                              c["subject"]["person"])
        assert c["subject"]["record"] in c["question"] and c["subject"]["person"] in c["question"]
    scores = []
    for agent in ("oracle", "bm25", "zero-shot", "lazy"):
        run, scored = tmp_path / f"run-{agent}", tmp_path / f"scores-{agent}"
        for args in (("run-agent", "--suite", toys["ge"], "--agent", agent, "--out", run),
                     ("score", "groundeval", "--suite", toys["ge"], "--answers", run, "--out", scored)):
            ran = _orgbench(toys["site"], *args)
            assert ran.returncode == 0, ran.stderr
        scores.append(scored)
        answers = {a["question_id"]: a["answer"] for a in _jsonl(run / "answers.jsonl")}
        if agent == "bm25":     # it reads the record through the gates and compares its author
            assert all(answers[q]["wrote_it"] is truth[q]["gold"]["wrote_it"] for q in truth)
        if agent == "lazy":     # the track's "no" answer
            assert all(answers[q] == {"evidence_artifacts": [], "reasoning": "nothing suggests it", "wrote_it": False}
                       for q in truth)
    summary = {s.name: json.loads((s / "summary.json").read_text())["agents"] for s in scores}
    assert summary["scores-oracle"]["oracle"]["tool"]["authorship"]["s_adj"] == 1.0
    assert summary["scores-bm25"]["bm25"]["tool"]["authorship"]["s_adj"] == 1.0
    # zero-shot says yes to all: right on the 3 authors, never reads the record (S_traj 0)
    assert summary["scores-zero-shot"]["zero-shot"]["tool"]["authorship"]["s_answer"] == 0.5
    assert summary["scores-zero-shot"]["zero-shot"]["tool"]["authorship"]["s_traj"] == 0.0
    tables = tmp_path / "tables"
    ran = _orgbench(toys["site"], "tables", "groundeval", *scores, "--out", tables)
    assert ran.returncode == 0, ran.stderr
    kinds = {(r["agent"], r["mode"], r["track/kind"]): r
             for r in csv.DictReader(io.StringIO((tables / "table_kinds.csv").read_text(encoding="utf-8")))}
    assert kinds[("bm25", "tool", "authorship/not_author")]["n"] == "3"
    assert kinds[("zero-shot", "tool", "authorship/not_author")]["verdict correct"] == "0.000"


def test_a_plugin_export_format(toys, tmp_path):
    ran = _orgbench(toys["site"], "export", toys["world"], "--format", "toys-authors", "--out", tmp_path / "out")
    assert ran.returncode == 0, ran.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "authors.csv").read_text(encoding="utf-8"))))
    versions = _jsonl(toys["world"] / "artifacts.jsonl")
    assert rows[0] == ["ref", "subsystem", "author"] and len(rows) == 1 + len(versions)
    assert sorted(r[0] for r in rows[1:]) == sorted(f"{v['artifact_id']}@{v['version']}" for v in versions)
