"""A benchmark's output as docs quote it: ``--record FILE`` writes what it printed with the command, commit and load.

Every benchmark whose figures README or docs/ state takes ``--record`` (``add_record_option``) and prints through
``print_result``; the records are committed under benchmarks/measured/, and tests/orgbench/test_doc_claims.py compares each
figure a doc states with its record (the sentence names the record's file).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The one-minute load average when the benchmark started (this module is imported before it measures).
LOAD_BEFORE = os.getloadavg()[0]


def add_record_option(parser: argparse.ArgumentParser) -> None:
    """``--record FILE``."""
    parser.add_argument("--record", type=Path, default=None,
                        help="also write the printed object to this file with the command, the commit measured and "
                             "the machine's load (a figure docs quote: benchmarks/measured/)")


def print_result(printed: Any, record: Path | None, *, indent: int | None = None) -> None:
    """Print ``printed`` as JSON and, given ``record``, write it there with the command, commit and load average."""
    print(json.dumps(printed, indent=indent))
    if record is not None:
        script = Path(sys.argv[0]).resolve()
        where = script.relative_to(ROOT).as_posix() if script.is_relative_to(ROOT) else script.name
        record.write_text(json.dumps({
            "command": " ".join(["python", where, *sys.argv[1:]]), "commit": commit(),
            "load_average": [round(LOAD_BEFORE, 1), round(os.getloadavg()[0], 1)], "printed": printed},
            indent=1) + "\n", encoding="utf-8")


def commit() -> str:
    """The commit of the code measured, marked ``+changes`` when its packages or benchmark scripts differ from it
    (the records under benchmarks/measured/ aside)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", ":/judges",
                            ":/orgbench", ":/benchmark_builders", ":/simulator", ":/benchmarks",
                            ":(top,exclude)benchmarks/measured"], capture_output=True, text=True).stdout.strip()
    return head + ("+changes" if dirty else "")
