"""Rewrites per second of ``orgbench simulate --prose llm:SPEC``, and what a whole world would cost.

Two servers, both real HTTP on 127.0.0.1:

- ``--server emulated``: ``tests/judges/chat_server.py`` in-process, answering
  at once with a rewrite that keeps every fact (so the figure is orgbench's own
  cost per rewrite: prompt, request, cache entry, checks);
- ``--server llama`` (needs the ``local`` extra): ``local:smollm2``, the
  llama.cpp server orgbench starts.

Each run simulates the same small world (16 people, 10 days) three times
after a warm-up — grammar only, with the rewrite hook (every answer asked),
and again (every answer from the cache) — and prints JSON: wall seconds of
each, the seconds spent inside the hook (for llama the server's start is
inside: it starts on the first request), rewrites asked, kept and fallen
back, rewrites per second of the hook, the load average before and after,
and the hours that rate means for ``--versions`` rewrites (default 24,000,
about the versions of a default world).

    python benchmarks/bench_prose.py --server emulated [--limit 200]
    python benchmarks/bench_prose.py --server llama [--limit 4 --concurrency 1 --threads 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from bench_record import add_record_option, print_result

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run(config, out: Path, rewrite) -> float:
    """Simulate ``config`` into ``out`` (with the rewrite hook, if any); the wall seconds."""
    from simulator.simulate import simulate_to

    started = time.perf_counter()
    simulate_to(config, out, rewrite=rewrite)
    return time.perf_counter() - started


def measure(spec: str, base_url: str | None, limit: int, concurrency: int, kinds: str | None, versions: int,
            threads: int | None = None) -> dict:
    """Grammar, prose and cached-prose runs of one small world; the figures."""
    from orgbench.prose import open_rewrite
    from simulator.config import load_config

    config = load_config(None, days=10, people=16)
    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run(config, root / "warm", None)            # imports and caches warm
        figures["loadavg_before"] = loadavg()
        figures["grammar_s"] = round(run(config, root / "plain", None), 2)
        for case in ("asked", "cached"):
            rewrite = open_rewrite(root / "w", f"llm:{spec}", base_url=base_url, cache_dir=root / "cache",
                                   kinds=kinds, limit=limit, concurrency=concurrency, timeout=600.0)
            if threads is not None:         # a local: server's threads per slot (before it starts)
                rewrite.backend.server.threads = threads
            try:
                wall = run(config, root / "w", rewrite)
            finally:
                rewrite.close()         # a local: server stops here, outside the rewrite's seconds
            figures[case] = {"wall_s": round(wall, 2), "rewrite_s": round(rewrite.seconds, 3),
                             "requests": rewrite.requested, "from_cache": rewrite.cached}
        record = rewrite.record()
        figures["loadavg_after"] = loadavg()
    rate = record["eligible"] / max(figures["asked"]["rewrite_s"], 1e-9)
    return {"spec": spec, "limit": limit, "concurrency": concurrency, "threads": threads, "cpus": os.cpu_count(),
            "eligible": record["eligible"], "rewritten": record["rewritten"], "fallback": record["fallback"],
            **figures, "rewrites_per_s": round(rate, 4), "versions": versions,
            "hours_for_versions": round(versions / rate / 3600, 3)}


def main() -> None:
    """Run the benchmark and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("llama", "emulated"), default="emulated")
    parser.add_argument("--limit", type=int, default=None, help="rewrites asked (emulated 200, llama 4)")
    parser.add_argument("--concurrency", type=int, default=None, help="in flight (emulated 8, llama 1)")
    parser.add_argument("--kinds", default=None, help="--prose-kinds (default: the command's default)")
    parser.add_argument("--versions", type=int, default=24_000, help="rewrites to estimate the hours of")
    parser.add_argument("--threads", type=int, default=None, help="llama: threads per slot (default cpus // slots)")
    add_record_option(parser)
    args = parser.parse_args()
    if args.server == "llama":
        figures = measure("local:smollm2", None, args.limit or 4, args.concurrency or 1, args.kinds, args.versions,
                          args.threads)
    else:
        sys.path.insert(0, str(REPO / "tests" / "judges"))
        from chat_server import ChatServer

        def faithful(body: dict) -> str:
            return "Quick note from me. " + body["messages"][-1]["content"].split("\nOriginal:\n", 1)[1]

        os.environ.pop("OPENAI_API_KEY", None)
        with ChatServer(answer=faithful, record=False) as server:
            figures = measure("openai:rewriter", server.base_url, args.limit or 200, args.concurrency or 8,
                              args.kinds, args.versions)
    print_result({"server": args.server, **figures}, args.record, indent=2)


if __name__ == "__main__":
    main()
