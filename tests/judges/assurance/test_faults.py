"""The fault study: each of the 22 cases is its own test, plus weakened checkers that let faults through."""

from __future__ import annotations

import csv
import io

import pytest

from orgbench.report.fault_report import faults_csv, faults_latex, faults_table
from judges.assurance.faults import CASES, CASES_BY_NAME, FIELDS, prepare, run_case
from judges.assurance.manifest import normalised_sha256
from judges.assurance.pipeline import CONTROLS

#: The first control that stops each injected case, and where and by which requirement (exact, deterministic).
FIRST_STOP = {
    "build-delete-target-call": ("P1", "build", "calls-rendered"),
    "build-change-target-arguments": ("P1", "build", "calls-rendered"),
    "build-rename-target-call": ("P1", "build", "calls-rendered"),
    "build-delete-earlier-call": ("P1", "build", "calls-rendered"),
    "build-reorder-parallel-calls": ("P1", "build", "calls-rendered"),
    "after-build-delete-call": ("P1", "stage", "staged-bytes-match-manifest"),
    "source-invalid-argument-json": ("P1", "check", "source-sealed"),
    "source-result-unknown-id": ("P3", "build", "results-answer-calls"),
    "source-result-answers-twice": ("P3", "build", "results-answer-calls"),
    "source-result-before-user-call": ("P3", "build", "results-answer-calls"),
    "manifest-hash-digit-flipped": ("P1", "stage", "staged-bytes-match-manifest"),
    "manifest-hash-replaced": ("P1", "stage", "staged-bytes-match-manifest"),
    "manifest-entry-dropped": ("P1", "stage", "staged-files-exact"),
    "failed-build-previous-outputs": ("P1", "build", "render-completed"),
    "staged-delete-call-before-emit": ("P1", "dispatch", "records-chain"),
    "staged-change-arguments-before-dispatch": ("P2", "dispatch", "previous-products-unchanged"),
    "staged-truncated-after-last-check": ("P2", "dispatch", "read-time-bytes"),
    "extra-file-before-staging": ("P1", "stage", "staged-files-exact"),
    "extra-stale-script": ("P2", "dispatch", "scripts-exact"),
    "crlf-before-staging": ("P1", "stage", "staged-bytes-match-manifest"),
}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from benchmark_builders.trajectories.cohort import fault_cohort

    root = tmp_path_factory.mktemp("faults")
    return prepare(root, cohort=fault_cohort(root / "built")), root


def _run(study, case, **kw):
    setup, root = study
    return {control: run_case(setup, case, control, root / "runs", **kw) for control in CONTROLS}


def assert_case_contract(case, outcomes):
    """Injected: P0 reaches the stub, P3 stops it before any altered byte is read. Controls: complete everywhere."""
    if not case.injected:
        for outcome in outcomes.values():
            assert outcome.completed and not outcome.reached_judge and outcome.reads > 0
        return
    assert outcomes["P0"].reached_judge, "the injection did not reach the stub under P0"
    assert outcomes["P0"].stopped_at == ""
    assert not outcomes["P3"].reached_judge, f"{case.case} reached the judge under P3"
    assert outcomes["P3"].stopped_at and outcomes["P3"].stopped_by


def test_the_study_has_19_cases_crlf_and_two_controls():
    assert len(CASES) == 22
    assert sum(c.injected for c in CASES) == 20 and "crlf-before-staging" in CASES_BY_NAME
    groups = {}
    for case in CASES:
        groups[case.fault] = groups.get(case.fault, 0) + 1
    assert [groups[g] for g in ("restored call deleted or changed during build", "restored call deleted after build",
                                "invalid argument JSON in a source record",
                                "unmatched tool result added to a source record", "manifest hash corrupted after build",
                                "failed build with previous outputs present", "packet changed after staging",
                                "extra file present before staging", "extra stale script")] == [5, 1, 1, 3, 3, 1, 3, 1, 1]


@pytest.mark.parametrize("name", [c.case for c in CASES])
def test_fault_case(study, name):
    case = CASES_BY_NAME[name]
    outcomes = _run(study, case)
    assert_case_contract(case, outcomes)
    if case.injected:
        first, stage, requirement = FIRST_STOP[name]
        for control in CONTROLS:
            outcome = outcomes[control]
            if CONTROLS.index(control) < CONTROLS.index(first):
                assert outcome.reached_judge and outcome.stopped_at == ""
            else:
                assert not outcome.reached_judge and outcome.stopped_at
        assert (outcomes[first].stopped_at, outcomes[first].stopped_by) == (stage, requirement)


def test_weakened_normalised_hashing_leaves_the_crlf_case_to_the_staging_contract(study):
    """Hashing text with CRLF folded to LF (the paper's defect) lets the CRLF change past every hash check: under
    P1 (no staging contract) it reaches the judge; under P3 only the staging re-check against the source stops it."""
    case = CASES_BY_NAME["crlf-before-staging"]
    outcomes = _run(study, case, hasher=normalised_sha256)
    assert outcomes["P1"].reached_judge and outcomes["P1"].stopped_at == ""
    assert (outcomes["P3"].stopped_at, outcomes["P3"].stopped_by) == ("stage", "staged-packets-match-source")
    assert not outcomes["P3"].reached_judge


@pytest.mark.parametrize("name", ["source-result-unknown-id", "source-result-answers-twice",
                                  "source-result-before-user-call"])
def test_weakened_one_direction_matching_lets_unmatched_results_reach_the_judge(study, name):
    """Matching calls to results only (no reverse direction) makes test_fault_case[<name>] fail."""
    case = CASES_BY_NAME[name]
    outcomes = _run(study, case, reverse_matching=False)
    assert outcomes["P3"].reached_judge
    with pytest.raises(AssertionError, match="reached the judge under P3"):
        assert_case_contract(case, outcomes)


def test_csv_and_table_format(study):
    setup, root = study
    outcomes = [run_case(setup, CASES_BY_NAME[n], c, root / "runs")
                for n in ("crlf-before-staging", "control-unaltered") for c in CONTROLS]
    rows = list(csv.DictReader(io.StringIO(faults_csv(outcomes))))
    assert FIELDS == ("case", "injection_point", "control", "reached_judge", "stopped_at", "stopped_by")
    assert tuple(rows[0]) == FIELDS + ("paper_first_stop",)
    assert rows[0] == {"case": "crlf-before-staging", "injection_point": "build packet, before staging",
                       "control": "P0", "reached_judge": "true", "stopped_at": "", "stopped_by": "",
                       "paper_first_stop": "not among the paper's 19 cases"}
    assert rows[-1]["case"] == "control-unaltered" and rows[-1]["paper_first_stop"] == "none needed (completed)"
    assert rows[1]["reached_judge"] == "false" and rows[1]["stopped_by"] == "staged-bytes-match-manifest"
    table = faults_table(outcomes)
    assert "| crlf-before-staging |" in table and "P1: stage (staged-bytes-match-manifest)" in table
    assert "- P0: 1 of 1 injected faults reached the judge stub; 1 of 1 fault-free controls completed." in table
    assert "- P3: 0 of 1 injected faults reached the judge stub; 1 of 1 fault-free controls completed." in table
    assert "| P1: stage (staged-bytes-match-manifest) | not among the paper's 19 cases |" in table
    tex = faults_latex(outcomes)
    assert tex.startswith("\\begin{table}[t]") and "\\toprule\ncase & P0 & P1 & P2 & P3 & first stop & " \
        "paper's first stop \\\\" in tex
    assert "control-unaltered & completed & completed & completed & completed & none needed & none needed " \
           "(completed) \\\\" in tex


def test_every_constructed_case_has_the_papers_first_stop():
    """Each of the paper's 19 cases maps to its Table II row; CRLF and the controls say what the paper says."""
    from collections import Counter

    from orgbench.report.fault_report import PAPER_FIRST_STOP

    stops = Counter(PAPER_FIRST_STOP[c.fault] for c in CASES if c.injected and not c.case.startswith("crlf"))
    assert sum(stops.values()) == 19
    assert stops == {"P1: build": 6, "P1: staging": 4, "P1: disk check": 1, "P3: reverse matching": 3,
                     "P2: before dispatch": 4, "none: unused under P0-P3 (never ran)": 1}
    assert all(c.fault in PAPER_FIRST_STOP for c in CASES)


def test_faults_command_writes_table_and_csv(tmp_path):
    from click.testing import CliRunner

    from orgbench.cli import cli

    result = CliRunner().invoke(cli, ["assure", "faults", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "P3: 0 of 20 injected faults reached the judge stub; 2 of 2 fault-free controls completed." in result.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "faults.csv").read_text())))
    assert len(rows) == 22 * 4
    assert {r["reached_judge"] for r in rows if r["control"] == "P0" and not r["case"].startswith("control")} == \
        {"true"}
    assert {r["reached_judge"] for r in rows if r["control"] == "P3"} == {"false"}
    assert (tmp_path / "faults.md").read_text().startswith("# Fault study")
