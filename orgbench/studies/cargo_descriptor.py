"""CARGO-Bench as ``orgbench reproduce`` and ``list`` see it (the study itself: ``orgbench.studies.cargo``)."""

from __future__ import annotations

from pathlib import Path

from orgbench.studies.descriptor import Study, read_json_or_none

#: How the tables name the paper's published rows (its judge: gpt-oss-120b).
PAPER_JUDGE = "paper: gpt-oss-120b"
#: The built-in judges the results set beside the paper when no LLM judge ran, the rule-based reader first.
BESIDE_PAPER = ("builtin:grounded", "builtin:literal")

STUDY = Study(
    name="cargo",
    title="CARGO-Bench",
    reproduce="orgbench.studies.cargo:reproduce",
    serves="judge",
    builtin="orgbench.studies.cargo_descriptor:builtin_judges",
    parts_name="families",
    parts="benchmark_builders.cargo.records:FAMILIES",
    conditions="orgbench.studies.cargo:RUN_CONDITIONS",
    suites=("cargo",),
    heading="CARGO-Bench: reference-based judges on live instances",
    intro="Penalty rate per family (lower is better for P1/P3, higher for P2/P4) and DI = TP − FP with "
          "item-level bootstrap 95% CIs. Rows marked 'paper' are the published numbers (gpt-oss-120b); "
          "ours come from the judge named in each row.",
    note="CARGO-Bench (Chhabra et al.): penalty rates per family and DI per prompt condition, the rubric "
         "swap, and retrieval gating (risk–coverage).",
    tables_kind="CARGO tables", rows_from="CARGO tables", rows_are="judges",
    present="orgbench.studies.cargo_descriptor:judges_present",
    comparison="orgbench.report.readme:cargo_comparison",
)


def judges_present(folder: Path) -> list[str] | None:
    """The judges whose runs ``scores.json`` holds (None when it is absent or unreadable)."""
    scores = read_json_or_none(folder / "scores.json")
    if not isinstance(scores, dict):
        return None
    return [str(r.get("judge")) for r in scores.get("runs", []) if isinstance(r, dict)]


def builtin_judges() -> tuple[str, ...]:
    """The built-in CARGO judges, as specs: every built-in backend serving CARGO, by its names (builtin:literal, …)."""
    from judges.backends.registry import BACKENDS

    return tuple(spec for backend in BACKENDS.all() if backend.builtin and backend.serves("cargo", "judge")
                 for spec in backend.specs())
