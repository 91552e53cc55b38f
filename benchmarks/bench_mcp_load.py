"""50 official MCP clients on ``serve-mcp`` for two minutes, over stdio or HTTP: latency, throughput, server RSS, as JSON.

stdio (the default): each client is the ``mcp`` package's ``ClientSession`` on
``stdio_client``, which starts its own ``orgbench serve-mcp`` process, under
its own agent name; all of them submit into one ``--out`` (so the submission
lock is contended across processes). ``--http``: one ``serve-mcp --http``
process on 127.0.0.1 and the ``mcp`` package's ``Client`` over streamable
HTTP, one MCP session each, named by its URL (``/mcp?agent=client-NN``), so
each answers every question as on stdio. A client
works through the suite from its own starting question: ``start_contract``,
two ``search_artifacts``, one ``fetch_artifact``, ``submit_answer`` (a
well-formed answer), and once it has been through every contract keeps
calling ``list_contracts`` and ``get_contract``. Printed: calls, calls per
second, p50/p99 call latency, the servers' summed RSS at minutes 1 and 2 (its
anonymous and file-backed parts, and the largest growth of one server), rows
written at each minute (``answers_by_minute``: whether the clients were still in their first pass), the
median server's growth, and the summed RSS at every whole minute of a longer run
(``--seconds 360``: ``rss_mb_by_minute``, ``rss_growth_mb_by_minute``).
Expected: RSS growth between minutes 1 and 2 of at most 5 MB in total.

Where stdio growth came from (measured in one server, /proc/PID/smaps,
``mallinfo2`` and tracemalloc, on the synthetic suite): a server grew by about
1.4 MB over its first two passes through the 94 questions, most of it in the
first few: numpy's code paged in (about 830 kB), numpy's cache of freed buffers
under 1,024 bytes filling with the sizes new queries meet, and the heap settling
around the SDK's reply sizes. With 50 stdio processes each still in its first
pass at minute 2 (``--think-ms 300``: each client pauses after every reply, as an
agent reads it), the sum grew by about 5 MB a minute. ``serve-mcp`` now does
that growth before its first message (``judges/groundeval/mcp_warmup.py``); the
same server grows by 8 kB over the same two passes. Recorded runs (``--record``)
are in ``benchmarks/measured/`` and quoted in docs/groundeval.md.

    python benchmarks/bench_mcp_load.py [--clients 50] [--seconds 120] [--suite DIR] [--http] [--think-ms MS]
                                        [--record FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator
from bench_record import add_record_option, print_result

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))
_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

ANSWERS = {
    "perspective": {"could_actor_have_known": False, "evidence_artifacts": [], "blocked_subsystems": [], "reasoning": ""},
    "counterfactual": {"outcome_changed": False, "causal_mechanism": "no_causal_link", "cause_event_id": None,
                       "effect_event_id": None, "mechanism_direction": "no_causal_link", "evidence_artifacts": [],
                       "actors": [], "reasoning": ""},
    "silence": {"exists": False, "evidence_artifacts": [], "reasoning": ""},
}


def _memory_kb(pid: int) -> dict[str, int]:
    """A process's resident memory in kB: ``VmRSS`` and its parts ``RssAnon`` (its own heap) and ``RssFile``."""
    found = {"VmRSS": 0, "RssAnon": 0, "RssFile": 0}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in found:
                found[name] = int(value.split()[0])
    except OSError:
        pass
    return found


def _servers() -> list[int]:
    """The serve-mcp processes this benchmark started (its children)."""
    import psutil

    return [p.pid for p in psutil.Process().children(recursive=True) if "serve-mcp" in " ".join(p.cmdline())]


def _serve_mcp(suite: Path, out: Path, *extra: str) -> list[str]:
    return ["-m", "orgbench", "serve-mcp", "--suite", str(suite), "--out", str(out), *extra]


@asynccontextmanager
async def _stdio_session(n: int, suite: Path, out: Path) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=_ENV,
                                   args=_serve_mcp(suite, out, "--agent-name", f"client-{n:02d}"))
    async with stdio_client(params, errlog=sys.__stderr__) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def _http_session(n: int, url: str) -> AsyncIterator[Any]:
    from mcp import Client

    async with Client(f"{url}?agent=client-{n:02d}") as client:
        yield client


async def _client(n: int, connect: Any, contracts: list[dict], state: dict[str, Any]) -> None:
    async with connect(n) as session:
        state["ready"] += 1
        await state["go"].wait()

        async def call(tool: str, args: dict[str, Any]) -> Any:
            started = time.perf_counter()
            result = await session.call_tool(tool, args)
            if state["measuring"]:
                state["latencies"].append(time.perf_counter() - started)
            if state["think_s"]:
                await asyncio.sleep(state["think_s"])          # an agent reading the reply before its next call
            return result.structured_content

        index = n                                    # clients start at different questions
        while not state["stop"]:
            if index < n + len(contracts):
                contract = contracts[index % len(contracts)]
                index += 1
                await call("start_contract", {"question_id": contract["question_id"]})
                found = await call("search_artifacts", {"query": contract["question"][:60], "limit": 5})
                await call("search_artifacts", {"query": contract["actor"], "limit": 3})
                hits = found.get("results") or [{"id": "NOPE-1"}]
                await call("fetch_artifact", {"artifact_id": hits[0]["id"]})
                await call("submit_answer", {"answer": ANSWERS[contract["track"]]})
            else:
                await call("list_contracts", {})
                await call("get_contract", {})


async def _run(clients: int, seconds: float, suite: Path, out: Path, http: bool, think_s: float = 0.0) -> dict[str, Any]:
    contracts = [json.loads(line) for line in (suite / "contracts.jsonl").read_text().splitlines()]
    state: dict[str, Any] = {"ready": 0, "go": asyncio.Event(), "stop": False, "measuring": False, "latencies": [],
                             "think_s": think_s}
    if http:
        port = _free_port()
        server = subprocess.Popen([sys.executable, *_serve_mcp(suite, out, "--http", str(port))], cwd=ROOT, env=_ENV)
        await _until_listening(port, server)
        url = f"http://127.0.0.1:{port}/mcp"
        connect: Any = lambda n: _http_session(n, url)    # noqa: E731
    else:
        connect = lambda n: _stdio_session(n, suite, out)   # noqa: E731
    try:
        return await _measure(clients, seconds, contracts, state, connect, out, "http" if http else "stdio")
    finally:
        if http:
            server.terminate()
            server.wait(60)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _until_listening(port: int, server: subprocess.Popen) -> None:
    while server.poll() is None:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.2)
    raise SystemExit(f"serve-mcp --http exited with code {server.returncode}")


async def _measure(clients: int, seconds: float, contracts: list[dict], state: dict[str, Any], connect: Any,
                   out: Path, transport: str) -> dict[str, Any]:
    tasks = [asyncio.create_task(_client(n, connect, contracts, state)) for n in range(clients)]
    while state["ready"] < clients:
        await asyncio.sleep(0.5)
        if any(t.done() for t in tasks):
            raise SystemExit(f"a client failed: {next(t for t in tasks if t.done()).exception()!r}")
    servers = _servers()
    state["go"].set()
    state["measuring"] = True
    started = time.perf_counter()
    rss: list[dict[int, dict[str, int]]] = []
    answered: list[int] = []
    for minute in range(1, max(2, int(seconds // 60)) + 1):       # a run under 2 minutes reads at its half and end
        await asyncio.sleep(max(0.0, started + min(60.0 * minute, seconds * minute / 2) - time.perf_counter()))
        rss.append({pid: _memory_kb(pid) for pid in servers})
        answered.append(_rows(out))
    elapsed = time.perf_counter() - started
    state["measuring"], state["stop"] = False, True
    latencies = sorted(state["latencies"])
    await asyncio.gather(*tasks, return_exceptions=True)
    first, second = rss[:2]

    def total(at: dict[int, dict[str, int]], part: str = "VmRSS") -> float:
        return round(sum(m[part] for m in at.values()) / 1024, 1)

    growth = {pid: second[pid]["VmRSS"] - first[pid]["VmRSS"] for pid in servers}
    return {"transport": transport, "clients": clients, "servers": len(servers), "seconds": round(elapsed, 1),
            "think_ms": round(1000 * state["think_s"]),
            "calls": len(latencies),
            "calls_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(1000 * statistics.median(latencies), 1),
            "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 1),
            "rss_mb_minute_1": total(first), "rss_mb_minute_2": total(second),
            "rss_growth_mb": round(sum(growth.values()) / 1024, 2),
            "anon_growth_mb": round(total(second, "RssAnon") - total(first, "RssAnon"), 2),
            "file_growth_mb": round(total(second, "RssFile") - total(first, "RssFile"), 2),
            "largest_server_growth_mb": round(max(growth.values()) / 1024, 2),
            "median_server_growth_kb": statistics.median(growth.values()),
            "rss_mb_by_minute": [total(at) for at in rss],
            "rss_growth_mb_by_minute": [round(total(b) - total(a), 1) for a, b in zip(rss, rss[1:])],
            "answers_by_minute": answered,
            "answers_written": _rows(out), "answers_expected_at_most": clients * len(contracts)}


def _rows(out: Path) -> int:
    return len((out / "answers.jsonl").read_bytes().splitlines()) if (out / "answers.jsonl").is_file() else 0


def main() -> None:
    """Print one JSON object (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=120.0, help="measured time; RSS is read at every whole minute (under 120 s: at its half and end)")
    parser.add_argument("--suite", type=Path, default=None, help="a GroundEval suite (default: a synthetic one)")
    parser.add_argument("--http", action="store_true", help="one serve-mcp --http server, clients over streamable HTTP")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="each client's pause after every reply (an agent reading it; default none)")
    add_record_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite = args.suite
        if suite is None:
            from benchmark_builders.groundeval.build import build_suite
            from benchmark_builders.groundeval.synthetic import synthetic_world

            suite = Path(tmp) / "suite"
            build_suite(suite, world=synthetic_world(seed=11, days=16, people=16), name="syn-11")
        printed = asyncio.run(_run(args.clients, args.seconds, suite, Path(tmp) / "out", args.http, args.think_ms / 1000))
    print_result(printed, args.record)


if __name__ == "__main__":
    main()
