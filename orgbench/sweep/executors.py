"""Running a sweep's stages: one after another in this process, or as Ray tasks.

Either way each stage goes through ``orgbench.stages.run_stage`` — reused
when its directory was built from the same inputs and is intact, otherwise
built under a temporary name and renamed into place — so a rerun, or a run
after a kill, redoes only what had not finished. On Ray, each stage is a
task that starts once the stages it needs are done; model-calling stages
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


def _ray_task(stage: Stage, fresh: bool, budget: Any, *_needs: Outcome) -> Outcome:
    return execute(stage, fresh, budget)


def run_ray(stages: Sequence[Stage], fresh: bool, echo: Echo, *, workers: int, address: str | None,
            limits: Mapping[str, int]) -> tuple[list[Outcome], dict[str, int]]:
    """Every stage as a Ray task on a local Ray of ``workers`` CPUs, or on the cluster at ``address``."""
    import ray

    from orgbench.core.errors import InputError

    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        threads = {k: os.environ.get(k, "1") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": threads})
    try:
        budget = ray.remote(num_cpus=0)(EndpointBudget).remote(dict(limits)) if limits else None
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
        refs: dict[str, Any] = {}
        for stage in stages:  # listed after the stages they need: each task waits for theirs
            refs[stage.name] = task.remote(stage, fresh, budget if stage.endpoint else None,
                                           *[refs[n] for n in stage.needs])
        outcomes: dict[str, Outcome] = {}
        pending = list(refs.values())
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                outcome = ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, InputError):
                    raise InputError(cause.message) from None
                raise
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
