"""Format, labels and balance of the fourth held-out prose set (items_heldout4.jsonl); scores no judge.

The checks recompute from the shown texts alone what they can: the live case id, every value token (dates and
amounts restated in other formats are read back to the context's own form), earlier-case counts, asset ages and
visit delays.
"""
import datetime as dt
import re
from pathlib import Path

import pytest

from tests.judges.cargo_prose.heldout_checks import (
    ID_TOKENS, MON, check_correct_values, check_family_balance, check_family_runs, check_ids_and_fields,
    check_labels_follow_family, check_live_and_reference_case, check_no_reference_value_in_a_candidate,
    check_p2_one_change, check_p4_contexts_consistent, check_reference_shares_no_value, context_date, count_figures,
    derived_seen, length_figures, load, normal, truth)
from tests.judges.cargo_prose.item_labels import CONTEXT_FORMATS, REFERENCE_FORMATS

PATH = Path(__file__).with_name("items_heldout4.jsonl")
STYLES = {"handover", "slack", "timeline", "customer-reply", "closure", "non-native", "run-on", "md-table", "restated",
          "checklist", "mixed-register", "dictated", "audit", "status-update", "worklog", "postmortem"}
# Value-shaped tokens in any of the formats the candidates use; normal() reads each back to the context's form.
TOKEN = re.compile(ID_TOKENS + r"|\b\d{1,2} " + MON + r" \d{4}"
                   r"|\b\d\d/\d\d/\d{4}|(?:USD |\$)[\d,]+\.\d\d|\bv?\d+\.\d+\.\d+\b|\b\d[\d,]*\.\d\d\b")


def values(text: str) -> set[str]:
    return {normal(t) for t in TOKEN.findall(text)}


@pytest.fixture(scope="module")
def items() -> list[dict]:
    return load(PATH)


def opened(ctx: str) -> dt.date:
    return context_date(ctx, r"(?:opened(?:_on)?|logged on)")


TRUTH = truth(opened)


def test_ids_and_fields(items: list[dict]) -> None:
    assert len(items) == 64
    check_ids_and_fields(items, "h4", "heldout4-writer", STYLES, CONTEXT_FORMATS, REFERENCE_FORMATS)


def test_ids_do_not_follow_the_families(items: list[dict]) -> None:
    """The ids were given after a seeded shuffle: no family holds a run of more than four ids."""
    check_family_runs(items, 4)


def test_live_case_and_reference_case(items: list[dict]) -> None:
    check_live_and_reference_case(items)


def test_reference_shares_no_value_with_the_live_case(items: list[dict]) -> None:
    check_reference_shares_no_value(items, values)


def test_correct_values_come_from_the_context(items: list[dict]) -> None:
    check_correct_values(items, values)


def test_derived_values_match_the_context(items: list[dict]) -> None:
    """Every stated earlier-case count, asset age and visit delay is the context's own, except a P2's changed one."""
    seen = derived_seen(items, TRUTH, {"count": r"\b(no|one|two|three|four|five|six) earlier case",
                                       "age": r"(\d+) days old at (?:the )?opening",
                                       "delay": r"\b(\w+) days? after (?:the case was )?open"})
    assert seen["count"] >= 4 and seen["age"] >= 1 and seen["delay"] >= 1


def test_restated_formats_are_used(items: list[dict]) -> None:
    """Some candidates restate dates, amounts and versions in other formats than the context's."""
    text = " ".join(it["candidate"] for it in items)
    assert re.search(r"\b\d{1,2} " + MON + r" \d{4}", text)
    assert re.search(r"USD \d{1,3},\d{3}\.\d\d|\$\d{1,3}(?:,\d{3})*\.\d\d", text)
    assert re.search(r"\bv\d+\.\d+\.\d+", text)


def test_labels_follow_family(items: list[dict]) -> None:
    check_labels_follow_family(items)


def test_p2_contradicts_exactly_its_change(items: list[dict]) -> None:
    check_p2_one_change(items, values, normal, TRUTH)


def test_family_balance(items: list[dict]) -> None:
    check_family_balance(items, STYLES, CONTEXT_FORMATS, REFERENCE_FORMATS)


def test_p4_contexts_stay_consistent(items: list[dict]) -> None:
    """A skipped or replaced step that records a value leaves that value out of the context."""
    check_p4_contexts_consistent(items, {"backup_config": "BKP-", "verify_entitlement": "ntitlement",
                                         "remote_diagnostics": "-0x", "collect_logs": "LOG-", "rollback_firmware": "arget",
                                         "create_dispatch": "DSP-", "schedule_visit": "isit", "apply_credit": "CRD-"},
                                 escalations=False)


def test_no_reference_value_in_a_candidate(items: list[dict]) -> None:
    check_no_reference_value_in_a_candidate(items, values)


def test_surface_figures_in_readme(items: list[dict]) -> None:
    """The README's mean candidate lengths and its best one-threshold length rule (.641 in-sample)."""
    assert length_figures(items) == ({"P1": 409, "P3": 415, "P2": 406, "P4": 403}, 0.641)


def test_count_figures_in_readme(items: list[dict]) -> None:
    """The README's runbook, revised-reference and open-case counts."""
    assert count_figures(items) == ({"RB-ONSITE-DISPATCH": 12, "RB-BILLING-CREDIT": 12, "RB-FW-ROLLBACK": 11,
                                     "RB-BATTERY": 10, "RB-DATA-RECOVERY": 10, "RB-ADV-EXCHANGE": 9},
                                    {"P1": 2, "P3": 2, "P2": 1, "P4": 1}, {"P1": 2, "P3": 2, "P2": 1, "P4": 2}, 32)
