"""Throughput of the checked assurance pipeline on 10,000 packets, printed as JSON.

Builds a simulated suite large enough for ``--packets`` restored packets
(4 per trajectory with targets), then times build, check, stage, emit and
dispatch (recording stub, one draw) under P3, and the share of that time
spent hashing. Goal: the full pipeline at >= 2,000 packets/s.

    python benchmarks/bench_assurance.py [--packets 10000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
import time
from pathlib import Path

from benchmark_builders.trajectories.records import write_suite
from benchmark_builders.trajectories.simulate import simulate_trajectories, synthetic_cases
from judges.assurance.pack import read_pack
from judges.assurance.pipeline import Controls, PipelineConfig, build, check, dispatch, emit, stage
from judges.assurance.targets import select_targets
from judges.backends.stub import RecordingStub


class TimedHasher:
    """Exact SHA-256 that adds up the time spent in it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, data: bytes) -> str:
        started = time.perf_counter()
        digest = hashlib.sha256(data).hexdigest()
        self.seconds += time.perf_counter() - started
        self.calls += 1
        return digest


def _file_creation_rate(root: Path, n: int = 2000) -> int:
    """How fast this filesystem creates small files (context: the stages write one pack each, not a file per packet)."""
    probe = root / "probe"
    probe.mkdir()
    started = time.perf_counter()
    for i in range(n):
        with open(probe / f"{i}.txt", "wb") as handle:
            handle.write(b"x" * 2000)
    return round(n / (time.perf_counter() - started))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packets", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", default=None, help="Where to put the workspace (default: the system temp dir).")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-assurance-", dir=args.dir))
    try:
        trajectories, labels, n = [], [], 0
        batch = 0
        while n * 4 < args.packets:
            more_t, more_l = simulate_trajectories(synthetic_cases(50, args.seed + batch), 500, args.seed + batch)
            for t, l in zip(more_t, more_l):
                if n * 4 >= args.packets:
                    break
                if select_targets(t, l) is not None:
                    trajectories.append(t)
                    labels.append(l)
                    n += 1
            batch += 1
        write_suite(root / "suite", trajectories, labels, {"bench": True})
        hasher = TimedHasher()
        stub = RecordingStub()
        cfg = PipelineConfig(root / "suite", root / "work", Controls(3), draws=1, hasher=hasher)
        timings = {}
        for name, run in (("build", build), ("check", check), ("stage", stage), ("emit", emit),
                          ("dispatch", lambda c: dispatch(c, stub))):
            started = time.perf_counter()
            result = run(cfg)
            timings[name] = time.perf_counter() - started
            if result.return_code:
                raise SystemExit(f"{name} failed: {result.requirement}: {result.reason}")
        packets = len(read_pack(root / "work" / "staged" / "packets.pack"))
        total = sum(timings.values())
        print(json.dumps({
            "packets": packets,
            "trajectories": len(trajectories),
            "controls": "P3",
            "draws": 1,
            "packets_per_second": {k: round(packets / v) for k, v in timings.items()},
            "seconds": {k: round(v, 3) for k, v in timings.items()},
            "full_pipeline_packets_per_second": round(packets / total),
            "hashing_share": round(hasher.seconds / total, 4),
            "hash_calls": hasher.calls,
            "stub_reads": len(stub.reads),
            "goal_packets_per_second": 2000,
            "workspace_filesystem_files_created_per_second": _file_creation_rate(root),
        }, indent=2))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
