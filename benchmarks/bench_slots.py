"""Throughput against slot-limited servers: one request at a time vs --concurrency 8, and one slot vs four.

Two servers, both real HTTP on 127.0.0.1:

- ``--server llama`` (needs the ``local`` extra): ``local:smollm2``, the
  llama.cpp server orgbench starts, with 1 and then 4 slots (processes).
  Requests are short judge prompts with ``max_tokens`` 24 under the verdict
  grammar, so the benchmark takes minutes, not hours;
- ``--server emulated``: ``tests/judges/chat_server.py --slots N --delay D``,
  which answers N requests at once after D seconds each and queues the rest
  (as llama.cpp does, but latency-bound like a GPU server), reached as
  ``openai:`` with the adaptive pacer.

Each case runs the same jobs through the real runner into a fresh run
directory (servers started before the clock starts) and prints JSON: wall
time, judgments/s, timeouts, the pacer's counters, and the ratios the issue
asks for (c8 / serial on one slot; four slots / one slot).

    python benchmarks/bench_slots.py --server llama [--jobs 12]
    python benchmarks/bench_slots.py --server emulated [--jobs 40 --delay 0.25]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judges.backends import GenerationParams, JudgeRequest, Message, make_backend  # noqa: E402
from judges.runner import Job, run_jobs_sync  # noqa: E402


def make_jobs(count: int, max_tokens: int | None) -> list[Job]:
    """``count`` distinct short judge requests."""
    return [Job(f"item-{i:03d}", "bench", 0, JudgeRequest(
        (Message("system", "You are a judge. Answer with one JSON verdict object."),
         Message("user", f"Case CASE-{10000 + i} is open. Candidate answer: the case is open. Judge it.")),
        GenerationParams(seed=0, max_tokens=max_tokens))) for i in range(count)]


def run_case(backend, jobs: list[Job], concurrency: int) -> dict:
    """Run the jobs once (the backend already started) and return the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        summary = run_jobs_sync(jobs, backend, Path(tmp) / "run", concurrency=concurrency, progress=False)
        wall = time.perf_counter() - started
    pacing = backend.pacing() if hasattr(backend, "pacing") else {}
    return {"concurrency": concurrency, "judgments": summary.judgments, "errors": summary.errors,
            "unparsed": summary.unparsed, "wall_s": round(wall, 3), "judgments_per_s": round(len(jobs) / wall, 4),
            "timeouts": pacing.get("timeouts"), "pacing": pacing}


def llama_cases(count: int) -> dict:
    """One slot serially, one slot at --concurrency 8, four slots at --concurrency 8 (local:smollm2)."""
    jobs = make_jobs(count, 24)
    out = {}
    for name, slots, concurrency in (("one_slot_serial", 1, 1), ("one_slot_c8", 1, 8), ("four_slots_c8", 4, 8)):
        backend = make_backend("local:smollm2", slots=slots, structured="on")
        asyncio.run(backend.start())
        out[name] = {"slots": slots, **run_case(backend, jobs, concurrency)}
    return out


def emulated_cases(count: int, delay: float) -> dict:
    """The same three cases against the in-repo server with 1 and 4 slots, as openai: (adaptive pacer)."""
    jobs = make_jobs(count, None)
    out = {}
    for name, slots, concurrency in (("one_slot_serial", 1, 1), ("one_slot_c8", 1, 8), ("four_slots_c8", 4, 8)):
        proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "judges" / "chat_server.py"), "--delay",
                                 str(delay), "--slots", str(slots)], cwd=REPO, stdout=subprocess.PIPE, text=True)
        try:
            port = json.loads(proc.stdout.readline())["port"]
            backend = make_backend("openai:bench", base_url=f"http://127.0.0.1:{port}/v1",
                                   api_key_env="ORGBENCH_NO_KEY", concurrency=concurrency)
            out[name] = {"slots": slots, **run_case(backend, jobs, concurrency)}
        finally:
            proc.terminate()
            proc.wait()
    return out


def main() -> None:
    """Run the benchmark and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("llama", "emulated"), default="emulated")
    parser.add_argument("--jobs", type=int, default=None, help="judgments per case (llama 12, emulated 40)")
    parser.add_argument("--delay", type=float, default=0.25, help="emulated server: seconds per answer")
    args = parser.parse_args()
    if args.server == "llama":
        cases = llama_cases(args.jobs or 12)
    else:
        cases = emulated_cases(args.jobs or 40, args.delay)
    serial = cases["one_slot_serial"]["judgments_per_s"]
    print(json.dumps({
        "server": args.server, "default_timeout_s": 60.0, "cpus": os.cpu_count(), "cases": cases,
        "c8_over_serial_one_slot": round(cases["one_slot_c8"]["judgments_per_s"] / serial, 3),
        "four_over_one_slot": round(cases["four_slots_c8"]["judgments_per_s"] /
                                    cases["one_slot_c8"]["judgments_per_s"], 3),
    }, indent=2))


if __name__ == "__main__":
    main()
