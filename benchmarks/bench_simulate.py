"""Simulator throughput against a bare simpy loop, and how cost per event grows with world size.

Prints one JSON object. For the default world, simulated and written
``--repeats`` times in this process (default 3; the shared machine is noisy,
so each figure is the best of the repeats, and ``first_run`` keeps the cold
first one, which also compiles or loads the templates): events, seconds (the
whole ``simulate()``: setup, event loop, bulk rendering, building the event
records, graph, assembly — in memory), write_seconds (save_world),
total_seconds, cpu_seconds / cpu_write_seconds (process CPU time, which other
processes on the machine disturb less than wall time), events_per_s, the
seconds of each phase, and — in the same run — the rate of a bare simpy loop
scheduling the same number of timeouts (2,000 processes, best of 5) with two
ratios: ``ratio`` = end-to-end events/s over the bare rate, and
``event_loop_ratio`` = events/s of the event loop alone (rendering and the
event records are built in bulk after it) over the bare rate;
``event_loop_and_records_ratio`` also counts building the event records.
``recording_floor`` calibrates those ratios: the same bare loop, but each
timeout also does the least any simulator writing this world format must
do per event — one event row and one artifact draft through the real
``Ledger``, then (after the loop) the drafts rendered in bulk through the
real jinja2 path with the shortest template and the Event records built —
with its events/s, its ratio to the bare loop (the highest end-to-end
``ratio`` such a simulator can reach here) and ``share_of_floor``, the
simulator's end-to-end rate over the floor's. ``documented_anchor``
divides the simulator's rate by the bare-loop rate PERFORMANCE.md records
for this machine kind (68,000 timeouts/s), which is not measured here.
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

SCALES = {"1x": (1, 1), "4x": (2, 2), "16x": (4, 4), "64x": (8, 8)}
#: PERFORMANCE.md's bare simpy loop on this machine kind (timeouts/s, 2,000 processes) — documented, not measured.
DOCUMENTED_BARE_RATE = 68_000


def bare_simpy_rate(timeouts: int, processes: int = 2000, repeats: int = 5) -> float:
    """Best over ``repeats`` runs of ``_bare_simpy_rate`` (like the simulator's figures: best of its repeats)."""
    return max(_bare_simpy_rate(timeouts, processes) for _ in range(repeats))


def _bare_simpy_rate(timeouts: int, processes: int = 2000) -> float:
    """Timeouts per second of a bare simpy loop: ``processes`` generators sharing ``timeouts`` timeouts."""
    import random

    import simpy

    env = simpy.Environment()
    rng = random.Random(0)

    def proc(n: int):
        for _ in range(n):
            yield env.timeout(rng.expovariate(1.0))

    for n in _shares(timeouts, processes):
        env.process(proc(n))
    started = time.perf_counter()
    env.run()
    return timeouts / (time.perf_counter() - started)


def _shares(timeouts: int, processes: int) -> list[int]:
    """``timeouts`` split over ``processes`` as evenly as possible (they add up to exactly ``timeouts``)."""
    per, extra = divmod(timeouts, processes)
    return [per + (i < extra) for i in range(processes)]


def recording_floor(timeouts: int, processes: int = 2000, repeats: int = 5) -> dict:
    """Best over ``repeats`` runs of ``_recording_floor``: the least per-event work of this world format."""
    runs = [_recording_floor(timeouts, processes) for _ in range(repeats)]
    best = min(runs, key=lambda run: run["seconds"])
    return {**best, "events_per_s": round(best["events"] / best["seconds"])}


def _recording_floor(timeouts: int, processes: int = 2000) -> dict:
    """The bare loop, where each timeout also records one event and one artifact version, rendered after it.

    Uses the simulator's own Ledger (event rows, drafts stamped with the minute), ``render_all`` (one
    macro call per draft) and the Event records built after the loop, with the shortest template
    (``chat_message``, a fixed line) — what ``simulate()`` cannot do less of per event.
    """
    import gc
    import random

    import simpy

    from simulator.artifacts import render_all
    from simulator.calendar import BusinessCalendar
    from simulator.config import load_config
    from simulator.ledger import Ledger
    from simulator.model import EntityRef

    config = load_config()
    env = simpy.Environment()
    ledger = Ledger(env, BusinessCalendar(config.start, config.days, config.calendar), random.Random(1))
    rng = random.Random(0)
    entity = EntityRef("channel", "CH-GENERAL")
    emit, draft = ledger.emit, ledger.draft

    def proc(n: int):
        for _ in range(n):
            yield env.timeout(rng.expovariate(1.0))
            ref = draft("CH-GENERAL", "chat", "chat_message", "P-0001", entity, "#general", "chat_message",
                        {"channel": "CH-GENERAL"}, context={"topic": "lunch"})
            emit("chat.message_posted", ("P-0001",), "chat", entity, {"channel": "CH-GENERAL"}, (), (ref,))

    for n in _shares(timeouts, processes):
        env.process(proc(n))
    collecting = gc.isenabled()
    gc.disable()  # as simulate() does
    try:
        started = time.perf_counter()
        env.run()
        loop = time.perf_counter() - started
        versions = render_all(ledger.drafts, {"P-0001": "Ada Lovelace"}, ledger.moment)
        events = ledger.events
        seconds = time.perf_counter() - started
    finally:
        if collecting:
            gc.enable()
    assert len(events) == len(versions) == timeouts
    return {"events": len(events), "seconds": round(seconds, 4), "event_loop_seconds": round(loop, 4)}


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
        started, cpu = time.perf_counter(), time.process_time()
        meta = simulate_to(config, Path(tmp) / "world")
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    events = meta["counts"]["events"]
    return {"people": config.people, "days": config.days, "events": events,
            "artifact_versions": meta["counts"]["artifact_versions"], "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu_seconds, 3), "us_per_event": round(seconds / events * 1e6, 2),
            "cpu_us_per_event": round(cpu_seconds / events * 1e6, 2), "peak_rss_mb": round(peak_rss_mb(), 1)}


def measure(people_factor: int, days_factor: int, write: bool) -> dict:
    """Simulate (and optionally write) one world at a multiple of the default size."""
    from simulator.config import load_config
    from simulator.simulate import simulate
    from simulator.world import save_world

    base = load_config()
    config = load_config(people=base.people * people_factor, days=base.days * days_factor)
    phases: dict[str, float] = {}
    started, cpu = time.perf_counter(), time.process_time()
    world = simulate(config, timings=phases)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    out = {"people": config.people, "days": config.days, "events": len(world.events),
           "artifact_versions": len(world.artifacts), "seconds": round(seconds, 3),
           "cpu_seconds": round(cpu_seconds, 3), "us_per_event": round(seconds / len(world.events) * 1e6, 2),
           "cpu_us_per_event": round(cpu_seconds / len(world.events) * 1e6, 2),
           "phases": {name: round(value, 3) for name, value in phases.items()}}
    if write:
        with tempfile.TemporaryDirectory() as tmp:
            started, cpu = time.perf_counter(), time.process_time()
            save_world(world, Path(tmp) / "world")
            out["write_seconds"] = round(time.perf_counter() - started, 3)
            out["cpu_write_seconds"] = round(time.process_time() - cpu, 3)
    out["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return out


def best_of(runs: list[dict]) -> dict:
    """The first run with every timing replaced by its minimum over ``runs``."""
    best = dict(runs[0])
    for key in ("seconds", "cpu_seconds", "write_seconds", "cpu_write_seconds"):
        if key in best:
            best[key] = min(run[key] for run in runs)
    best["phases"] = {name: min(run["phases"][name] for run in runs) for name in runs[0]["phases"]}
    best["us_per_event"] = round(best["seconds"] / best["events"] * 1e6, 2)
    best["peak_rss_mb"] = max(run["peak_rss_mb"] for run in runs)
    return best


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
    parser.add_argument("--repeats", type=int, default=3, help="default-world runs; each figure is the best")
    parser.add_argument("--child", nargs=2, type=int, metavar=("PEOPLE_X", "DAYS_X"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_streamed(args.child[0], args.child[1])))
        return

    if args.scales:
        print(json.dumps(scale_rows(), indent=2))
        return
    runs = [measure(1, 1, write=True) for _ in range(max(1, args.repeats))]
    default = best_of(runs)
    bare = bare_simpy_rate(default["events"])
    floor = recording_floor(default["events"])
    rate = default["events"] / default["seconds"]
    loop_rate = default["events"] / default["phases"]["event_loop"]
    first = runs[0]
    result = {
        "events": default["events"],
        "repeats": len(runs),
        "seconds": default["seconds"],
        "write_seconds": default.get("write_seconds"),
        "total_seconds": round(default["seconds"] + default.get("write_seconds", 0.0), 3),
        "cpu_seconds": default["cpu_seconds"],
        "cpu_write_seconds": default.get("cpu_write_seconds"),
        "events_per_s": round(rate),
        "phases": default["phases"],
        "bare_simpy_timeouts_per_s": round(bare),
        "ratio": round(rate / bare, 3),
        "event_loop_events_per_s": round(loop_rate),
        "event_loop_ratio": round(loop_rate / bare, 3),
        # the loop stores event rows; counting the Event records built from them after it too:
        "event_loop_and_records_ratio": round(
            default["events"] / (default["phases"]["event_loop"] + default["phases"].get("events", 0.0)) / bare, 3),
        "recording_floor": {
            **floor,
            "ratio": round(floor["events_per_s"] / bare, 3),
            "event_loop_ratio": round(floor["events"] / floor["event_loop_seconds"] / bare, 3),
        },
        "share_of_floor": round(rate / floor["events_per_s"], 3),
        "documented_anchor": {"bare_simpy_timeouts_per_s": DOCUMENTED_BARE_RATE,
                              "ratio": round(rate / DOCUMENTED_BARE_RATE, 3),
                              "ratio_with_write": round(default["events"] / (default["seconds"] + default.get(
                                  "write_seconds", 0.0)) / DOCUMENTED_BARE_RATE, 3)},
        "first_run": {"seconds": first["seconds"], "write_seconds": first.get("write_seconds"),
                      "total_seconds": round(first["seconds"] + first.get("write_seconds", 0.0), 3),
                      "phases": first["phases"]},
        "peak_rss_mb": default["peak_rss_mb"],
    }
    if not args.quick:
        result.update(scale_rows())
    result["realism"] = realism()
    print(json.dumps(result, indent=2))


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
