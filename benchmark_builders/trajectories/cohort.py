"""The small simulated trajectory cohort the assurance fault and mutation studies inject their faults into."""

from __future__ import annotations

from pathlib import Path

from benchmark_builders.trajectories.records import write_suite
from benchmark_builders.trajectories.simulate import simulate_trajectories, synthetic_cases

__all__ = ["fault_cohort"]


def fault_cohort(directory: Path, *, n: int = 8, seed: int = 5) -> Path:
    """Write the fault study's cohort (``n`` trajectories from 4 synthetic cases, ``seed``) as a suite; its path."""
    trajectories, labels = simulate_trajectories(synthetic_cases(4, seed), n, seed)
    write_suite(directory, trajectories, labels, {"built_by": "orgbench assure faults", "seed": seed})
    return Path(directory)
