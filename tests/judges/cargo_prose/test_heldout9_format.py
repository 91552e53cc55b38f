"""Format, labels and balance of the ninth held-out prose set (items_heldout9.jsonl); scores no judge.

The checks (heldout_suite.py) recompute from the shown texts alone what they can: the live case id, every value token
(dates, amounts and versions restated in other formats are read back to the context's own form), earlier-case counts,
asset ages and visit delays, and the one change of each P2. As in the seventh and eighth sets, half of the styles are
ones earlier sets used and half are new ordinary ones; two P2 items copy their wrong id from the reference.
"""
from pathlib import Path

from tests.judges.cargo_prose.heldout_suite import MixedStylesSet


class TestHeldout9(MixedStylesSet):
    path = Path(__file__).with_name("items_heldout9.jsonl")
    prefix = "h9"
    reused = {"resolution-note", "first-person", "teams-message", "voicemail", "hedged", "colloquial", "two-sentence",
              "reply-to-manager"}
    new = {"dash-list", "letter", "shift-log", "forwarded", "internal-comment", "audit-trail", "quoted-reply",
           "signed-off"}
    styles = reused | new
    copied = 2
    context_formats = {"gen", "xml", "yaml", "pipe"}
    reference_formats = {"gen", "paren", "stage"}
    # How each layout of this set begins (context) or marks its steps (reference).
    context_mark = {"gen": "Case record for CASE-", "xml": '<ticket id="CASE-', "yaml": "ticket: CASE-",
                    "pipe": "| Ticket | CASE-"}
    reference_mark = {"gen": "Steps taken:\n1. ", "paren": "\n(1) ", "stage": "\nStage 1: "}
    earlier, earlier_styles = (2, 3, 4, 5, 6, 7, 8), 78
    derived = {"count": 3, "age": 3, "delay": 1}
    lengths = ({"P1": 343, "P3": 353, "P2": 348, "P4": 344}, 0.594)
    counts = ({"RB-BILLING-CREDIT": 12, "RB-DATA-RECOVERY": 11, "RB-ONSITE-DISPATCH": 11, "RB-ADV-EXCHANGE": 10,
               "RB-BATTERY": 10, "RB-FW-ROLLBACK": 10},
              {"P1": 3, "P3": 3, "P2": 1, "P4": 2}, {"P1": 3, "P3": 4, "P2": 2, "P4": 2}, 32)
