"""The mutation study: at least 45 cases under P3, all defended with both checkers; each checker's misses."""

from __future__ import annotations

import pytest

from judges.assurance.mutation_study import misses, mutations_csv, obligations_table, run_mutation_study


pytestmark = pytest.mark.slow      # runs every mutation case through the pipeline (104 s setup, loaded machine)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from benchmark_builders.trajectories.cohort import fault_cohort

    root = tmp_path_factory.mktemp("mutations")
    return run_mutation_study(root, cohort=fault_cohort(root / "built"))


def test_at_least_45_cases_most_written_apart_all_defended(study):
    rows, broken = study
    assert len(rows) >= 45 and broken == []
    independent = [r for r in rows if r.origin == "independent"]
    assert len(independent) > len(rows) / 2
    assert misses(rows, "both") == []
    assert {r.origin for r in rows} == {"paper", "paper (CRLF)", "independent", "issue"}


def test_the_paper_cases_and_crlf_are_stopped_before_the_stub_reads(study):
    rows, _ = study
    paper = [r for r in rows if r.origin.startswith("paper")]
    assert len(paper) == 20 and all(r.stopped_before_read and r.reads == 0 for r in paper)


def test_content_cases_are_neutralised_and_nothing_else_is(study):
    rows, _ = study
    assert all(r.neutralised == (not r.stopped_before_read) for r in rows)
    assert all("neutralised" in r.attacks or "delimiters" in r.attacks for r in rows if r.neutralised)


def test_each_checker_alone_is_reported_with_what_it_misses(study):
    rows, _ = study
    inline_only, audit_only = misses(rows, "inline only"), misses(rows, "audit only")
    # the disk audit re-derives targets from the labels; the inline checker run twice cannot see a dropped victim
    assert "buggy-builder-drops-victim" in inline_only
    assert set(inline_only) | set(audit_only) <= {r.case for r in rows}
    assert mutations_csv(rows).count("\n") == len(rows) + 1
    assert "| 1 required content survives rendering |" in obligations_table(rows)
