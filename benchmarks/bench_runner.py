"""Runner throughput against a local OpenAI-compatible server that answers after a fixed 50 ms.

Starts ``tests/judges/chat_server.py`` in its own process, runs 5,000
judgments at concurrency 64 through the real runner (aiohttp backend, verdict
parsing, batched log writes; no cache) into a fresh run directory, and prints
JSON: judgments_per_s, the bound (concurrency / delay), their ratio, and the
client's CPU seconds per judgment (this process only; the server is apart).

    python benchmarks/bench_runner.py [--judgments 5000] [--concurrency 64] [--delay 0.05]
"""

from __future__ import annotations

import argparse
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
from bench_record import add_record_option, print_result  # noqa: E402

PROMPT = ("You are a judge. The reference shows the procedure for a different case; check the candidate's facts "
          "against the live context and return JSON with dimensions, claims and a verdict.\n") * 8


def make_jobs(count: int) -> list[Job]:
    """``count`` distinct judge requests of realistic size (about 2 kB each)."""
    jobs = []
    for i in range(count):
        item, seed = divmod(i, 4)
        text = f"{PROMPT}\nLive context: CASE-{10000 + item} status open.\nCandidate answer {item}." + (
            " SHOULD_FAIL" if item % 3 == 0 else "")
        request = JudgeRequest((Message("system", "You are a careful judge."), Message("user", text)),
                               GenerationParams(seed=seed))
        jobs.append(Job(f"item-{item:05d}", "cargo", seed, request))
    return jobs


def start_server(delay: float) -> tuple[subprocess.Popen, int]:
    """Start the chat server in its own process; return it and its port."""
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "judges" / "chat_server.py"), "--delay", str(delay)],
                            cwd=REPO, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    return proc, json.loads(line)["port"]


def main() -> None:
    """Run the benchmark and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.05)
    add_record_option(parser)
    args = parser.parse_args()
    jobs = make_jobs(args.judgments)
    proc, port = start_server(args.delay)
    try:
        backend = make_backend("openai:bench", base_url=f"http://127.0.0.1:{port}/v1", api_key_env="ORGBENCH_NO_KEY",
                               concurrency=args.concurrency)
        with tempfile.TemporaryDirectory() as tmp:
            cpu0, wall0 = time.process_time(), time.perf_counter()
            summary = run_jobs_sync(jobs, backend, Path(tmp) / "run", concurrency=args.concurrency, progress=False)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    finally:
        proc.terminate()
        proc.wait()
    assert summary.judgments == args.judgments and summary.errors == 0, summary
    rate = args.judgments / wall
    bound = args.concurrency / args.delay
    print_result({
        "judgments": args.judgments, "concurrency": args.concurrency, "server_delay_s": args.delay,
        "wall_s": round(wall, 3), "judgments_per_s": round(rate, 1), "bound": round(bound, 1),
        "ratio": round(rate / bound, 3), "client_cpu_s_per_judgment": round(cpu / args.judgments, 6),
        "cpus": os.cpu_count(), "unparsed": summary.unparsed, "penalized": summary.penalized,
    }, args.record, indent=2)


if __name__ == "__main__":
    main()
