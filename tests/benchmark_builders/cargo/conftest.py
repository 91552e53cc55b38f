"""Fixtures for CARGO builder tests: a default-size suite from synthetic completed cases."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from benchmark_builders.cargo import build_suite  # noqa: E402
from cargo_synthetic import default_world_suite, synthetic_cases  # noqa: E402


@pytest.fixture(scope="session")
def synthetic_suite():
    """The default 246-item suite built from ten synthetic worlds."""
    return build_suite([(seed, synthetic_cases(seed)) for seed in range(10)])


@pytest.fixture(scope="session")
def default_suite():
    """The default suite built from the ten default CARGO worlds, once per session (mark its tests slow)."""
    return default_world_suite()
