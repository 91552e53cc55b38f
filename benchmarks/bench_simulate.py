"""Simulator throughput against an independently written recording floor, and how cost per event grows.

Prints one JSON object. Every figure is CPU time (this process plus its
children, ``getrusage``), which other processes on the shared machine disturb
less than wall time; the 1-minute load average is printed before and after.

The default run interleaves ``--repeats`` rounds (default 5) after one cold
warm-up round reported apart (``cold``). Each round times, one after the
other:

- ``floor``: the recording floor — a bare simpy loop of as many timeouts as
  the world has events, where each timeout builds that event's record and
  the artifact versions due with it as plain dicts, then every record is
  written as canonical JSON lines (sorted keys, compact) and each file's
  bytes hashed with SHA-256 into a manifest. It writes the same records as the
  simulator (read, untimed, from the world the cold round wrote), so it is
  the least any simulator writing this world must do: schedule, build and
  serialise the records, hash the files. It is written here from the world
  format alone and imports nothing from ``simulator`` or ``orgbench``;
- ``simulator``: ``simulate()`` of the default world and ``save_world`` to a
  temporary directory (the JSONL files and MANIFEST.json with their hashes);
- ``bare_simpy``: the same loop with no records (2,000 processes; ten times the timeouts, per world's worth);
- ``python_pass``: ``python -c pass`` in a child process.

The floor and the simulator each run in a fresh process (``--round``), so
neither pays for what another round left in memory; the timed part starts
after the imports, and the whole process's CPU (start-up and imports
included) is printed beside it (``*_process_cpu_s``). The cyclic collector
pauses while either runs (``simulate`` pauses it for its run; the floor gets
the same). ``share_of_floor`` is the simulator's events per CPU-second over
the floor's, per round; the JSON gives each round's value (with the load
average after it), their median and range. Each absolute rate is printed
beside the bare loop and ``python -c pass`` of the same round. ``--record
FILE`` also writes what was printed, with the command, the commit measured
and the load average, to FILE (``benchmarks/measured/``: what the docs
quote).

Then, each in a fresh subprocess for a clean peak RSS: 1×, 4×, 16× and 64×
the default size (people × days: 1×1, 2×2, 4×4, 8×8), each simulated and
written to disk as it runs (``simulate_to``, which streams events and
artifact versions out in chunks), with seconds (simulating and writing),
events, cost per event (µs of wall time, and of process CPU time), peak
RSS (MB) and the 1-minute load average before and after the child; then the
16×/1× and 64×/1× cost-per-event ratios by each (the CPU one is the
steadier when other processes share the machine). A child that fails stops
the run with its exit status and its stderr. Last,
``realism``: the prose figures of ``simulator.realism`` for the default
world, with a second seed (3) against it — the same figures ``orgbench
inspect --realism WORLD --against WORLD2`` prints.

    python benchmarks/bench_simulate.py            # all of it
    python benchmarks/bench_simulate.py --quick    # default world only
    python benchmarks/bench_simulate.py --scales   # only the 1x-64x rows (about 10 min on 2 shared cores)
    python benchmarks/bench_simulate.py --quick --record benchmarks/measured/simulate_quick.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from bench_record import add_record_option, print_result

SCALES = {"1x": (1, 1), "4x": (2, 2), "16x": (4, 4), "64x": (8, 8)}
BARE_PROCESSES = 2000
#: The bare loop schedules this many times the world's events per round (one world's worth is too short to time).
BARE_REPEATS = 10


def cpu() -> float:
    """CPU seconds of this process and of its finished children (``getrusage``: microsecond resolution)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _shares(timeouts: int, processes: int) -> list[int]:
    """``timeouts`` split over ``processes`` as evenly as possible (they add up to exactly ``timeouts``)."""
    per, extra = divmod(timeouts, processes)
    return [per + (i < extra) for i in range(processes)]


def bare_simpy(timeouts: int, processes: int = BARE_PROCESSES) -> float:
    """CPU seconds of a bare simpy loop: ``processes`` generators sharing ``timeouts`` timeouts."""
    import random

    import simpy

    env = simpy.Environment()
    rng = random.Random(0)

    def proc(n: int):
        for _ in range(n):
            yield env.timeout(rng.expovariate(1.0))

    for n in _shares(timeouts, processes):
        env.process(proc(n))
    started = cpu()
    env.run()
    return cpu() - started


def python_pass() -> float:
    """CPU seconds of ``python -c pass`` in a child process."""
    started = cpu()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return cpu() - started


def read_records(world: Path) -> tuple[list[dict], list[dict], dict[str, bytes]]:
    """The event and artifact-version records of a written world, and its other files' bytes."""
    events = [json.loads(line) for line in (world / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    versions = [json.loads(line) for line in (world / "artifacts.jsonl").read_text(encoding="utf-8").splitlines()]
    others = {p.name: p.read_bytes() for p in sorted(world.iterdir())
              if p.is_file() and p.name not in ("events.jsonl", "artifacts.jsonl", "MANIFEST.json")
              and not p.name.startswith(".")}
    return events, versions, others


def floor(events: list[dict], versions: list[dict], others: dict[str, bytes], out: Path) -> float:
    """CPU seconds of the recording floor: schedule every event, build its records, write and hash them.

    Written from the world format alone (canonical JSON lines, a SHA-256 manifest); it imports nothing of
    the code it bounds. Each timeout builds its event's record and the versions due with it (the versions
    spread evenly over the events) as fresh dicts; after the loop the records are serialised, written and
    hashed, and the manifest is written.
    """
    import hashlib
    import random

    import simpy

    env = simpy.Environment()
    rng = random.Random(0)
    n_events, n_versions = len(events), len(versions)
    due = [0] * (n_events + 1)  # versions[due[i]:due[i + 1]] are built with event i
    for i in range(n_events + 1):
        due[i] = i * n_versions // n_events
    built_events: list[dict] = []
    built_versions: list[dict] = []
    order = iter(range(n_events))

    def proc(n: int):
        for _ in range(n):
            yield env.timeout(rng.expovariate(1.0))
            i = next(order)
            built_events.append(dict(events[i]))
            for k in range(due[i], due[i + 1]):
                built_versions.append(dict(versions[k]))

    started = cpu()
    for n in _shares(n_events, BARE_PROCESSES):
        env.process(proc(n))
    env.run()
    dumps = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode
    out.mkdir(parents=True, exist_ok=True)
    files = {"events.jsonl": "".join([dumps(r) + "\n" for r in built_events]).encode(),
             "artifacts.jsonl": "".join([dumps(r) + "\n" for r in built_versions]).encode(), **others}
    manifest = {}
    for name, data in sorted(files.items()):
        (out / name).write_bytes(data)
        manifest[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (out / "MANIFEST.json").write_text(json.dumps({"files": manifest}, indent=2, sort_keys=True) + "\n")
    seconds = cpu() - started
    assert len(built_events) == n_events and len(built_versions) == n_versions
    return seconds


def simulator_round(out: Path) -> tuple[float, int]:
    """CPU seconds of simulating the default world and writing it to ``out``; and its event count."""
    from simulator.config import load_config
    from simulator.simulate import simulate
    from simulator.world import save_world

    started = cpu()
    world = simulate(load_config())
    save_world(world, out)
    return cpu() - started, len(world.events)


def floor_round(world: Path, out: Path) -> float:
    """CPU seconds of the floor writing the records of ``world`` to ``out`` (reading them is not timed).

    The collector pauses while the floor runs, as it does while the simulator runs (``simulate``): neither
    pays for rescanning the records it holds.
    """
    import gc

    records = read_records(world)
    gc.disable()
    try:
        return floor(*records, out)
    finally:
        gc.enable()


def child_round(kind: str, *paths: str) -> dict:
    """One timed round in a fresh process (``kind``: ``simulator`` or ``floor``): its CPU seconds.

    Each round runs in its own process, so neither pays for what another round left in memory (the floor's
    input records, a previous world); imports and interpreter start-up are outside the timed part and are
    reported apart by the parent (``process_cpu_s``).
    """
    if kind == "simulator":
        seconds, events = simulator_round(Path(paths[0]))
        return {"cpu_s": seconds, "events": events}
    return {"cpu_s": floor_round(Path(paths[0]), Path(paths[1]))}


def in_child(kind: str, *paths: Path) -> dict:
    """``child_round`` in a subprocess, with the whole process's CPU (start-up and imports included)."""
    started = cpu()
    proc = subprocess.run([sys.executable, __file__, "--round", kind, *map(str, paths)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise ChildFailed(f"bench_simulate --round {kind} exited {proc.returncode}:\n"
                          f"{proc.stderr.strip() or '(no stderr)'}")
    return {**json.loads(proc.stdout), "process_cpu_s": cpu() - started}


def default_world(repeats: int) -> dict:
    """The interleaved rounds on the default world: floor, simulator (each in a fresh process), bare loop,
    ``python -c pass``."""
    import statistics

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cold_run = in_child("simulator", root / "cold")
        events = cold_run["events"]
        versions = sum(1 for _ in (root / "cold" / "artifacts.jsonl").open(encoding="utf-8"))
        cold = {"simulator_cpu_s": round(cold_run["cpu_s"], 3),
                "simulator_process_cpu_s": round(cold_run["process_cpu_s"], 3),
                "python_pass_cpu_s": round(python_pass(), 4)}
        rounds = []
        for r in range(repeats):
            flo_run = in_child("floor", root / "cold", root / f"floor{r}")
            sim_run = in_child("simulator", root / f"sim{r}")
            if sim_run["events"] != events:
                raise ChildFailed(f"round {r}: the simulator wrote {sim_run['events']} events, not {events}")
            sim, flo = sim_run["cpu_s"], flo_run["cpu_s"]
            bare = bare_simpy(BARE_REPEATS * events) / BARE_REPEATS
            passed = python_pass()
            rounds.append({"simulator_cpu_s": round(sim, 3), "floor_cpu_s": round(flo, 3),
                           "simulator_process_cpu_s": round(sim_run["process_cpu_s"], 3),
                           "floor_process_cpu_s": round(flo_run["process_cpu_s"], 3),
                           "bare_simpy_cpu_s": round(bare, 3), "python_pass_cpu_s": round(passed, 4),
                           "simulator_events_per_cpu_s": round(events / sim),
                           "floor_events_per_cpu_s": round(events / flo),
                           "bare_simpy_timeouts_per_cpu_s": round(events / bare),
                           "share_of_floor": round(flo / sim, 3),
                           "load": round(os.getloadavg()[0], 2)})
    shares = [row["share_of_floor"] for row in rounds]

    def median(key: str) -> float:
        return statistics.median(row[key] for row in rounds)

    return {
        "events": events, "artifact_versions": versions, "repeats": repeats,
        "share_of_floor": round(statistics.median(shares), 3),
        "share_of_floor_range": [min(shares), max(shares)],
        "simulator_events_per_cpu_s": round(median("simulator_events_per_cpu_s")),
        "floor_events_per_cpu_s": round(median("floor_events_per_cpu_s")),
        "bare_simpy_timeouts_per_cpu_s": round(median("bare_simpy_timeouts_per_cpu_s")),
        "python_pass_cpu_s": round(median("python_pass_cpu_s"), 4),
        "simulator_over_bare_simpy": round(median("bare_simpy_cpu_s") / median("simulator_cpu_s"), 3),
        "floor_over_bare_simpy": round(median("bare_simpy_cpu_s") / median("floor_cpu_s"), 3),
        "cold": cold, "rounds": rounds,
        "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
    }


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure_streamed(people_factor: int, days_factor: int) -> dict:
    """Simulate one world at a multiple of the default size, written to a temp dir as it runs."""
    from simulator.config import load_config
    from simulator.simulate import simulate_to

    base = load_config()
    config = load_config(people=base.people * people_factor, days=base.days * days_factor)
    with tempfile.TemporaryDirectory() as tmp:
        started, cpu_started = time.perf_counter(), time.process_time()
        meta = simulate_to(config, Path(tmp) / "world")
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    events = meta["counts"]["events"]
    return {"people": config.people, "days": config.days, "events": events,
            "artifact_versions": meta["counts"]["artifact_versions"], "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu_seconds, 3), "us_per_event": round(seconds / events * 1e6, 2),
            "cpu_us_per_event": round(cpu_seconds / events * 1e6, 2), "peak_rss_mb": round(peak_rss_mb(), 1)}


def realism(second_seed: int = 3) -> dict:
    """The realism figures of the default world, with a world of ``second_seed`` measured against it."""
    from simulator.config import load_config
    from simulator.realism import measure
    from simulator.simulate import simulate

    return measure(simulate(load_config()), simulate(load_config(seed=second_seed))).as_dict()


def main() -> None:
    """Measure and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the default world")
    parser.add_argument("--scales", action="store_true", help="only the 1x-64x rows (streamed worlds)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds on the default world")
    parser.add_argument("--child", nargs=2, type=int, metavar=("PEOPLE_X", "DAYS_X"), help=argparse.SUPPRESS)
    add_record_option(parser)
    parser.add_argument("--round", nargs="+", metavar="KIND", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.round:
        print(json.dumps(child_round(*args.round)))
        return
    if args.child:
        print(json.dumps(measure_streamed(args.child[0], args.child[1])))
        return

    if args.scales:
        print_result(scale_rows(), args.record, indent=2)
        return
    result = default_world(max(1, args.repeats))
    if not args.quick:
        result.update(scale_rows())
    result["realism"] = realism()
    print_result(result, args.record, indent=2)


class ChildFailed(RuntimeError):
    """A measuring subprocess exited non-zero; the message carries its exit code and stderr."""


def run_child(people_factor: int, days_factor: int) -> dict:
    """The ``measure_streamed`` row of a fresh subprocess; a failing child raises with its stderr."""
    command = [sys.executable, __file__, "--child", str(people_factor), str(days_factor)]
    load_before = os.getloadavg()[0]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        how = f"was killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exited {proc.returncode}"
        raise ChildFailed(f"bench_simulate --child {people_factor} {days_factor} {how}:\n"
                          f"{proc.stderr.strip() or '(no stderr)'}")
    # the 1-minute load average around the child: how much the shared machine disturbed its wall time
    return {**json.loads(proc.stdout), "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}


def scale_rows() -> dict:
    """The 1x-64x rows, each from a fresh subprocess, and the cost-per-event ratios to 1x."""
    scales = {}
    for name, (pf, df) in SCALES.items():
        scales[name] = run_child(pf, df)
    result: dict = {"scales": scales}
    for name in ("16x", "64x"):
        result[f"cost_ratio_{name}_vs_1x"] = round(scales[name]["us_per_event"] / scales["1x"]["us_per_event"], 3)
        # process CPU time: what other processes on a shared machine disturb least
        result[f"cpu_cost_ratio_{name}_vs_1x"] = round(
            scales[name]["cpu_us_per_event"] / scales["1x"]["cpu_us_per_event"], 3)
    return result


if __name__ == "__main__":
    try:
        main()
    except ChildFailed as failure:  # the child's stderr, not a traceback of this process
        sys.exit(str(failure))
