"""Throughput of the checked assurance pipeline on 10,000 packets, unsigned and signed, printed as JSON.

Builds a simulated suite large enough for ``--packets`` restored packets
(4 per trajectory with targets), then runs build, check, stage, emit and
dispatch (recording stub, one draw) under P3 in ``--repeats`` interleaved
rounds (default 3), after one warm-up round on a small suite (imports, compiled
patterns); each round runs the pipeline unsigned and signed (every stage's
in-toto link, the layout and the journal's seals, with an ed25519 key kept
outside the workspace, as ``assure run --key``), each in a new workspace and
one run each (its stages share its parses, as ``assure run``'s do), stage by
stage: each stage in both modes before the next, the order alternating from
round to round, so drift in the machine's load falls on both modes alike. Figures are CPU seconds of this process and its
children (``getrusage``), medians over the rounds; each round's are printed
too, with the 1-minute load average beside each round and ``python -c pass``
for scale.

- ``packets_per_cpu_s``: per mode, per stage and for the full pipeline (goal:
  signed >= 2,000; the goal counts CPU seconds);
- ``packets_per_wall_s``: per mode, the full pipeline over its wall seconds (median over the rounds), which on a
  shared machine also counts the time other processes held the cores (and fsync waits);
- ``signed_share_of_unsigned``: the unsigned pipeline's CPU over the signed
  one's, per round, and its median (goal: >= 0.9 -- signing costs at most
  about a tenth);
- ``hashing_share``: the share of the unsigned pipeline's wall time spent in
  SHA-256 (first round).

    python benchmarks/bench_assurance.py [--packets 10000] [--repeats 3] [--dir DIR] [--record FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark_builders.trajectories.records import write_suite
from benchmark_builders.trajectories.simulate import simulate_trajectories, synthetic_cases
from judges.assurance.intoto import ChainKey
from judges.assurance.manifest import exact_sha256
from judges.assurance.pack import read_pack
from judges.assurance.pipeline import Controls, PipelineConfig, build, check, dispatch, emit, stage
from judges.assurance.targets import select_targets
from judges.backends.stub import RecordingStub
from securesystemslib.signer import CryptoSigner
from bench_record import add_record_option, print_result

STAGES = ("build", "check", "stage", "emit", "dispatch")


def cpu() -> float:
    """CPU seconds of this process and its finished children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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


def run_stages(cfgs: dict[str, PipelineConfig]) -> tuple[dict[str, dict[str, float]], dict[str, float], int]:
    """Run the pipelines of ``cfgs`` (mode -> config, recording stub each) stage by stage, each stage in every
    mode in the order given before the next stage: CPU seconds per mode and stage, wall seconds per mode, and
    the packets each handed to its judge."""
    stubs = {mode: RecordingStub() for mode in cfgs}
    seconds: dict[str, dict[str, float]] = {mode: {} for mode in cfgs}
    wall = dict.fromkeys(cfgs, 0.0)
    for name, run in zip(STAGES, (build, check, stage, emit, dispatch)):
        for mode, cfg in cfgs.items():
            started, started_wall = cpu(), time.perf_counter()
            result = run(cfg, stubs[mode]) if name == "dispatch" else run(cfg)
            seconds[mode][name] = cpu() - started
            wall[mode] += time.perf_counter() - started_wall
            if result.return_code:
                raise SystemExit(f"{mode} {name} failed: {result.requirement}: {result.reason}")
    packets = 0
    for mode, cfg in cfgs.items():
        packets = len(read_pack(cfg.work / "staged" / "packets.pack"))
        if len(stubs[mode].reads) != packets:
            raise SystemExit(f"{mode} dispatch handed {len(stubs[mode].reads)} packets to the judge, not every "
                             f"staged one")
    return seconds, wall, packets


def _file_creation_rate(root: Path, n: int = 2000) -> int:
    """How fast this filesystem creates small files (context: the stages write one pack each, not a file per packet)."""
    probe = root / "probe"
    probe.mkdir()
    started = time.perf_counter()
    for i in range(n):
        with open(probe / f"{i}.txt", "wb") as handle:
            handle.write(b"x" * 2000)
    return round(n / (time.perf_counter() - started))


def _cohort(packets: int, seed: int) -> tuple[list, list]:
    """Trajectories with targets (and their labels), enough for ``packets`` packets (4 each)."""
    trajectories, labels, batch = [], [], 0
    while len(trajectories) * 4 < packets:
        more_t, more_l = simulate_trajectories(synthetic_cases(50, seed + batch), 500, seed + batch)
        for t, l in zip(more_t, more_l):
            if len(trajectories) * 4 >= packets:
                break
            if select_targets(t, l) is not None:
                trajectories.append(t)
                labels.append(l)
        batch += 1
    return trajectories, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packets", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (unsigned and signed, stage by stage)")
    parser.add_argument("--dir", default=None, help="Where to put the workspace (default: the system temp dir).")
    add_record_option(parser)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-assurance-", dir=args.dir))
    try:
        trajectories, labels = _cohort(args.packets, args.seed)
        write_suite(root / "suite", trajectories, labels, {"bench": True})
        warm_t, warm_l = _cohort(200, args.seed)
        write_suite(root / "warm", warm_t, warm_l, {"bench": True})
        key = ChainKey(CryptoSigner.generate_ed25519(), ephemeral=False, outside=True)
        run_stages({mode: PipelineConfig(root / "warm", root / f"warm-{mode}", Controls(3), draws=1, key=signing,
                                         journal=root / f"warm-{mode}.journal")      # warm-up: not counted
                    for mode, signing in (("unsigned", None), ("signed", key))})
        load_before = os.getloadavg()[0]
        hasher = TimedHasher()
        rounds: list[dict] = []
        packets = hashing_share = 0
        for r in range(max(1, args.repeats)):
            row: dict = {"load_1min": round(os.getloadavg()[0], 2)}
            modes = (("unsigned", None), ("signed", key))
            cfgs = {mode: PipelineConfig(root / "suite", root / f"{mode}{r}", Controls(3), draws=1, key=signing,
                                         hasher=hasher if (r, mode) == (0, "unsigned") else exact_sha256,
                                         journal=root / f"{mode}{r}.journal")
                    for mode, signing in (modes if r % 2 == 0 else modes[::-1])}
            seconds, wall, packets = run_stages(cfgs)
            row.update(seconds)
            row["wall"] = wall
            if r == 0:
                hashing_share = hasher.seconds / wall["unsigned"]
            for cfg in cfgs.values():
                shutil.rmtree(cfg.work)
            row["signed_share_of_unsigned"] = round(sum(row["unsigned"].values()) / sum(row["signed"].values()), 3)
            rounds.append(row)
        shares = [row["signed_share_of_unsigned"] for row in rounds]

        def rates(mode: str) -> dict:
            per_stage = {s: statistics.median(row[mode][s] for row in rounds) for s in STAGES}
            total = statistics.median(sum(row[mode].values()) for row in rounds)
            return {**{s: round(packets / v) for s, v in per_stage.items()}, "full_pipeline": round(packets / total)}

        passed = cpu()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        passed = cpu() - passed
        print_result({
            "packets": packets,
            "trajectories": len(trajectories),
            "order": "stage by stage, each stage unsigned then signed in even rounds, signed then unsigned in odd ones",
            "controls": "P3",
            "draws": 1,
            "repeats": len(rounds),
            "packets_per_cpu_s": {"unsigned": rates("unsigned"), "signed": rates("signed")},
            "packets_per_wall_s": {mode: round(packets / statistics.median(row["wall"][mode] for row in rounds))
                                   for mode in ("unsigned", "signed")},
            "signed_share_of_unsigned": round(statistics.median(shares), 3),
            "signed_share_of_unsigned_rounds": shares,
            "goal_signed_share": 0.9,
            "goal_packets_per_second": 2000,
            "cpu_s_rounds": [{**{m: {s: round(v, 3) for s, v in row[m].items()} for m in ("unsigned", "signed")},
                              "wall_s": {m: round(v, 3) for m, v in row["wall"].items()},
                              "load_1min": row["load_1min"]} for row in rounds],
            "hashing_share": round(hashing_share, 4),
            "hash_calls": hasher.calls,
            "python_pass_cpu_s": round(passed, 4),
            "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "workspace_filesystem_files_created_per_second": _file_creation_rate(root),
        }, args.record, indent=2)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
