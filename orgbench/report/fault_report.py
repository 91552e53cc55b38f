"""The fault study's report: faults.csv (one row per case and control), the Markdown and LaTeX tables.

Each case carries the paper's first stop for its kind of fault (ASSURANCE.md,
the paper's Table II and Section IV.B), so the paper's outcome sits beside ours.
"""

from __future__ import annotations

from judges.assurance.faults import FIELDS, CaseOutcome
from judges.assurance.pipeline import CONTROLS
from orgbench.core.tables import Table


#: The paper's first stop per kind of fault (its Table II); cases outside its 19 say so.
PAPER_FIRST_STOP = {
    "restored call deleted or changed during build": "P1: build",
    "restored call deleted after build": "P1: staging",
    "invalid argument JSON in a source record": "P1: disk check",
    "unmatched tool result added to a source record": "P3: reverse matching",
    "manifest hash corrupted after build": "P1: staging",
    "failed build with previous outputs present": "P1: build",
    "packet changed after staging": "P2: before dispatch",
    "extra file present before staging": "P2: before dispatch",
    "extra stale script": "none: unused under P0-P3 (never ran)",
    "line endings changed to CRLF before staging": "not among the paper's 19 cases",
    "no fault (control)": "none needed (completed)",
}
PAPER_COLUMN = "paper_first_stop"


def paper_first_stop(outcome: CaseOutcome) -> str:
    """The paper's first stop for this case's kind of fault ('' when the paper has no such case)."""
    return PAPER_FIRST_STOP.get(outcome.fault, "")


def faults_csv(outcomes: list[CaseOutcome]) -> str:
    """faults.csv: one row per (case, control), with the paper's first stop for the case."""
    rows = [{**outcome.row(), PAPER_COLUMN: paper_first_stop(outcome)} for outcome in outcomes]
    return Table.from_records(FIELDS + (PAPER_COLUMN,), rows).to_csv()


def _cell(outcome: CaseOutcome) -> str:
    if outcome.stopped_at:
        verb = "stopped" if not outcome.reached_judge else "READ, then stopped"
        return f"{verb} at {outcome.stopped_at} ({outcome.stopped_by})"
    if outcome.reached_judge:
        if not outcome.injected:
            return "UNEXPECTED read"
        return "altered/stale bytes read" if outcome.altered else "bytes read although their check failed"
    return "completed" if outcome.completed else "no read"


def _matrix(outcomes: list[CaseOutcome]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the case x control matrix: fault, injection point, cells, our and the paper's first stop."""
    by_case: dict[str, dict[str, CaseOutcome]] = {}
    for outcome in outcomes:
        by_case.setdefault(outcome.case, {})[outcome.control] = outcome
    controls = [c for c in CONTROLS if any(c in row for row in by_case.values())]
    header = ["case", "fault", "injection point", *controls, "first stop", "paper's first stop"]
    rows = []
    for case, row in by_case.items():
        any_row = next(iter(row.values()))
        first = next((f"{c}: {row[c].stopped_at} ({row[c].stopped_by})" for c in controls
                      if row[c].stopped_at and not row[c].reached_judge),
                     "none needed" if not any_row.injected else "NOT STOPPED")
        rows.append([case, any_row.fault, any_row.injection_point, *(_cell(row[c]) for c in controls), first,
                     paper_first_stop(any_row) or "–"])
    return header, rows


def faults_table(outcomes: list[CaseOutcome]) -> str:
    """The study as a Markdown table, with the summary counts the claim rests on."""
    header, rows = _matrix(outcomes)
    controls = [c for c in CONTROLS if c in header]
    injected = [o for o in outcomes if o.injected]
    clean = [o for o in outcomes if not o.injected]
    notes = []
    for control in controls:
        cell = [o for o in injected if o.control == control]
        reached = sum(o.reached_judge for o in cell)
        done = sum(o.completed and not o.reached_judge for o in clean if o.control == control)
        altered = sum(o.reached_judge and o.altered for o in cell)
        how = f" ({altered} with altered or stale bytes, {reached - altered} read although their check failed)" \
            if reached and reached != altered else ""
        notes.append(f"- {control}: {reached} of {len(cell)} injected faults reached the judge stub{how}; "
                     f"{done} of {sum(o.control == control for o in clean)} fault-free controls completed.")
    return Table.from_lists(header, rows, notes=tuple(notes)).to_markdown()


FAULTS_CAPTION = ("Fault study: each constructed case under controls P0–P3 with the recording stub as the judge; "
                  "our first stop beside the paper's")


def faults_latex(outcomes: list[CaseOutcome]) -> str:
    """The case x control matrix as a booktabs LaTeX table (the style of the CARGO tables)."""
    header, rows = _matrix(outcomes)
    header = [h for h in header if h not in ("fault", "injection point")]
    rows = [[r[0], *r[3:]] for r in rows]
    return Table.from_lists(header, rows, title=FAULTS_CAPTION, align="l" * len(header)).to_latex()


def drilldown_records(outcomes: list[CaseOutcome]) -> list[dict]:
    """Report drill-down rows: one per (case, control), with what reached the stub and why it stopped."""
    return [{
        "id": f"{o.case}.{o.control}",
        "title": f"{o.case} under {o.control}",
        "fields": {"kind": "fault" if o.injected else "control", "case": o.case, "control": o.control,
                   "mode": o.injection_point, "outcome": _cell(o)},
        "sections": [{"heading": "Fault", "text": o.fault},
                     {"heading": "Reached the judge stub", "text": str(o.reached_judge).lower()},
                     {"heading": "The paper's first stop for this kind of fault", "text": paper_first_stop(o) or "–"},
                     {"heading": "Packets the stub accepted", "text": str(o.reads)},
                     {"heading": "Stop", "text": f"{o.stopped_at} ({o.stopped_by}): {o.detail}" if o.stopped_at
                      else "not stopped"}],
    } for o in outcomes]
