"""Format, labels and balance of the sixth held-out prose set (items_heldout6.jsonl); scores no judge.

The checks (heldout_suite.py) recompute from the shown texts alone what they can: the live case id, every value token
(dates, amounts and versions restated in other formats are read back to the context's own form), earlier-case counts,
asset ages and visit delays, and the one change of each P2.
"""
import datetime as dt
import re
from pathlib import Path

from tests.judges.cargo_prose.heldout_checks import ID_TOKENS, MON, context_date
from tests.judges.cargo_prose.heldout_suite import HeldOutSet


def _opened(ctx: str) -> dt.date:
    return context_date(ctx, r"(?:^|\n)\W*opened")


class TestHeldout6(HeldOutSet):
    path = Path(__file__).with_name("items_heldout6.jsonl")
    prefix = "h6"
    styles = {"ops-shorthand", "prose-table", "legalistic", "voice-transcript", "nested-parens", "ordinal-words",
              "telegram", "abbreviations", "rhetorical", "apology-letter", "minutes", "diary", "headline", "ledger",
              "recipe", "reported-speech"}
    context_formats = {"gen", "yaml", "ini", "pipe", "log"}
    reference_formats = {"gen", "semi", "roman", "tilde", "playbook"}
    # How each layout of this set begins (context) or marks its steps (reference).
    context_mark = {"gen": "Case record for CASE-", "yaml": "--- # CASE-", "ini": "[case CASE-", "pipe": "REC | CASE-",
                    "log": "AUDIT TRAIL // CASE-"}
    reference_mark = {"gen": "Steps taken:\n1. ", "semi": "Precedent CASE-", "roman": "\nii. ", "tilde": " :: ",
                      "playbook": "Playbook run CASE-"}
    earlier, earlier_styles = (2, 3, 4, 5), 45
    # Value-shaped tokens in any of the formats the candidates use; normal() reads each back to the context's form.
    token = re.compile(ID_TOKENS + r"|\b\d\d\.\d\d\.\d{4}\b|\b\d{1,2} " + MON + r" \d{4}|\b" + MON + r" \d{1,2}, \d{4}"
                       r"|\b\d+(?:\.\d+)?k USD|(?:USD |\$)[\d,]+\.\d\d|\bv?\d+\.\d+\.\d+\b|\b\d[\d,]*\.\d\d\b")
    opened = staticmethod(_opened)
    status_any_case = True  # the telegram items write the status word in a line of capitals
    restated = (r"\b\d{1,2} " + MON + r" \d{4}", r"\b" + MON + r" \d{1,2}, \d{4}", r"\b\d\d\.\d\d\.\d{4}\b",
                r"\d(?:\.\d+)?k USD", r"USD \d,\d{3}\.\d\d", r"\$\d,\d{3}\.\d\d", r"\bv\d+\.\d+\.\d+")
    derived = {"count": 4, "age": 2, "delay": 1}
    lengths = ({"P1": 327, "P3": 351, "P2": 327, "P4": 295}, 0.641)
    counts = ({"RB-BILLING-CREDIT": 13, "RB-BATTERY": 10, "RB-FW-ROLLBACK": 10, "RB-DATA-RECOVERY": 13,
               "RB-ADV-EXCHANGE": 9, "RB-ONSITE-DISPATCH": 9},
              {"P1": 2, "P3": 2, "P2": 1, "P4": 1}, {"P1": 2, "P3": 1, "P2": 1, "P4": 2}, 32)
