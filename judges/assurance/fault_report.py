"""The fault study's report: faults.csv (one row per case and control) and the Markdown table."""

from __future__ import annotations

import csv
import io

from judges.assurance.faults import FIELDS, CaseOutcome
from judges.assurance.pipeline import CONTROLS


def faults_csv(outcomes: list[CaseOutcome]) -> str:
    """faults.csv: one row per (case, control)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for outcome in outcomes:
        writer.writerow(outcome.row())
    return buffer.getvalue()


def _cell(outcome: CaseOutcome) -> str:
    if outcome.stopped_at:
        verb = "stopped" if not outcome.reached_judge else "READ, then stopped"
        return f"{verb} at {outcome.stopped_at} ({outcome.stopped_by})"
    if outcome.reached_judge:
        if not outcome.injected:
            return "UNEXPECTED read"
        return "altered/stale bytes read" if outcome.altered else "bytes read although their check failed"
    return "completed" if outcome.completed else "no read"


def faults_table(outcomes: list[CaseOutcome]) -> str:
    """The study as a Markdown table, with the summary counts the claim rests on."""
    by_case: dict[str, dict[str, CaseOutcome]] = {}
    for outcome in outcomes:
        by_case.setdefault(outcome.case, {})[outcome.control] = outcome
    controls = [c for c in CONTROLS if any(c in row for row in by_case.values())]
    lines = ["| case | fault | injection point | " + " | ".join(controls) + " | first stop |",
             "|---|---|---|" + "---|" * len(controls) + "---|"]
    for case, row in by_case.items():
        first = next((f"{c}: {row[c].stopped_at} ({row[c].stopped_by})" for c in controls
                      if row[c].stopped_at and not row[c].reached_judge), "none needed" if not
                     next(iter(row.values())).injected else "NOT STOPPED")
        any_row = next(iter(row.values()))
        lines.append(f"| {case} | {any_row.fault} | {any_row.injection_point} | "
                     + " | ".join(_cell(row[c]) for c in controls) + f" | {first} |")
    injected = [o for o in outcomes if o.injected]
    clean = [o for o in outcomes if not o.injected]
    lines.append("")
    for control in controls:
        cell = [o for o in injected if o.control == control]
        reached = sum(o.reached_judge for o in cell)
        done = sum(o.completed and not o.reached_judge for o in clean if o.control == control)
        altered = sum(o.reached_judge and o.altered for o in cell)
        how = f" ({altered} with altered or stale bytes, {reached - altered} read although their check failed)" \
            if reached and reached != altered else ""
        lines.append(f"- {control}: {reached} of {len(cell)} injected faults reached the judge stub{how}; "
                     f"{done} of {sum(o.control == control for o in clean)} fault-free controls completed.")
    return "\n".join(lines) + "\n"


def drilldown_records(outcomes: list[CaseOutcome]) -> list[dict]:
    """Report drill-down rows: one per (case, control), with what reached the stub and why it stopped."""
    return [{
        "id": f"{o.case}.{o.control}",
        "title": f"{o.case} under {o.control}",
        "fields": {"kind": "fault" if o.injected else "control", "case": o.case, "control": o.control,
                   "mode": o.injection_point, "outcome": _cell(o)},
        "sections": [{"heading": "Fault", "text": o.fault},
                     {"heading": "Reached the judge stub", "text": str(o.reached_judge).lower()},
                     {"heading": "Packets the stub accepted", "text": str(o.reads)},
                     {"heading": "Stop", "text": f"{o.stopped_at} ({o.stopped_by}): {o.detail}" if o.stopped_at
                      else "not stopped"}],
    } for o in outcomes]
