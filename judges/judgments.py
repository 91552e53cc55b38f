"""The judgments log: one JSON line per (item_id, condition, seed), read strictly and recovered after a kill.

``scan_log`` reads a log for resuming without touching it and
``write_log`` / ``recover_log`` then rewrite it (a torn last line, error
lines and duplicates dropped); ``load_judgments`` reads a finished or
interrupted run for tables and reports; ``sort_log`` gives the final,
byte-stable order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orgbench.core.errors import InputError
from orgbench.core.storage import write_text_atomic

JUDGMENTS = "judgments.jsonl"

JobKey = tuple[str, str, int]


def _row_key(row: Any, path: Path, number: int) -> JobKey:
    try:
        return (str(row["item_id"]), str(row["condition"]), int(row["seed"]))
    except (TypeError, KeyError, ValueError):
        raise InputError(f"{path}:{number}: a judgment needs item_id, condition and seed") from None


def _decode(path: Path, data: bytes) -> str:
    """The text of a judgments log (InputError naming the first line that is not UTF-8)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}:{line}: not UTF-8 ({exc.reason})") from None


def scan_log(path: Path) -> tuple[dict[JobKey, str], bool]:
    """Read a judgments log for resuming without changing it: the lines to keep by key, and whether to rewrite.

    Kept are the finished judgments; a torn last line, error lines, blank
    lines and repeated keys are left out (and make ``recover_log`` rewrite).
    """
    path = Path(path)
    if not path.exists():
        return {}, False
    data = path.read_bytes()
    rewrite = bool(data) and not data.endswith(b"\n")
    data = data[:data.rfind(b"\n") + 1]
    kept: dict[JobKey, str] = {}
    for number, raw in enumerate(_decode(path, data).splitlines(), start=1):
        if not raw.strip():
            rewrite = True
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
        key = _row_key(row, path, number)
        if row.get("error") or key in kept:
            rewrite = True
            continue
        kept[key] = raw
    return kept, rewrite


def write_log(path: Path, kept: dict[JobKey, str]) -> None:
    """Rewrite a judgments log atomically with only the ``kept`` lines (as ``scan_log`` returned them)."""
    write_text_atomic(Path(path), "".join(line + "\n" for line in kept.values()))


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
    data = path.read_bytes()
    lines = _decode(path, data[:data.rfind(b"\n") + 1]).split("\n")
    lines.pop()  # what followed the last newline (nothing, or a line torn by a kill, maybe inside a character) is gone
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
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
    lines = path.read_text(encoding="utf-8").splitlines()
    keyed = []
    for raw in lines:
        row = json.loads(raw)
        keyed.append(((str(row["item_id"]), str(row["condition"]), int(row["seed"])), raw))
    ordered = sorted(keyed, key=lambda pair: pair[0])
    if ordered != keyed:
        write_text_atomic(path, "".join(raw + "\n" for _, raw in ordered))
