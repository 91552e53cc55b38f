"""What each kind of sweep stage builds into its (temporary) directory, from the stages it needs.

A builder is ``build(tmp, args, permits)``: ``args`` are the stage's
arguments with ``needs`` (the directories of the stages it needs, in
order); ``permits`` is how many requests at once a model-calling stage
may open (its share of the endpoint's budget). Builders only read the
directories they are given and write under ``tmp``, so a stage gives the
same bytes wherever it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

_CORPUS: dict[str, tuple[Any, Any]] = {}  # the last suite's (world, corpus) in this process, by suite path
_WORLD: dict[bytes, Any] = {}  # the world the last GroundEval suite was built from, by its MANIFEST.json bytes


def _manifest(world_dir: Path) -> bytes:
    return (world_dir / "MANIFEST.json").read_bytes()


def _corpus(suite: Path) -> tuple[Any, Any]:
    """The suite's world and runtime corpus, kept for the next stage of the same suite in this process.

    The suite's ``world/`` is the world it was built from, written again byte for byte (the same MANIFEST.json):
    when this process built the suite, that world is taken from memory instead of read again.
    """
    from judges.groundeval.runtime import Corpus
    from judges.groundeval.traces import load_corpus_world
    from orgbench.core.storage import read_json

    key = f"{suite}:{read_json(suite.parent / 'MANIFEST.json')['stage_inputs']}"
    if key not in _CORPUS:
        _CORPUS.clear()
        world = _WORLD.pop(_manifest(suite / "world"), None) or load_corpus_world(suite)
        _WORLD.clear()
        _CORPUS[key] = (world, Corpus(world))
    return _CORPUS[key]


def build_world(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """Simulate one world, streamed to ``tmp/world``."""
    from simulator.config import load_config
    from simulator.simulate import simulate_to

    config = load_config(Path(args["config"]) if args["config"] else None, seed=args["seed"],
                         people=args["people"], days=args["days"])
    simulate_to(config, tmp / "world")


def build_groundeval_suite(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """A GroundEval suite (contracts, truth, the world it serves) from one world."""
    from benchmark_builders.groundeval.build import build_suite
    from simulator.world import load_world

    source = Path(args["needs"][0]) / "world"
    world = load_world(source)
    build_suite(tmp / "suite", world=world, name=args["name"])
    _WORLD.clear()
    _WORLD[_manifest(source)] = world   # for the runs of this suite that follow in this process (_corpus)


def build_groundeval_run(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """One agent in one mode over every contract of the suite (no latency recorded: the bytes repeat)."""
    from judges.groundeval.run import run_agent

    suite = Path(args["needs"][0]) / "suite"
    world, corpus = _corpus(suite)
    run_agent(suite, args["agent"], args["mode"], tmp / "run", record_latency=False, base_url=args["base_url"],
              concurrency=max(1, permits or 8), corpus=corpus, world=world)


def build_groundeval_scores(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """Every run of the suite scored by the deterministic scorer: one row per question, agent and mode."""
    from judges.groundeval.run import score_submissions
    from judges.groundeval.traces import load_submissions
    from orgbench.core.storage import write_jsonl

    suite, *runs = (Path(d) for d in args["needs"])
    submissions = [s for run in runs for s in load_submissions(run / "run")[0]]
    rows, _ = score_submissions(suite / "suite", submissions, corpus=_corpus(suite / "suite")[1])
    write_jsonl(tmp / "scores.jsonl", ({**row.to_json(), "world": args["world"], "seed": args["seed"]} for row in rows))


def build_cargo_suite(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """One CARGO suite from the worlds of the stages it needs (in seed order)."""
    from benchmark_builders.cargo import SuiteConfig, suite_from_world_objects, write_suite_files
    from simulator.world import load_world

    worlds = [load_world(Path(d) / "world") for d in args["needs"]]
    # the stage directory is the suite (its MANIFEST.json is the one runs bind to), as in reproduce
    write_suite_files(suite_from_world_objects(worlds, SuiteConfig()), tmp)


def build_cargo_run(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """One judge over every item of the suite under the sweep's conditions and judge seeds."""
    from benchmark_builders.cargo.records import read_items
    from judges.backends import EndpointConfig
    from judges.cargo_run import make_jobs, run_cargo_jobs
    from judges.conditions import expand_conditions
    from orgbench.commands.local_options import structured_mode

    suite = Path(args["needs"][0])
    chosen = expand_conditions(args["conditions"])
    seeds = tuple(args["judge_seeds"])
    endpoint = EndpointConfig(base_url=args["base_url"], concurrency=max(1, permits or 8))
    run_cargo_jobs(make_jobs(read_items(suite), chosen, seeds), args["judge"], tmp / "run", suite=suite,
                   conditions=list(args["conditions"]), seeds=seeds, endpoint=endpoint,
                   structured=structured_mode(args["judge"], None))


def build_cargo_tables(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """Tables 1-3, selective risk, breakdown and scores.json of the suite's runs."""
    from orgbench.report.cargo_tables import write_tables

    suite, *runs = (Path(d) for d in args["needs"])
    write_tables([run / "run" for run in runs], suite, tmp / "tables")


def build_combined(tmp: Path, args: Mapping[str, Any], permits: int) -> None:
    """The combined table (CSV, Parquet when pyarrow is there) and report across the grid."""
    from orgbench.sweep.combine import write_combined

    write_combined(tmp, args["sweep"], [Path(d) for d in args["needs"]], list(args["names"]))


BUILDERS: dict[str, Callable[[Path, Mapping[str, Any], int], None]] = {
    "world": build_world, "groundeval-suite": build_groundeval_suite, "groundeval-run": build_groundeval_run,
    "groundeval-scores": build_groundeval_scores, "cargo-suite": build_cargo_suite, "cargo-run": build_cargo_run,
    "cargo-tables": build_cargo_tables, "combined": build_combined,
}
