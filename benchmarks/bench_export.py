"""Export performance: seconds and output size per format on the default world. Prints JSON.

For each format of ``orgbench export`` (slack, mbox, eml, jira, parquet, groundeval): the seconds
``export_world`` takes on the default world (seed 7, 90 days; the world is simulated and loaded once,
outside the timing), the files and bytes written, and the records per second (messages, issues or rows
as the format counts them). The machine is shared and noisy: each figure is the best of ``--repeat``
runs, printed with the slowest.

Usage: ``python benchmarks/bench_export.py [--repeat N] [--days D] [--only FORMAT ...]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path


def _size(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    """Run the export benchmark and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    from benchmark_builders.export import FORMATS, export_world
    from simulator.config import load_config
    from simulator.simulate import simulate_to
    from simulator.world import load_world

    work = Path(tempfile.mkdtemp(prefix="bench-export-"))
    try:
        world_dir = work / "world"
        simulate_to(load_config(days=args.days), world_dir)
        world = load_world(world_dir)
        out: dict = {"world": {"days": args.days, "events": len(world.events),
                               "artifact_versions": len(world.artifacts)}, "formats": {}}
        for fmt in args.only or FORMATS:
            times, record = [], {}
            for run in range(args.repeat):
                target = work / f"{fmt}-{run}"
                started = time.perf_counter()
                record = export_world(world, world_dir, fmt, target)
                times.append(time.perf_counter() - started)
            files, size = _size(work / f"{fmt}-0")
            records = max(record["counts"].values())
            out["formats"][fmt] = {"seconds": round(min(times), 3), "slowest": round(max(times), 3),
                                   "files": files, "bytes": size, "counts": record["counts"],
                                   "records_per_s": round(records / min(times), 1)}
        print(json.dumps(out, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
