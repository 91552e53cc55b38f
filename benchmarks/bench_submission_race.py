"""Rows kept when parallel processes submit into one directory, with the lock and without it, printed as JSON.

Six processes each merge 30 submissions (a trace line and an answer line) into
one ``--out``: once through ``write_submission`` (both files appended to under
``fcntl.flock``), once through a bare read-modify-write with no lock, as
``serve-mcp`` once merged. Expected: 180 rows in each file.

    python benchmarks/bench_submission_race.py [--writers 6] [--rows 30]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[1]
WRITER = """\
import json
import sys
from pathlib import Path
from judges.groundeval.submissions import write_submission
name, out, rows, locked = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
out.mkdir(parents=True, exist_ok=True)


def _merge_line(path, row):
    lines = path.read_text().splitlines() if path.is_file() else []
    path.write_text("".join(line + "\\n" for line in lines + [json.dumps(row)]))


for i in range(rows):
    base = {"question_id": f"{name}-{i}", "agent": "a", "mode": "tool"}
    trace, answer = {**base, "calls": []}, {**base, "answer": {}}
    if locked:
        write_submission(out, trace, answer)
    else:
        _merge_line(out / "traces.jsonl", trace)
        _merge_line(out / "answers.jsonl", answer)
"""


def kept(writers: int, rows: int, locked: bool) -> dict[str, int]:
    """Lines in traces.jsonl and answers.jsonl after ``writers`` processes each submitted ``rows`` at once."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, f"w{n}", str(out), str(rows), "1" if locked else "0"],
                                  cwd=ROOT) for n in range(writers)]
        if any(p.wait() for p in procs):
            raise SystemExit("a writer failed")
        return {name: len((out / name).read_text().splitlines()) for name in ("traces.jsonl", "answers.jsonl")}


def main() -> None:
    """Print one JSON object: expected rows, and rows kept unlocked and locked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--rows", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps({"expected": args.writers * args.rows, "unlocked": kept(args.writers, args.rows, False),
                      "locked": kept(args.writers, args.rows, True)}))


if __name__ == "__main__":
    main()
