"""Independent mutation cases (``judges/assurance/mutations``, first written as tests/judges/assurance/independent_cases.py) run through the real stages at P3 with the recording stub.

``test_stopped_before_the_judge_reads`` is the contract: a mutation case is stopped by some check before the
stub receives any bytes, even when the operator runs every later stage by hand; for source content that forges
structure (``neutralise_ok``) rendering it harmlessly is as good as stopping it. Cases that get through today
are marked ``xfail(strict=True)`` with the reason, so a hardening that stops one turns its mark into a failure
to remove. ``test_first_stop_is_as_recorded`` pins, for the cases stopped today, the stage and requirement
that stop them first (what is true today; update it when a new check stops a case earlier).
"""

from __future__ import annotations

import pytest

from judges.assurance.mutations.cases import CASES, CASES_BY_NAME
from judges.assurance.mutations.runner import prepare, run_case

_FORGES = "forged packet structure reaches the judge: "

#: Mutation cases that get through today (at the time of writing), and how. The eleven its author found getting
#: through (lookalike, zero-width and indented structure lines; an id with ']' and '('; packets rewritten with
#: their records after the check; swapped genuine packets; five buggy-emitter cases) are stopped since issue 15.
GETS_THROUGH: dict[str, str] = {}

#: Content cases defended today by neutralisation (the run completes; no packet read shows forged structure).
NEUTRALISED = ("src-cr-forges-call-line", "src-u2028-forges-message-header", "src-nel-forges-tool-result",
               "src-form-feed-forges-call-line", "src-arguments-forge-result-and-reply",
               "src-arguments-forge-target-markers", "src-fullwidth-lookalike-target-markers",
               "src-zero-width-space-before-call-line", "src-indented-structure-line")

#: Where (stage, requirement) each case stopped today is first stopped at P3.
FIRST_STOP: dict[str, tuple[str, str]] = {
    "src-empty-call-id": ("build", "bad-input"),
    "src-empty-tool-name": ("build", "bad-input"),
    "src-call-id-embeds-forged-call": ("build", "bad-input"),
    "src-duplicate-parallel-call-id": ("build", "call-ids-unique"),
    "src-target-result-dropped": ("build", "bad-input"),       # labels.jsonl labels a message now gone
    "src-bom-on-trajectories-file": ("build", "bad-input"),
    "src-duplicate-trajectory-record": ("build", "bad-input"),
    "src-trajectory-id-with-slash": ("build", "bad-input"),            # the id charset (issue 34)
    "render-label-line-in-target": ("build", "excluded-fields-absent"),
    "render-target-result-in-prefix": ("build", "extent"),
    "render-markers-on-wrong-step": ("build", "target-marked-once"),
    "render-parallel-results-reordered": ("build", "messages-in-order"),
    "render-target-result-dropped": ("build", "messages-in-order"),
    "render-target-call-duplicated": ("build", "calls-rendered"),
    "render-original-for-one-packet": ("build", "calls-rendered"),
    "render-full-packet-one-message-short": ("build", "extent"),
    "render-bytes-counts-characters": ("build", "packet-structure"),
    "render-nfc-normalises-nfd-source": ("build", "messages-in-order"),
    "render-bom-prefix": ("build", "messages-in-order"),
    "render-final-newline-dropped": ("build", "packet-structure"),
    "render-escape-forgotten": ("build", "messages-in-order"),
    "render-decodes-double-encoded-arguments": ("build", "calls-rendered"),
    "render-truncates-oversized-arguments": ("build", "calls-rendered"),
    "after-build-edit-and-rehash-manifest": ("stage", "previous-products-unchanged"),
    "after-check-edit-and-reseal-records": ("stage", "staged-packets-match-source"),
    "after-check-swap-targets-and-reseal": ("stage", "staged-packets-match-source"),
    "before-check-edit-and-reseal-build-record": ("check", "disk:text-equals-source"),
    "before-check-jobs-target-edited": ("check", "previous-products-unchanged"),
    "staged-edit-and-rehash-staged-manifest": ("emit", "previous-products-unchanged"),
    "staged-swap-after-last-check": ("dispatch", "read-time-bytes"),
    "staged-plain-file-shadows-member": ("dispatch", "previous-products-unchanged"),
    "forged-build-record-controls": ("check", "disk:results-answer-calls"),
    "stale-staged-after-skipped-stage": ("emit", "records-chain"),
    "stale-scripts-after-skipped-emit": ("dispatch", "records-chain"),
    "stale-staged-from-older-export-after-skipped-stage": ("emit", "source-materials-identical"),
    "stale-staged-after-failed-stage": ("stage", "staged-files-exact"),
    "weakened-dispatch-after-p3-stages": ("dispatch", "controls-not-weaker"),
    "weakened-stage-after-edit": ("stage", "controls-not-weaker"),
    "source-changed-between-build-and-check": ("check", "source-materials-identical"),
    "source-changed-after-check-resealed": ("stage", "source-materials-identical"),
    "source-changed-after-check-unsealed": ("stage", "source-materials-identical"),
    "labels-moved-after-check-resealed": ("stage", "source-materials-identical"),
    "buggy-builder-swaps-target-kinds": ("check", "disk:targets-from-labels"),
    "buggy-builder-target-off-by-two": ("check", "disk:targets-from-labels"),
    "buggy-builder-drops-victim": ("check", "disk:targets-from-labels"),
    "buggy-emitter-drops-job": ("dispatch", "scripts-cover-staged"),
    "buggy-emitter-duplicates-job": ("dispatch", "scripts-cover-staged"),
    "buggy-emitter-job-points-to-other-packet": ("dispatch", "scripts-cover-staged"),
    "buggy-emitter-zero-draws": ("dispatch", "scripts-cover-staged"),
    "buggy-emitter-job-for-missing-packet": ("dispatch", "scripts-cover-staged"),
    "buggy-emitter-sha-of-other-packet": ("dispatch", "scripts-cover-staged"),
}

MUTATIONS = [c.name for c in CASES if not c.control]
CONTROLS = [c.name for c in CASES if c.control]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Each case run once (lazily) against one prepared cohort."""
    from benchmark_builders.trajectories.cohort import fault_cohort

    root = tmp_path_factory.mktemp("independent")
    setup = prepare(root, cohort=fault_cohort(root / "built"))
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = run_case(setup, CASES_BY_NAME[name], root / "runs")
        return cache[name]
    get.setup = setup
    return get


def test_the_cases_are_well_formed():
    assert len(MUTATIONS) >= 30 and len(CASES_BY_NAME) == len(CASES)
    for case in CASES:
        assert case.does.strip() and case.attacks and case.injection_point
        assert case.obligation in ((0,) if case.control else (1, 2, 3, 4))
    groups = (set(GETS_THROUGH), set(FIRST_STOP), set(NEUTRALISED))
    assert set.union(*groups) == set(MUTATIONS) and sum(map(len, groups)) == len(MUTATIONS)
    assert all(CASES_BY_NAME[n].neutralise_ok for n in NEUTRALISED)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="gets through today: " + GETS_THROUGH[n]))
    if n in GETS_THROUGH else n for n in MUTATIONS])
def test_stopped_before_the_judge_reads(outcomes, name):
    """Stopped before the stub received anything -- or, for source content that forges structure, every packet
    read renders it harmlessly (a lenient reader, see ``independent_cases.misread``, sees only the source's
    structure)."""
    outcome = outcomes(name)
    assert outcome.defended, (
        f"{name} got through: stopped at {outcome.stopped_at or 'nothing'} ({outcome.stopped_by}); the stub "
        f"received {outcome.received} byte strings, {outcome.wrong} not the fault-free packet of their job, "
        f"{outcome.missing} fault-free jobs not read as required, {outcome.misread} packets misread")


@pytest.mark.parametrize("name", NEUTRALISED)
def test_neutralised_content_reaches_the_judge_harmlessly(outcomes, name):
    outcome = outcomes(name)
    assert outcome.completed and outcome.accepted and outcome.misread == 0


@pytest.mark.parametrize("name", sorted(FIRST_STOP))
def test_first_stop_is_as_recorded(outcomes, name):
    outcome = outcomes(name)
    assert (outcome.stopped_at, outcome.stopped_by) == FIRST_STOP[name], outcome.reason


@pytest.mark.parametrize("name", CONTROLS)
def test_fault_free_controls_complete(outcomes, name):
    outcome = outcomes(name)
    expected_reads = sum(draws for _, draws in outcomes.setup.reference.values())
    assert outcome.completed, f"{name} stopped at {outcome.stopped_at} ({outcome.stopped_by}): {outcome.reason}"
    assert outcome.received == outcome.accepted == expected_reads and outcome.misread == 0
    if name in ("control-unaltered", "control-crlf-trajectories-file"):      # same records: the same packets
        assert outcome.wrong == 0 and outcome.missing == 0
