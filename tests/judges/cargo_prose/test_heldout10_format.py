"""Format, labels and balance of the tenth held-out prose set (items_heldout10.jsonl); scores no judge.

The checks (heldout_suite.py) recompute from the shown texts alone what they can: the live case id, every value token
(dates, amounts and versions restated in other formats are read back to the context's own form), earlier-case counts,
asset ages and visit delays, and the one change of each P2. As in the seventh to ninth sets, half of the styles are
ones earlier sets used and half are new ordinary ones; two P2 items copy their wrong id from the reference. Unlike the
ninth set, every candidate was newly written, not re-rendered from an earlier set's answers.
"""
from pathlib import Path

from tests.judges.cargo_prose.heldout_suite import MixedStylesSet


class TestHeldout10(MixedStylesSet):
    path = Path(__file__).with_name("items_heldout10.jsonl")
    prefix = "h10"
    reused = {"terse", "formal", "handover", "email", "first-person", "voicemail", "hedged", "colloquial"}
    new = {"recap-bullets", "phone-log", "end-of-day", "sticky-note", "briefing", "plain-summary", "portal-reply",
           "follow-up"}
    styles = reused | new
    copied = 2
    context_formats = {"gen", "ini", "env", "sheet"}
    reference_formats = {"gen", "hash", "timeline"}
    # How each layout of this set begins (context) or marks its steps (reference).
    context_mark = {"gen": "Case record for CASE-", "ini": "[CASE-", "env": "CASE_ID=CASE-", "sheet": "Summary sheet, CASE-"}
    reference_mark = {"gen": "Steps taken:\n1. ", "hash": "\n#1 ", "timeline": "\nT+1 "}
    earlier, earlier_styles = (2, 3, 4, 5, 6, 7, 8, 9), 86
    derived = {"count": 4, "age": 1, "delay": 2}
    lengths = ({"P1": 320, "P3": 370, "P2": 345, "P4": 342}, 0.562)
    counts = ({"RB-BILLING-CREDIT": 12, "RB-DATA-RECOVERY": 12, "RB-FW-ROLLBACK": 11, "RB-ADV-EXCHANGE": 10,
               "RB-ONSITE-DISPATCH": 10, "RB-BATTERY": 9},
              {"P1": 3, "P3": 4, "P2": 2, "P4": 2}, {"P1": 3, "P3": 3, "P2": 2, "P4": 2}, 32)
