"""Time to score every table of a full CARGO run: 246 items × 12 condition rows × 4 judge seeds.

Builds runner-format judgment rows (seeded, rates near the paper's, a few
cannot_decide / unparsed / errors), then times collecting them into penalty
tables and computing every DI with its 10,000-resample bootstrap CI — per
seed and for the mean of seeds, for every row. Prints JSON with the seconds
taken (goal: under 2 s).

    python benchmarks/bench_metrics.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judges.judgments import Judgment  # noqa: E402
from judges.verdict import Verdict  # noqa: E402
from judges.metrics import DEFAULT_SIZES, RESAMPLES, penalty_table, score_conditions  # noqa: E402

CONDITIONS = ("noref", "direct", "direct+ctx", "cargo", "cargo+auth", "cargo-ctx", "cargo-exemplar", "cargo-unv",
              "swap:direct/golden", "swap:direct/ctx", "swap:cargo/golden", "swap:cargo/ctx")
SEEDS = (0, 1, 2, 3)


def synthetic_run(seed: int = 0) -> tuple[dict[str, str], list[Judgment]]:
    """A suite's item families and one judgment row per (item, condition, seed)."""
    rng = np.random.default_rng(seed)
    families = {}
    for family in ("P1", "P3", "P2", "P4"):
        for i in range(DEFAULT_SIZES[family]):
            families[f"{family}-{i:03d}"] = family
    rates = {"P1": 0.02, "P3": 0.05, "P2": 0.97, "P4": 0.25}
    rows = []
    for condition in CONDITIONS:
        for item_id, family in families.items():
            for s in SEEDS:
                draw = rng.random()
                if draw < 0.01:
                    row = {"verdict": Verdict("cannot_decide")}
                elif draw < 0.015:
                    row = {"verdict": Verdict("unparsed")}
                elif draw < 0.017:
                    row = {"error": "HTTP 500"}
                else:
                    row = {"verdict": Verdict("fail" if rng.random() < rates[family] else "pass")}
                rows.append(Judgment(item_id, condition, s, **row))
    return families, rows


def main() -> None:
    """Run the benchmark and print its JSON."""
    families, rows = synthetic_run()
    start = time.perf_counter()
    cpu = time.process_time()
    tables = [penalty_table(rows, families, condition) for condition in CONDITIONS]
    collected = time.perf_counter()
    scores = score_conditions(tables)
    done = time.perf_counter()
    cis = sum(1 + len(s.per_seed) for s in scores)
    print(json.dumps({
        "items": len(families), "condition_rows": len(CONDITIONS), "judge_seeds": len(SEEDS),
        "judgment_rows": len(rows), "bootstrap_cis": cis, "resamples": RESAMPLES,
        "collect_s": round(collected - start, 4), "bootstrap_s": round(done - collected, 4),
        "total_s": round(done - start, 4), "cpu_s": round(time.process_time() - cpu, 4), "goal_s": 2.0,
        "example": scores[3].to_json()["mean_of_seeds"],
    }, indent=2))


if __name__ == "__main__":
    main()
