"""GroundEval performance: contracts built per second, scoring throughput, gated search latency. Prints JSON.

- ``contracts_per_s``: ``build_questions`` on the default world (simulation excluded), at the default
  counts and at 10× the counts;
- ``scoring``: questions scored per second with the full diagnostics on realistic traces (every built-in
  agent's tool-mode run on the default world: oracle, leaky, lazy, proximity, bm25, zero-shot), on two paths:
  ``score_question`` alone (arithmetic only, from compiled truth and re-derived calls: the spec's anchor,
  also with JSON parsing of the answer and trace lines), and the full ``score_submissions`` path that
  ``score groundeval`` runs (load the suite's truth and contracts, re-derive every call from the corpus —
  gate decisions, each claimed search run again once per distinct query, subsystem and limit for an actor
  and as_of — then score), each repetition with fresh caches; plus the share of the full path spent
  re-deriving. The machine is shared and noisy: each figure is the best of several equal repeats, printed
  with the spread (slowest and median repeat);
- ``cold_scoring``: ``score_submissions`` in fresh processes on every built-in agent's runs in both modes,
  with the suite's index built (an empty cache) and kept (``bench_cold_scoring``), beside ``python -c pass``
  and ``orgbench score groundeval --help``, in interleaved rounds (CPU time, children counted);
- ``search``: p50/p99 latency of ``search_artifacts`` (gates included: each query runs in a session for a
  random actor and moment) on a synthetic world with ≥ 100,000 artifact versions, plus fetch latency and
  the one-off cost of indexing and of opening a session.

Usage: ``python benchmarks/bench_groundeval.py [--quick] [--only build|scoring|cold-scoring|search ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from bench_record import add_record_option, print_result


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench_build(world) -> dict:
    from benchmark_builders.groundeval.build import WORLD_RULES, build_questions
    from benchmark_builders.groundeval.contracts import BuildConfig

    out = {}
    for label, scale in (("default_counts", 1), ("10x_counts", 10)):
        config = BuildConfig()
        config = BuildConfig(counts={k: v * scale for k, v in config.counts.items()})
        started = time.perf_counter()
        questions = build_questions(world, WORLD_RULES, config, "bench")
        seconds = time.perf_counter() - started
        out[label] = {"contracts": len(questions), "seconds": round(seconds, 3),
                      "contracts_per_s": round(len(questions) / seconds, 1)}
    return out


def bench_scoring(world, repeat: int) -> dict:
    from benchmark_builders.groundeval.build import build_suite
    from judges.groundeval.run import run_agent, score_submissions
    from judges.groundeval.runtime import Corpus
    from judges.groundeval.scoring import CompiledTruth, score_question
    from judges.groundeval.traces import load_submissions, load_suite, load_truth
    from judges.groundeval.verify import TraceVerifier, rederive

    agents = ("oracle", "leaky", "lazy", "proximity", "bm25", "zero-shot")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        build_suite(suite, world=world, name="bench")
        corpus = Corpus(world)
        submissions = []
        for agent in agents:
            run_agent(suite, agent, "tool", Path(tmp) / agent, record_latency=False, corpus=corpus, world=world)
            submissions += load_submissions(Path(tmp) / agent)[0]
        truths = {q: CompiledTruth.of(t) for q, t in load_truth(suite).items()}
        contracts = {c.question_id: c for c in load_suite(suite)[1]}

        # -- the full path: what ``score groundeval`` does between reading the answers and writing the rows
        full_times = _timed(max(3, repeat // 40), lambda: score_submissions(suite, submissions, corpus=corpus))

        # -- its re-derivation alone (fresh verifiers, one per actor and as_of, shared across contracts and agents:
        #    as the full path does)
        def rederive_all() -> None:
            verifiers: dict[tuple, TraceVerifier] = {}
            rederived.clear()
            for sub in submissions:
                contract = contracts[sub.question_id]
                moment = (contract.actor, contract.as_of)
                verifier = verifiers.get(moment)
                if verifier is None:
                    verifier = verifiers[moment] = TraceVerifier(corpus, contract.actor, contract.as_of)
                rederived.append(rederive(corpus, contract.actor, contract.as_of, sub.calls, verifier=verifier)[0])
        rederived: list = []
        rederive_times = _timed(max(3, repeat // 40), rederive_all)

    # -- score_question alone, on the re-derived calls (arithmetic only)
    work = [(truths[s.question_id], s.answer, calls) for s, calls in zip(submissions, rederived)]
    lines = [(json.dumps(s.answer), json.dumps(calls)) for s, calls in zip(submissions, rederived)]
    calls_per_question = sum(len(s.calls) for s in submissions) / len(submissions)
    passes = max(1, repeat // BLOCKS)

    def score_only() -> None:
        for _ in range(passes):
            for truth, answer, trace in work:
                score_question(truth, answer, trace)

    def score_with_json() -> None:
        for _ in range(max(1, passes // 4)):
            for (truth, _, _), (answer_text, calls_text) in zip(work, lines):
                score_question(truth, json.loads(answer_text), json.loads(calls_text))

    only = _rates(_timed(BLOCKS, score_only), passes * len(work))
    with_json = _rates(_timed(BLOCKS, score_with_json), max(1, passes // 4) * len(work))
    full = _rates(full_times, len(submissions))
    return {
        "agents": list(agents), "mode": "tool", "questions": len(submissions),
        "mean_calls_per_question": round(calls_per_question, 2),
        "noise": "a shared, noisy 2-core machine: each figure is the best of its repeats (of equal work); "
                 "'spread' gives the slowest and median repeat beside it, and the median by process CPU time",
        "score_question_only": {**only, "us_per_question": round(1e6 / only["questions_per_s"], 2),
                                "questions_per_s_with_json_parsing": with_json["questions_per_s"],
                                "with_json_parsing_spread": with_json["spread"]},
        "full_path_score_submissions": {**full, "us_per_question": round(1e6 / full["questions_per_s"], 1),
                                        "share_rederivation": round(min(1.0, min(rederive_times[0]) / min(full_times[0])), 3)},
    }


BLOCKS = 10     # repeats of each scoring measurement: the best is reported, with the spread


def _timed(repeats: int, work) -> tuple[list[float], list[float]]:
    """Wall and process CPU seconds (steadier on a shared machine) taken by each of ``repeats`` runs of ``work``."""
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return wall, cpu


def _rates(times: tuple[list[float], list[float]], n: int) -> dict:
    """Questions per second over repeats of ``n`` questions each: the best, and the spread (slowest, median)."""
    wall, cpu = times
    rates = sorted(n / s for s in wall)
    return {"questions_per_s": round(rates[-1]), "repeats": len(rates), "questions_per_repeat": n,
            "spread": {"slowest": round(rates[0]), "median": round(statistics.median(rates)), "best": round(rates[-1])},
            "questions_per_cpu_s_median": round(statistics.median(n / max(s, 1e-9) for s in cpu))}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def score_child(suite: Path, runs: Path, cache: Path) -> dict:
    """In a fresh process: import, read every run's answers, then ``score_submissions`` (CPU seconds of each)."""
    started = _cpu(resource.RUSAGE_SELF)
    from judges.groundeval.run import score_submissions
    from judges.groundeval.traces import load_submissions

    imported = _cpu(resource.RUSAGE_SELF)
    submissions = [s for run in sorted(runs.iterdir()) for s in load_submissions(run)[0]]
    loaded = _cpu(resource.RUSAGE_SELF)
    rows, _ = score_submissions(suite, submissions, index_cache=cache)
    scored = _cpu(resource.RUSAGE_SELF)
    return {"questions": len(rows), "import_cpu_s": round(imported - started, 4),
            "load_submissions_cpu_s": round(loaded - imported, 4), "score_cpu_s": round(scored - loaded, 4),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def _child(args: list[str]) -> tuple[float, str]:
    """CPU seconds of a child process (``RUSAGE_CHILDREN``) and its stdout."""
    started = _cpu(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)
    return _cpu(resource.RUSAGE_CHILDREN) - started, proc.stdout


#: The machine's pace in the same run: a bare simpy loop (100 processes sharing 100,000 timeouts), nothing of orgbench.
BARE_SIMPY = """
import simpy
env = simpy.Environment()
def tick(n):
    for _ in range(n):
        yield env.timeout(1)
for _ in range(100):
    env.process(tick(1000))
env.run()
"""


def bench_cold_scoring(world, repeats: int) -> dict:
    """``score_submissions`` in fresh processes on every built-in agent's runs in both modes (one default world).

    Each round, interleaved: a process whose index cache is empty (it builds the index from the suite's
    artifacts and keeps it), a process that finds it kept (a fresh process: nothing in memory), ``python -c
    pass``, ``python -m orgbench score groundeval --help`` (the CLI's fixed start-up) and ``BARE_SIMPY``. Questions per CPU-second
    count ``score_submissions`` only (load and index included; interpreter start, imports and reading the
    answers are printed apart). The median of the rounds, and each round.
    """
    from benchmark_builders.groundeval.build import build_suite
    from judges.groundeval.run import run_agent
    from judges.groundeval.runtime import Corpus
    from orgbench.studies.groundeval import AGENTS, MODES

    rounds = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite, runs = root / "suite", root / "runs"
        build_suite(suite, world=world, name="bench")
        corpus = Corpus(world)
        for agent in AGENTS:
            for mode in MODES:
                run_agent(suite, agent, mode, runs / f"{agent}-{mode}", record_latency=False, corpus=corpus,
                          world=world)
        me = [str(Path(__file__).resolve()), "--score-child", str(suite), str(runs)]
        for r in range(repeats):
            cold_cpu, cold = _child(me + [str(root / f"cache-{r}")])
            warm_cpu, warm = _child(me + [str(root / f"cache-{r}")])
            pass_cpu, _ = _child(["-c", "pass"])
            help_cpu, _ = _child(["-m", "orgbench", "score", "groundeval", "--help"])
            simpy_cpu, _ = _child(["-c", BARE_SIMPY])
            built, kept = json.loads(cold), json.loads(warm)
            rounds.append({"index_built": built, "index_kept": kept,
                           "index_built_questions_per_cpu_s": round(built["questions"] / built["score_cpu_s"]),
                           "index_kept_questions_per_cpu_s": round(kept["questions"] / kept["score_cpu_s"]),
                           "index_built_process_cpu_s": round(cold_cpu, 3), "index_kept_process_cpu_s": round(warm_cpu, 3),
                           "python_pass_cpu_s": round(pass_cpu, 4), "cli_help_cpu_s": round(help_cpu, 4),
                           "bare_simpy_cpu_s": round(simpy_cpu, 4),
                           "index_built_score_per_bare_simpy": round(built["score_cpu_s"] / simpy_cpu, 2)})

    def median(key: str) -> float:
        return statistics.median(row[key] for row in rounds)

    return {"agents": list(AGENTS), "modes": list(MODES), "questions": rounds[0]["index_kept"]["questions"],
            "repeats": repeats,
            "index_built_questions_per_cpu_s": round(median("index_built_questions_per_cpu_s")),
            "index_kept_questions_per_cpu_s": round(median("index_kept_questions_per_cpu_s")),
            "python_pass_cpu_s": round(median("python_pass_cpu_s"), 4),
            "cli_help_cpu_s": round(median("cli_help_cpu_s"), 4), "bare_simpy_cpu_s": round(median("bare_simpy_cpu_s"), 4),
            "index_built_score_per_bare_simpy": round(median("index_built_score_per_bare_simpy"), 2), "rounds": rounds,
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}


def bench_search(target_versions: int, queries: int, seed: int = 1) -> dict:
    from benchmark_builders.groundeval.synthetic import synthetic_world
    from judges.groundeval.runtime import Corpus, GatedRuntime, tokenize

    started = time.perf_counter()
    days = max(20, target_versions // 240 + 1)
    world = synthetic_world(seed=seed, days=days, people=200, changes_per_day=40, cases_per_day=60)
    generated = time.perf_counter() - started
    started = time.perf_counter()
    corpus = Corpus(world)
    indexed = time.perf_counter() - started
    rng = random.Random(seed)
    sample = rng.sample(world.artifacts, 2000)   # queries are words of real artifacts (titles and bodies)
    actors = [a.actor_id for a in world.actors]
    begin, end = world.events[0].ts, world.events[-1].ts
    search_ms, fetch_ms, session_ms, hits, hit_ms = [], [], [], [], []
    ids = [v.artifact_id for v in world.artifacts]
    sessions = max(1, queries // 50)
    for _ in range(sessions):
        while True:   # an employed actor, at a moment late enough that there is something to find
            actor = rng.choice(actors)
            moment = begin + (end - begin) * (0.3 + 0.7 * rng.random())
            if world.policy.employed_at(actor, moment):
                break
        t0 = time.perf_counter()
        runtime = GatedRuntime(corpus, actor, moment)
        session_ms.append((time.perf_counter() - t0) * 1000)
        readable = sorted(runtime.readable)
        for _ in range(queries // sessions):
            source = rng.choice(sample)
            words = [t for t in tokenize(f"{source.title} {source.body}") if len(t) > 2]
            query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
            subsystem = None if rng.random() < 0.5 else rng.choice(readable)
            t0 = time.perf_counter()
            result = runtime.search_artifacts(query, subsystem, 10)
            elapsed = (time.perf_counter() - t0) * 1000
            search_ms.append(elapsed)
            hits.append(result["count"])
            if result["count"]:
                hit_ms.append(elapsed)
            t0 = time.perf_counter()
            runtime.fetch_artifact(rng.choice(ids))
            fetch_ms.append((time.perf_counter() - t0) * 1000)
    return {"artifact_versions": len(world.artifacts), "world_seconds": round(generated, 2),
            "index_seconds": round(indexed, 2), "queries": len(search_ms), "sessions": sessions,
            "search_p50_ms": round(_percentile(search_ms, 0.5), 3), "search_p99_ms": round(_percentile(search_ms, 0.99), 3),
            "search_mean_ms": round(statistics.fmean(search_ms), 3),
            "search_with_hits_p50_ms": round(_percentile(hit_ms, 0.5), 3),
            "search_with_hits_p99_ms": round(_percentile(hit_ms, 0.99), 3),
            "mean_hits_returned": round(statistics.fmean(hits), 2), "share_of_queries_with_hits": round(
                sum(1 for h in hits if h) / len(hits), 3),
            "fetch_p50_ms": round(_percentile(fetch_ms, 0.5), 4), "fetch_p99_ms": round(_percentile(fetch_ms, 0.99), 4),
            "session_open_p50_ms": round(_percentile(session_ms, 0.5), 2)}


def main() -> None:
    """Run the three measurements and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Fewer repetitions (a smoke run).")
    parser.add_argument("--only", choices=("build", "scoring", "cold-scoring", "search"), action="append",
                        help="Run only this measurement (repeatable); all of them by default.")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of cold-scoring")
    parser.add_argument("--score-child", nargs=3, type=Path, help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.score_child:
        print(json.dumps(score_child(*args.score_child)))
        return
    only = set(args.only or ("build", "scoring", "cold-scoring", "search"))
    from simulator.config import load_config
    from simulator.simulate import simulate

    world = simulate(load_config())
    result: dict = {"default_world_artifact_versions": len(world.artifacts)}
    if "build" in only:
        result["build"] = bench_build(world)
    if "scoring" in only:
        result["scoring"] = bench_scoring(world, 50 if args.quick else 400)
    if "cold-scoring" in only:
        result["cold_scoring"] = bench_cold_scoring(world, max(1, args.repeats))
    if "search" in only:
        result["search"] = bench_search(100_000, 400 if args.quick else 4000)
    result["goals"] = {"scoring_questions_per_s": 85_000, "search_p50_ms": 5, "search_p99_ms": 20,
                       "note": "the 85,000/s anchor is the preprint's arithmetic-only scoring: compare "
                               "score_question_only; the full path also re-derives every call (and re-runs each "
                               "claimed search) from the corpus"}
    print_result(result, args.record, indent=2)


if __name__ == "__main__":
    main()
