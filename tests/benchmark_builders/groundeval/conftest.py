"""Fixtures: a small synthetic world and the questions built from it (built once per session)."""

import pytest

from benchmark_builders.groundeval.build import WORLD_RULES, build_questions
from benchmark_builders.groundeval.contracts import BuildConfig
from benchmark_builders.groundeval.synthetic import synthetic_world


@pytest.fixture(scope="session")
def ge_world():
    return synthetic_world(seed=3, days=20, people=16)


@pytest.fixture(scope="session")
def ge_questions(ge_world):
    return build_questions(ge_world, WORLD_RULES, BuildConfig(seed=5), "syn-3")
