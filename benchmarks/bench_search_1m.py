"""GroundEval search at a million artifact versions: index load, peak memory and CPU per query. Prints JSON.

A synthetic suite world is generated deterministically (``--versions``, default 1,000,000; word frequencies
Zipf-like, as in the simulator's artifacts: a few words in most versions, most words in few), written as
``world/artifacts.jsonl`` and ``world/policy.json`` under ``build/bench-search/`` and indexed once by
``open_corpus`` (both kept there: generating and indexing take minutes and are reported, not repeated).
Then, in a fresh process (``RUSAGE_CHILDREN``: its CPU and peak RSS counted apart from this one's):

- ``load``: ``open_corpus`` reading the kept index (CPU and wall seconds);
- ``queries``: CPU seconds of each ``search_artifacts`` call (limit 10) over the fixed query set — every
  search the built-in agents make on the default world (tool mode; kept in ``queries.json``) plus the
  100 most frequent terms of the corpus — each query in sessions of 8 actors at fixed moments (every query
  in every session), p50/p99/max;
- ``peak_rss_mb``: the process's peak resident memory (load and every query included): its own allocations and
  the pages of the mapped index it touched; not the operating system's file cache (the index's files, and the
  versions' text read with ``os.pread``), nor building the index or generating the world (other processes).

Beside them, timed in the same run: ``python -c pass`` (a fresh interpreter), and an exhaustive floor
written here without importing the search it bounds: plain numpy BM25 over the kept postings (each query
term's postings gathered, weighed, summed into a dense score per version, the best 10 taken), ungated.

Peak RSS is each measuring process's own (``ru_maxrss``; it would have no children to count): every step runs in
its own process, started from this small one (a child's peak starts from its parent's).

Usage: ``python benchmarks/bench_search_1m.py [--versions N] [--rounds R] [--record FILE]``.
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench_record import add_record_option, print_result

ROOT = Path("build") / "bench-search"
SEED = 36
SESSIONS = 8


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _vocabulary(rng, size: int) -> list[str]:
    """``size`` distinct pronounceable words (two to four syllables), in a fixed order: rank 0 is the commonest."""
    onsets, vowels, codas = "bcdfghjklmnprstvwz", "aeiou", ["", "n", "r", "s", "t", "l"]
    words: dict[str, None] = {}
    while len(words) < size:
        syllables = rng.integers(2, 5)
        word = "".join(onsets[rng.integers(len(onsets))] + vowels[rng.integers(len(vowels))]
                       + codas[rng.integers(len(codas))] for _ in range(syllables))
        words[word] = None
    return list(words)


def generate(suite: Path, versions: int) -> dict:
    """Write the synthetic suite world (artifacts and policy) for ``versions`` versions; deterministic."""
    import numpy as np

    from benchmark_builders.groundeval.synthetic import synthetic_world

    started = time.process_time()
    people = synthetic_world(seed=SEED, days=60, people=200, changes_per_day=0, cases_per_day=0)
    policy = people.policy.to_json()
    actors = [a.actor_id for a in people.actors]
    subsystems = sorted({s for grants in _role_subsystems(policy) for s in grants}) or ["docs"]
    rng = np.random.default_rng(SEED)
    vocab = _vocabulary(rng, 50_000)
    ranks = np.arange(len(vocab), dtype=np.float64)
    weights = 1.0 / (ranks + 2.7) ** 1.07          # Zipf-Mandelbrot, as word counts of real text fall
    weights /= weights.sum()
    start = calendar.timegm((2026, 1, 5, 0, 0, 0, 0, 0, 0))
    world = suite / "world"
    world.mkdir(parents=True, exist_ok=True)
    (world / "policy.json").write_text(json.dumps(policy, sort_keys=True))
    written, number = 0, 0
    with open(world / "artifacts.jsonl.tmp", "w", encoding="utf-8") as out:
        while written < versions:
            block = min(20_000, versions - written)
            counts = rng.integers(1, 4, size=block)                    # versions per artifact: 1 to 3
            lengths = rng.integers(20, 70, size=int(counts.sum()))
            words = rng.choice(len(vocab), size=int(lengths.sum()) + 6 * len(lengths), p=weights)
            at = 0
            k = 0
            for artifact_versions in counts.tolist():
                number += 1
                artifact_id = f"DOC-{number:07d}"
                subsystem = subsystems[number % len(subsystems)]
                author = actors[number % len(actors)]
                created = start + int(rng.integers(0, 59 * 86400))
                for version in range(1, artifact_versions + 1):
                    if written >= versions:
                        break
                    n = int(lengths[k])
                    title = " ".join(vocab[w] for w in words[at:at + 6].tolist())
                    body = " ".join(vocab[w] for w in words[at + 6:at + 6 + n].tolist())
                    at += 6 + n
                    k += 1
                    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created + 3600 * (version - 1)))
                    out.write(json.dumps({
                        "acl": {"audience": None, "participants": [author], "space": None},
                        "artifact_id": artifact_id, "author": author, "body": body, "created_at": stamp,
                        "entity": {"id": artifact_id, "kind": "doc"}, "facts": {}, "kind": "doc",
                        "subsystem": subsystem, "title": title, "version": version}, sort_keys=True) + "\n")
                    written += 1
    os.replace(world / "artifacts.jsonl.tmp", world / "artifacts.jsonl")
    return {"versions": written, "artifacts": number, "generate_cpu_s": round(time.process_time() - started, 1)}


def _role_subsystems(policy: dict) -> list[list[str]]:
    return [list(v) for v in policy["roles"].values()]


def agent_queries(path: Path) -> list[str]:
    """Every distinct search query the built-in agents make on the default world (tool mode), kept in ``path``."""
    if path.is_file():
        return json.loads(path.read_text())
    import tempfile

    from benchmark_builders.groundeval.build import build_suite
    from judges.groundeval.run import run_agent
    from judges.groundeval.runtime import Corpus
    from judges.groundeval.traces import load_submissions
    from orgbench.studies.groundeval import AGENTS
    from simulator.config import load_config
    from simulator.simulate import simulate

    world = simulate(load_config())
    queries: dict[str, None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        build_suite(suite, world=world, name="bench")
        corpus = Corpus(world)
        for agent in AGENTS:
            run_agent(suite, agent, "tool", Path(tmp) / agent, record_latency=False, corpus=corpus, world=world)
            for sub in load_submissions(Path(tmp) / agent)[0]:
                for call in sub.calls:
                    query = (call.get("args") or {}).get("query") if isinstance(call, dict) else None
                    if call.get("tool") == "search_artifacts" and isinstance(query, str):
                        queries[query] = None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(sorted(queries)))
    return sorted(queries)


def _terms(index: Path) -> list[str]:
    """The index's terms by id (saved as sorted UTF-8 keys beside their ids)."""
    import numpy as np

    keys = np.load(index / "terms_keys.npy", mmap_mode="r")
    ids = np.load(index / "terms_values.npy", mmap_mode="r")
    return [key.decode() for key in keys[np.argsort(ids, kind="stable")].tolist()]


def _frequent_terms(index: Path, count: int) -> list[str]:
    """The ``count`` terms with the longest postings (most versions), most frequent first (the terms' keys looked up
    by id, not made into a million strings: this runs in the measured process)."""
    import numpy as np

    keys = np.load(index / "terms_keys.npy", mmap_mode="r")
    by_id = np.argsort(np.load(index / "terms_values.npy", mmap_mode="r"), kind="stable")
    offsets = np.load(index / "postings_offsets.npy", mmap_mode="r")
    top = np.argsort(-np.diff(offsets), kind="stable")[:count]
    return [key.decode() for key in keys[by_id[top]].tolist()]


def measure(suite: Path, cache: Path, queries_path: Path) -> dict:
    """In a fresh process: load the kept index, then every query of the fixed set in every session."""
    started_cpu, started = time.process_time(), time.perf_counter()
    from judges.groundeval.corpus_store import corpus_key, open_corpus
    from judges.groundeval.runtime import GatedRuntime

    imported_cpu = time.process_time()
    corpus = open_corpus(suite, cache)
    load_cpu, load_wall = time.process_time() - imported_cpu, time.perf_counter() - started
    queries = json.loads(queries_path.read_text()) + _frequent_terms(cache / corpus_key(suite), 100)
    policy = corpus.policy
    end = int(corpus.created.max())
    from datetime import datetime, timezone
    moment = datetime.fromtimestamp(end / 1e6, tz=timezone.utc)
    actors = sorted({a["actor_id"] for a in policy.to_json()["assignments"] if policy.role_at(a["actor_id"], moment)})
    per_query = []
    for actor in actors[:: max(1, len(actors) // SESSIONS)][:SESSIONS]:
        runtime = GatedRuntime(corpus, actor, moment, record_latency=False)
        for query in queries:
            t0 = time.process_time()
            runtime.search_artifacts(query, None, 10)
            per_query.append((time.process_time() - t0) * 1000)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"load_cpu_s": round(load_cpu, 3), "load_wall_s": round(load_wall, 3),
            "import_cpu_s": round(imported_cpu - started_cpu, 3), "queries": len(queries),
            "searches": len(per_query), "query_cpu_ms_p50": round(_percentile(per_query, 0.5), 3),
            "query_cpu_ms_p99": round(_percentile(per_query, 0.99), 3), "query_cpu_ms_max": round(max(per_query), 3),
            "peak_rss_mb": round(max(usage.ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024, 1)}


def floor(index: Path, queries_path: Path) -> dict:
    """Exhaustive BM25 over the kept postings in plain numpy (ungated, whole corpus), per query CPU ms."""
    import re

    import numpy as np

    terms = {t: k for k, t in enumerate(_terms(index))}
    offsets = np.load(index / "postings_offsets.npy", mmap_mode="r")
    docs = np.load(index / "postings_docs.npy", mmap_mode="r")
    tf = np.load(index / "postings_tf.npy", mmap_mode="r")
    lengths = np.load(index / "lengths.npy", mmap_mode="r")
    n, avgdl = len(lengths), float(lengths.mean())
    word = re.compile(r"[a-z0-9]+")
    queries = json.loads(queries_path.read_text()) + _frequent_terms(index, 100)
    per_query = []
    for query in queries:
        t0 = time.process_time()
        scores = np.zeros(n)
        for term in dict.fromkeys(word.findall(query.lower())):
            k = terms.get(term)
            if k is None:
                continue
            d = docs[offsets[k]:offsets[k + 1]]
            f = tf[offsets[k]:offsets[k + 1]].astype(np.float64)
            idf = np.log(1.0 + (n - len(d) + 0.5) / (len(d) + 0.5))
            scores[d] += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * lengths[d] / avgdl))
        top = np.argpartition(-scores, 10)[:10]
        top[np.argsort(-scores[top], kind="stable")]
        per_query.append((time.process_time() - t0) * 1000)
    return {"queries": len(per_query), "query_cpu_ms_p50": round(_percentile(per_query, 0.5), 3),
            "query_cpu_ms_p99": round(_percentile(per_query, 0.99), 3)}


def _child(args: list[str]) -> tuple[float, str]:
    started = _cpu(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)
    return _cpu(resource.RUSAGE_CHILDREN) - started, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1, help="measuring processes (interleaved with the others)")
    add_record_option(parser)
    parser.add_argument("--measure", nargs=3, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--index", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--queries", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        print(json.dumps(generate(args.generate, args.versions)))
        return
    if args.queries:
        print(json.dumps(len(agent_queries(args.queries))))
        return
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return
    if args.floor:
        print(json.dumps(floor(*args.floor)))
        return
    if args.index:
        from judges.groundeval.corpus_store import open_corpus

        started = time.process_time()
        corpus = open_corpus(*args.index)
        print(json.dumps({"index_build_cpu_s": round(time.process_time() - started, 1), "terms": len(corpus.postings),
                          "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
        return
    load_before = os.getloadavg()[0]
    base = ROOT / f"{args.versions}-{SEED}"
    suite, cache, queries_path = base / "suite", base / "index", ROOT / "queries.json"
    result: dict = {"versions_asked": args.versions}
    me = str(Path(__file__).resolve())
    # each step in its own process: a child's peak RSS starts from its parent's, so this one stays small
    if not (suite / "world" / "artifacts.jsonl").is_file():
        result["generated"] = json.loads(_child([me, "--versions", str(args.versions), "--generate", str(suite)])[1])
    if not queries_path.is_file():
        result["agent_queries"] = json.loads(_child([me, "--queries", str(queries_path)])[1])
    from judges.groundeval.corpus_store import corpus_key

    index = cache / corpus_key(suite)
    if not (index / "records.pickle").is_file():
        build_cpu, out = _child([me, "--index", str(suite), str(cache)])
        result["index_built"] = {**json.loads(out), "process_cpu_s": round(build_cpu, 1)}
    rounds = []
    for _ in range(max(1, args.rounds)):
        measured_cpu, out = _child([me, "--measure", str(suite), str(cache), str(queries_path)])
        floor_cpu, floor_out = _child([me, "--floor", str(index), str(queries_path)])
        pass_cpu, _ = _child(["-c", "pass"])
        rounds.append({"search": {**json.loads(out), "process_cpu_s": round(measured_cpu, 3)},
                       "exhaustive_floor": {**json.loads(floor_out), "process_cpu_s": round(floor_cpu, 3)},
                       "python_pass_cpu_s": round(pass_cpu, 4)})
    result.update(versions=sum(1 for _ in open(suite / "world" / "artifacts.jsonl", "rb")), rounds=rounds,
                  goals={"load_s": 2, "peak_rss_mb": 1024, "query_cpu_ms_p99": 5},
                  load_before=round(load_before, 2), load_after=round(os.getloadavg()[0], 2))
    print_result(result, args.record, indent=2)


if __name__ == "__main__":
    main()
