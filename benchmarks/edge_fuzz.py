"""The fuzz table of issue 27: per command, how many malformed inputs were refused in one line, and how many ended
in a traceback, a hang, exit 0 or anything else. Prints JSON. Run it from the tree to measure (PYTHONPATH)::

    python benchmarks/edge_fuzz.py [--seconds 10] [--commands simulate,inspect]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.orgbench.edge_fuzz import COMMANDS, attempt, build_fixtures, cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--commands", default="")
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args()
    chosen = [c for c in COMMANDS if not args.commands or c.name in args.commands.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        fixtures = build_fixtures(Path(tmp) / "fixtures")
        table: dict[str, Counter] = {}
        details = []
        for case in cases(fixtures, Path(tmp) / "cases", chosen):
            outcome = attempt(case, args.seconds)
            table.setdefault(case.command, Counter())[outcome.verdict] += 1
            if outcome.verdict != "refused":
                details.append([case.command, case.variant, outcome.verdict, outcome.detail[:160]])
            print(case.command, case.variant, outcome.verdict, outcome.detail[:160], file=sys.stderr, flush=True)
    total = sum(table.values(), Counter())
    print(json.dumps({"per_command": {k: dict(v) for k, v in table.items()}, "total": dict(total),
                      "cases": sum(total.values()), **({"not_refused": details} if args.details else {})},
                     indent=1))


if __name__ == "__main__":
    main()
