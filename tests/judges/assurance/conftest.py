"""Shared fixtures for the assurance tests: a small simulated suite and one trajectory with targets."""

from __future__ import annotations

import pytest

from benchmark_builders.trajectories.records import write_suite
from benchmark_builders.trajectories.simulate import simulate_trajectories, synthetic_cases
from judges.assurance.targets import select_targets


@pytest.fixture(scope="session")
def small_cohort():
    """Trajectories and labels (by id) of a 10-trajectory simulated cohort."""
    trajectories, labels = simulate_trajectories(synthetic_cases(4, 21), 10, 21)
    return trajectories, {l.trajectory_id: l for l in labels}


@pytest.fixture(scope="session")
def suite_dir(tmp_path_factory, small_cohort):
    """The cohort written as a sealed suite."""
    trajectories, labels = small_cohort
    directory = tmp_path_factory.mktemp("suite") / "suite"
    write_suite(directory, trajectories, [labels[t.trajectory_id] for t in trajectories], {"seed": 21})
    return directory


@pytest.fixture(scope="session")
def parallel_case(small_cohort):
    """A trajectory with parallel calls and a user call before its error target, and its targets."""
    trajectories, labels = small_cohort
    for trajectory in trajectories:
        targets = select_targets(trajectory, labels[trajectory.trajectory_id])
        if targets and any(len(m.tool_calls) > 1 for m in trajectory.messages[:targets.comparison + 1]) and \
                any(m.role == "user" and m.tool_calls for m in trajectory.messages[:targets.error]):
            return trajectory, targets
    raise AssertionError("cohort has no suitable trajectory")
