"""Several model judges through every study, side by side: ``orgbench reproduce --judge A --judge B [--quick]``.

For each judge (``local:MODEL``, ``openai:MODEL``, …) it judges CARGO items
under every condition, answers GroundEval contracts as a tool-mode agent and
judges the assurance contrast's packets; then it compares the judges (per-judge
rows, Cohen's κ / Krippendorff's α, paired ΔDI, S_adj and G deltas with paired
CIs). ``QUICK`` is the documented subset; ``FULL`` the studies' whole size.

Every model call sits in a stage keyed on what changes its answers (judge,
endpoint, the subset, the suite's content): the CARGO run is resumable (a
killed run asks only what is missing), the GroundEval and contrast runs are
stage directories renamed into place when complete; a rerun asks nothing.
"""

from __future__ import annotations

import re
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from orgbench.stages import fingerprint, module_fingerprint, run_stage
from orgbench.studies import ReproduceOptions


@dataclass(frozen=True)
class Size:
    """How much of each study the models see (None: all of it)."""

    cargo_per_family: int | None      # CARGO items per family (P1..P4), first in id order; × every condition
    groundeval_contracts: int | None  # GroundEval contracts of world seed 0, balanced over the tracks
    contrast_trajectories: int | None  # assurance cohort trajectories (8 packets each, 2 draws per packet)


QUICK = Size(cargo_per_family=6, groundeval_contracts=24, contrast_trajectories=2)
FULL = Size(cargo_per_family=None, groundeval_contracts=None, contrast_trajectories=None)
CARGO_JUDGE_SEEDS = (0,)
GROUNDEVAL_SEED = 0
CONTRAST_DRAWS = 2


WALL = "wall.json"


@contextmanager
def timed(directory: Path) -> Iterator[None]:
    """Record the block's wall time in ``directory/wall.json`` (kept with the stage, so a reuse reports it too)."""
    from orgbench.core.storage import write_json

    started = time.perf_counter()
    yield
    write_json(Path(directory) / WALL, {"wall_s": round(time.perf_counter() - started, 1)})


def slug(spec: str) -> str:
    """A judge spec as a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec)


def _endpoint(options: ReproduceOptions):
    from judges.backends import EndpointConfig

    return EndpointConfig(base_url=options.base_url, concurrency=int(options.extra.get("concurrency", 8)))


def cargo_items(suite: Path, per_family: int | None) -> list:
    """The first ``per_family`` items of each family in id order (every item for None), in id order."""
    from benchmark_builders.cargo.records import FAMILIES, read_items
    from orgbench.core.jsonl import read_jsonl

    items = sorted(read_items(suite), key=lambda item: item.item_id)
    if per_family is None:
        return items
    family = {row["item_id"]: row["family"] for row in read_jsonl(suite / "truth.jsonl").values}
    chosen = {f: [i.item_id for i in items if family[i.item_id] == f][:per_family] for f in FAMILIES}
    keep = {item_id for ids in chosen.values() for item_id in ids}
    return [item for item in items if item.item_id in keep]


def cargo_run(work: Path, suite: Path, items: list, judge: str, options: ReproduceOptions) -> Path:
    """Judge ``items`` under every CARGO condition in a resumable run directory keyed on what changes answers."""
    from judges.cargo_run import make_jobs, run_cargo_jobs
    from judges.cargo_scores import suite_binding
    from judges.conditions import VARIANTS, parse_conditions
    from orgbench.studies.cargo import RULES_VERSION, RUN_CONDITIONS

    key = {"stage": "cargo-model-run", "rules": RULES_VERSION, "judge": judge, "base_url": options.base_url,
           "judge_seeds": list(CARGO_JUDGE_SEEDS), "conditions": list(RUN_CONDITIONS),
           "items": [item.item_id for item in items], "suite_digest": suite_binding(suite)[0]["suite_digest"]}
    run_dir = work / f"{slug(judge)}-{fingerprint(key)[:12]}"
    if options.fresh and run_dir.exists():
        shutil.rmtree(run_dir)
    conditions = parse_conditions("all", rubric_swap=True) + list(VARIANTS.values())
    run_cargo_jobs(make_jobs(items, conditions, CARGO_JUDGE_SEEDS), judge, run_dir, suite=suite,
                   conditions=list(RUN_CONDITIONS), seeds=CARGO_JUDGE_SEEDS, endpoint=_endpoint(options),
                   progress=True, totals=options.extra.get("totals"))
    return run_dir


def groundeval_subset(suite: Path, limit: int | None) -> list[str]:
    """Question ids: ``limit`` contracts taking turns between the tracks (each track in suite order)."""
    from judges.groundeval.traces import load_suite

    contracts = load_suite(suite)[1]
    if limit is None:
        return [c.question_id for c in contracts]
    by_track: dict[str, list[str]] = {}
    for c in contracts:
        by_track.setdefault(c.track, []).append(c.question_id)
    chosen: list[str] = []
    queues = [list(ids) for _, ids in sorted(by_track.items())]
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def groundeval_suite(work: Path, suite: Path, questions: list[str], fresh: bool) -> Path:
    """A copy of ``suite`` holding only ``questions`` (the corpus and policy unchanged), as a stage."""
    from orgbench.core.jsonl import read_jsonl
    from orgbench.core.storage import MANIFEST, read_json, write_jsonl, write_manifest

    suite_inputs = read_json(suite.parent / "MANIFEST.json")["stage_inputs"]
    inputs = {"stage": "groundeval-model-suite", "format": 2, "suite": suite_inputs,
              "questions": questions}
    keep = set(questions)

    def build(tmp: Path) -> None:
        shutil.copytree(suite, tmp / "suite")
        for name in ("contracts.jsonl", "truth.jsonl"):     # the scorer scores every question the truth holds
            rows = [r for r in read_jsonl(suite / name).values if r["question_id"] in keep]
            write_jsonl(tmp / "suite" / name, rows)
        if (suite / MANIFEST).is_file():     # the copy's own manifest: it holds fewer contracts
            extra = {k: v for k, v in read_json(suite / MANIFEST).items() if k != "files"}
            write_manifest(tmp / "suite", extra={**extra, "subset_of": str(suite), "questions": len(rows)})

    directory = work / f"suite-{fingerprint(inputs)[:12]}"
    run_stage(directory, inputs, build, fresh=fresh)
    return directory / "suite"


def groundeval_run(work: Path, suite: Path, agent: str, options: ReproduceOptions) -> Path:
    """Answer every contract of ``suite`` with model agent ``agent`` in tool mode, as a stage."""
    from judges.groundeval.run import run_agent
    from orgbench.core.storage import sha256_file

    inputs = {"stage": "groundeval-model-run", "suite": sha256_file(suite / "contracts.jsonl"), "agent": agent,
              "mode": "tool", "base_url": options.base_url,
              "code": module_fingerprint("judges.groundeval.run", "judges.groundeval.traces", "judges.backends.local")}

    def build(tmp: Path) -> None:
        with timed(tmp):
            run_agent(suite, agent, "tool", tmp / "run", record_latency=False, base_url=options.base_url,
                      concurrency=int(options.extra.get("concurrency", 8)))

    directory = work / f"{slug(agent)}-{fingerprint(inputs)[:12]}"
    run_stage(directory, inputs, build, fresh=options.fresh)
    return directory / "run"


def contrast_run(work: Path, suite: Path, judge: str, trajectories: int | None, options: ReproduceOptions) -> Path:
    """The later-context contrast judged by ``judge`` on the first ``trajectories`` cohort trajectories, as a stage."""
    from judges.backends import make_backend
    from orgbench.core.storage import sha256_file
    from orgbench.report.assurance_outputs import run_contrast

    inputs = {"stage": "assurance-model-contrast", "suite": sha256_file(suite / "MANIFEST.json"), "judge": judge,
              "base_url": options.base_url, "trajectories": trajectories, "draws": CONTRAST_DRAWS,
              "code": module_fingerprint("judges.assurance.contrast")}

    def build(tmp: Path) -> None:
        # the dispatcher closes the backend (and so stops a local server) when the packets are judged
        with timed(tmp):
            run_contrast(suite, tmp, make_backend(judge, base_url=options.base_url), CONTRAST_DRAWS,
                         per_packet_csv=True, limit=trajectories)

    directory = work / f"{slug(judge)}-{fingerprint(inputs)[:12]}"
    run_stage(directory, inputs, build, fresh=options.fresh)
    return directory


@dataclass(frozen=True)
class ModelRuns:
    """Where each judge's runs of one reproduction are, per study."""

    judges: tuple[str, ...]
    cargo_suite: Path
    cargo: tuple[Path, ...]
    groundeval_suite: Path
    groundeval: tuple[Path, ...]
    contrast: tuple[Path, ...]


def run_models(judges: tuple[str, ...], size: Size, options: ReproduceOptions,
               echo: Callable[[str], None] = lambda line: None) -> ModelRuns:
    """Every model call of the comparison: each judge through CARGO, GroundEval and the contrast (cached stages)."""
    from benchmark_builders.cargo.worlds import DEFAULT_SEEDS
    from orgbench.studies import assurance, cargo, groundeval

    work = Path(options.work_dir)
    cargo_suite = cargo._suite_stage(work / "cargo", DEFAULT_SEEDS, options.fresh)
    items = cargo_items(cargo_suite, size.cargo_per_family)
    ge_full = groundeval._suite_stage(work / "groundeval", GROUNDEVAL_SEED, options.fresh)
    questions = groundeval_subset(ge_full, size.groundeval_contracts)
    ge_suite = ge_full if size.groundeval_contracts is None else \
        groundeval_suite(work / "groundeval" / "models", ge_full, questions, options.fresh)
    seed = assurance.DEFAULT_SEED
    world = work / "assurance" / f"world-s{seed}"
    assurance._world_stage(world, seed, options.fresh)
    traj_suite = work / "assurance" / f"suite-s{seed}-n{assurance.TRAJECTORIES}"
    assurance._suite_stage(traj_suite, world / "world", seed, options.fresh)
    cargo_runs, ge_runs, contrast_runs = [], [], []
    for judge in judges:
        echo(f"{judge}: CARGO, {len(items)} items × every condition")
        cargo_runs.append(cargo_run(work / "cargo" / "models", cargo_suite, items, judge, options))
        echo(f"{judge}: GroundEval, {len(questions)} contracts in tool mode")
        ge_runs.append(groundeval_run(work / "groundeval" / "models", ge_suite, judge, options))
        echo(f"{judge}: assurance contrast, {size.contrast_trajectories or 'every'} trajectories")
        contrast_runs.append(contrast_run(work / "assurance" / "models", traj_suite, judge,
                                          size.contrast_trajectories, options))
    return ModelRuns(tuple(judges), cargo_suite, tuple(cargo_runs), ge_suite, tuple(ge_runs), tuple(contrast_runs))
