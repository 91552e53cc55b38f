"""Format, labels and balance of the fourth held-out prose set (items_heldout4.jsonl); scores no judge.

The checks recompute from the shown texts alone what they can: the live case id, every value token (dates and
amounts restated in other formats are read back to the context's own form), earlier-case counts, asset ages and
visit delays.
"""
import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.judges.cargo_prose.item_labels import (CONTEXT_FORMATS, LABELS, OPTIONAL, P2_KINDS, P4_KINDS,
                                                  REFERENCE_FORMATS, RUNBOOKS, SHOWN, WORDS)

PATH = Path(__file__).with_name("items_heldout4.jsonl")
STYLES = {"handover", "slack", "timeline", "customer-reply", "closure", "non-native", "run-on", "md-table", "restated",
          "checklist", "mixed-register", "dictated", "audit", "status-update", "worklog", "postmortem"}
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
# Value-shaped tokens in any of the formats the candidates use; normal() reads each back to the context's form.
TOKEN = re.compile(r"CASE-\d+|ACC-\d+|SN-[0-9A-F]{8}|DSP-\d+|RMA-\d+|BKP-\d+|LOG-\d+|RJ-\d+|INV-\d+|CRD-\d+"
                   r"|[A-Z]+-0x[0-9A-F]+|[\w.]+@[\w.]+\.example|\d{4}-\d\d-\d\d|\b\d{1,2} (?:" + "|".join(MONTHS) + r") \d{4}"
                   r"|\b\d\d/\d\d/\d{4}|(?:USD |\$)[\d,]+\.\d\d|\bv?\d+\.\d+\.\d+\b|\b\d[\d,]*\.\d\d\b")
STATUS = re.compile(r"status\W+(closed|resolved|in progress|pending customer)", re.I)


def normal(token: str) -> str:
    if m := re.fullmatch(r"(\d{1,2}) (\w{3}) (\d{4})", token):
        return dt.date(int(m[3]), MONTHS.index(m[2]) + 1, int(m[1])).isoformat()
    if m := re.fullmatch(r"(\d\d)/(\d\d)/(\d{4})", token):
        return dt.date(int(m[3]), int(m[2]), int(m[1])).isoformat()
    if re.fullmatch(r"(?:USD |\$)?[\d,]+\.\d\d", token):
        return re.sub(r"USD |\$|,", "", token)
    return token[1:] if re.fullmatch(r"v\d+\.\d+\.\d+", token) else token


def values(text: str) -> set[str]:
    return {normal(t) for t in TOKEN.findall(text)}


@pytest.fixture(scope="module")


def items() -> list[dict]:
    return [json.loads(line) for line in PATH.read_text(encoding="utf-8").splitlines()]


def live_case(it: dict) -> str:
    return re.search(r"Case (CASE-\d+),", it["question"]).group(1)


def context_date(ctx: str, pattern: str) -> dt.date:
    return dt.date.fromisoformat(re.search(pattern + r"\W+(\d{4}-\d\d-\d\d)", ctx, re.I).group(1))


def opened(ctx: str) -> dt.date:
    return context_date(ctx, r"(?:opened(?:_on)?|logged on)")


def earlier_count(it: dict) -> int:
    return len(set(re.findall(r"CASE-\d+", it["live_context"])) - {live_case(it)})


def asset_age(it: dict) -> int:
    ctx = it["live_context"]
    return (opened(ctx) - context_date(ctx, r"purchase(?:d| date|_date)")).days


def visit_delay(it: dict) -> int:
    ctx = it["live_context"]
    return (context_date(ctx, r"visit(?: date|_date)") - opened(ctx)).days


def test_ids_and_fields(items: list[dict]) -> None:
    assert len(items) == 64
    assert [it["item_id"] for it in items] == [f"h4-{i:02d}" for i in range(1, 65)]
    for it in items:
        assert set(SHOWN + LABELS) <= set(it) <= set(SHOWN + LABELS + OPTIONAL), it["item_id"]
        assert it["author"] == "heldout4-writer" and it["condition"] == "cargo", it["item_id"]
        assert it["procedure_id"] in RUNBOOKS and it["style"] in STYLES, it["item_id"]
        assert it["context_format"] in CONTEXT_FORMATS and it["reference_format"] in REFERENCE_FORMATS
        assert it["reference_revision"] in ("original", "revised") and it["case_state"] in ("closed", "open")
        assert all(isinstance(it[k], str) and it[k].strip() for k in SHOWN + ("why",)), it["item_id"]


def test_ids_do_not_follow_the_families(items: list[dict]) -> None:
    """The ids were given after a seeded shuffle: no family holds a run of more than four ids."""
    runs, last = [1], None
    for it in items:
        runs[-1:] = [runs[-1] + 1] if it["family"] == last else [runs[-1], 1]
        last = it["family"]
    assert max(runs) <= 4
    assert {it["family"] for it in items[:16]} == {"P1", "P2", "P3", "P4"}


def test_live_case_and_reference_case(items: list[dict]) -> None:
    for it in items:
        case = live_case(it)
        assert case in it["candidate"] and case in it["live_context"], it["item_id"]
        ref_case = re.search(r"CASE-\d+", it["reference"]).group(0)
        assert ref_case != case and case not in it["reference"] and ref_case not in it["candidate"], it["item_id"]


def test_reference_shares_no_value_with_the_live_case(items: list[dict]) -> None:
    for it in items:
        shared = values(it["reference"]) & values(it["live_context"] + it["question"])
        assert not shared, (it["item_id"], shared)


def test_correct_values_come_from_the_context(items: list[dict]) -> None:
    """P1, P3 and P4 state only values the live context or question shows (read back from any format), and the
    context's status."""
    for it in items:
        if it["family"] == "P2":
            continue
        shown = values(it["live_context"] + it["question"])
        assert values(it["candidate"]) <= shown, (it["item_id"], values(it["candidate"]) - shown)
        status = STATUS.search(it["live_context"]).group(1)
        assert status in it["candidate"], it["item_id"]
        assert (it["case_state"] == "closed") is (status == "closed"), it["item_id"]


def test_derived_values_match_the_context(items: list[dict]) -> None:
    """Every stated earlier-case count, asset age and visit delay is the context's own, except a P2's changed one."""
    seen = Counter()
    for it in items:
        changed = {c["field"] for c in it.get("changes", [])}
        cand = it["candidate"]
        if (m := re.search(r"\b(no|one|two|three|four|five|six) earlier case", cand)) and "earlier_cases" not in changed:
            assert WORDS.index(m.group(1)) == earlier_count(it), it["item_id"]
            seen["count"] += 1
        if (m := re.search(r"(\d+) days old at (?:the )?opening", cand)) and "asset_age_days" not in changed:
            assert int(m.group(1)) == asset_age(it), it["item_id"]
            seen["age"] += 1
        if (m := re.search(r"\b(\w+) days? after (?:the case was )?open", cand)) and "visit_delay_days" not in changed:
            assert WORDS.index(m.group(1)) == visit_delay(it), it["item_id"]
            seen["delay"] += 1
    assert seen["count"] >= 4 and seen["age"] >= 1 and seen["delay"] >= 1


def test_restated_formats_are_used(items: list[dict]) -> None:
    """Some candidates restate dates, amounts and versions in other formats than the context's."""
    text = " ".join(it["candidate"] for it in items)
    assert re.search(r"\b\d{1,2} (?:" + "|".join(MONTHS) + r") \d{4}", text)
    assert re.search(r"USD \d{1,3},\d{3}\.\d\d|\$\d{1,3}(?:,\d{3})*\.\d\d", text)
    assert re.search(r"\bv\d+\.\d+\.\d+", text)


def test_labels_follow_family(items: list[dict]) -> None:
    for it in items:
        fam = it["family"]
        assert it["should_penalize"] is (fam in ("P2", "P4")), it["item_id"]
        if fam in ("P1", "P3"):
            assert it["kind"] is None and "changes" not in it and "perturbation" not in it, it["item_id"]
        if fam == "P1":
            assert "extras" not in it
        if fam == "P3":
            assert it["extras"]
        if fam == "P2":
            assert it["kind"] in P2_KINDS and len(it["changes"]) == 1 and "perturbation" not in it, it["item_id"]
        if fam == "P4":
            assert it["kind"] in P4_KINDS and "changes" not in it, it["item_id"]
            assert it["perturbation"]["kind"] == P4_KINDS[it["kind"]], it["item_id"]


def test_p2_contradicts_exactly_its_change(items: list[dict]) -> None:
    for it in (it for it in items if it["family"] == "P2"):
        cand, ctx = it["candidate"], it["live_context"]
        (change,) = it["changes"]
        assert change["new"] != change["original"] and change["new"] in cand, it["item_id"]
        if "derived" in change:  # recomputed here from the context
            truth = {"earlier_cases": earlier_count, "asset_age_days": asset_age, "visit_delay_days": visit_delay}
            assert change["computed"] == truth[change["field"]](it) != change["stated"], it["item_id"]
            assert str(change["stated"]) in change["new"] or WORDS[change["stated"]] in change["new"], it["item_id"]
            continue
        assert change["original"] in ctx and change["original"] not in cand, it["item_id"]
        assert normal(change["new"]) != normal(change["original"]), it["item_id"]
        assert not re.search(r"(?<![\w.])" + re.escape(normal(change["new"])) + r"(?![\w])", ctx), it["item_id"]
        unexplained = values(cand) - values(ctx + it["question"])
        assert unexplained <= {normal(change["new"])}, (it["item_id"], unexplained)


def test_family_balance(items: list[dict]) -> None:
    families = Counter(it["family"] for it in items)
    assert families == {"P1": 16, "P2": 16, "P3": 16, "P4": 16}
    for fam in families:
        group = [it for it in items if it["family"] == fam]
        assert Counter(it["style"] for it in group) == Counter(STYLES), fam  # one item per style
        assert {it["procedure_id"] for it in group} == RUNBOOKS, fam
        assert max(Counter(it["procedure_id"] for it in group).values()) <= 4, fam
        assert {it["context_format"] for it in group} == CONTEXT_FORMATS, fam
        assert {it["reference_format"] for it in group} == REFERENCE_FORMATS, fam
        assert sum(it["reference_revision"] == "revised" for it in group) >= 1, fam
        assert sum(it["case_state"] == "open" for it in group) >= 1, fam
    assert Counter(it["kind"] for it in items if it["family"] == "P4") == {"skip": 4, "order": 4, "action": 4, "escalation": 4}
    assert sum(it["perturbation"]["same_role"] for it in items if it["kind"] == "action") >= 2
    assert {it["kind"] for it in items if it["family"] == "P2"} == P2_KINDS
    assert {c["derived"] for it in items for c in it.get("changes", []) if "derived" in c} == {"count", "days"}
    for fam in ("P2", "P4"):  # extra sentences: every P3, none of P1, half of P2 and of P4 (the spec's plain/extra split)
        assert sum("extras" in it for it in items if it["family"] == fam) == 8


def test_p4_contexts_stay_consistent(items: list[dict]) -> None:
    """A skipped or replaced step that records a value leaves that value out of the context."""
    missing = {"backup_config": "BKP-", "verify_entitlement": "ntitlement", "remote_diagnostics": "-0x", "collect_logs": "LOG-",
               "rollback_firmware": "arget", "create_dispatch": "DSP-", "schedule_visit": "isit", "apply_credit": "CRD-"}
    for it in items:
        pert = it.get("perturbation", {})
        if pert.get("kind") in ("skip_step", "wrong_action"):
            assert missing[pert["step"]] not in it["live_context"], it["item_id"]


def test_no_reference_value_in_a_candidate(items: list[dict]) -> None:
    for it in items:
        own = values(it["live_context"] + it["question"])
        assert not (values(it["reference"]) - own) & values(it["candidate"]), it["item_id"]


def test_surface_figures_in_readme(items: list[dict]) -> None:
    """The README's mean candidate lengths and its best one-threshold length rule (.641 in-sample)."""
    means = {fam: round(sum(len(it["candidate"]) for it in items if it["family"] == fam) / 16) for fam in ("P1", "P3", "P2", "P4")}
    assert means == {"P1": 409, "P3": 415, "P2": 406, "P4": 403}
    lengths = [(len(it["candidate"]), it["should_penalize"]) for it in items]
    best = max(sum(((n >= cut) is (sign > 0)) == label for n, label in lengths)
               for cut, _ in lengths for sign in (1, -1))
    assert round(best / len(items), 3) == 0.641


def test_count_figures_in_readme(items: list[dict]) -> None:
    """The README's runbook, revised-reference and open-case counts."""
    assert Counter(it["procedure_id"] for it in items) == {"RB-ONSITE-DISPATCH": 12, "RB-BILLING-CREDIT": 12, "RB-FW-ROLLBACK": 11,
                                                          "RB-BATTERY": 10, "RB-DATA-RECOVERY": 10, "RB-ADV-EXCHANGE": 9}
    assert Counter(it["family"] for it in items if it["reference_revision"] == "revised") == {"P1": 2, "P3": 2, "P2": 1, "P4": 1}
    assert Counter(it["family"] for it in items if it["case_state"] == "open") == {"P1": 2, "P3": 2, "P2": 1, "P4": 2}
    assert sum(it["should_penalize"] for it in items) == 32
