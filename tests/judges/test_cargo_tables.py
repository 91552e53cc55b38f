"""CARGO tables from runs: our rows beside the paper's, in Markdown, CSV and LaTeX; a deterministic figure."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmark_builders" / "cargo"))

from benchmark_builders.cargo import SuiteConfig, build_suite, write_suite  # noqa: E402
from cargo_synthetic import synthetic_cases  # noqa: E402
from judges.backends import make_backend  # noqa: E402
from judges.cargo_scores import suite_binding  # noqa: E402
from orgbench.report.cargo_tables import PAPER, TABLES, write_tables  # noqa: E402
from judges.conditions import parse_conditions, render  # noqa: E402
from judges.metrics import di_from_family_rates  # noqa: E402
from judges.runner import Job, run_jobs_sync  # noqa: E402
from orgbench.core.errors import InputError  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small suite and one built-in run over four conditions, two judge seeds."""
    root = tmp_path_factory.mktemp("cargo_tables")
    config = SuiteConfig(sizes={"P1": 6, "P3": 10, "P2": 8, "P4": 8}, gating_per_world=3)
    suite = build_suite([(s, synthetic_cases(s, per_procedure=4)) for s in range(2)], config)
    write_suite(suite, root / "suite")
    conditions = parse_conditions("noref,direct,cargo,cargo-unv") + parse_conditions("", rubric_swap=True)[8:9]
    jobs = [Job(item["item_id"], c.name, seed, render(c, item, seed))
            for c in conditions for item in suite.items for seed in (0, 1)]
    parameters, locations = suite_binding(root / "suite")
    run_jobs_sync(jobs, make_backend("builtin:grounded"), root / "run", progress=False,
                  parameters=parameters, locations=locations)
    other = build_suite([(s, synthetic_cases(s, per_procedure=4)) for s in range(2)],
                        SuiteConfig(sizes={"P1": 6, "P3": 10, "P2": 8, "P4": 6}, gating_per_world=3))
    write_suite(other, root / "other")
    return root


def test_tables_hold_our_rows_and_the_papers(run):
    written = write_tables([run / "run"], run / "suite", run / "out", resamples=500)
    names = sorted(p.name for p in written)
    assert names == sorted([f"{stem}{ext}" for stem in [*TABLES, "selective_risk"] for ext in (".md", ".csv", ".tex")]
                           + ["risk_coverage.csv", "risk_coverage.png", "scores.json", "breakdown.csv", "breakdown.md"])
    breakdown = list(csv.DictReader(io.StringIO((run / "out" / "breakdown.csv").read_text())))
    groups = {(r["condition"], r["family"], r["by"], r["group"]) for r in breakdown}
    assert ("cargo", "P4", "P4 kind", "wrong_escalation") in groups and ("cargo", "P2", "P2 value kind", "identifier") in groups
    assert {r["by"] for r in breakdown} == {"style", "P2 value kind", "P4 kind"}
    assert sum(int(r["judged"]) for r in breakdown if r["condition"] == "cargo" and r["by"] == "style") == 64
    rows = list(csv.DictReader(io.StringIO((run / "out" / "table1_headline.csv").read_text())))
    by_key = {(r["condition"], r["judge"]): r for r in rows}
    ours = by_key[("cargo", "builtin:grounded")]
    # P2: the 2 wrong derived computations are worked out and caught. P4 .75 (.88 before the judge's sixth change for
    # issue 30, d3be861): a wrong action, "Verified the entitlement includes data recovery [asset serial ...]" in place
    # of "Verified the asset boots cleanly on the rolled-back firmware", is no longer read as that step skipped: its
    # clause names the step's verb with another of the step's words ("asset"), and no other rule catches it
    assert (ours["P1"], ours["P3"], ours["P2"], ours["P4"], ours["DI"]) == (".17", ".00", "1.00", ".75", ".81")
    assert ours["judged"] == "32"
    assert by_key[("cargo", "paper: gpt-oss-120b")]["DI"] == ".58"
    assert by_key[("direct", "builtin:grounded")]["DI"] == ".00"
    assert ("cargo+auth", "paper: gpt-oss-120b") in by_key and ("cargo+auth", "builtin:grounded") not in by_key
    swap = (run / "out" / "table3_rubric_swap.md").read_text()
    assert "| direct/golden-ref | builtin:grounded | 1.00 | 1.00 | 1.00 | 1.00 | .00 |" in swap
    tex = (run / "out" / "table2_ablations.tex").read_text()
    assert "\\begin{tabular}" in tex and "cargo-unv & builtin:grounded & .50 & 1.00 & 1.00 & 1.00" in tex
    scores = json.loads((run / "out" / "scores.json").read_text())
    cargo = scores["runs"][0]["conditions"]["cargo"]
    assert sorted(cargo["per_seed"]) == ["0", "1"]
    assert scores["gating"][0]["condition"] == "cargo"
    curve = list(csv.DictReader(io.StringIO((run / "out" / "risk_coverage.csv").read_text())))
    assert float(curve[-1]["coverage"]) == 1.0


def test_tables_and_figure_are_byte_identical_on_rerun(run):
    write_tables([run / "run"], run / "suite", run / "a", resamples=200)
    write_tables([run / "run"], run / "suite", run / "b", resamples=200)
    for path in sorted((run / "a").iterdir()):
        assert path.read_bytes() == (run / "b" / path.name).read_bytes(), path.name


def test_paper_rows_are_consistent_with_default_sizes():
    for condition, row in PAPER.items():
        if None in row["rates"].values() or "/" in condition:
            continue
        di = di_from_family_rates(dict(row["rates"]))
        assert abs(di - row["di"]) <= 0.011, condition


def test_a_suite_that_is_not_one_is_one_line(run, tmp_path):
    with pytest.raises(InputError, match="truth.jsonl: file not found"):
        write_tables([run / "run"], tmp_path, tmp_path / "out")


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_the_suite_comes_from_run_json_wherever_the_command_runs(run, tmp_path, monkeypatch):
    """The audit's case: run from a directory whose ./suite is another suite; run.json's absolute path wins."""
    _copy(run / "other", tmp_path / "suite")
    monkeypatch.chdir(tmp_path)
    write_tables([run / "run"], None, tmp_path / "found", resamples=200)
    write_tables([run / "run"], run / "suite", tmp_path / "named", resamples=200)
    for path in sorted((tmp_path / "named").iterdir()):
        assert path.read_bytes() == (tmp_path / "found" / path.name).read_bytes(), path.name
    copy = _copy(run / "suite", tmp_path / "copy")  # the same suite elsewhere: same digest, accepted
    write_tables([run / "run"], copy, tmp_path / "copied", resamples=200)
    assert (tmp_path / "copied" / "table1_headline.md").read_bytes() == (tmp_path / "named" / "table1_headline.md").read_bytes()


def test_a_suite_other_than_the_runs_is_refused(run, tmp_path):
    with pytest.raises(InputError, match=r"run/run.json: parameters.suite_digest is [0-9a-f]{64}, but suite .*other "
                                         r"has [0-9a-f]{64}: not the suite this run judged") as info:
        write_tables([run / "run"], run / "other", tmp_path / "out")
    assert "\n" not in str(info.value) and not (tmp_path / "out").exists()


def test_a_suite_changed_after_the_run_is_refused(run, tmp_path):
    suite = _copy(run / "suite", tmp_path / "suite")
    truth = (suite / "truth.jsonl").read_text().splitlines()
    (suite / "truth.jsonl").write_text("\n".join(truth[1:]) + "\n")
    with pytest.raises(InputError, match=r"truth.jsonl: content differs from MANIFEST.json"):
        write_tables([run / "run"], suite, tmp_path / "out")


def test_runs_of_different_suites_are_refused_together(run, tmp_path):
    jobs = [Job(item["item_id"], "cargo", 0, render(parse_conditions("cargo")[0], item, 0))
            for item in json.loads("[" + ",".join((run / "other" / "items.jsonl").read_text().splitlines()) + "]")]
    parameters, locations = suite_binding(run / "other")
    run_jobs_sync(jobs, make_backend("builtin:grounded"), tmp_path / "other-run", progress=False,
                  parameters=parameters, locations=locations)
    with pytest.raises(InputError, match=r"other-run/run.json: parameters.suite_digest is .* the runs judged "
                                         r"different suites"):
        write_tables([run / "run", tmp_path / "other-run"], None, tmp_path / "out")


def test_judgments_of_items_not_in_the_suite_are_an_error(run, tmp_path):
    """Never dropped silently: the file and the first unknown id, in one line."""
    copied = _copy(run / "run", tmp_path / "run")
    rows = (copied / "judgments.jsonl").read_text().splitlines()
    stranger = json.loads(rows[3])
    stranger["item_id"] = "cb-0000000000000000"
    (copied / "judgments.jsonl").write_text("\n".join(rows + [json.dumps(stranger)]) + "\n")
    with pytest.raises(InputError, match=r"run/judgments.jsonl: item cb-0000000000000000 is not in the suite's "
                                         r"truth.jsonl") as info:
        write_tables([copied], None, tmp_path / "out")
    assert "\n" not in str(info.value)


def test_a_run_without_a_suite_digest_is_refused(run, tmp_path):
    copied = _copy(run / "run", tmp_path / "run")
    (copied / "run.json").write_text('{"format_version": 1, "judge": "builtin:grounded", '
                                     '"parameters": {"suite": "suite"}}\n')
    with pytest.raises(InputError, match=r"run.json: names no suite digest and path"):
        write_tables([copied], run / "suite", tmp_path / "out")
