"""The CLI's start-up: ``orgbench --help`` and ``orgbench list`` against ``python -c "import click"``, in one run.

Prints one JSON object. Each figure is the CPU time (user + system) of one
child process, from ``getrusage`` of the children; ``--repeats`` rounds
(default 7) are interleaved (each round runs every command once, in turn)
and the median of each command's rounds is taken. Every child compiles its
modules once, in an untimed warm-up, into a fresh bytecode cache
(``PYTHONPYCACHEPREFIX``, ``PYTHONDONTWRITEBYTECODE`` unset), as an installed
package has its bytecode: with writing switched off, orgbench's modules would
be compiled from source in every timed run while click's come compiled from
site-packages. ``help_ratio`` and
``list_ratio`` are the medians over ``import click``'s (the issue's goal: at
most 2); ``python -c pass`` is printed beside them for scale, and the
1-minute load average before and after.

    python benchmarks/bench_startup.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = {
    "python_pass": [sys.executable, "-c", "pass"],
    "import_click": [sys.executable, "-c", "import click"],
    "help": [sys.executable, "-m", "orgbench", "--help"],
    "list": [sys.executable, "-m", "orgbench", "list"],
}


def child_cpu(args: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one child running ``args`` to the end; stops the benchmark if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=REPO, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-startup-pycache-") as pycache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        for argv in COMMANDS.values():          # warm the file cache and compile the bytecode once, not timed
            child_cpu(argv, env)
        rounds: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.repeats):
            for name, argv in COMMANDS.items():
                rounds[name].append(child_cpu(argv, env))
    median = {name: statistics.median(values) for name, values in rounds.items()}
    print(json.dumps({
        "cpu_s_median": {name: round(value, 4) for name, value in median.items()},
        "cpu_s_rounds": {name: [round(v, 4) for v in values] for name, values in rounds.items()},
        "help_ratio": round(median["help"] / median["import_click"], 2),
        "list_ratio": round(median["list"] / median["import_click"], 2),
        "goal_ratio": 2,
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }, indent=2))


if __name__ == "__main__":
    main()
