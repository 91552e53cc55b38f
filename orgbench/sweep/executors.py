"""Running a sweep's stages: one after another in this process, or as Ray tasks.

Either way each stage goes through ``orgbench.stages.run_stage`` — reused
when its directory was built from the same inputs and is intact, otherwise
built under a temporary name and renamed into place — so a rerun, or a run
after a kill, redoes only what had not finished. On Ray, each stage is a
task that starts once the stages it needs are done (a chain of stages that
share loaded data, such as a GroundEval suite and its built-in runs, is one
task); model-calling stages
first take permits from one ``EndpointBudget`` actor per sweep, so the
requests open to an endpoint never exceed its budget, however many workers
run. Ray is optional: ``run_stages`` says once that it runs serially when
Ray is not installed.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from orgbench.sweep.graph import Stage

Echo = Callable[[str], None]


@dataclass(frozen=True)
class Outcome:
    """What became of one stage: reused or built, and how long it took."""

    name: str
    reused: bool
    seconds: float


def execute(stage: Stage, fresh: bool = False, budget: Any = None) -> Outcome:
    """Build one stage unless it is current; a model-calling stage holds its permits while it builds."""
    from orgbench.stages import is_current, run_stage
    from orgbench.sweep.builders import BUILDERS

    started = time.perf_counter()
    directory = Path(stage.directory)
    if not fresh and is_current(directory, stage.inputs):
        return Outcome(stage.name, True, time.perf_counter() - started)
    held = budget is not None and stage.endpoint is not None
    if held:
        _get(budget.acquire.remote(stage.endpoint, stage.permits))
    try:
        reused = run_stage(directory, stage.inputs, lambda tmp: BUILDERS[stage.kind](tmp, stage.args, stage.permits),
                           fresh=fresh)
    finally:
        if held:
            _get(budget.release.remote(stage.endpoint, stage.permits))
    return Outcome(stage.name, reused, time.perf_counter() - started)


def _get(ref: Any) -> Any:
    import ray

    return ray.get(ref)


def _line(outcome: Outcome) -> str:
    return f"{'reused' if outcome.reused else 'built'} {outcome.name} ({outcome.seconds:.1f} s)"


def run_serial(stages: Sequence[Stage], fresh: bool, echo: Echo) -> list[Outcome]:
    """Every stage in order, in this process."""
    outcomes = []
    for stage in stages:
        outcomes.append(execute(stage, fresh))
        echo(_line(outcomes[-1]))
    return outcomes


class EndpointBudget:
    """A counting semaphore per endpoint (a Ray actor): at most ``limit`` requests open at once, across workers."""

    def __init__(self, limits: Mapping[str, int]) -> None:
        self.limits = dict(limits)
        self.used: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def acquire(self, endpoint: str, permits: int) -> None:
        """Wait until ``permits`` more requests to ``endpoint`` fit its budget, then take them."""
        limit = self.limits[endpoint]
        async with self._condition():
            await self._condition().wait_for(lambda: self.used.get(endpoint, 0) + permits <= limit)
            self.used[endpoint] = self.used.get(endpoint, 0) + permits
            self.peak[endpoint] = max(self.peak.get(endpoint, 0), self.used[endpoint])

    async def release(self, endpoint: str, permits: int) -> None:
        """Give back permits taken by ``acquire``."""
        async with self._condition():
            self.used[endpoint] -= permits
            self._condition().notify_all()

    async def peaks(self) -> dict[str, int]:
        """The most permits held at once per endpoint."""
        return dict(self.peak)


def _ray_task(stages: Sequence[Stage], fresh: bool, budget: Any, *_needs: Any) -> list[Outcome]:
    return [execute(stage, fresh, budget if stage.endpoint else None) for stage in stages]


def ray_units(stages: Sequence[Stage]) -> list[list[Stage]]:
    """The Ray tasks of a sweep: each chain's stages (in order) in one task, every other stage in its own."""
    units: list[list[Stage]] = []
    by_chain: dict[str, list[Stage]] = {}
    for stage in stages:
        if stage.chain is None:
            units.append([stage])
        elif stage.chain in by_chain:
            by_chain[stage.chain].append(stage)
        else:
            by_chain[stage.chain] = [stage]
            units.append(by_chain[stage.chain])
    return units


def _start_ray(workers: int, address: str | None, echo: Echo) -> None:
    """Connect to the cluster at ``address``, or start a local Ray of ``workers`` CPUs with BLAS threads 1."""
    import ray

    started = time.perf_counter()
    if address:
        ray.init(address=address, log_to_driver=False)
    else:   # the local raylet and its workers inherit these (no runtime_env: the prestarted workers serve tasks)
        threads = {k: os.environ.get(k, "1") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        saved = {k: os.environ.get(k) for k in threads}
        os.environ.update(threads)
        try:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k)
                else:
                    os.environ[k] = v
    echo(f"ray: {'connected to ' + address if address else f'local Ray with {workers} CPUs'} "
         f"in {time.perf_counter() - started:.1f} s")


def run_ray(stages: Sequence[Stage], fresh: bool, echo: Echo, *, workers: int, address: str | None,
            limits: Mapping[str, int]) -> tuple[list[Outcome], dict[str, int]]:
    """Every stage (chains as one task) as Ray tasks on a local Ray of ``workers`` CPUs, or on the cluster at ``address``."""
    import ray

    from orgbench.core.errors import InputError

    _start_ray(workers, address, echo)
    try:
        budget: Any = ray.remote(num_cpus=0)(EndpointBudget).remote(dict(limits)) if limits else None  # an actor handle
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
        refs: dict[str, Any] = {}   # stage name -> the task that builds it
        pending = []
        for unit in ray_units(stages):   # listed after the units they need: each task waits for theirs
            mine = {s.name for s in unit}
            needs = list(dict.fromkeys(refs[n] for s in unit for n in s.needs if n not in mine))
            ref = task.remote(unit, fresh, budget if any(s.endpoint for s in unit) else None, *needs)
            refs.update((name, ref) for name in mine)
            pending.append(ref)
        outcomes: dict[str, Outcome] = {}
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                finished = ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, InputError):
                    raise InputError(cause.message) from None
                raise
            for outcome in finished:
                outcomes[outcome.name] = outcome
                echo(_line(outcome))
        peaks = ray.get(budget.peaks.remote()) if budget is not None else {}
        return [outcomes[s.name] for s in stages], peaks
    finally:
        ray.shutdown()


def ray_available() -> bool:
    """True if Ray can be imported."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True
