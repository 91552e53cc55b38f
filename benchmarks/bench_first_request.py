"""``orgbench judge``'s time to its first request against a minimal aiohttp client's, in one run.

Prints one JSON object. A small OpenAI-compatible server runs in this
process (aiohttp, in a thread; a new one for each client, so that requests a
stopped client still had in flight never count as the next one's); on the first ``POST .../chat/completions``
of each client it notes the wall time since the client was started and the
client's CPU seconds so far (user + system, from ``/proc/PID/stat``, so the
figure excludes nothing the client did before asking). Interleaved, for
``--repeats`` rounds (default 3):

- ``judge``: ``python -m orgbench judge --suite SUITE --judge openai:bench
  --rubric-swap --seeds 0,1,2`` against the server (every item is read and
  checked before the first request; the run is stopped once it has asked);
- ``minimal``: ``python -c`` of a client that imports aiohttp and posts one
  chat request to such a server — the least any client must do;
- ``python_pass``: ``python -c pass``, for scale.

Every child compiles its modules once, in an untimed warm-up round, into a
fresh bytecode cache (``PYTHONPYCACHEPREFIX``, ``PYTHONDONTWRITEBYTECODE``
unset), as an installed package has its bytecode.

``cpu_ratio`` and ``wall_ratio`` are the judge's median over the minimal
client's (the issue's goal: at most 4). The suite is ``--suite`` or, by
default, a CARGO suite built into a temporary directory from world seed 0.

    python benchmarks/bench_first_request.py [--suite build/cargo/suite] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable
from pathlib import Path

from aiohttp import web

REPO = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
ANSWER = 'The answer matches the live context.\n```json\n{"verdict": "pass", "claims": []}\n```'

MINIMAL = """
import asyncio, sys
import aiohttp
async def main():
    async with aiohttp.ClientSession() as session:
        body = {"model": "bench", "messages": [{"role": "user", "content": "hello"}]}
        async with session.post(sys.argv[1] + "/chat/completions", json=body) as response:
            await response.read()
asyncio.run(main())
"""


class FirstRequest:
    """A chat server that records, per client process, when its first chat request arrived."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.started = 0.0
        self.seen: dict[int, tuple[float, float]] = {}
        self.arrived = threading.Event()
        self.port = 0

    def watch(self, pid: int, started: float) -> None:
        self.pid, self.started = pid, started
        self.arrived.clear()

    async def chat(self, request: web.Request) -> web.Response:
        await request.read()
        while self.pid is None:             # the child asked before Popen returned its pid to watch()
            await asyncio.sleep(0.001)
        pid = self.pid
        if pid is not None and pid not in self.seen:
            wall = time.monotonic() - self.started
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            self.seen[pid] = (wall, (int(fields[11]) + int(fields[12])) / TICKS)
            self.arrived.set()
        return web.json_response({"id": "x", "object": "chat.completion", "created": 0, "model": "bench",
                                  "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": ANSWER}}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    def serve(self) -> None:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self.chat)
            runner = web.AppRunner(app)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            ready.set()
            loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        ready.wait()


def first_request(args: Callable[[str], list[str]], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of the child ``args(url)`` until its first chat request; the child is stopped then.

    Each child gets a server of its own: requests an earlier, stopped child still had in flight cannot be
    counted as a later child's first.
    """
    server = FirstRequest()
    server.serve()
    started = time.monotonic()
    child = subprocess.Popen(args(f"http://127.0.0.1:{server.port}/v1"), cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=env)
    server.watch(child.pid, started)
    while not server.arrived.wait(0.05):
        if child.poll() is not None:
            sys.exit(f"{' '.join(child.args)}: exit {child.returncode} before any request\n{child.stderr.read()}")
    child.kill()
    child.wait()
    return server.seen[child.pid]


def cpu_of(args: list[str], env: dict[str, str]) -> float:
    """CPU seconds of a child that runs to the end."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", type=Path, default=None, help="a CARGO suite (default: built from world seed 0)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-first-request-") as scratch:
        suite = args.suite
        if suite is None:
            suite = Path(scratch) / "suite"
            subprocess.run([sys.executable, "-m", "orgbench", "build", "cargo", "--seeds", "0", "--out", str(suite)],
                           cwd=REPO, check=True, capture_output=True)
        items = sum(1 for _ in open(Path(suite) / "items.jsonl", encoding="utf-8"))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(scratch) / "pycache")
        rounds: dict[str, list[tuple[float, float]]] = {"judge": [], "minimal": []}
        for n in range(-1, args.repeats):       # round -1 compiles the bytecode: not counted
            out = Path(scratch) / f"run-{n}"
            judge = first_request(lambda url: [
                sys.executable, "-m", "orgbench", "judge", "--suite", str(suite), "--judge", "openai:bench",
                "--base-url", url, "--rubric-swap", "--seeds", "0,1,2", "--out", str(out)], env)
            minimal = first_request(lambda url: [sys.executable, "-c", MINIMAL, url], env)
            if n >= 0:
                rounds["judge"].append(judge)
                rounds["minimal"].append(minimal)
        python_pass = statistics.median(cpu_of([sys.executable, "-c", "pass"], env) for _ in range(args.repeats))

    def median(who: str, k: int) -> float:
        return statistics.median(r[k] for r in rounds[who])

    print(json.dumps({
        "suite_items": items,
        "judge_wall_s": [round(r[0], 3) for r in rounds["judge"]],
        "judge_cpu_s": [round(r[1], 3) for r in rounds["judge"]],
        "minimal_wall_s": [round(r[0], 3) for r in rounds["minimal"]],
        "minimal_cpu_s": [round(r[1], 3) for r in rounds["minimal"]],
        "cpu_ratio": round(median("judge", 1) / max(median("minimal", 1), 1 / TICKS), 2),
        "wall_ratio": round(median("judge", 0) / median("minimal", 0), 2),
        "goal_ratio": 4,
        "python_pass_cpu_s": round(python_pass, 3),
        "cpu_resolution_s": 1 / TICKS,
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }, indent=2))


if __name__ == "__main__":
    main()
