"""The judgments log: one JSON line per (item_id, condition, seed), read strictly and recovered after a kill.

``scan_log`` reads a log for resuming without touching it and
``write_log`` / ``recover_log`` then rewrite it (a torn last line, error
lines and duplicates dropped); ``load_judgments`` reads a finished or
interrupted run for tables and reports; ``sort_log`` gives the final,
byte-stable order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.journal import Journal
from orgbench.core.errors import InputError
from orgbench.core.jsonl import iter_jsonl

JUDGMENTS = "judgments.jsonl"

JobKey = tuple[str, str, int]


def _row_key(row: Any, path: Path, number: int) -> JobKey:
    try:
        return (str(row["item_id"]), str(row["condition"]), int(row["seed"]))
    except (TypeError, KeyError, ValueError):
        raise InputError(f"{path}:{number}: a judgment needs item_id, condition and seed") from None


def journal(path: Path) -> Journal:
    """The judgments log as a journal: keyed by (item_id, condition, seed), bound by run.json, errors retried."""
    path = Path(path)
    return Journal(path, key=lambda row, number: _row_key(row, path, number),
                   resumable=lambda row: not row.get("error"))


def scan_log(path: Path) -> tuple[dict[JobKey, str], bool]:
    """Read a judgments log for resuming without changing it: the lines to keep by key, and whether to rewrite.

    Kept are the finished judgments; a torn last line, error lines, blank
    lines and repeated keys are left out (and make ``recover_log`` rewrite).
    """
    found = journal(path).recover()
    return found.lines, found.dirty  # type: ignore[return-value]


def write_log(path: Path, kept: dict[JobKey, str]) -> None:
    """Rewrite a judgments log atomically with only the ``kept`` lines (as ``scan_log`` returned them)."""
    journal(path).rewrite(kept.values())


def recover_log(path: Path) -> dict[JobKey, str]:
    """Prepare a judgments log for resuming (see ``scan_log``), rewriting it if anything was left out."""
    kept, rewrite = scan_log(path)
    if rewrite:
        write_log(path, kept)
    return kept


def load_judgments(run_dir: Path) -> list[dict[str, Any]]:
    """Every judgment of a run, in file order (a torn last line from a killed run is ignored)."""
    path = Path(run_dir) / JUDGMENTS
    if not path.exists():
        raise InputError(f"{path}: file not found")
    rows = []
    for number, row in iter_jsonl(path, journal=True):
        problem = _judgment_problem(row)
        if problem:
            raise InputError(f"{path}:{number}: {problem}")
        rows.append(row)
    return rows


def _judgment_problem(row: Any) -> str | None:
    """What makes ``row`` unusable as a judgment line (None when it is usable)."""
    if not isinstance(row, dict):
        return "not a JSON object"
    for name in ("item_id", "condition"):
        if not isinstance(row.get(name), str):
            return f"field {name!r} missing or not text"
    if not isinstance(row.get("seed"), int) or isinstance(row.get("seed"), bool):
        return "field 'seed' missing or not an integer"
    if row.get("penalized") not in (True, False, None):
        return "field 'penalized' not true, false or null"
    if not isinstance(row.get("verdict"), (dict, type(None))):
        return "field 'verdict' not an object or null"
    return None


def sort_log(path: Path) -> None:
    """Rewrite the log sorted by key (atomically), unless it already is."""
    journal(path).finish()
