"""The assurance study's outputs: the fault study, the mutation study and the later-context contrast, as tables.

Each ``run_*`` runs its study (in throwaway workspaces, memory-backed where
there is one) and writes its Markdown, CSV and LaTeX under ``out``; commands
and ``orgbench reproduce`` call them alike.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["run_contrast", "run_faults", "run_mutations"]


def _scratch(prefix: str) -> tempfile.TemporaryDirectory:
    """A throwaway workspace: in a memory-backed folder when there is one (the runs fsync every step record)."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix=prefix, dir=shm)


def run_faults(out: Path) -> tuple[str, list]:
    """Run the fault study, write faults.md, .csv and .tex under ``out``; return the summary and the outcomes."""
    from benchmark_builders.trajectories.cohort import fault_cohort
    from orgbench.report.fault_report import faults_csv, faults_latex, faults_table
    from judges.assurance.faults import run_study
    from orgbench.core.storage import write_text_atomic

    with _scratch("orgbench-faults-") as tmp:
        outcomes = run_study(Path(tmp), cohort=fault_cohort(Path(tmp) / "built"))
    write_text_atomic(Path(out) / "faults.csv", faults_csv(outcomes))
    table = faults_table(outcomes)
    write_text_atomic(Path(out) / "faults.md", "# Fault study: 19 cases, CRLF and two controls under P0-P3\n\n" + table)
    write_text_atomic(Path(out) / "faults.tex", faults_latex(outcomes))
    return table.split("\n\n")[-1].strip(), outcomes


def run_mutations(out: Path) -> list[str]:
    """Run the mutation study; write mutations.md/.csv and obligations.md/.csv under ``out``; the summary lines."""
    from benchmark_builders.trajectories.cohort import fault_cohort
    from judges.assurance.mutation_study import (mutations_csv, mutations_table, obligations_csv,
                                                 obligations_table, run_mutation_study, summary_lines)
    from orgbench.core.storage import write_text_atomic

    with _scratch("orgbench-mutations-") as tmp:
        rows, broken = run_mutation_study(Path(tmp), cohort=fault_cohort(Path(tmp) / "built"))
    write_text_atomic(Path(out) / "mutations.csv", mutations_csv(rows))
    write_text_atomic(Path(out) / "mutations.md", "# Mutation study under P3: each case with both checkers, the "
                      "inline checker only, the disk audit only\n\n" + mutations_table(rows, broken))
    write_text_atomic(Path(out) / "obligations.csv", obligations_csv(rows))
    write_text_atomic(Path(out) / "obligations.md", "# Evidence per obligation (mutation study, P3)\n\n"
                      + obligations_table(rows))
    return summary_lines(rows, broken)


def run_contrast(source: Path, out: Path, backend, draws: int, *, per_packet_csv: bool = True,
                 work: Path | None = None, limit: int | None = None) -> tuple[str, list]:
    """Judge the cohort's eight packets per trajectory (the first ``limit`` trajectories) through the checked
    pipeline (workspace ``work``, by default a temporary one); write contrast.json / .md / .csv / .tex (and
    flags.csv). The judge's answers are journaled in ``out/.contrast.journal.jsonl`` until dispatch has them all:
    the same command after a kill asks only what is unanswered."""

    from benchmark_builders.trajectories.records import read_suite
    from judges.assurance.contrast import (
        contrast_csv, contrast_latex, contrast_summary, contrast_table, flags_csv, judge_cohort,
    )
    from orgbench.core.errors import InputError
    from orgbench.core.storage import dumps_pretty, write_text_atomic

    trajectories, labels = read_suite(source)
    if not trajectories:
        raise InputError(f"{Path(source) / 'trajectories.jsonl'}: no trajectories")
    with tempfile.TemporaryDirectory(prefix="orgbench-contrast-") as tmp:
        if limit:
            source = _first_of_cohort(source, trajectories, labels, limit, Path(tmp) / "suite")
        judged = judge_cohort(source, Path(work) if work is not None else Path(tmp) / "work", backend, draws=draws,
                              journal=Path(out) / ".contrast.journal.jsonl")
    summary = contrast_summary(judged)
    judge = backend.name
    summary["judge"] = judge
    summary["draws"] = draws
    write_text_atomic(Path(out) / "contrast.json", dumps_pretty(summary))
    write_text_atomic(Path(out) / "contrast.md", "# Later-context contrast\n\n" + contrast_table(summary))
    write_text_atomic(Path(out) / "contrast.csv", contrast_csv(summary, judge))
    write_text_atomic(Path(out) / "contrast.tex", contrast_latex(summary, judge))
    if per_packet_csv:
        write_text_atomic(Path(out) / "flags.csv", flags_csv(judged))
    g = summary["G"]
    return f"G original {g['original']}, restored {g['restored']}, reduction {g['reduction']} -> {out}", judged


def _first_of_cohort(source: Path, trajectories: list, labels: dict, limit: int, into: Path) -> Path:
    """A sealed copy of ``source`` holding only the first ``limit`` trajectories of its contrast cohort."""
    from benchmark_builders.trajectories.records import write_suite
    from judges.assurance.contrast import cohort
    from orgbench.core.storage import read_json

    keep = [trajectory for trajectory, _ in cohort(trajectories, labels)[:limit]]
    meta = {**read_json(Path(source) / "suite.json"), "limited_from": str(source), "limit": limit}
    write_suite(into, keep, [labels[t.trajectory_id] for t in keep], meta)
    return into
