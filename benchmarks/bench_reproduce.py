"""A cached ``orgbench reproduce`` against a fresh one: CPU seconds of each, and their ratio, in one run.

Prints one JSON object. Each figure is the CPU time (user + system) of an
``orgbench reproduce STUDY`` child process, read from ``getrusage`` of the
children, so it counts whatever that process starts; the 1-minute load
average is printed before and after. In a new temporary ``--work-dir`` and
``--out``:

- ``fresh``: the first run, which builds every stage (worlds, suites, runs,
  and each study's published tables), with the studies in parallel
  processes (the default ``--jobs``: the cores this process may use);
- ``fresh_serial``: the same fresh run with ``--jobs 1`` (one study after
  another), in a work dir of its own; both with wall seconds beside CPU
  seconds (children counted), ``parallel_wall_share_of_serial`` their wall
  ratio, and ``identical_serial`` whether both wrote the same bytes;
- ``cached``: ``--repeats`` runs more (default 2) with nothing changed, which
  reuse every stage and copy the studies' files from their stages; each
  round's figure is given, and their median;
- ``python_pass`` and ``import_click``: ``python -c pass`` and
  ``python -c "import click"`` timed in the same run, for scale.

``cached_share_of_fresh`` is the median cached run's CPU over the fresh run's
(the issue's goal: at most 0.10). ``identical`` says whether every cached run
wrote the same bytes as the fresh one (every file under ``--out``).

    python benchmarks/bench_reproduce.py                      # all three studies (a few CPU-minutes)
    python benchmarks/bench_reproduce.py --study assurance     # one study
    python benchmarks/bench_reproduce.py --record benchmarks/measured/reproduce.json
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_record import add_record_option, print_result  # noqa: E402


def child_cpu(args: list[str]) -> float:
    """CPU seconds (user + system) of one child process running ``args`` and of the processes it waited for;
    stops the benchmark if it fails."""
    return child_run(args)[0]


def child_run(args: list[str]) -> tuple[float, float]:
    """CPU seconds (as ``child_cpu``) and wall seconds of one child process running ``args``."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(args, cwd=REPO, env=dict(os.environ, PYTHONHASHSEED="0"), capture_output=True, text=True)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def tree_digest(root: Path) -> str:
    """SHA-256 over every file's path and bytes under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--study", default="all", help="all (default), cargo, groundeval or assurance")
    parser.add_argument("--repeats", type=int, default=2, help="cached runs after the fresh one (default 2)")
    add_record_option(parser)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as scratch:
        out, work = Path(scratch) / "results", Path(scratch) / "build"
        command = [sys.executable, "-m", "orgbench", "reproduce", args.study, "--out", str(out), "--work-dir", str(work)]
        serial = [sys.executable, "-m", "orgbench", "reproduce", args.study, "--jobs", "1",
                  "--out", str(Path(scratch) / "results-serial"), "--work-dir", str(Path(scratch) / "build-serial")]
        load_serial = os.getloadavg()[0]
        fresh_serial, wall_serial = child_run(serial)
        load_fresh = os.getloadavg()[0]
        fresh, wall_fresh = child_run(command)
        fresh_digest = tree_digest(out)
        identical_serial = tree_digest(Path(scratch) / "results-serial") == fresh_digest
        cached, identical = [], True
        for _ in range(args.repeats):
            cached.append(child_cpu(command))
            identical = identical and tree_digest(out) == fresh_digest
    python_pass = child_cpu([sys.executable, "-c", "pass"])
    import_click = child_cpu([sys.executable, "-c", "import click"])
    median = statistics.median(cached)
    print_result({
        "study": args.study,
        "jobs": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "fresh_cpu_s": round(fresh, 2),
        "fresh_wall_s": round(wall_fresh, 2),
        "fresh_serial_cpu_s": round(fresh_serial, 2),
        "fresh_serial_wall_s": round(wall_serial, 2),
        "parallel_wall_share_of_serial": round(wall_fresh / wall_serial, 3),
        "identical_serial": identical_serial,
        "load_1min_before_serial_and_parallel": [round(load_serial, 2), round(load_fresh, 2)],
        "cached_cpu_s": [round(c, 2) for c in cached],
        "cached_median_cpu_s": round(median, 2),
        "cached_share_of_fresh": round(median / fresh, 4),
        "goal_share": 0.10,
        "identical": identical,
        "python_pass_cpu_s": round(python_pass, 3),
        "import_click_cpu_s": round(import_click, 3),
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }, args.record, indent=2)


if __name__ == "__main__":
    main()
