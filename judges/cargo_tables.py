"""CARGO-Bench tables and figure from runs: Table 1 (headline), Table 2 (ablations), Table 3 (rubric swap).

Tables are computed from run directories and the suite's truth files only,
so any table can be rebuilt without calling a judge again. The suite is the
one the runs' ``run.json`` records (its digest, and its path unless another
copy is named); every run must have judged it, and a judgment of an item the
suite's truth does not hold is an error, never dropped. Each table is
written as Markdown, CSV and LaTeX with the paper's published row beside
ours; the risk–coverage figure (retrieval gating of the CARGO condition) is
a PNG with fixed metadata, so its bytes are deterministic, and a CSV.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from benchmark_builders.cargo.identity import suite_digest
from judges.metrics import (
    FAMILIES, SHOULD_PENALIZE, ConditionScore, gating_loss, penalty_table, risk_coverage, score_condition,
)
from judges.judgments import JUDGMENTS, load_judgments
from judges.runner import RUN_JSON
from judges.cargo_breakdown import write_breakdown
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, write_json, write_text_atomic
from orgbench.core.jsonl import iter_jsonl

#: The paper's published rows (gpt-oss-120b; mean of 3 judge seeds; Table 3: seed 0, 150 items).
PAPER: dict[str, dict[str, Any]] = {
    "noref": {"rates": (0.44, 0.64, 0.96, 0.66), "di": 0.24, "ci": (0.13, 0.35)},
    "direct": {"rates": (1.00, 1.00, 1.00, 1.00), "di": 0.00, "ci": (0.00, 0.00)},
    "direct+ctx": {"rates": (1.00, 1.00, 1.00, 1.00), "di": 0.00, "ci": (0.00, 0.00)},
    "cargo": {"rates": (0.00, None, 1.00, 0.20), "di": 0.58, "ci": (0.48, 0.68)},
    "cargo+auth": {"rates": (0.00, 0.04, 1.00, 0.20), "di": 0.57, "ci": (0.47, 0.67)},
    "cargo-ctx": {"rates": (0.00, 0.06, 0.92, 0.20), "di": 0.52, "ci": (0.42, 0.62)},
    "cargo-exemplar": {"rates": (0.00, 0.02, 1.00, 0.20), "di": 0.59, "ci": (0.49, 0.68)},
    "cargo-unv": {"rates": (0.00, 0.02, 1.00, 0.20), "di": 0.59, "ci": (0.49, 0.68)},
    "direct/golden-ref": {"rates": (1.00, 1.00, 1.00, 1.00), "di": 0.00, "ci": None},
    "direct/ctx-grounded": {"rates": (0.03, 0.17, 0.90, 0.33), "di": 0.49, "ci": None},
    "cargo/golden-ref": {"rates": (0.23, 0.40, 1.00, 0.47), "di": 0.39, "ci": None},
    "cargo/ctx-grounded": {"rates": (0.00, 0.02, 1.00, 0.10), "di": 0.54, "ci": None},
}
PAPER_JUDGE = "paper: gpt-oss-120b"
TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "table1_headline": ("Table 1: headline conditions", ("noref", "direct", "direct+ctx", "cargo", "cargo+auth")),
    "table2_ablations": ("Table 2: component ablations (cargo+kinds: not in the paper; names the corruption kinds)",
                         ("cargo-ctx", "cargo-exemplar", "cargo-unv", "cargo+kinds")),
    "table3_rubric_swap": ("Table 3: rubric swap (prompt / rubric)", (
        "direct/golden-ref", "direct/ctx-grounded", "cargo/golden-ref", "cargo/ctx-grounded")),
}
COLUMNS = ("condition", "judge", *FAMILIES, "DI", "CI95", "judged", "cannot_decide", "unparsed")
COVERAGES = (0.5, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class SuiteTruth:
    """What tables need from a suite: item families, retrieval margins and the gating truth."""

    families: Mapping[str, str]
    margins: Mapping[str, float]
    top1_correct: Mapping[str, bool]
    gating_ids: tuple[str, ...]

    @staticmethod
    def load(suite_dir: Path) -> "SuiteTruth":
        """Read truth.jsonl, retrieval.jsonl and gating_truth.jsonl of a suite."""
        suite_dir = Path(suite_dir)
        families, top1, margins, gating = {}, {}, {}, []
        for where, row in _rows(suite_dir / "truth.jsonl", "family"):
            if row["family"] not in SHOULD_PENALIZE:
                raise InputError(f"{where}: field 'family' is {row['family']!r}, not one of {', '.join(FAMILIES)}")
            families[row["item_id"]] = row["family"]
            top1[row["item_id"]] = bool(row.get("retrieval_top1_correct", True))
        for where, row in _rows(suite_dir / "retrieval.jsonl", "margin"):
            if isinstance(row["margin"], bool) or not isinstance(row["margin"], (int, float)):
                raise InputError(f"{where}: field 'margin' is not a number")
            margins[row["item_id"]] = float(row["margin"])
        gating = [row["item_id"] for _, row in _rows(suite_dir / "gating_truth.jsonl")]
        return SuiteTruth(families, margins, top1, tuple(sorted(gating)))


def _rows(path: Path, *fields: str):
    """(``path:line``, row) for each line of a suite truth file; InputError naming the line and the field."""
    for number, row in iter_jsonl(path):
        where = f"{path}:{number}"
        if not isinstance(row, dict):
            raise InputError(f"{where}: not a JSON object")
        if not isinstance(row.get("item_id"), str):
            raise InputError(f"{where}: field 'item_id' missing or not text")
        for name in fields:
            if name not in row:
                raise InputError(f"{where}: field {name!r} missing")
        yield where, row


@dataclass(frozen=True)
class RunScores:
    """One run's judge and its scored conditions (in table order)."""

    judge: str
    run_dir: Path
    scores: Mapping[str, ConditionScore]
    item_means: Mapping[str, np.ndarray]


def suite_binding(suite_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """What a run of ``suite_dir`` records: ``parameters`` {suite_digest} (binding) and ``locations`` {suite} (its path)."""
    return {"suite_digest": suite_digest(suite_dir)}, {"suite": str(Path(suite_dir).resolve())}


def run_suite(run_dir: Path) -> tuple[str, Path]:
    """The suite digest and path a run's run.json records (InputError naming run.json if it records none)."""
    path = Path(run_dir) / RUN_JSON
    meta = read_json(path)
    parameters = meta.get("parameters") if isinstance(meta, dict) else None
    locations = meta.get("locations") if isinstance(meta, dict) else None
    digest = parameters.get("suite_digest") if isinstance(parameters, dict) else None
    where = locations.get("suite") if isinstance(locations, dict) else None
    if not isinstance(digest, str) or not isinstance(where, str):
        raise InputError(f"{path}: names no suite digest and path (a run from before run.json format 2); judge "
                         "the suite again, e.g. with --judge replay:RUN into a new run directory")
    return digest, Path(where)


def suite_of_runs(run_dirs: Sequence[Path], suite_dir: Path | None = None) -> SuiteTruth:
    """The truth of the suite every run judged: ``suite_dir`` if given, else the first run's; InputError on any mismatch.

    A malformed truth file is named first, then a suite whose digest is not the runs'.
    """
    if not run_dirs:
        raise InputError("no runs given")
    recorded = [(Path(r) / RUN_JSON, *run_suite(r)) for r in run_dirs]
    first_json, digest, where = recorded[0]
    for path, other, _ in recorded[1:]:
        if other != digest:
            raise InputError(f"{path}: parameters.suite_digest is {other}, but {first_json} has {digest}: "
                             "the runs judged different suites")
    if suite_dir is None:
        if not where.is_dir():
            raise InputError(f"{first_json}: locations.suite {where} is not a directory (moved?); pass --suite")
        suite_dir = where
    truth = SuiteTruth.load(suite_dir)
    found = suite_digest(suite_dir)
    if found != digest:
        raise InputError(f"{first_json}: parameters.suite_digest is {digest}, but suite {suite_dir} has {found}: "
                         "not the suite this run judged")
    return truth


def score_run(run_dir: Path, truth: SuiteTruth, *, resamples: int = 10_000) -> RunScores:
    """Score every CARGO condition present in a run (mean of its judge seeds, bootstrap CI).

    Every judgment must be of an item in ``truth`` (InputError naming the log and the first unknown id).
    """
    run_dir = Path(run_dir)
    meta = read_json(run_dir / RUN_JSON)
    judge = meta.get("judge", run_dir.name) if isinstance(meta, dict) else run_dir.name
    rows = load_judgments(run_dir)
    if not rows:
        raise InputError(f"{run_dir / JUDGMENTS}: no judgments")
    unknown = next((r["item_id"] for r in rows if r["item_id"] not in truth.families), None)
    if unknown is not None:
        raise InputError(f"{run_dir / JUDGMENTS}: item {unknown} is not in the suite's truth.jsonl "
                         "(judged from another suite?)")
    conditions = sorted({r["condition"] for r in rows})
    scores, means = {}, {}
    for condition in conditions:
        table = penalty_table(rows, truth.families, condition)
        scores[condition] = score_condition(table, resamples=resamples)
        means[condition] = table.item_means()
    return RunScores(judge, run_dir, scores, means)


def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    text = f"{x:.2f}"
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


def table_rows(runs: Sequence[RunScores], conditions: Sequence[str]) -> list[dict[str, str]]:
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
                         **{f: _fmt(mean.rates.get(f)) for f in FAMILIES},
                         "DI": _fmt(mean.di), "CI95": f"[{_fmt(mean.ci_low)}, {_fmt(mean.ci_high)}]",
                         "judged": str(judged), "cannot_decide": str(score.cannot_decide),
                         "unparsed": str(score.unparsed)})
        paper = PAPER.get(condition)
        if paper:
            ci = paper["ci"]
            rows.append({"condition": condition, "judge": PAPER_JUDGE,
                         **{f: _fmt(r) for f, r in zip(FAMILIES, paper["rates"])}, "DI": _fmt(paper["di"]),
                         "CI95": f"[{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "–",
                         "judged": "–", "cannot_decide": "–", "unparsed": "–"})
    return rows


def to_markdown(title: str, rows: Sequence[Mapping[str, str]]) -> str:
    """A Markdown table with a title line."""
    lines = [f"### {title}", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row[c] for c in COLUMNS) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_csv(rows: Sequence[Mapping[str, str]]) -> str:
    """The table as CSV (header first, LF line ends)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _tex(text: str) -> str:
    return (text.replace("\\", "\\textbackslash{}").replace("&", "\\&").replace("%", "\\%")
            .replace("_", "\\_").replace("#", "\\#").replace("–", "--"))


def to_latex(title: str, rows: Sequence[Mapping[str, str]]) -> str:
    """A booktabs LaTeX table."""
    lines = ["\\begin{table}[t]", "\\centering", "\\small", "\\begin{tabular}{ll" + "r" * (len(COLUMNS) - 2) + "}",
             "\\toprule", " & ".join(_tex(c) for c in COLUMNS) + " \\\\", "\\midrule"]
    lines += [" & ".join(_tex(row[c]) for c in COLUMNS) + " \\\\" for row in rows]
    lines += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{_tex(title)}}}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def gating_curves(runs: Sequence[RunScores], truth: SuiteTruth, condition: str = "cargo") -> list[dict[str, Any]]:
    """Risk–coverage of gating ``condition`` by retrieval margin, per judge (judged items plus out-of-scope)."""
    item_ids = sorted(truth.families)
    should = np.array([SHOULD_PENALIZE[truth.families[i]] for i in item_ids], dtype=float)
    curves = []
    for run in runs:
        if condition not in run.item_means:
            continue
        means = run.item_means[condition]
        correct = np.where(np.isnan(means), np.nan, 1.0 - np.abs(means - should))
        correct = np.where([truth.top1_correct[i] for i in item_ids], correct, 0.0)
        ids = item_ids + list(truth.gating_ids)
        in_scope = np.array([True] * len(item_ids) + [False] * len(truth.gating_ids))
        loss = gating_loss(np.concatenate([correct, np.zeros(len(truth.gating_ids))]), in_scope)
        margins = np.array([truth.margins[i] for i in ids])
        curve = risk_coverage(margins, loss)
        curves.append({"judge": run.judge, "condition": condition, "curve": curve,
                       "selective": {c: curve.selective_risk(c) for c in COVERAGES}})
    return curves


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
    from orgbench.core.storage import write_bytes_atomic

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
    md = [f"### {SELECTIVE_TITLE}", "", "| " + " | ".join(SELECTIVE_COLUMNS) + " |",
          "|" + "---|" * len(SELECTIVE_COLUMNS)]
    md += ["| " + " | ".join(r[c] for c in SELECTIVE_COLUMNS) + " |" for r in rows]
    md += ["", SELECTIVE_NOTE]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SELECTIVE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    tex = ["\\begin{table}[t]", "\\centering", "\\small", "\\begin{tabular}{ll" + "r" * (len(SELECTIVE_COLUMNS) - 2) + "}",
           "\\toprule", " & ".join(_tex(c) for c in SELECTIVE_COLUMNS).replace("tau", "$\\tau$").replace("≥", "$\\geq$")
           + " \\\\",
           "\\midrule"]
    tex += [" & ".join(_tex(r[c]) for c in SELECTIVE_COLUMNS) + " \\\\" for r in rows]
    note = _tex(SELECTIVE_NOTE).replace("τ", "$\\tau$")
    tex += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{_tex(SELECTIVE_TITLE)}. {note}}}", "\\end{table}"]
    written = []
    for suffix, text in ((".md", "\n".join(md) + "\n"), (".csv", buffer.getvalue()), (".tex", "\n".join(tex) + "\n")):
        write_text_atomic(out_dir / f"selective_risk{suffix}", text)
        written.append(out_dir / f"selective_risk{suffix}")
    return written


def write_tables(run_dirs: Sequence[Path], suite_dir: Path | None, out_dir: Path, *,
                 resamples: int = 10_000) -> list[Path]:
    """Write Tables 1–3 and selective risk (md, csv, tex), the risk–coverage PNG and CSV, and scores.json.

    Returns the paths written.

    ``suite_dir`` None means the suite the runs' run.json records (see ``suite_of_runs``).
    """
    truth = suite_of_runs(run_dirs, suite_dir)
    runs = [score_run(Path(r), truth, resamples=resamples) for r in run_dirs]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, (title, conditions) in TABLES.items():
        rows = table_rows(runs, conditions)
        for suffix, text in ((".md", to_markdown(title, rows)), (".csv", to_csv(rows)),
                             (".tex", to_latex(title, rows))):
            write_text_atomic(out_dir / f"{stem}{suffix}", text)
            written.append(out_dir / f"{stem}{suffix}")
    curves = gating_curves(runs, truth)
    rows = [{"judge": c["judge"], "condition": c["condition"], **{k: round(v, 6) for k, v in point.items()}}
            for c in curves for point in c["curve"].to_rows()]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=("judge", "condition", "tau", "coverage", "risk"), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text_atomic(out_dir / "risk_coverage.csv", buffer.getvalue())
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
