"""A cached ``orgbench reproduce`` against a fresh one: CPU seconds of each, and their ratio, in one run.

Prints one JSON object. Each figure is the CPU time (user + system) of an
``orgbench reproduce STUDY`` child process, read from ``getrusage`` of the
children, so it counts whatever that process starts; the 1-minute load
average is printed before and after. In a new temporary ``--work-dir`` and
``--out``:

- ``fresh``: the first run, which builds every stage (worlds, suites, runs,
  and each study's published tables);
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
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child_cpu(args: list[str]) -> float:
    """CPU seconds (user + system) of one child process running ``args``; stops the benchmark if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=REPO, env=dict(os.environ, PYTHONHASHSEED="0"), capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as scratch:
        out, work = Path(scratch) / "results", Path(scratch) / "build"
        command = [sys.executable, "-m", "orgbench", "reproduce", args.study, "--out", str(out), "--work-dir", str(work)]
        fresh = child_cpu(command)
        fresh_digest = tree_digest(out)
        cached, identical = [], True
        for _ in range(args.repeats):
            cached.append(child_cpu(command))
            identical = identical and tree_digest(out) == fresh_digest
    python_pass = child_cpu([sys.executable, "-c", "pass"])
    import_click = child_cpu([sys.executable, "-c", "import click"])
    median = statistics.median(cached)
    print(json.dumps({
        "study": args.study,
        "fresh_cpu_s": round(fresh, 2),
        "cached_cpu_s": [round(c, 2) for c in cached],
        "cached_median_cpu_s": round(median, 2),
        "cached_share_of_fresh": round(median / fresh, 4),
        "goal_share": 0.10,
        "identical": identical,
        "python_pass_cpu_s": round(python_pass, 3),
        "import_click_cpu_s": round(import_click, 3),
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }, indent=2))


if __name__ == "__main__":
    main()
