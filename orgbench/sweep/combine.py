"""The sweep's combined table and report: every cell of the grid in one long table.

One row per (study, world config, seeds, agent or judge, mode or condition,
slice, metric): GroundEval rows aggregate each world's scored questions per
agent, mode and track (n, S_answer, S_traj, S_adj, violation rate);
CARGO rows give each suite's penalty rate per family and DI with its
bootstrap CI per judge and condition (mean over judge seeds). Written as
``table.csv`` and, when pyarrow is installed, ``table.parquet``; ``report.md``
summarises the grid (per agent and mode, per judge and condition, over all
worlds) and lists where each suite's own tables are.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from orgbench.core.tables import Table

COLUMNS = ("study", "world", "seeds", "agent", "condition", "slice", "metric", "value")
GROUNDEVAL_METRICS = ("n", "s_answer", "s_traj", "s_adj", "violation_rate")


def _groundeval_rows(scores: Path) -> Iterable[tuple]:
    from benchmark_builders.groundeval.tracks import track_names
    from judges.groundeval.question_score import QuestionScore
    from orgbench.core.jsonl import read_jsonl
    from orgbench.studies.groundeval_scores import GroupScore

    path = scores / "scores.jsonl"
    groups: dict[tuple[str, str], list[QuestionScore]] = defaultdict(list)
    origin: dict[tuple[str, str], tuple[str, str]] = {}     # (agent, mode) -> (world, seed) of its first line
    for number, row in read_jsonl(path).numbered():
        key = (row["agent"], row["mode"])
        groups[key].append(QuestionScore.from_json(row, str(path), number))
        origin.setdefault(key, (row["world"], str(row["seed"])))
    for (agent, mode), mine in sorted(groups.items()):
        world, seed = origin[(agent, mode)]
        for track in track_names(s.track for s in mine) + ("all",):
            group = GroupScore.of([s for s in mine if track == "all" or s.track == track]).to_json()
            for metric in GROUNDEVAL_METRICS:
                yield ("groundeval", world, seed, agent, mode, track, metric, float(group[metric]))


def _cargo_rows(tables: Path, world: str, seeds: str) -> Iterable[tuple]:
    from orgbench.core.storage import read_json

    for run in read_json(tables / "tables" / "scores.json")["runs"]:
        for condition, score in sorted(run["conditions"].items()):
            mean = score["mean_of_seeds"]
            for family, rate in sorted(mean["rates"].items()):
                yield ("cargo", world, seeds, run["judge"], condition, family, "penalty_rate", rate)
            for metric, value in (("di", mean["di"]), ("di_ci_low", mean["ci"][0]), ("di_ci_high", mean["ci"][1])):
                yield ("cargo", world, seeds, run["judge"], condition, "all", metric, value)


def combined_rows(finals: list[Path]) -> list[tuple]:
    """Every row of the combined table from the final stages (GroundEval scores, CARGO tables), sorted."""
    rows: list[tuple] = []
    for stage in finals:
        if (stage / "scores.jsonl").is_file():
            rows.extend(_groundeval_rows(stage))
        else:
            world, seeds = stage.parts[-3], stage.parts[-2].removeprefix("seeds-")
            rows.extend(_cargo_rows(stage, world, seeds))
    return sorted(rows, key=lambda r: (r[0], r[1], _seed_order(r[2]), r[3], r[4], r[5], r[6]))


def _seed_order(seeds: str) -> tuple[int, ...]:
    return tuple(int(p) for p in seeds.split("-"))


def _csv(rows: list[tuple]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([*row[:-1], "" if row[-1] is None else f"{row[-1]:.6f}"] for row in rows)
    return buffer.getvalue()


def _parquet(rows: list[tuple], path: Path) -> bool:
    """Write the table as Parquet if pyarrow is installed; False if it is not."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    columns = {name: [row[i] for row in rows] for i, name in enumerate(COLUMNS)}
    schema = pa.schema([(name, pa.float64() if name == "value" else pa.string()) for name in COLUMNS])
    pq.write_table(pa.table(columns, schema=schema), path, compression="zstd")
    return True


def _summary(rows: list[tuple]) -> list[str]:
    """Mean over every world of the grid's headline figures, one line each."""
    means: dict[tuple, list[float]] = defaultdict(list)
    for study, _world, _seeds, agent, condition, part, metric, value in rows:
        if value is None:
            continue
        if study == "groundeval" and part == "all" and metric in ("s_answer", "s_adj"):
            means[(study, agent, condition, metric)].append(value)
        elif study == "cargo" and metric == "di":
            means[(study, agent, condition, metric)].append(value)
    rows = [(study, agent, condition, metric, f"{sum(values) / len(values):.3f}", str(len(values)))
            for (study, agent, condition, metric), values in sorted(means.items())]
    columns = ("study", "agent / judge", "mode / condition", "metric", "mean over suites", "suites")
    return Table.from_lists(columns, rows).to_markdown().splitlines()


def write_combined(out: Path, sweep_name: str, finals: list[Path], names: list[str]) -> None:
    """table.csv, table.parquet (with pyarrow) and report.md into ``out``; ``names`` are the finals' stage names."""
    from orgbench.core.storage import write_text_atomic

    rows = combined_rows(finals)
    write_text_atomic(out / "table.csv", _csv(rows))
    parquet = _parquet(rows, out / "table.parquet")
    ge = sorted({(r[1], r[2]) for r in rows if r[0] == "groundeval"}, key=lambda k: (k[0], _seed_order(k[1])))
    cargo = sorted({(r[1], r[2]) for r in rows if r[0] == "cargo"}, key=lambda k: (k[0], _seed_order(k[1])))
    where = "\n".join(f"- `{name}` (under the work directory)" for name in names)
    text = f"""# Sweep {sweep_name}

{len(ge)} GroundEval suites (one per world) and {len(cargo)} CARGO suites; {len(rows)} rows in `table.csv`
{"and `table.parquet`" if parquet else "(no `table.parquet`: pyarrow is not installed)"}, columns
{", ".join(COLUMNS)}. Built-in agents and judges are deterministic procedural baselines, not LLMs.

## Mean over the grid's suites

{chr(10).join(_summary(rows))}

## Each suite's own scores and tables

{where}
"""
    write_text_atomic(out / "report.md", text)
