"""Every ablation changes one thing: the rendered prompts of each compared pair differ by exactly the intended lines.

The expected differences are written out by hand below (not derived from the templates), so a template
edit that changes anything else in a pair breaks this test.
"""

from __future__ import annotations

import itertools

from judges.conditions import ALL_CONDITIONS, render

ITEM = {"item_id": "cb-0", "question": "Battery fails. Case CASE-1.",
        "live_context": "Case record for CASE-1 as observed now:\nStatus: resolved",
        "reference": "Resolved case CASE-2.\nSteps taken:\n1. Verified the entitlement (asset serial SN-2).",
        "candidate": "1. Verified the entitlement (asset serial SN-1)."}

_DIFFERENT = "It comes from a different case than the one asked about; its identifiers, dates and statuses belong to that other case."
_PENALISE = "Penalise the answer only for contradicted claims and for not following the procedure"
_GROUND = "- factual_grounding: every identifier, date, status and value in the answer agrees with"
_CTX_RUBRIC = (f"{_GROUND} the live context; a value not stated in the live context is unverifiable, not wrong.",
               "- procedure: the answer follows the procedure the reference demonstrates.",
               "- completeness: the answer covers the procedure's steps for this case.")
_GOLD_RUBRIC = ("- correctness: every identifier, date, status and value in the answer agrees with the reference answer.",
                "- procedure: the answer takes the same steps, in the same order, as the reference answer.",
                "- completeness: the answer covers everything the reference answer covers.")
_CARGO_FRAMING = (
    "The reference is a resolved example handled with the same procedure: use it as a procedural exemplar, not as the target answer.",
    _DIFFERENT, "Check every fact in the candidate answer against the live context.",
    "Check that the candidate answer follows the procedure the reference demonstrates.",
    f"{_PENALISE}; unverifiable claims are not penalised.")
_DIRECT_FRAMING = ("A reference answer to the question is given. Judge whether the candidate answer is correct, using the reference answer.",)
_CONTEXT = ("## Live context (facts observed for this case)", "Case record for CASE-1 as observed now:", "Status: resolved")

#: (a, b) -> (system lines only in a, system lines only in b, user lines only in a, user lines only in b)
EXPECTED: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("cargo", "cargo+auth"): ((), ("Authority split: for the procedure the reference is authoritative; for facts "
                                   "(identifiers, dates, statuses, entitlement) the live context is authoritative.",), (), ()),
    ("cargo", "cargo+kinds"): ((), ("Procedural errors are: a skipped required step, dependent steps out of order, "
                                    "a wrong action, a wrong escalation target.",), (), ()),
    ("cargo", "cargo-exemplar"): ((_DIFFERENT,), (), (), ()),
    ("cargo", "cargo-unv"): ((f"{_PENALISE}; unverifiable claims are not penalised.", _CTX_RUBRIC[0],
                              "Claim statuses: supported, contradicted, unverifiable."),
                             (f"{_PENALISE}.", f"{_GROUND} the live context.", "Claim statuses: supported, contradicted."),
                             (), ()),
    ("cargo", "cargo-ctx"): (("Check every fact in the candidate answer against the live context.", _CTX_RUBRIC[0]),
                             ("Check every fact in the candidate answer against the facts given in the question.",
                              f"{_GROUND} the facts given in the question; a value not stated in the facts given in "
                              "the question is unverifiable, not wrong."), _CONTEXT, ()),
    ("cargo", "cargo/ctx-grounded"): ((), (), (), ()),
    ("cargo/ctx-grounded", "cargo/golden-ref"): (_CTX_RUBRIC, _GOLD_RUBRIC, (), ()),
    ("direct", "direct+ctx"): ((), (), (), _CONTEXT),
    ("direct+ctx", "direct/golden-ref"): ((), (), (), ()),
    ("direct/golden-ref", "direct/ctx-grounded"): (_GOLD_RUBRIC, _CTX_RUBRIC, (), ()),
    ("direct/ctx-grounded", "cargo/ctx-grounded"): (_DIRECT_FRAMING, _CARGO_FRAMING,
                                                    ("## Reference answer",), ("## Reference (resolved example)",)),
    ("direct/golden-ref", "cargo/golden-ref"): (_DIRECT_FRAMING, _CARGO_FRAMING,
                                                ("## Reference answer",), ("## Reference (resolved example)",)),
}


def _lines(name: str) -> tuple[list[str], list[str]]:
    request = render(ALL_CONDITIONS[name], ITEM, 0)
    return request.messages[0].text().splitlines(), request.messages[1].text().splitlines()


def _only(a: list[str], b: list[str]) -> tuple[str, ...]:
    return tuple(line for line in a if line not in b)


def _diff(a: str, b: str) -> tuple[tuple[str, ...], ...]:
    (sa, ua), (sb, ub) = _lines(a), _lines(b)
    return _only(sa, sb), _only(sb, sa), _only(ua, ub), _only(ub, ua)


def test_each_compared_pair_differs_by_exactly_the_intended_lines():
    for (a, b), expected in EXPECTED.items():
        assert _diff(a, b) == expected, (a, b)


def test_every_pair_of_conditions_renders_differently_unless_declared_identical():
    identical = {frozenset(pair) for pair, diff in EXPECTED.items() if not any(diff)}
    for a, b in itertools.combinations(sorted(ALL_CONDITIONS), 2):
        same = not any(_diff(a, b))
        assert same == (frozenset((a, b)) in identical), (a, b)


def test_no_paper_condition_names_the_generators_corruption_kinds():
    kinds = ("skipped", "out of order", "wrong action", "escalation target", "escalate")
    for name, cond in ALL_CONDITIONS.items():
        system = render(cond, ITEM, 0).messages[0].text().lower()
        assert any(k in system for k in kinds) == (name == "cargo+kinds"), name


def test_direct_is_neutral():
    system = render(ALL_CONDITIONS["direct"], ITEM, 0).messages[0].text()
    assert "penalise any" not in system.lower() and "differs from" not in system
    assert "Judge whether the candidate answer is correct, using the reference answer." in system
