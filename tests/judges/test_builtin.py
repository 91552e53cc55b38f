"""Built-in judges: they read only the rendered request, and show the default suite is valid."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmark_builders" / "cargo"))

from cargo_synthetic import default_world_suite  # noqa: E402
from judges.backends import make_backend  # noqa: E402
from judges.backends.builtin import make_builtin, read_request, token_f1  # noqa: E402
from judges.conditions import CONDITIONS, render  # noqa: E402
from judges.metrics import discrimination_index  # noqa: E402
from judges.verdict import parse_verdict  # noqa: E402
from orgbench.core.errors import InputError  # noqa: E402

CONTEXT = "Case record for CASE-7 as observed now:\nCase: CASE-7\nEntitlement: active\nDispatch: DSP-501\n"
REFERENCE = ("Resolved case CASE-3 (Beta, ACC-3).\nSteps taken:\n"
             "1. Verified the warranty entitlement (warranty end 2026-01-01): entitlement expired.\n"
             "2. Created a dispatch: dispatch DSP-300.\n3. Resolved the case (dispatch DSP-300): status resolved.\n")
GOOD = ("First, we verified the warranty entitlement; result: entitlement active. "
        "Next, we created a dispatch; result: dispatch DSP-501. Finally, we resolved the case, using dispatch DSP-501.")


def _item(candidate: str) -> dict:
    return {"item_id": "x", "question": "Battery fails on CASE-7.", "live_context": CONTEXT,
            "reference": REFERENCE, "candidate": candidate}


def _verdict(judge: str, condition: str, candidate: str):
    return parse_verdict(make_builtin(judge).judge_text(render(CONDITIONS[condition], _item(candidate), 0)))


def test_grounded_reads_claims_against_the_context_and_steps_against_the_exemplar():
    assert _verdict("grounded", "cargo", GOOD).verdict == "pass"
    assert _verdict("grounded", "cargo", GOOD.replace("DSP-501", "DSP-502")).verdict == "fail"
    assert _verdict("grounded", "cargo", GOOD.replace("entitlement active", "entitlement expired")).verdict == "fail"
    skipped = GOOD.replace("Next, we created a dispatch; result: dispatch DSP-501. ", "")
    assert _verdict("grounded", "cargo", skipped).verdict == "fail"
    extra = GOOD + " A courtesy call was made the next day."
    verdict = _verdict("grounded", "cargo", extra)
    assert verdict.verdict == "pass"
    assert verdict.claims[-1].status == "unverifiable"
    assert _verdict("grounded", "cargo-unv", extra).verdict == "fail"
    assert _verdict("grounded", "direct", GOOD).verdict == "fail"  # golden-ref rubric: facts from the reference


def test_literal_token_f1_and_noref():
    assert _verdict("literal", "direct", GOOD).verdict == "fail"
    assert _verdict("literal", "noref", GOOD).verdict == "cannot_decide"
    assert _verdict("noref", "noref", GOOD).verdict == "pass"
    assert _verdict("noref", "noref", GOOD.replace("using dispatch DSP-501", "using dispatch DSP-777")).verdict == "fail"
    assert token_f1("a b c d", "a b c d") == 1.0
    assert token_f1("a b", "c d") == 0.0
    assert _verdict("token-f1", "direct", REFERENCE).verdict == "pass"


def test_reader_sees_only_sections_and_instructions():
    shown = read_request(render(CONDITIONS["cargo-ctx"], _item(GOOD), 0))
    assert shown.context is None and shown.reference and shown.candidate.startswith("First")
    assert shown.fact_authority == "question"  # the cargo-ctx rubric names the question as fact authority
    assert "unverifiable" in shown.statuses
    source = (Path(__file__).parents[2] / "judges" / "backends" / "builtin.py").read_text()
    assert "benchmark_builders" not in source and "truth" not in source


def test_backend_protocol_through_make_backend():
    backend = make_backend("builtin:grounded")
    response = asyncio.run(backend.complete(render(CONDITIONS["cargo"], _item(GOOD), 0)))
    assert parse_verdict(response.text).verdict == "pass"
    assert backend.name == "builtin:grounded"
    with pytest.raises(InputError, match="unknown built-in judge"):
        make_backend("builtin:oracle")


def _rates(judge: str, condition: str) -> tuple[dict[str, float], float]:
    suite = default_world_suite()
    backend = make_builtin(judge)
    families = {t["item_id"]: t["family"] for t in suite.truth}
    values, should = [], []
    for item in suite.items:
        values.append(1.0 if parse_verdict(backend.judge_text(render(CONDITIONS[condition], item, 0))).penalized else 0.0)
        should.append(families[item["item_id"]] in ("P2", "P4"))
    values_arr, fam = np.array(values), np.array([families[i["item_id"]] for i in suite.items])
    rates = {f: float(values_arr[fam == f].mean()) for f in ("P1", "P3", "P2", "P4")}
    return rates, discrimination_index(values_arr, np.array(should))


@pytest.mark.slow          # the default suite (built once per process, 15+ s)
def test_direct_literal_penalises_every_transplant_on_the_default_suite():
    rates, di = _rates("literal", "direct")
    assert rates == {"P1": 1.0, "P3": 1.0, "P2": 1.0, "P4": 1.0}
    assert di == 0.0


@pytest.mark.slow          # the default suite (built once per process, 15+ s)
def test_cargo_grounded_separates_the_families_on_the_default_suite():
    rates, di = _rates("grounded", "cargo")
    # every penalised P1/P3 was judged against a reference of another runbook (top-1 retrieval wrong)
    # (world-dependent: the worlds have runbook revisions, incident-driven cases, comms on office hours and
    # night pages). A third of the P2s state a wrong derived value (a count or an asset age one off); the judge works
    # counts and ages out from the record (judges.derived_claims), so P2 is 1.00. P4 .92: skips and swaps are caught
    # where the candidate states the results of the steps it tells in another order, 18 of 19 same-role wrong actions
    # by what the step's check covers (claims._object_errors)
    assert {f: round(r, 3) for f, r in rates.items()} == {"P1": 0.02, "P3": 0.042, "P2": 1.0, "P4": 0.92}
    assert round(di, 3) == 0.926


@pytest.mark.slow          # the default suite (built once per process, 15+ s)
def test_grounded_catches_wrong_teams_and_near_miss_actions_when_the_reference_is_right():
    """Every wrong team is caught (a sales for a support manager too), most skips and swaps, and 18 of 19 same-role
    near-miss actions (against the right runbook's reference)."""
    suite = default_world_suite()
    backend = make_builtin("grounded")
    by_kind: dict[tuple[str, bool], list[bool]] = {}
    truth = {t["item_id"]: t for t in suite.truth}
    runbook_of = {g["golden_id"]: g["procedure_id"] for g in suite.golden}
    other_runbook = []
    for item in suite.items:
        t = truth[item["item_id"]]
        kind = t["perturbation"]["kind"] if t["family"] == "P4" else t["family"]
        penalised = parse_verdict(backend.judge_text(render(CONDITIONS["cargo"], item, 0))).penalized
        by_kind.setdefault((kind, t["retrieval_top1_correct"]), []).append(penalised)
        if kind in ("P1", "P3") and runbook_of[t["reference_golden_id"]] != t["procedure_id"]:
            other_runbook.append(penalised)
    assert not any(by_kind[("P1", True)]) and not any(by_kind[("P3", True)])
    # a wrong team is caught, one manager for another too (revision 2 of the billing runbook: the team
    # phrases share "manager" and differ in the word before it)
    assert sum(by_kind[("wrong_escalation", True)]) == 8 and len(by_kind[("wrong_escalation", True)]) == 8
    # a reference of another runbook (top-1 retrieval wrong) fails 5 of the 9 P1/P3 met with one: firmware answers
    # against the advance-exchange reference, and an open battery case against the billing one; a battery answer
    # against the advance-exchange reference reads as that procedure (a check, diagnostics, a replacement, an email)
    assert sorted(other_runbook) == [False] * 4 + [True] * 5
    assert sorted(by_kind[("P1", False)] + by_kind[("P3", False)]) == [False] * 4 + [True] * 5
    # a check of what the entitlement covers done on something else is caught; an email of "the dispatch details"
    # for "the visit date" is not (its details name the visit date)
    assert sum(by_kind[("wrong_action", True)]) == 18 and len(by_kind[("wrong_action", True)]) == 19
    # issue 30: skips and swaps take another revision's step list; against the right reference the judge catches
    # 7 of 7 skips and 9 of 12 swaps (a swap is seen when both steps' results are stated where they are told, or
    # each is the one clause naming its action; the seventh skip, a contact confirmation, is read as a swap)
    assert sum(by_kind[("skip_step", True)]) == 7 and len(by_kind[("skip_step", True)]) == 7
    assert sum(by_kind[("swap_steps", True)]) == 9 and len(by_kind[("swap_steps", True)]) == 12
