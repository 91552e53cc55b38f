"""Format, labels and balance of the seventh held-out prose set (items_heldout7.jsonl); scores no judge.

The checks (heldout_suite.py) recompute from the shown texts alone what they can: the live case id, every value token
(dates, amounts and versions restated in other formats are read back to the context's own form), earlier-case counts,
asset ages and visit delays, and the one change of each P2. Unlike sets 3-6, half of this set's styles are ones earlier
sets used (the common ways support staff write), and three P2 items copy their wrong value from the reference.
"""
import datetime as dt
import re
from pathlib import Path

from tests.judges.cargo_prose.heldout_checks import ID_TOKENS, MON, context_date, earlier_sets
from tests.judges.cargo_prose.heldout_suite import HeldOutSet

REUSED = {"terse", "chatty", "formal", "non-native", "paragraph", "passive", "email", "out-of-order"}
NEW = {"customer-summary", "incident-review", "timestamped-comment", "manager-brief", "we-narrative", "semicolon-run",
       "qa-review", "callback-script"}


def _opened(ctx: str) -> dt.date:
    return context_date(ctx, r"(?:^|\n)\W*opened")


class TestHeldout7(HeldOutSet):
    path = Path(__file__).with_name("items_heldout7.jsonl")
    prefix = "h7"
    styles = REUSED | NEW
    context_formats = {"gen", "dots", "table", "kv"}
    reference_formats = {"gen", "table", "kv"}
    # How each layout of this set begins (context) or marks its steps (reference).
    context_mark = {"gen": "Case record for CASE-", "dots": "Ticket export CASE-", "table": "Record CASE-",
                    "kv": "Ticket CASE-"}
    reference_mark = {"gen": "Steps taken:\n1. ", "table": "| # | step | recorded |", "kv": "step[1] = "}
    earlier, earlier_styles = (2, 3, 4, 5, 6), 61
    # Value-shaped tokens in any of the formats the candidates use; normal() reads each back to the context's form.
    token = re.compile(ID_TOKENS + r"|\b\d{1,2} " + MON + r" \d{4}|\b" + MON + r" \d{1,2}, \d{4}"
                       r"|(?:USD |\$)[\d,]+\.\d\d|\bv?\d+\.\d+\.\d+\b|\b\d[\d,]*\.\d\d\b")
    opened = staticmethod(_opened)
    restated = (r"\b\d{1,2} " + MON + r" \d{4}", r"\b" + MON + r" \d{1,2}, \d{4}", r"USD \d,\d{3}\.\d\d",
                r"\$\d,\d{3}\.\d\d", r"\bv\d+\.\d+\.\d+")
    derived = {"count": 3, "age": 2, "delay": 1}
    lengths = ({"P1": 329, "P3": 361, "P2": 319, "P4": 302}, 0.672)
    counts = ({"RB-BILLING-CREDIT": 12, "RB-DATA-RECOVERY": 11, "RB-ADV-EXCHANGE": 11, "RB-BATTERY": 10,
               "RB-ONSITE-DISPATCH": 10, "RB-FW-ROLLBACK": 10},
              {"P1": 4, "P3": 4, "P2": 1, "P4": 2}, {"P1": 3, "P3": 4, "P2": 1, "P4": 1}, 32)

    def test_styles_are_new(self, items: list[dict]) -> None:
        """Eight styles earlier sets used and eight none did."""
        used = {it["style"] for it in earlier_sets(self.path.parent, self.earlier)}
        assert len(used) >= self.earlier_styles and REUSED <= used and not NEW & used

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
        assert sum(c.get("source") == "reference" for it in items for c in it.get("changes", [])) == 3
