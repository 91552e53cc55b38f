"""Small generated worlds shared by the simulator tests (built once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.config import load_config
from simulator.simulate import simulate, simulate_to
from simulator.world import World, load_world

#: A small world with enough incidents and staffing changes to test against.
SMALL_TOML = """
seed = 11
days = 21
people = 24

[workload]
incident_rate = 0.35
unanswered_escalation_rate = 0.5
stalled_case_rate = 0.2

[staffing]
hires = 6
departures = 6
role_changes = 6
grants = 6
"""


@pytest.fixture(scope="session")
def small_config_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("config") / "small.toml"
    path.write_text(SMALL_TOML, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def small_world_dir(tmp_path_factory, small_config_path) -> Path:
    out = tmp_path_factory.mktemp("worlds") / "small"
    simulate_to(load_config(small_config_path), out)
    return out


@pytest.fixture(scope="session")
def small_world(small_world_dir) -> World:
    return load_world(small_world_dir)


@pytest.fixture(scope="session")
def default_world() -> World:
    """The default 60-person, 90-day world, in memory."""
    return simulate(load_config())
