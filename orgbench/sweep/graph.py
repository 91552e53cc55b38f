"""A sweep expanded into the stage graph: world → suite → run → scores → one combined table.

Each ``Stage`` names its directory, its inputs (what ``orgbench.stages``
fingerprints, as ``reproduce`` keys its stages: the stage kind, rules
version, the upstream stages' fingerprints and a fingerprint of the code
that builds it) and the stages it needs. ``expand`` lists them in an order
where every stage follows the ones it needs, so a serial executor can run
the list as it stands and a parallel one can start each stage once its
inputs are done.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from orgbench.sweep.spec import Sweep, WorldGrid
from orgbench.stages import fingerprint, module_fingerprint

RULES_VERSION = 1  # bump to force every sweep stage to rebuild (code changes already do)


@dataclass(frozen=True)
class Stage:
    """One cached directory of the sweep and how to build it."""

    name: str                       # e.g. "groundeval/default/seed-3/runs/bm25-tool"
    kind: str                       # a builder in orgbench.sweep.builders.BUILDERS
    directory: str                  # absolute
    inputs: Mapping[str, Any]       # fingerprinted; the directory is reused when they match
    args: Mapping[str, Any]         # what the builder reads (paths of the stages it needs, names)
    needs: tuple[str, ...] = ()     # names of the stages that must be finished first
    endpoint: str | None = None     # model-calling stages: the endpoint whose budget they draw on
    permits: int = 0                # concurrent requests the stage opens to that endpoint
    chain: str | None = None        # stages of one chain run one after another in one Ray task (shared loads)

    @property
    def key(self) -> str:
        """The fingerprint of the stage's inputs (what MANIFEST.json records as stage_inputs)."""
        return fingerprint(self.inputs)


def _slug(text: str) -> str:
    return text.replace(":", "-").replace("/", "-")


def _codes() -> dict[str, str]:
    """Per stage kind, the fingerprint of the code that builds it (always with the builders themselves).

    As ``reproduce`` keys its stages: every module of ours the entry modules import, and their data files; the
    builders module counts as its own file only (it imports every stage's code lazily).
    """
    code = {"world": ("simulator.simulate", "simulator.config"),
            "groundeval-suite": ("benchmark_builders.groundeval.build", "simulator.world"),
            "groundeval-run": ("judges.groundeval.run", "judges.groundeval.traces", "judges.groundeval.runtime"),
            "groundeval-scores": ("judges.groundeval.run", "judges.groundeval.traces", "judges.groundeval.runtime"),
            "cargo-suite": ("benchmark_builders.cargo", "simulator.world"),
            "cargo-run": ("judges.cargo_run", "judges.conditions", "benchmark_builders.cargo.records",
                          "orgbench.commands.local_options"),
            "cargo-tables": ("orgbench.report.cargo_tables",),
            "combined": ("orgbench.sweep.combine", "orgbench.studies.groundeval")}
    return {kind: module_fingerprint(*modules, alone=("orgbench.sweep.builders",)) for kind, modules in code.items()}


class _Graph:
    def __init__(self, sweep: Sweep, work: Path) -> None:
        self.sweep, self.work, self.codes = sweep, Path(work).resolve(), _codes()
        self.stages: list[Stage] = []

    def add(self, name: str, kind: str, args: Mapping[str, Any], needs: tuple[Stage, ...] = (),
            own: Mapping[str, Any] | None = None, endpoint: str | None = None, permits: int = 0,
            directory: Path | None = None, chain: str | None = None) -> Stage:
        inputs = {"stage": f"sweep-{kind}", "rules": RULES_VERSION, "code": self.codes[kind],
                  "upstream": [s.key for s in needs], **(own or {})}
        stage = Stage(name, kind, str(directory or self.work / name), inputs,
                      {**args, "needs": [s.directory for s in needs]}, tuple(s.name for s in needs),
                      endpoint, permits, chain)
        self.stages.append(stage)
        return stage

    def model(self, spec: str, base_url: str | None) -> tuple[str | None, int]:
        """The endpoint and request permits of a model-calling agent or judge (none for built-ins)."""
        from judges.backends.registry import is_builtin

        if is_builtin(spec):
            return None, 0
        endpoint = base_url or spec
        return endpoint, self.sweep.budget(base_url)


def _world_stage(graph: _Graph, grid: WorldGrid, seed: int) -> Stage:
    from simulator.config import load_config

    config = load_config(Path(grid.config) if grid.config else None, seed=seed, people=grid.people, days=grid.days)
    args = {"config": grid.config, "seed": seed, "people": grid.people, "days": grid.days}
    return graph.add(f"worlds/{grid.name}/seed-{seed}", "world", args, own={"config": config.to_json()})


def _groundeval(graph: _Graph, grid: WorldGrid, seed: int, world: Stage) -> Stage:
    ge = graph.sweep.groundeval
    assert ge is not None           # only a sweep with a [groundeval] table adds GroundEval stages
    base = f"groundeval/{grid.name}/seed-{seed}"
    # one Ray task loads the suite's world and corpus once for the suite, its built-in runs and (when no run
    # calls a model, which would then wait on a task of its own) its scores
    chain = base
    suite = graph.add(f"{base}/suite", "groundeval-suite", {"name": f"{grid.name}-seed-{seed}"}, (world,),
                      chain=chain)
    runs = []
    for agent in ge.agents:
        endpoint, permits = graph.model(agent, ge.base_url)
        url = ge.base_url if endpoint else None
        for mode in ge.modes:
            runs.append(graph.add(f"{base}/runs/{_slug(agent)}-{mode}", "groundeval-run",
                                  {"agent": agent, "mode": mode, "base_url": url}, (suite,),
                                  own={"agent": agent, "mode": mode, "base_url": url},
                                  endpoint=endpoint, permits=permits, chain=None if endpoint else chain))
    alone = any(run.endpoint for run in runs)
    return graph.add(f"{base}/scores", "groundeval-scores", {"world": grid.name, "seed": seed}, (suite, *runs),
                     own={"world": grid.name, "seed": seed}, chain=None if alone else chain)


def _cargo(graph: _Graph, grid: WorldGrid, seeds: tuple[int, ...], worlds: list[Stage]) -> Stage:
    from benchmark_builders.cargo import SuiteConfig

    cargo = graph.sweep.cargo
    assert cargo is not None        # only a sweep with a [cargo] table adds CARGO stages
    span = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
    base = f"cargo/{grid.name}/seeds-{span}"
    suite = graph.add(f"{base}/suite", "cargo-suite", {}, tuple(worlds), own={"suite": asdict(SuiteConfig())})
    runs = []
    for judge in cargo.judges:
        endpoint, permits = graph.model(judge, cargo.base_url)
        url = cargo.base_url if endpoint else None
        own = {"judge": judge, "base_url": url, "conditions": list(cargo.conditions),
               "judge_seeds": list(cargo.judge_seeds)}
        runs.append(graph.add(f"{base}/runs/{_slug(judge)}", "cargo-run", own, (suite,), own=own,
                              endpoint=endpoint, permits=permits))
    return graph.add(f"{base}/tables", "cargo-tables", {"world": grid.name, "seeds": list(seeds)}, (suite, *runs),
                     own={"world": grid.name, "seeds": list(seeds)})


def expand(sweep: Sweep, work: Path, out: Path) -> list[Stage]:
    """Every stage of the sweep, each after the stages it needs; the last one writes ``out``."""
    graph = _Graph(sweep, work)
    finals: list[Stage] = []
    for grid in sweep.worlds:
        worlds = [_world_stage(graph, grid, seed) for seed in grid.seeds]
        if sweep.groundeval is not None:
            finals += [_groundeval(graph, grid, seed, world) for seed, world in zip(grid.seeds, worlds)]
        if sweep.cargo is not None:
            size = sweep.cargo.worlds_per_suite
            for start in range(0, len(worlds), size):
                finals.append(_cargo(graph, grid, grid.seeds[start:start + size], worlds[start:start + size]))
    graph.add("combined", "combined", {"sweep": sweep.name, "names": [s.name for s in finals]}, tuple(finals),
              own={"sweep": sweep.name}, directory=Path(out).resolve())
    return graph.stages
