"""Format, labels and balance of the seventh held-out prose set (items_heldout7.jsonl); scores no judge.

The checks (heldout_suite.py) recompute from the shown texts alone what they can: the live case id, every value token
(dates, amounts and versions restated in other formats are read back to the context's own form), earlier-case counts,
asset ages and visit delays, and the one change of each P2. Unlike sets 3-6, half of this set's styles are ones earlier
sets used (the common ways support staff write), and three P2 items copy their wrong value from the reference.
"""
from pathlib import Path

from tests.judges.cargo_prose.heldout_suite import MixedStylesSet


class TestHeldout7(MixedStylesSet):
    path = Path(__file__).with_name("items_heldout7.jsonl")
    prefix = "h7"
    reused = {"terse", "chatty", "formal", "non-native", "paragraph", "passive", "email", "out-of-order"}
    new = {"customer-summary", "incident-review", "timestamped-comment", "manager-brief", "we-narrative",
           "semicolon-run", "qa-review", "callback-script"}
    styles = reused | new
    copied = 3
    context_formats = {"gen", "dots", "table", "kv"}
    reference_formats = {"gen", "table", "kv"}
    # How each layout of this set begins (context) or marks its steps (reference).
    context_mark = {"gen": "Case record for CASE-", "dots": "Ticket export CASE-", "table": "Record CASE-",
                    "kv": "Ticket CASE-"}
    reference_mark = {"gen": "Steps taken:\n1. ", "table": "| # | step | recorded |", "kv": "step[1] = "}
    earlier, earlier_styles = (2, 3, 4, 5, 6), 61
    derived = {"count": 3, "age": 2, "delay": 1}
    lengths = ({"P1": 329, "P3": 361, "P2": 319, "P4": 302}, 0.672)
    counts = ({"RB-BILLING-CREDIT": 12, "RB-DATA-RECOVERY": 11, "RB-ADV-EXCHANGE": 11, "RB-BATTERY": 10,
               "RB-ONSITE-DISPATCH": 10, "RB-FW-ROLLBACK": 10},
              {"P1": 4, "P3": 4, "P2": 1, "P4": 2}, {"P1": 3, "P3": 4, "P2": 1, "P4": 1}, 32)
