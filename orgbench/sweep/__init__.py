"""``orgbench sweep``: a grid of worlds, suites, agents and judges (SWEEP.toml) run as cached stages.

``spec`` reads SWEEP.toml, ``graph`` expands it into stages keyed by their
inputs and code, ``builders`` builds each kind of stage, ``executors`` runs
them (serially or on Ray) and ``combine`` writes the table and report across
the grid. See docs/sweeps.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["SweepRun", "run_sweep"]


@dataclass(frozen=True)
class SweepRun:
    """What a sweep did: each stage built or reused, where the table is, which executor ran it."""

    out: Path
    built: tuple[str, ...]
    reused: tuple[str, ...]
    executor: str
    peaks: tuple[tuple[str, int], ...] = ()


def run_sweep(path: Path, out: Path, work: Path, *, executor: str = "ray", workers: int = 2,
              address: str | None = None, fresh: bool = False,
              echo: Callable[[str], None] = lambda line: None) -> SweepRun:
    """Read SWEEP.toml, expand it and run every stage; ``echo`` one line per stage as it finishes."""
    from orgbench.sweep.executors import ray_available, run_ray, run_serial
    from orgbench.sweep.graph import expand
    from orgbench.sweep.spec import load_sweep

    sweep = load_sweep(path)
    stages = expand(sweep, work, out)
    limits = {s.endpoint: sweep.budget(s.endpoint if s.endpoint.startswith("http") else None)
              for s in stages if s.endpoint}
    peaks: dict[str, int] = {}
    if executor == "ray" and not ray_available():
        echo("ray is not installed (pip install 'orgbench[ray]'): running the stages serially in this process")
        executor = "serial"
    if executor == "ray":
        outcomes, peaks = run_ray(stages, fresh, echo, workers=workers, address=address, limits=limits)
    else:
        outcomes = run_serial(stages, fresh, echo)
    return SweepRun(Path(out), tuple(o.name for o in outcomes if not o.reused),
                    tuple(o.name for o in outcomes if o.reused), executor, tuple(sorted(peaks.items())))
