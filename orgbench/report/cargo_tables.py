"""CARGO-Bench tables and figure from runs: Table 1 (headline), Table 2 (ablations), Table 3 (rubric swap).

Each table is written as Markdown, CSV and LaTeX (``orgbench.core.tables``)
with the paper's published row beside ours, from the scores of
``judges.cargo_scores``; the risk–coverage figure (retrieval gating of the
CARGO condition) is a PNG with fixed metadata, so its bytes are
deterministic, and a CSV.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from benchmark_builders.cargo.records import families_in
from judges.cargo_scores import COVERAGES, RunScores, gating_curves, run_suite, score_run, suite_of_runs
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, write_bytes_atomic, write_json, write_text_atomic
from orgbench.core.tables import Table, write_table
from orgbench.report.cargo_breakdown import write_breakdown
from orgbench.studies.descriptor import PAPER_JUDGE

__all__ = ["COLUMNS", "COVERAGES", "PAPER", "PAPER_JUDGE", "TABLES", "selective_risk_rows", "table_rows",
           "write_selective_risk", "write_tables"]

#: The paper's published rows (gpt-oss-120b; mean of 3 judge seeds; Table 3: seed 0, 150 items): penalty rate per
#: family it reports (a family it does not report is shown as "–").
PAPER: dict[str, dict[str, Any]] = {
    "noref": {"rates": {"P1": 0.44, "P3": 0.64, "P2": 0.96, "P4": 0.66}, "di": 0.24, "ci": (0.13, 0.35)},
    "direct": {"rates": {"P1": 1.00, "P3": 1.00, "P2": 1.00, "P4": 1.00}, "di": 0.00, "ci": (0.00, 0.00)},
    "direct+ctx": {"rates": {"P1": 1.00, "P3": 1.00, "P2": 1.00, "P4": 1.00}, "di": 0.00, "ci": (0.00, 0.00)},
    "cargo": {"rates": {"P1": 0.00, "P3": None, "P2": 1.00, "P4": 0.20}, "di": 0.58, "ci": (0.48, 0.68)},
    "cargo+auth": {"rates": {"P1": 0.00, "P3": 0.04, "P2": 1.00, "P4": 0.20}, "di": 0.57, "ci": (0.47, 0.67)},
    "cargo-ctx": {"rates": {"P1": 0.00, "P3": 0.06, "P2": 0.92, "P4": 0.20}, "di": 0.52, "ci": (0.42, 0.62)},
    "cargo-exemplar": {"rates": {"P1": 0.00, "P3": 0.02, "P2": 1.00, "P4": 0.20}, "di": 0.59, "ci": (0.49, 0.68)},
    "cargo-unv": {"rates": {"P1": 0.00, "P3": 0.02, "P2": 1.00, "P4": 0.20}, "di": 0.59, "ci": (0.49, 0.68)},
    "direct/golden-ref": {"rates": {"P1": 1.00, "P3": 1.00, "P2": 1.00, "P4": 1.00}, "di": 0.00, "ci": None},
    "direct/ctx-grounded": {"rates": {"P1": 0.03, "P3": 0.17, "P2": 0.90, "P4": 0.33}, "di": 0.49, "ci": None},
    "cargo/golden-ref": {"rates": {"P1": 0.23, "P3": 0.40, "P2": 1.00, "P4": 0.47}, "di": 0.39, "ci": None},
    "cargo/ctx-grounded": {"rates": {"P1": 0.00, "P3": 0.02, "P2": 1.00, "P4": 0.10}, "di": 0.54, "ci": None},
}
TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "table1_headline": ("Table 1: headline conditions", ("noref", "direct", "direct+ctx", "cargo", "cargo+auth")),
    "table2_ablations": ("Table 2: component ablations (cargo+kinds: not in the paper; names the corruption kinds)",
                         ("cargo-ctx", "cargo-exemplar", "cargo-unv", "cargo+kinds")),
    "table3_rubric_swap": ("Table 3: rubric swap (prompt / rubric)", (
        "direct/golden-ref", "direct/ctx-grounded", "cargo/golden-ref", "cargo/ctx-grounded")),
}


def columns(families: Sequence[str]) -> tuple[str, ...]:
    """A table's columns: condition, judge, a rate per family (``families_in``'s order), DI and its counts."""
    return ("condition", "judge", *families, "DI", "CI95", "judged", "cannot_decide", "unparsed")


#: The columns of a suite of orgbench's own families (a plugin family present in the suite adds its column).
COLUMNS = columns(families_in(()))

def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    text = f"{x:.2f}"
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


def table_rows(runs: Sequence[RunScores], conditions: Sequence[str],
               families: Sequence[str] = families_in(())) -> list[dict[str, str]]:
    """One row per (condition, judge) in our runs, each condition followed by the paper's row."""
    rows = []
    for condition in conditions:
        for run in runs:
            score = run.scores.get(condition)
            if score is None:
                continue
            mean = score.mean
            judged = sum(mean.judged.values())
            rows.append({"condition": condition, "judge": run.judge,
                         **{f: _fmt(mean.rates.get(f)) for f in families},
                         "DI": _fmt(mean.di), "CI95": "one verdict, no CI" if mean.one_verdict else f"[{_fmt(mean.ci_low)}, {_fmt(mean.ci_high)}]",
                         "judged": str(judged), "cannot_decide": str(score.cannot_decide),
                         "unparsed": str(score.unparsed)})
        paper = PAPER.get(condition)
        if paper:
            ci = paper["ci"]
            rows.append({"condition": condition, "judge": PAPER_JUDGE,
                         **{f: _fmt(paper["rates"].get(f)) for f in families}, "DI": _fmt(paper["di"]),
                         "CI95": f"[{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "–",
                         "judged": "–", "cannot_decide": "–", "unparsed": "–"})
    return rows


def _plot(curves: Sequence[Mapping[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({"svg.hashsalt": "orgbench", "font.family": "DejaVu Sans"})
    fig, ax = plt.subplots(figsize=(6.0, 4.0), dpi=100)
    styles = (("-", "o", 0), ("--", "s", 3), (":", "^", 6), ("-.", "D", 9), ("-", "v", 1), ("--", "x", 4))
    for index, entry in enumerate(curves):  # identical curves stay apart: own dash, marker and marker offset
        curve = entry["curve"]
        dash, marker, offset = styles[index % len(styles)]
        every = max(1, len(curve.coverage) // 10)
        ax.step(curve.coverage, curve.risk, where="post", linestyle=dash, marker=marker, markersize=5,
                markevery=(offset % every, every), fillstyle="none", label=f"{entry['judge']} (AURC {curve.aurc:.3f})")
    ax.set_xlabel("coverage (share of questions judged, margin ≥ τ)")
    ax.set_ylabel("selective risk")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title("CARGO retrieval gating: risk–coverage")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    write_bytes_atomic(path, buffer.getvalue())


SELECTIVE_COLUMNS = ("judge", "condition", "target coverage", "coverage reached (smallest ≥ target)", "tau",
                     "selective risk", "AURC")
SELECTIVE_TITLE = "Selective risk at fixed coverages: CARGO condition gated by retrieval margin"
SELECTIVE_NOTE = ("Coverage reached is the smallest coverage any threshold τ gives that is at least the target "
                  "(margins tie, so a target may be unreachable exactly); selective risk is measured there.")


def selective_risk_rows(scores: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per judge and target coverage from scores.json's gating entries."""
    rows = []
    for entry in scores.get("gating", []):
        for point in entry["selective_risk"].values():
            rows.append({"judge": entry["judge"], "condition": entry["condition"],
                         "target coverage": f"{point['target_coverage']:.2f}",
                         SELECTIVE_COLUMNS[3]: f"{point['coverage_reached']:.3f}", "tau": f"{point['tau']:.3f}",
                         "selective risk": f"{point['risk']:.3f}", "AURC": f"{entry['aurc']:.3f}"})
    return rows


def write_selective_risk(out_dir: Path) -> list[Path]:
    """Write selective_risk.{md,csv,tex} from ``out_dir``/scores.json (written by ``write_tables``)."""
    out_dir = Path(out_dir)
    rows = selective_risk_rows(read_json(out_dir / "scores.json"))
    table = Table.from_records(SELECTIVE_COLUMNS, rows, title=SELECTIVE_TITLE, notes=(SELECTIVE_NOTE,),
                               latex_header={"tau": "$\\tau$"})
    return write_table(out_dir, "selective_risk", table)


def _each_once(runs: list[RunScores]) -> list[RunScores]:
    """``runs``, unless two hold one judge's condition: its row would be written twice and every judgment of the
    breakdown counted twice (a run given twice, or a copy of it); InputError naming both."""
    first: dict[tuple[str, str], Path] = {}
    for run in runs:
        for condition in run.scores:
            seen = first.setdefault((run.judge, condition), run.run_dir)
            if seen != run.run_dir or sum(r.run_dir == seen for r in runs) > 1:
                raise InputError(f"RUNS: {run.run_dir} and {seen} both hold {run.judge} under {condition}; give each "
                                 "run once (a judge's condition is scored from one run)")
    return runs


def write_tables(run_dirs: Sequence[Path], suite_dir: Path | None, out_dir: Path, *,
                 resamples: int = 10_000) -> list[Path]:
    """Write Tables 1–3 and selective risk (md, csv, tex), the risk–coverage PNG and CSV, and scores.json.

    Returns the paths written.

    ``suite_dir`` None means the suite the runs' run.json records (see ``suite_of_runs``).
    """
    truth = suite_of_runs(run_dirs, suite_dir)
    runs = _each_once([score_run(Path(r), truth, resamples=resamples) for r in run_dirs])
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    families = families_in(truth.families.values())
    for stem, (title, conditions) in TABLES.items():
        written += write_table(out_dir, stem, Table.from_records(columns(families), table_rows(runs, conditions, families),
                                                                 title=title))
    curves = gating_curves(runs, truth)
    rows = [{"judge": c["judge"], "condition": c["condition"], **{k: round(v, 6) for k, v in point.items()}}
            for c in curves for point in c["curve"].to_rows()]
    curve_columns = ("judge", "condition", "tau", "coverage", "risk")
    curve_rows = [tuple(str(row[c]) for c in curve_columns) for row in rows]
    write_text_atomic(out_dir / "risk_coverage.csv", Table(curve_columns, tuple(curve_rows)).to_csv())
    written.append(out_dir / "risk_coverage.csv")
    if curves:
        _plot(curves, out_dir / "risk_coverage.png")
        written.append(out_dir / "risk_coverage.png")
    summary = {"runs": [{"judge": run.judge, "conditions": {c: s.to_json() for c, s in sorted(run.scores.items())}}
                        for run in runs],
               "gating": [{"judge": c["judge"], "condition": c["condition"], "aurc": round(c["curve"].aurc, 6),
                           "selective_risk": {str(k): {"target_coverage": k, "coverage_reached": round(v[1], 6),
                                                       "risk": round(v[0], 6), "tau": round(v[2], 6)}
                                              for k, v in c["selective"].items()}}
                          for c in curves]}
    write_json(out_dir / "scores.json", summary)
    written.append(out_dir / "scores.json")
    written.extend(write_selective_risk(out_dir))
    written.extend(write_breakdown(run_dirs, suite_dir or run_suite(run_dirs[0])[1], out_dir))
    return written
