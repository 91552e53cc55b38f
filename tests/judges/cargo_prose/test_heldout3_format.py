"""Format, labels and balance of the third held-out prose set (items_heldout3.jsonl); scores no judge.

The checks recompute what they can from the shown texts alone (the live case id, the value tokens, the
derived counts and ages), apart from the throwaway script that rendered the contexts.
"""
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.judges.cargo_prose.item_labels import (CONTEXT_FORMATS, P2_KINDS, P4_KINDS,
                                                  REFERENCE_FORMATS, RUNBOOKS, WORDS)
from tests.judges.cargo_prose.heldout_checks import (check_ids_and_fields, check_labels_follow_family,
    check_live_and_reference_case, context_date, earlier_count, length_figures, load)

PATH = Path(__file__).with_name("items_heldout3.jsonl")
STYLES = {"terse", "chatty", "formal", "non-native", "paragraph", "passive", "out-of-order", "email", "handover",
          "bullets", "lettered", "arrowed", "numbered", "chat", "ticket-note", "q-and-a"}
# Value-shaped tokens: ids, serials, versions, ISO dates, e-mail addresses, diagnostic codes, amounts.
TOKEN = re.compile(r"CASE-\d+|ACC-\d+|SN-[0-9A-F]{8}|DSP-\d+|RMA-\d+|BKP-\d+|LOG-\d+|RJ-\d+|INV-\d+|CRD-\d+|P-00\d\d"
                   r"|\b\d+\.\d+\.\d+\b|\d{4}-\d\d-\d\d|[\w.]+@[\w.]+\.example|[A-Z]+-0x[0-9A-F]+|USD \d+")


@pytest.fixture(scope="module")
def items() -> list[dict]:
    return load(PATH)


def asset_age(it: dict) -> int:
    ctx = it["live_context"]
    return (context_date(ctx, r"opened(?: on)?") - context_date(ctx, r"(?:purchase[ _]date|bought)")).days


def test_ids_and_fields(items: list[dict]) -> None:
    check_ids_and_fields(items, "h3", "heldout3-writer", STYLES, CONTEXT_FORMATS, REFERENCE_FORMATS, states=False)


def test_live_case_and_reference_case(items: list[dict]) -> None:
    check_live_and_reference_case(items)


def test_correct_values_come_from_the_context(items: list[dict]) -> None:
    """P1, P3 and P4 state only values the live context or question shows, and the context's status."""
    for it in items:
        if it["family"] == "P2":
            continue
        shown = it["live_context"] + it["question"]
        for token in TOKEN.findall(it["candidate"]):
            assert token.replace("USD ", "") in shown, (it["item_id"], token)
        status = re.search(r"(?:status\W+|currently )(closed|resolved|in progress|pending customer)", it["live_context"], re.I).group(1)
        assert status in it["candidate"], it["item_id"]


def test_derived_values_match_the_context(items: list[dict]) -> None:
    """Every stated count of earlier cases and asset age is the context's own, except a P2's changed one."""
    for it in items:
        changed = {c["field"] for c in it.get("changes", [])}
        count = re.search(r"\b(no|one|two|three|four|five|six) earlier case", it["candidate"])
        if count and "earlier_cases" not in changed:
            assert WORDS.index(count.group(1)) == earlier_count(it), it["item_id"]
        age = re.search(r"(\d+) days (?:old|at the opening)|age (?:at|on) opening (?:was )?(\d+) days", it["candidate"])
        if age and "asset_age_days" not in changed:
            assert int(age.group(1) or age.group(2)) == asset_age(it), it["item_id"]


def test_labels_follow_family(items: list[dict]) -> None:
    check_labels_follow_family(items, one_change=False)


def test_p2_contradicts_exactly_its_changes(items: list[dict]) -> None:
    for it in (it for it in items if it["family"] == "P2"):
        cand, ctx = it["candidate"], it["live_context"]
        for change in it["changes"]:
            assert change["new"] != change["original"] and change["new"] in cand, it["item_id"]
            if "derived" in change:  # recomputed here from the context, not taken from the builder
                assert change["computed"] != change["stated"], it["item_id"]
                truth = {"earlier_cases": lambda: earlier_count(it), "asset_age_days": lambda: asset_age(it),
                         "visit_delay_days": lambda: (context_date(ctx, r"visit[ _]date") - context_date(ctx, r"opened(?: on)?")).days}
                assert change["computed"] == truth[change["field"]](), it["item_id"]
                continue
            assert change["original"] in ctx and change["original"] not in cand, it["item_id"]
            assert not re.search(r"(?<![\w.])" + re.escape(change["new"]) + r"(?![\w])", ctx), it["item_id"]
        unchanged = [t for t in TOKEN.findall(cand) if t.replace("USD ", "") not in ctx + it["question"]]
        assert all(any(t.replace("USD ", "") == c["new"] for c in it["changes"]) for t in unchanged), it["item_id"]


def test_family_balance(items: list[dict]) -> None:
    families = Counter(it["family"] for it in items)
    assert set(families) == {"P1", "P2", "P3", "P4"} and len(set(families.values())) == 1 and families["P1"] >= 16
    for fam in families:
        group = [it for it in items if it["family"] == fam]
        assert Counter(it["style"] for it in group) == Counter(STYLES), fam  # one item per style
        assert {it["procedure_id"] for it in group} == RUNBOOKS, fam
        assert {it["context_format"] for it in group} == CONTEXT_FORMATS, fam
        assert {it["reference_format"] for it in group} == REFERENCE_FORMATS, fam
    p4 = Counter(it["kind"] for it in items if it["family"] == "P4")
    assert set(p4) == set(P4_KINDS) and len(set(p4.values())) == 1
    same_role = [it for it in items if it["kind"] == "action" and it["perturbation"]["same_role"]]
    assert len(same_role) >= 3
    assert {it["kind"] for it in items if it["family"] == "P2"} == P2_KINDS
    derived = {c["derived"] for it in items for c in it.get("changes", []) if "derived" in c}
    assert derived == {"count", "days"}
    # extra sentences: every P3, and half of P2 and of P4, as in the spec's plain/extra split
    for fam in ("P2", "P4"):
        assert sum("extras" in it for it in items if it["family"] == fam) * 2 == families[fam]


def test_no_reference_value_in_a_candidate(items: list[dict]) -> None:
    """Values only the reference shows never reach a candidate, except a P2 value copied from it on purpose."""
    for it in items:
        own = it["live_context"] + it["question"]
        copied = {c["new"] for c in it.get("changes", [])}
        for token in set(TOKEN.findall(it["reference"])):
            value = token.replace("USD ", "")
            if value not in own and value not in copied:
                assert not re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", it["candidate"]), (it["item_id"], value)


def test_surface_figures_in_readme(items: list[dict]) -> None:
    """The README's mean candidate lengths and its best one-threshold length rule (.641 in-sample)."""
    assert length_figures(items) == ({"P1": 516, "P3": 530, "P2": 478, "P4": 487}, 0.641)
