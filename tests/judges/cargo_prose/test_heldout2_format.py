"""Format and family balance of the second held-out prose set (items_heldout2.jsonl); scores no judge."""
import json
import re
from collections import Counter
from pathlib import Path

import pytest

PATH = Path(__file__).with_name("items_heldout2.jsonl")
SHOWN = ("item_id", "question", "live_context", "reference", "candidate")
LABELS = ("family", "should_penalize", "kind", "style", "author", "why", "procedure_id")
STYLES = {"terse", "chatty", "formal", "non-native", "paragraph", "passive", "out-of-order", "email", "handover"}
P2_KINDS = {"status", "id", "version", "date", "amount", "entitlement", "contract", "email"}
P4_KINDS = {"skip": "skip_step", "order": "swap_steps", "action": "wrong_action", "escalation": "wrong_escalation"}
RUNBOOKS = {"RB-BILLING-CREDIT", "RB-BATTERY", "RB-FW-ROLLBACK", "RB-DATA-RECOVERY", "RB-ADV-EXCHANGE", "RB-ONSITE-DISPATCH"}


@pytest.fixture(scope="module")
def items() -> list[dict]:
    return [json.loads(line) for line in PATH.read_text(encoding="utf-8").splitlines()]


def test_ids_fields_and_shown_texts(items: list[dict]) -> None:
    assert len(items) >= 32
    assert [it["item_id"] for it in items] == [f"h2-{i:02d}" for i in range(1, len(items) + 1)]
    for it in items:
        assert set(SHOWN + LABELS) <= set(it), it["item_id"]
        assert set(it) <= set(SHOWN + LABELS) | {"changes", "perturbation", "extras"}, it["item_id"]
        case = re.search(r"Case (CASE-\d+),", it["question"]).group(1)
        assert it["live_context"].startswith(f"Case record for {case} as observed now:\nCase: {case}\n")
        assert re.match(r"Resolved case CASE-\d+ \(.+, ACC-\d+\)\.\nSteps taken:\n1\. ", it["reference"])
        assert case not in it["reference"]
        assert it["author"] == "independent" and it["procedure_id"] in RUNBOOKS
        assert not any(re.match(r"\s*(\d|[-*•]|Step\b)", line) for line in it["candidate"].splitlines())


def test_labels_follow_family(items: list[dict]) -> None:
    for it in items:
        fam = it["family"]
        assert it["should_penalize"] is (fam in ("P2", "P4")), it["item_id"]
        assert it["style"] in STYLES
        if fam in ("P1", "P3"):
            assert it["kind"] is None and "changes" not in it and "perturbation" not in it
        if fam == "P3":
            assert it["extras"]
        if fam == "P2":
            assert it["kind"] in P2_KINDS and it["changes"] and "perturbation" not in it
            for change in it["changes"]:
                assert change["original"] in it["live_context"] and change["original"] != change["new"]
        if fam == "P4":
            assert it["kind"] in P4_KINDS and "changes" not in it
            assert it["perturbation"]["kind"] == P4_KINDS[it["kind"]]


def test_family_and_style_balance(items: list[dict]) -> None:
    families = Counter(it["family"] for it in items)
    assert set(families) == {"P1", "P2", "P3", "P4"} and len(set(families.values())) == 1
    for fam in families:  # one item per style in every family
        assert Counter(it["style"] for it in items if it["family"] == fam) == Counter(STYLES)
    p4 = Counter(it["kind"] for it in items if it["family"] == "P4")
    assert set(p4) == set(P4_KINDS) and min(p4.values()) >= 2
    assert len({it["kind"] for it in items if it["family"] == "P2"}) >= 6
    assert set(Counter(it["procedure_id"] for it in items)) == RUNBOOKS
