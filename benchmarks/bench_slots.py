"""Throughput against slot-limited servers: one request at a time vs --concurrency 8, and one slot vs four.

Three servers, all real HTTP on 127.0.0.1:

- ``--server llama-server`` (needs a llama-server binary or the xllamacpp
  wheel, see ``judges.backends.server_programs``): ``local:smollm2`` on
  llama.cpp's C++ server, one process with ``--parallel 1`` and then
  ``--parallel 4`` slots and continuous batching;
- ``--server llama`` (needs llama-cpp-python's server): ``local:smollm2``
  with 1 and then 4 slots (processes). In both, requests are short judge
  prompts with ``--max-tokens`` (24) under the verdict grammar, so the
  benchmark takes minutes, not hours;
- ``--server emulated``: ``tests/judges/chat_server.py --slots N --delay D``,
  which answers N requests at once after D seconds each and queues the rest
  (as llama.cpp does, but latency-bound like a GPU server), reached as
  ``openai:`` with the adaptive pacer.

For ``llama`` and ``llama-server`` each case also reports the CPU seconds the server processes
used (utime + stime from /proc) per completion token, and the load average
before and after it: the machine is shared, so a figure without it is
meaningless. llama-cpp-python's server answers one request at a time per
process (a global lock around one model and one sequence; no continuous
batching), so orgbench's slots are processes, each with
``cpu_count // slots`` threads unless ``--threads`` says otherwise.

Each case runs the same jobs through the real runner into a fresh run
directory (servers started before the clock starts) and prints JSON: wall
time, judgments/s, timeouts, the pacer's counters, and the ratios the issue
asks for (c8 / serial on one slot; four slots / one slot).

    python benchmarks/bench_slots.py --server llama-server [--jobs 12] [--threads T] [--poll P] [--slots-many 4]
    python benchmarks/bench_slots.py --server llama [--jobs 12] [--threads T] [--batch B] [--slots-many 4]
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
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judges.backends import GenerationParams, JudgeRequest, Message, make_backend  # noqa: E402
from judges.backends.server_programs import ENV, LLAMA_CPP_PYTHON  # noqa: E402
from judges.runner import Job, run_jobs_sync  # noqa: E402
from bench_record import add_record_option, print_result  # noqa: E402


def make_jobs(count: int, max_tokens: int | None) -> list[Job]:
    """``count`` distinct short judge requests."""
    return [Job(f"item-{i:03d}", "bench", 0, JudgeRequest(
        (Message("system", "You are a judge. Answer with one JSON verdict object."),
         Message("user", f"Case CASE-{10000 + i} is open. Candidate answer: the case is open. Judge it.")),
        GenerationParams(seed=0, max_tokens=max_tokens))) for i in range(count)]


def loadavg() -> str:
    """The first three fields of /proc/loadavg (1, 5 and 15 minutes)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of these processes so far, from /proc/PID/stat (0 for any already gone)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick


class CpuWatch:
    """The server processes' CPU seconds, sampled every 0.2 s (the runner stops the server when it ends)."""

    def __init__(self, pids: list[int]) -> None:
        self.pids, self.last = pids, {pid: cpu_seconds([pid]) for pid in pids}
        self.first = dict(self.last)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            for pid in self.pids:
                self.last[pid] = max(self.last[pid], cpu_seconds([pid]))

    def used(self) -> float:
        """CPU seconds since the watch began (up to the last sample before the processes ended)."""
        self._stop.set()
        self._thread.join()
        return sum(self.last.values()) - sum(self.first.values())


def run_case(backend, jobs: list[Job], concurrency: int, pids: list[int] = ()) -> dict:
    """Run the jobs once (the backend already started) and return the figures."""
    load_before, watch = loadavg(), CpuWatch(list(pids))
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        summary = run_jobs_sync(jobs, backend, Path(tmp) / "run", concurrency=concurrency, progress=False)
        wall = time.perf_counter() - started
    cpu = watch.used()
    pacing = backend.pacing() if hasattr(backend, "pacing") else {}
    figures = {"concurrency": concurrency, "judgments": summary.judgments, "errors": summary.errors,
               "unparsed": summary.unparsed, "wall_s": round(wall, 3), "judgments_per_s": round(len(jobs) / wall, 4),
               "timeouts": pacing.get("timeouts"), "pacing": pacing, "loadavg_before": load_before,
               "loadavg_after": loadavg(), "completion_tokens": summary.usage.completion_tokens}
    if pids:
        figures.update(server_cpu_s=round(cpu, 2), server_cores_busy=round(cpu / wall, 3),
                       cpu_ms_per_completion_token=round(1000 * cpu / max(1, summary.usage.completion_tokens), 2),
                       completion_tokens_per_s=round(summary.usage.completion_tokens / wall, 3))
    return figures


def llama_cases(count: int, threads: int | None, batch: int | None, many: int, server: str,
                poll: int | None, max_tokens: int) -> dict:
    """One slot serially, one slot at --concurrency 8, ``many`` slots at --concurrency 8 (local:smollm2).

    ``server`` is ``llama`` (llama-cpp-python: N slots are N processes) or
    ``llama-server`` (llama.cpp's C++ server: one process, N slots, continuous batching).
    """
    os.environ[ENV] = LLAMA_CPP_PYTHON if server == "llama" else os.environ.get(ENV, "")
    jobs = make_jobs(count, max_tokens)
    out = {}
    for name, slots, concurrency in (("one_slot_serial", 1, 1), ("one_slot_c8", 1, 8), ("four_slots_c8", many, 8)):
        # the backend's own cap (512 for local:) would win over the request's max_tokens
        backend = make_backend("local:smollm2", slots=slots, structured="on", max_tokens=max_tokens)
        local = backend.server
        if server == "llama-server" and not local.program.batches:
            raise SystemExit("--server llama-server: no llama.cpp C++ server (llama-server binary or xllamacpp) found")
        if threads is not None:
            local.threads = threads
        extra = ([] if batch is None else ["--n_batch", str(batch)]) + ([] if poll is None else ["--poll", str(poll)])
        if extra:
            command = local._command
            local._command = lambda port, command=command: command(port) + extra
        asyncio.run(backend.start())
        try:
            out[name] = {"slots": slots, "processes": local.processes, "threads_per_process": local.threads,
                         **run_case(backend, jobs, concurrency, local.pids)}
        finally:
            asyncio.run(backend.aclose())
    out["program"] = local.program.identity()
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
    parser.add_argument("--server", choices=("llama", "llama-server", "emulated"), default="emulated")
    parser.add_argument("--jobs", type=int, default=None, help="judgments per case (llama 12, emulated 40)")
    parser.add_argument("--delay", type=float, default=0.25, help="emulated server: seconds per answer")
    parser.add_argument("--threads", type=int, default=None, help="llama: threads per slot (default cpus // slots)")
    parser.add_argument("--batch", type=int, default=None, help="llama only: the server's --n_batch")
    parser.add_argument("--slots-many", type=int, default=4, help="llama: slots of the last case (default 4)")
    parser.add_argument("--max-tokens", type=int, default=24, help="llama, llama-server: completion cap")
    parser.add_argument("--poll", type=int, default=None, help="llama-server: its --poll (0: idle threads sleep)")
    add_record_option(parser)
    args = parser.parse_args()
    if args.batch is not None and args.server != "llama":
        parser.error("--batch is for --server llama only")
    if args.server in ("llama", "llama-server"):
        cases = llama_cases(args.jobs or 12, args.threads, args.batch, args.slots_many, args.server, args.poll,
                            args.max_tokens)
    else:
        cases = emulated_cases(args.jobs or 40, args.delay)
    program = cases.pop("program", None)
    serial = cases["one_slot_serial"]["judgments_per_s"]
    print_result({
        "server": args.server, "program": program, "default_timeout_s": 60.0, "max_tokens": args.max_tokens,
        "cpus": os.cpu_count(), "cases": cases,
        "c8_over_serial_one_slot": round(cases["one_slot_c8"]["judgments_per_s"] / serial, 3),
        "four_over_one_slot": round(cases["four_slots_c8"]["judgments_per_s"] /
                                    cases["one_slot_c8"]["judgments_per_s"], 3),
    }, args.record, indent=2)


if __name__ == "__main__":
    main()
