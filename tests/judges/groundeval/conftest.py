"""Fixtures: a synthetic world, its suite on disk and its indexed corpus (built once per session)."""

import pytest

from benchmark_builders.groundeval.build import build_suite
from benchmark_builders.groundeval.synthetic import synthetic_world
from judges.groundeval.runtime import Corpus


@pytest.fixture(scope="session")
def rt_world():
    return synthetic_world(seed=11, days=16, people=16)


@pytest.fixture(scope="session")
def rt_corpus(rt_world):
    return Corpus(rt_world)


@pytest.fixture(scope="session")
def rt_suite(rt_world, tmp_path_factory):
    out = tmp_path_factory.mktemp("ge") / "suite"
    build_suite(out, world=rt_world, name="syn-11")
    return out
