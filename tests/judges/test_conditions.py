"""Judge conditions: each shows exactly its inputs, and no rendered request reveals family, label or perturbation."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmark_builders" / "cargo"))

from cargo_synthetic import default_world_suite  # noqa: E402
from judges.conditions import ALL_CONDITIONS, CONDITIONS, RUBRIC_SWAP, parse_conditions, render  # noqa: E402
from orgbench.core.errors import InputError  # noqa: E402

ITEM = {"item_id": "cb-000000000001", "question": "Q: battery fails. Case CASE-1.",
        "live_context": "Case record for CASE-1 as observed now:\nStatus: resolved\n",
        "reference": "Resolved case CASE-2.\nSteps taken:\n1. Verified the entitlement (asset serial SN-2).\n",
        "candidate": "1. Verified the entitlement (asset serial SN-1).\n"}
EXPECTED_SECTIONS = {
    "noref": ("question", "candidate"), "direct": ("question", "reference", "candidate"),
    "direct+ctx": ("question", "context", "reference", "candidate"),
    "cargo": ("question", "context", "reference", "candidate"),
    "cargo+auth": ("question", "context", "reference", "candidate"),
    "cargo-ctx": ("question", "reference", "candidate"),
    "cargo-exemplar": ("question", "context", "reference", "candidate"),
    "cargo-unv": ("question", "context", "reference", "candidate"),
}
#: Words that would give a family, label or perturbation away.
LEAKS = ("transplant", "benign", "contradiction", "corruption", "perturb", "should_penal", "should penal",
         "family", "skip_step", "swap_steps", "wrong_action", "wrong_escalation", "benign_extra", "truth",
         "golden_id", "cb-", "cg-")  # P-codes: checked below with word boundaries (a serial may end in P4)


def _sections(text: str) -> tuple[str, ...]:
    out = []
    for heading in re.findall(r"^## (.+)$", text, re.MULTILINE):
        for key in ("question", "context", "reference", "candidate"):
            if key in heading.lower():
                out.append(key)
    return tuple(out)


def test_each_condition_shows_exactly_its_inputs():
    assert set(CONDITIONS) == set(EXPECTED_SECTIONS)
    for name, expected in EXPECTED_SECTIONS.items():
        request = render(CONDITIONS[name], ITEM, seed=3)
        assert [m.role for m in request.messages] == ["system", "user"]
        assert _sections(request.messages[1].text()) == expected, name
        assert request.params.seed == 3
        user = request.messages[1].text()
        assert ("Status: resolved" in user) == ("context" in expected)
        assert ("SN-2" in user) == ("reference" in expected)
    for name, cond in RUBRIC_SWAP.items():
        assert _sections(render(cond, ITEM, 0).messages[1].text()) == ("question", "context", "reference", "candidate")


def test_framings_differ_only_where_the_condition_says():
    system = {name: render(c, ITEM, 0).messages[0].text() for name, c in ALL_CONDITIONS.items()}
    assert "different case" in system["cargo"] and "different case" not in system["cargo-exemplar"]
    assert "Procedural errors are" in system["cargo+kinds"] and "Procedural errors are" not in system["cargo"]
    assert "Authority split" in system["cargo+auth"] and "Authority split" not in system["cargo"]
    assert "Claim statuses: supported, contradicted, unverifiable." in system["cargo"]
    assert "Claim statuses: supported, contradicted." in system["cargo-unv"]
    assert "agrees with the reference answer" in system["direct"]
    assert "agrees with the live context" in system["direct/ctx-grounded"]
    assert "agrees with the reference answer" in system["cargo/golden-ref"]
    assert system["direct"] == system["direct+ctx"]


def test_parse_conditions():
    assert [c.name for c in parse_conditions(None)] == list(CONDITIONS)
    assert [c.name for c in parse_conditions("cargo,direct", rubric_swap=True)] == ["cargo", "direct", *RUBRIC_SWAP]
    with pytest.raises(InputError, match="unknown condition 'cargo-x'"):
        parse_conditions("cargo-x")
    with pytest.raises(InputError, match="missing or non-text field candidate"):
        render(CONDITIONS["cargo"], {k: v for k, v in ITEM.items() if k != "candidate"}, 0)


@pytest.mark.slow          # the default suite (built once per process, 15+ s)
def test_no_rendered_request_reveals_family_label_or_perturbation():
    suite = default_world_suite()
    for item in suite.items:
        for cond in ALL_CONDITIONS.values():
            request = render(cond, item, 0)
            text = "\n".join(m.text() for m in request.messages)
            for word in LEAKS:
                assert word not in text, (cond.name, word)
            # P-codes appear only as case priorities in the live context
            for line in text.splitlines():
                if re.search(r"\bP[1-4]\b", line):
                    assert re.fullmatch(r"Priority: P[1-4]", line), line
