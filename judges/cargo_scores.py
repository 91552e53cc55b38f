"""CARGO scores from runs: the suite's truth, each run's conditions scored, the retrieval-gating curves.

Scores are computed from run directories and the suite's truth files only,
so any table can be rebuilt without calling a judge again. The suite is the
one the runs' ``run.json`` records (its digest, and its path unless another
copy is named); every run must have judged it, and a judgment of an item the
suite's truth does not hold is an error, never dropped. The tables written
from them live in ``orgbench.report.cargo_tables``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from benchmark_builders.cargo.identity import suite_digest
from judges.cargo_binding import cargo_line, suite_binding
from judges.judgments import JUDGMENTS, Judgment, load_judgments
from judges.metrics import (
    FAMILIES, SHOULD_PENALIZE, ConditionScore, gating_loss, penalty_table, risk_coverage, score_condition,
)
from judges.run_record import RUN_JSON
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import read_json

__all__ = ["COVERAGES", "RunScores", "SuiteTruth", "cargo_line", "gating_curves", "load_cargo_judgments", "run_suite",
           "score_run", "suite_binding", "suite_of_runs"]

#: The target coverages at which selective risk is reported.
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
    for number, row in read_jsonl(path).numbered():
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


def _penalized_problem(row: Mapping[str, Any], judgment: Judgment) -> str | None:
    """What is wrong with a CARGO line's ``penalized`` (a line without one is read from its verdict)."""
    if "penalized" not in row:
        return None
    if row["penalized"] not in (True, False, None):
        return "field 'penalized' not true, false or null"
    if row["penalized"] is not judgment.penalized:
        return f"field 'penalized' is {row['penalized']} but the line's verdict and error say {judgment.penalized}"
    return None


def _stands_for(recorded: list[Any], groups: Mapping[str, Sequence[Any]]) -> set[Any]:
    """What a list run.json records stands for: a group's name its conditions' names, any other name or seed itself."""
    out: set[Any] = set()
    for value in recorded:
        if isinstance(value, str) and value in groups:
            out |= {c.name for c in groups[value]}
        elif isinstance(value, (str, int)):
            out.add(value)
    return out


def _outside_run(run_dir: Path) -> Callable[[Judgment], str | None]:
    """A test of a judgment's condition and seed against those run.json's ``parameters`` record (when it records
    them; a group such as "all" or "rubric-swap" stands for its conditions): a judgment the run never asked for
    would be scored as a condition of its own, or stand in for a missing one."""
    from judges.conditions import GROUPS

    meta = read_json(Path(run_dir) / RUN_JSON) if (Path(run_dir) / RUN_JSON).is_file() else None
    parameters = meta.get("parameters") if isinstance(meta, dict) else None
    recorded = {name: parameters.get(name) if isinstance(parameters, dict) else None for name in ("conditions", "seeds")}
    asked = {name: _stands_for(value, GROUPS) for name, value in recorded.items() if isinstance(value, list)}

    def problem(judgment: Judgment) -> str | None:
        for name, value in (("conditions", judgment.condition), ("seeds", judgment.seed)):
            if name in asked and value not in asked[name]:
                return (f"field {name[:-1]!r} is {value!r}, not one of the run's ({RUN_JSON} parameters.{name}: "
                        f"{', '.join(map(str, recorded[name] or ()))})")
        return None
    return problem


def load_cargo_judgments(run_dir: Path) -> list[Judgment]:
    """Every judgment of a finished CARGO run (``load_judgments``, each line's ``penalized`` checked against its
    verdict and its condition and seed against run.json's; a run stopped before the end is refused, saying to
    resume it)."""
    from judges.run_record import check_finished

    outside = _outside_run(run_dir)
    rows = load_judgments(run_dir, lambda row, judgment: _penalized_problem(row, judgment) or outside(judgment))
    check_finished(run_dir, rows)
    return rows


def score_run(run_dir: Path, truth: SuiteTruth, *, resamples: int = 10_000) -> RunScores:
    """Score every CARGO condition present in a run (mean of its judge seeds, bootstrap CI).

    Every judgment must be of an item in ``truth`` (InputError naming the log and the first unknown id).
    """
    run_dir = Path(run_dir)
    meta = read_json(run_dir / RUN_JSON)
    judge = meta.get("judge", run_dir.name) if isinstance(meta, dict) else run_dir.name
    rows = load_cargo_judgments(run_dir)
    if not rows:
        raise InputError(f"{run_dir / JUDGMENTS}: no judgments")
    unknown = next((r.item_id for r in rows if r.item_id not in truth.families), None)
    if unknown is not None:
        raise InputError(f"{run_dir / JUDGMENTS}: item {unknown} is not in the suite's truth.jsonl "
                         "(judged from another suite?)")
    conditions = sorted({r.condition for r in rows})
    scores, means = {}, {}
    for condition in conditions:
        table = penalty_table(rows, truth.families, condition)
        scores[condition] = score_condition(table, resamples=resamples)
        means[condition] = table.item_means()
    return RunScores(judge, run_dir, scores, means)


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
