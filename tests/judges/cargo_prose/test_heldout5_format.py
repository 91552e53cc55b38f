"""Format, labels and balance of the fifth held-out prose set (items_heldout5.jsonl); scores no judge.

The checks (heldout_suite.py) recompute from the shown texts alone what they can: the live case id, every value token
(dates, amounts and versions restated in other formats are read back to the context's own form), earlier-case counts,
asset ages and visit delays, and the one change of each P2.
"""
import datetime as dt
import re
from pathlib import Path

from tests.judges.cargo_prose.heldout_checks import ID_TOKENS, MON, context_date
from tests.judges.cargo_prose.heldout_suite import HeldOutSet
from tests.judges.cargo_prose.item_labels import CONTEXT_FORMATS, REFERENCE_FORMATS


def _opened(ctx: str) -> dt.date:
    if m := re.search(r"(\d{4}-\d\d-\d\d): case opened", ctx):  # the activity feed puts the date first
        return dt.date.fromisoformat(m.group(1))
    return context_date(ctx, r"(?:^|\n)\W*opened")


class TestHeldout5(HeldOutSet):
    path = Path(__file__).with_name("items_heldout5.jsonl")
    prefix = "h5"
    styles = {"jira-comment", "changelog", "sms", "second-person", "interview", "code-switched", "self-correcting",
              "field-cited", "relative-dates", "standup", "kb-article", "story", "commit-message", "thread",
              "compact-values", "bluf"}
    context_formats, reference_formats = CONTEXT_FORMATS, REFERENCE_FORMATS
    # How each layout of this set begins (context) or marks its steps (reference).
    context_mark = {"gen": "Case record CASE-", "table": "SERVICE DESK / CASE", "kv": "case: CASE-",
                    "crm": "Activity feed for CASE-", "email": "From: service-desk@support.example"}
    reference_mark = {"gen": "Steps taken:\n1. ", "prose": "Worked example, CASE-", "bullets": "  >>  ", "lettered": "\na) ",
                      "arrowed": " => "}
    earlier, earlier_styles = (2, 3, 4), 30
    # Value-shaped tokens in any of the formats the candidates use; normal() reads each back to the context's form.
    token = re.compile(ID_TOKENS + r"|\b\d{1,2} " + MON + r" \d{4}|\b" + MON + r" \d{1,2}, \d{4}"
                       r"|\b\d+(?:\.\d+)?k USD|(?:USD |\$)[\d,]+\.\d\d|\bv?\d+\.\d+\.\d+\b|\b\d[\d,]*\.\d\d\b")
    opened = staticmethod(_opened)
    restated = (r"\b\d{1,2} " + MON + r" \d{4}", r"\b" + MON + r" \d{1,2}, \d{4}", r"\d(?:\.\d+)?k USD",
                r"USD \d,\d{3}\.\d\d", r"\$\d,\d{3}\.\d\d", r"\bv\d+\.\d+\.\d+")
    derived = {"count": 8, "age": 2, "delay": 3}
    lengths = ({"P1": 312, "P3": 315, "P2": 312, "P4": 305}, 0.609)
    counts = ({"RB-BILLING-CREDIT": 11, "RB-BATTERY": 11, "RB-FW-ROLLBACK": 10, "RB-DATA-RECOVERY": 12,
               "RB-ADV-EXCHANGE": 10, "RB-ONSITE-DISPATCH": 10},
              {"P1": 2, "P3": 3, "P2": 1, "P4": 1}, {"P1": 2, "P3": 2, "P2": 1, "P4": 2}, 32)
