"""The format tests the fifth and later held-out prose sets share: a set's test module subclasses ``HeldOutSet`` (or
``MixedStylesSet``) as ``Test…`` and gives its file, styles, layouts, value reader and the figures its README states."""
import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pytest

from tests.judges.cargo_prose.heldout_checks import (
    check_active_entitlements_in_date, check_correct_values, check_family_balance, check_family_runs,
    ID_TOKENS, MON, check_ids_and_fields, check_labels_follow_family, check_layouts_are_the_sets_own,
    check_live_and_reference_case, check_no_reference_value_in_a_candidate, check_p2_one_change,
    check_p2_values_plausible, check_p4_contexts_consistent, check_reference_shares_no_value, check_styles_are_new,
    context_date, count_figures, derived_seen, earlier_sets, length_figures, load, normal, truth)

MISSING = {"backup_config": "BKP-", "verify_entitlement": "ntitlement", "remote_diagnostics": "-0x", "collect_logs": "LOG-",
           "rollback_firmware": "arget", "create_dispatch": "DSP-", "schedule_visit": "isit"}
DERIVED = {"count": r"\b(no|one|two|three|four|five|six) earlier case", "age": r"(\d+) days old at opening",
           "delay": r"\b(\w+) days? after the case opened"}


class HeldOutSet:
    path: ClassVar[Path]
    prefix: ClassVar[str]
    styles: ClassVar[set]
    context_formats: ClassVar[set]
    reference_formats: ClassVar[set]
    context_mark: ClassVar[dict]
    reference_mark: ClassVar[dict]
    earlier: ClassVar[tuple[int, ...]]      # the earlier sets whose styles and layouts this set avoids
    earlier_styles: ClassVar[int]           # how many distinct styles those sets hold at least
    token: ClassVar[re.Pattern]
    opened: ClassVar[Callable[[str], dt.date]]
    status_any_case: ClassVar[bool] = False
    restated: ClassVar[tuple[str, ...]]     # formats some candidate must use
    derived: ClassVar[dict]                 # stated earlier-case counts, ages and delays
    lengths: ClassVar[tuple]                # length_figures()
    counts: ClassVar[tuple]                 # count_figures()

    @pytest.fixture(scope="class")
    def items(self) -> list[dict]:
        return load(self.path)

    def values(self, text: str) -> set[str]:
        return {normal(t) for t in self.token.findall(text)}

    def truth(self) -> dict:
        return truth(type(self).opened)

    def test_ids_and_fields(self, items: list[dict]) -> None:
        assert len(items) == 64
        check_ids_and_fields(items, self.prefix, f"heldout{self.prefix[1:]}-writer", self.styles, self.context_formats,
                             self.reference_formats)

    def test_styles_are_new(self, items: list[dict]) -> None:
        check_styles_are_new(self.styles, earlier_sets(self.path.parent, self.earlier), self.earlier_styles)

    def test_layouts_are_this_sets_own(self, items: list[dict]) -> None:
        check_layouts_are_the_sets_own(items, earlier_sets(self.path.parent, self.earlier), self.context_mark,
                                       self.reference_mark)

    def test_ids_do_not_follow_the_families(self, items: list[dict]) -> None:
        """The ids were given after a seeded shuffle: no family holds a run of more than three ids."""
        check_family_runs(items, 3)

    def test_live_case_and_reference_case(self, items: list[dict]) -> None:
        check_live_and_reference_case(items)

    def test_reference_shares_no_value_with_the_live_case(self, items: list[dict]) -> None:
        check_reference_shares_no_value(items, self.values)

    def test_correct_values_come_from_the_context(self, items: list[dict]) -> None:
        check_correct_values(items, self.values, any_case=self.status_any_case)

    def test_active_entitlements_are_in_date(self, items: list[dict]) -> None:
        check_active_entitlements_in_date(items, type(self).opened)

    def test_derived_values_match_the_context(self, items: list[dict]) -> None:
        """Every stated earlier-case count, asset age and visit delay is the context's own, except a P2's changed one."""
        assert derived_seen(items, self.truth(), DERIVED) == self.derived

    def test_restated_formats_are_used(self, items: list[dict]) -> None:
        """Candidates restate dates, amounts and versions in other formats than the context's ISO dates, plain amounts
        and bare versions."""
        text = " ".join(it["candidate"] for it in items)
        for pattern in self.restated:
            assert re.search(pattern, text), pattern

    def test_labels_follow_family(self, items: list[dict]) -> None:
        check_labels_follow_family(items)

    def test_p2_contradicts_exactly_its_change(self, items: list[dict]) -> None:
        check_p2_one_change(items, self.values, normal, self.truth())

    def test_p2_values_stay_plausible(self, items: list[dict]) -> None:
        check_p2_values_plausible(items, type(self).opened)

    def test_family_balance(self, items: list[dict]) -> None:
        check_family_balance(items, self.styles, self.context_formats, self.reference_formats)

    def test_p4_contexts_stay_consistent(self, items: list[dict]) -> None:
        check_p4_contexts_consistent(items, MISSING)

    def test_no_reference_value_in_a_candidate(self, items: list[dict]) -> None:
        check_no_reference_value_in_a_candidate(items, self.values)

    def test_surface_figures_in_readme(self, items: list[dict]) -> None:
        """The README's mean candidate lengths and its best one-threshold length rule (in-sample)."""
        assert length_figures(items) == self.lengths

    def test_count_figures_in_readme(self, items: list[dict]) -> None:
        """The README's runbook, revised-reference and open-case counts."""
        assert count_figures(items) == self.counts


def _opened(ctx: str) -> dt.date:
    return context_date(ctx, r"(?:^|\n)\W*opened")


class MixedStylesSet(HeldOutSet):
    """A set (the seventh and later) whose styles are half ones earlier sets used (``reused``) and half ones none did
    (``new``), and ``copied`` of whose P2 items take their wrong value from the reference (``"source": "reference"``).
    Its candidates restate dates, amounts and versions in the formats ``token`` reads."""
    reused: ClassVar[set]
    new: ClassVar[set]
    copied: ClassVar[int]
    # Value-shaped tokens in any of the formats the candidates use; normal() reads each back to the context's form.
    token = re.compile(ID_TOKENS + r"|\b\d{1,2} " + MON + r" \d{4}|\b" + MON + r" \d{1,2}, \d{4}"
                       r"|(?:USD |\$)[\d,]+\.\d\d|\bv?\d+\.\d+\.\d+\b|\b\d[\d,]*\.\d\d\b")
    opened = staticmethod(_opened)
    restated = (r"\b\d{1,2} " + MON + r" \d{4}", r"\b" + MON + r" \d{1,2}, \d{4}", r"USD \d,\d{3}\.\d\d",
                r"\$\d,\d{3}\.\d\d", r"\bv\d+\.\d+\.\d+")

    def test_styles_are_new(self, items: list[dict]) -> None:
        """Half the styles earlier sets used and half none did."""
        used = {it["style"] for it in earlier_sets(self.path.parent, self.earlier)}
        assert len(used) >= self.earlier_styles and self.reused <= used and not self.new & used
        assert self.styles == self.reused | self.new and len(self.reused) == len(self.new)

    def test_no_reference_value_in_a_candidate(self, items: list[dict]) -> None:
        """No candidate states a reference value, except a P2 whose one change is copied from the reference."""
        for it in items:
            own = self.values(it["live_context"] + it["question"])
            copied = {self.values(c["new"]).pop() for c in it.get("changes", []) if c.get("source") == "reference"
                      and self.values(c["new"])}
            from_reference = (self.values(it["reference"]) - own) & self.values(it["candidate"])
            assert from_reference == copied, it["item_id"]
            assert all(c["new"] in it["reference"] or self.values(c["new"]) <= self.values(it["reference"])
                       for c in it.get("changes", []) if c.get("source") == "reference"), it["item_id"]
        assert sum(c.get("source") == "reference" for it in items for c in it.get("changes", [])) == self.copied
