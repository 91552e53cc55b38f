"""50 official MCP clients on ``serve-mcp`` over stdio for two minutes: latency, throughput and server RSS, as JSON.

Each client is the ``mcp`` package's ``ClientSession`` on ``stdio_client``,
which starts its own ``orgbench serve-mcp`` process (stdio is the transport the
server offers); all of them submit into one ``--out`` (so the submission lock
is contended), each under its own agent name. A client works through the
suite: ``start_contract``, two ``search_artifacts``, one ``fetch_artifact``,
``submit_answer`` (a well-formed answer), and once every contract is answered
keeps calling ``list_contracts`` and ``get_contract``. Printed: calls, calls
per second, p50/p99 call latency, the servers' summed RSS at minutes 1 and 2
(and the largest growth of one server), rows written. Expected: RSS growth
between the minutes of at most 5 MB in total.

    python benchmarks/bench_mcp_load.py [--clients 50] [--seconds 120] [--suite DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

ANSWERS = {
    "perspective": {"could_actor_have_known": False, "evidence_artifacts": [], "blocked_subsystems": [], "reasoning": ""},
    "counterfactual": {"outcome_changed": False, "causal_mechanism": "no_causal_link", "cause_event_id": None,
                       "effect_event_id": None, "mechanism_direction": "no_causal_link", "evidence_artifacts": [],
                       "actors": [], "reasoning": ""},
    "silence": {"exists": False, "evidence_artifacts": [], "reasoning": ""},
}


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _servers() -> list[int]:
    """The serve-mcp processes this benchmark started (its children)."""
    import psutil

    return [p.pid for p in psutil.Process().children(recursive=True) if "serve-mcp" in " ".join(p.cmdline())]


async def _client(n: int, suite: Path, out: Path, contracts: list[dict], state: dict[str, Any]) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)},
                                   args=["-m", "orgbench", "serve-mcp", "--suite", str(suite), "--out", str(out),
                                         "--agent-name", f"client-{n:02d}"])
    async with stdio_client(params, errlog=sys.__stderr__) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        state["ready"] += 1
        await state["go"].wait()

        async def call(tool: str, args: dict[str, Any]) -> Any:
            started = time.perf_counter()
            result = await session.call_tool(tool, args)
            if state["measuring"]:
                state["latencies"].append(time.perf_counter() - started)
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


async def _run(clients: int, seconds: float, suite: Path, out: Path) -> dict[str, Any]:
    contracts = [json.loads(line) for line in (suite / "contracts.jsonl").read_text().splitlines()]
    state: dict[str, Any] = {"ready": 0, "go": asyncio.Event(), "stop": False, "measuring": False, "latencies": []}
    tasks = [asyncio.create_task(_client(n, suite, out, contracts, state)) for n in range(clients)]
    while state["ready"] < clients:
        await asyncio.sleep(0.5)
        if any(t.done() for t in tasks):
            raise SystemExit(f"a client failed: {next(t for t in tasks if t.done()).exception()!r}")
    servers = _servers()
    state["go"].set()
    state["measuring"] = True
    started = time.perf_counter()
    rss: list[dict[int, int]] = []
    for minute in (1, 2):
        await asyncio.sleep(max(0.0, started + seconds * minute / 2 - time.perf_counter()))
        rss.append({pid: _rss_kb(pid) for pid in servers})
    elapsed = time.perf_counter() - started
    state["measuring"], state["stop"] = False, True
    latencies = sorted(state["latencies"])
    await asyncio.gather(*tasks, return_exceptions=True)
    first, second = rss
    growth = {pid: second[pid] - first[pid] for pid in servers}
    rows = len((out / "answers.jsonl").read_text().splitlines()) if (out / "answers.jsonl").is_file() else 0
    return {"clients": clients, "servers": len(servers), "seconds": round(elapsed, 1), "calls": len(latencies),
            "calls_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(1000 * statistics.median(latencies), 1),
            "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 1),
            "rss_mb_minute_1": round(sum(first.values()) / 1024, 1), "rss_mb_minute_2": round(sum(second.values()) / 1024, 1),
            "rss_growth_mb": round(sum(growth.values()) / 1024, 2),
            "largest_server_growth_mb": round(max(growth.values()) / 1024, 2),
            "answers_written": rows, "answers_expected_at_most": clients * len(contracts)}


def main() -> None:
    """Print one JSON object (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=120.0, help="measured time; RSS is read at its half and end")
    parser.add_argument("--suite", type=Path, default=None, help="a GroundEval suite (default: a synthetic one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite = args.suite
        if suite is None:
            from benchmark_builders.groundeval.build import build_suite
            from benchmark_builders.groundeval.synthetic import synthetic_world

            suite = Path(tmp) / "suite"
            build_suite(suite, world=synthetic_world(seed=11, days=16, people=16), name="syn-11")
        print(json.dumps(asyncio.run(_run(args.clients, args.seconds, suite, Path(tmp) / "out"))))


if __name__ == "__main__":
    main()
