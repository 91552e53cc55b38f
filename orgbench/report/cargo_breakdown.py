"""CARGO penalty rates broken down: per P2 value kind, per P4 kind and per answer style, for every run and condition.

The breakdown reads the suite's ``truth.jsonl`` (``variety``: the P2 value kind or the P4 kind; ``variant``:
the answer style) and the runs' judgments; a rate is penalised / judged over every judge seed, so with
several seeds it is the mean over seeds. cannot_decide and unparsed answers are not judged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from judges.cargo_scores import load_cargo_judgments
from orgbench.core.storage import read_json, write_text_atomic
from orgbench.core.jsonl import read_jsonl
from orgbench.core.tables import Table

COLUMNS = ("judge", "condition", "family", "by", "group", "penalised", "judged", "rate")


def _groups(truth_row: dict) -> list[tuple[str, str]]:
    groups = [("style", str(truth_row.get("variant")))]
    if truth_row["family"] in ("P2", "P4") and truth_row.get("variety"):
        groups.append(("P2 value kind" if truth_row["family"] == "P2" else "P4 kind", truth_row["variety"]))
    return groups


def breakdown_rows(run_dirs: Sequence[Path], suite_dir: Path) -> list[dict[str, str]]:
    """One row per (judge, condition, family, grouping, group), sorted."""
    truth = {row["item_id"]: row for _, row in read_jsonl(Path(suite_dir) / "truth.jsonl").numbered()}
    counts: dict[tuple[str, ...], list[int]] = {}
    for run_dir in run_dirs:
        meta = read_json(Path(run_dir) / "run.json")
        judge = meta.get("judge", Path(run_dir).name) if isinstance(meta, dict) else Path(run_dir).name
        for row in load_cargo_judgments(Path(run_dir)):
            if row.penalized is None:
                continue
            item = truth[row.item_id]
            for by, group in _groups(item):
                cell = counts.setdefault((judge, row.condition, item["family"], by, group), [0, 0])
                cell[0] += row.penalized
                cell[1] += 1
    return [{"judge": k[0], "condition": k[1], "family": k[2], "by": k[3], "group": k[4],
             "penalised": str(p), "judged": str(n), "rate": f"{p / n:.2f}"}
            for k, (p, n) in sorted(counts.items())]


def write_breakdown(run_dirs: Sequence[Path], suite_dir: Path, out_dir: Path) -> list[Path]:
    """Write breakdown.csv and breakdown.md (the cargo condition only in the Markdown) into ``out_dir``."""
    table = Table.from_records(COLUMNS, breakdown_rows(run_dirs, suite_dir),
                               title="Penalty rate by P2 value kind, P4 kind and answer style (condition cargo)")
    out_dir = Path(out_dir)
    cargo_only = table.with_rows([row for row in table.rows if row[COLUMNS.index("condition")] == "cargo"])
    write_text_atomic(out_dir / "breakdown.csv", table.to_csv())
    write_text_atomic(out_dir / "breakdown.md", cargo_only.to_markdown())
    return [out_dir / "breakdown.csv", out_dir / "breakdown.md"]
