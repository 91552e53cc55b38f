"""The default GroundEval reproduce's claimed calls against the distinct claims the verifier works out.

Runs ``orgbench reproduce groundeval`` (the default seeds, every built-in agent in both modes) in a temporary
``--work-dir`` (or the one given, whose cached stages it reuses when their inputs match), then counts from the
runs' ``traces.jsonl`` and the suites' ``contracts.jsonl``, without the verifier's code: every call of every trace,
and the distinct claims among them, a claim being the call less its ``seq`` and ``latency_ms`` for the contract's
actor and ``as_of`` (``judges/groundeval/verify.py`` works out each once). ``calls_per_claim`` is the work the
verifier's memo saves. Prints one JSON object with the load; ``--record FILE`` keeps it (docs/groundeval.md quotes
the two counts).

    python benchmarks/groundeval_claims.py --record benchmarks/measured/groundeval_claims.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_record import add_record_option, print_result  # noqa: E402
from bench_reproduce import child_run  # noqa: E402


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def count_claims(work: Path) -> dict:
    """Calls and distinct claims over every run of every seed under ``work``/groundeval."""
    calls, claims, traces = 0, set(), 0
    seeds = sorted(p for p in (work / "groundeval" / "runs").glob("seed-*") if p.is_dir())
    for seed in seeds:
        contracts = {c["question_id"]: c for c in _jsonl(work / "groundeval" / "suites" / seed.name / "suite" /
                                                         "contracts.jsonl")}
        for run in sorted(seed.glob("*/run/traces.jsonl")):     # a stage's folder (not its lock file)
            for trace in _jsonl(run):
                contract = contracts[trace["question_id"]]
                traces += 1
                for call in trace["calls"]:
                    calls += 1
                    claim = {k: v for k, v in call.items() if k not in ("seq", "latency_ms")}
                    claims.add((contract["actor"], contract["as_of"], json.dumps(claim, sort_keys=True)))
    return {"seeds": [p.name for p in seeds], "traces": traces,
            "calls": calls, "distinct_claims": len(claims), "calls_per_claim": round(calls / len(claims), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work-dir", type=Path, default=None, help="reproduce's work dir (default: a temporary one)")
    add_record_option(parser)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="groundeval-claims-") as scratch:
        work = args.work_dir or Path(scratch) / "build"
        child_run([sys.executable, "-m", "orgbench", "reproduce", "groundeval", "--out", str(Path(scratch) / "results"),
                   "--work-dir", str(work)])
        counted = count_claims(work)
    print_result({**counted, "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)]}, args.record, indent=2)


if __name__ == "__main__":
    main()
