"""The mutation study: every case -- the paper's 19 and CRLF, the independent helper's, issue 15's -- under P3.

Each case runs three times: with both checkers (the inline one at build, the
disk audit at check), with the inline checker only (run again on disk in the
audit's place: one checker run twice, as before issue 15), and with the disk
audit only. A case is *defended* when some check stopped it before the
recording stub received a byte, or -- source content that forges structure --
when every packet read shows the source's structure and no forged one. A
checker *misses* a case when, with that checker alone, the case is not
defended. The per-obligation evidence counts cases tried, stopped (or
neutralised) and missed with both checkers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from judges.assurance import faults
from judges.assurance.mutations import cases as independent, issue_cases
from judges.assurance.mutations import runner
from orgbench.core.tables import Table

VARIANTS: Mapping[str, tuple[str, ...]] = {"both": ("inline", "audit"), "inline only": ("inline",),
                                           "audit only": ("audit",)}
OBLIGATIONS = {1: "required content survives rendering", 2: "checkers cover their requirements",
               3: "a failed check stops later use", 4: "the judge reads the bytes last checked"}
_PAPER_OBLIGATION = {"restored call deleted or changed during build": 1,
                     "invalid argument JSON in a source record": 2, "unmatched tool result added to a source record": 2,
                     "failed build with previous outputs present": 3, "extra file present before staging": 3,
                     "extra stale script": 3}


@dataclass(frozen=True, slots=True)
class StudyRow:
    """One case: where it comes from, what it attacks, and per variant whether it was defended."""

    origin: str              # paper | independent | issue
    case: str
    obligation: int
    attacks: str
    defended: Mapping[str, bool]
    stopped_before_read: bool
    first_stop: str
    reads: int

    @property
    def neutralised(self) -> bool:
        """Defended with both checkers by rendering forged structure harmlessly (not by stopping)."""
        return self.defended["both"] and not self.stopped_before_read


def _paper_rows(root: Path, cohort: Path | None) -> list[StudyRow]:
    setup = faults.prepare(root / "paper", cohort=cohort)
    rows = []
    for case in faults.CASES:
        if not case.injected:
            continue
        outcomes = {v: faults.run_case(setup, case, "P3", root / "runs", checkers=c) for v, c in VARIANTS.items()}
        both = outcomes["both"]
        rows.append(StudyRow("paper" if case.case != "crlf-before-staging" else "paper (CRLF)", case.case,
                             _PAPER_OBLIGATION.get(case.fault, 4), case.fault,
                             {v: bool(o.stopped_at) and o.reads == 0 for v, o in outcomes.items()},
                             bool(both.stopped_at) and both.reads == 0,
                             f"{both.stopped_at}: {both.stopped_by}" if both.stopped_at else "completed", both.reads))
    return rows


def _case_rows(root: Path, cohort: Path | None) -> tuple[list[StudyRow], list[str]]:
    """The independent and issue cases' rows, and the fault-free controls that did not complete."""
    setup = runner.prepare(root / "independent", cohort=cohort)
    rows, broken = [], []
    for origin, cases in (("independent", independent.CASES), ("issue", issue_cases.CASES)):
        for case in cases:
            outcomes = {v: runner.run_case(setup, case, root / "runs", checkers=c) for v, c in VARIANTS.items()}
            both = outcomes["both"]
            if case.control:
                if not all(o.completed and o.misread == 0 for o in outcomes.values()):
                    broken.append(case.name)
                continue
            rows.append(StudyRow(origin, case.name, case.obligation, case.attacks,
                                 {v: o.defended for v, o in outcomes.items()}, both.stopped_before_read,
                                 f"{both.stopped_at}: {both.stopped_by}" if both.stopped_at else "completed",
                                 both.accepted))
    return rows, broken


def run_mutation_study(root: Path, cohort: Path | None = None) -> tuple[list[StudyRow], list[str]]:
    """Every case under every variant (P3, recording stub); the rows and any fault-free control that broke.

    ``cohort`` is the fault study's cohort (``benchmark_builders.trajectories.cohort.fault_cohort``).
    """
    case_rows, broken = _case_rows(Path(root), cohort)
    return _paper_rows(Path(root), cohort) + case_rows, broken


def misses(rows: list[StudyRow], variant: str) -> list[str]:
    """The cases not defended under ``variant``."""
    return [r.case for r in rows if not r.defended[variant]]


def summary_lines(rows: list[StudyRow], broken: list[str]) -> list[str]:
    """The study in a few lines: counts, each checker's misses, what both miss."""
    by_origin = {o: sum(r.origin.startswith(o) for r in rows) for o in ("paper", "independent", "issue")}
    stopped = sum(r.stopped_before_read for r in rows)
    lines = [f"{len(rows)} mutation cases under P3 ({by_origin['paper']} of the paper incl. CRLF, "
             f"{by_origin['independent']} by the independent helper, {by_origin['issue']} named by issue 15): "
             f"{stopped} stopped before the stub read a byte, {sum(r.neutralised for r in rows)} neutralised "
             f"(forged structure rendered as data), {len(misses(rows, 'both'))} got through.",
             f"Both checkers miss: {', '.join(misses(rows, 'both')) or 'none'}."]
    for variant, name in (("inline only", "the disk audit off (inline checker only, run twice)"),
                          ("audit only", "the inline checker off (disk audit only)")):
        missed = misses(rows, variant)
        lines.append(f"With {name}: {len(missed)} missed{': ' + ', '.join(missed) if missed else ''}.")
    lines.append(f"Fault-free controls broken under any variant: {', '.join(broken) or 'none'}.")
    return lines


def mutations_table(rows: list[StudyRow], broken: list[str]) -> str:
    """The study as Markdown: one row per case, then the summary."""
    yes = {True: "yes", False: "**no**"}
    cells = []
    for r in rows:
        stop = r.first_stop if r.stopped_before_read or not r.defended["both"] else "neutralised (completed)"
        cells.append([r.origin, r.case, r.obligation, r.attacks, stop, r.reads,
                      *(yes[r.defended[v]] for v in ("both", "inline only", "audit only"))])
    columns = ("origin", "case", "obligation", "attacks", "first stop (both checkers)", "stub reads",
               "defended: both", "inline only", "audit only")
    return Table.from_lists(columns, cells, notes=tuple(summary_lines(rows, broken))).to_markdown()


def mutations_csv(rows: list[StudyRow]) -> str:
    """One CSV row per case."""
    cells = [[r.origin, r.case, r.obligation, r.first_stop, r.reads, str(r.stopped_before_read).lower(),
              *(str(r.defended[v]).lower() for v in VARIANTS)] for r in rows]
    return Table.from_lists(("origin", "case", "obligation", "first_stop", "stub_reads", "stopped_before_read",
                             "defended_both", "defended_inline_only", "defended_audit_only"), cells).to_csv()


def _obligation_rows(rows: list[StudyRow]) -> list[list[Any]]:
    """Per obligation: its text, cases tried, stopped before the stub read, neutralised, missed (three ways)."""
    out = []
    for number, text in OBLIGATIONS.items():
        mine = [r for r in rows if r.obligation == number]
        out.append([f"{number} {text}", len(mine), sum(r.stopped_before_read for r in mine),
                    sum(r.neutralised for r in mine), len(misses(mine, "both")),
                    len(misses(mine, "inline only")), len(misses(mine, "audit only"))])
    return out


def obligations_table(rows: list[StudyRow]) -> str:
    """Evidence per obligation: cases tried, stopped before the stub read, neutralised, missed (both checkers)."""
    return Table.from_lists(("obligation", "cases tried", "stopped before the stub read", "neutralised", "missed",
                             "missed, inline checker only", "missed, disk audit only"),
                            _obligation_rows(rows)).to_markdown()


def obligations_csv(rows: list[StudyRow]) -> str:
    """Evidence per obligation as CSV (the table the report shows)."""
    return Table.from_lists(("obligation", "cases_tried", "stopped_before_read", "neutralised", "missed",
                             "missed_inline_only", "missed_audit_only"), _obligation_rows(rows)).to_csv()
