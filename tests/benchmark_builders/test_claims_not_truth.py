"""Labelled stale, wrong and conflicting statements: builders never take truth from them, nothing shows a label.

Poisoning: every labelled statement's value is replaced by a value no record
has; if a builder read truth (or evidence) from those statements, its
questions, truth or items would change. They must come out byte-identical.
Leaks: the gated runtime's responses, the context windows built from it and
the CARGO judge packets must carry no label — no true value beside a
labelled statement, no sidecar field, no labelled record at all in CARGO.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from benchmark_builders.cargo import build_suite
from benchmark_builders.cargo.build import SuiteConfig
from benchmark_builders.cargo.cases import cases_from_world
from benchmark_builders.groundeval.build import WORLD_RULES, build_questions
from benchmark_builders.groundeval.contracts import BuildConfig
from judges.conditions import condition, render
from judges.groundeval.context import build_context
from judges.groundeval.runtime import Corpus, GatedRuntime
from simulator.config import load_config
from simulator.simulate import simulate
from simulator.world import World

SIDECAR_FIELDS = ("true_value", "claims.jsonl")


@pytest.fixture(scope="module")
def world() -> World:
    return simulate(load_config(seed=11, days=30, people=30))


def _poisoned(world: World) -> World:
    labelled = {}
    for n, claim in enumerate(world.claims):
        labelled.setdefault(claim.ref, {})[claim.field] = f"POISON-{n}"
    artifacts = tuple(replace(v, facts={**v.facts, **labelled[v.ref]}) if v.ref in labelled else v
                      for v in world.artifacts)
    return World(world.meta, world.actors, world.events, artifacts, world.policy, world.graph, world.claims)


def _questions(world: World) -> str:
    questions = build_questions(world, WORLD_RULES, BuildConfig(seed=5), "w11")
    return json.dumps([[q.contract.to_json(), q.truth.to_json()] for q in questions], sort_keys=True)


def test_groundeval_questions_and_truth_do_not_depend_on_labelled_statements(world):
    assert {c.kind for c in world.claims} == {"stale", "wrong", "conflict"}
    poisoned = _poisoned(world)
    assert _questions(world) == _questions(poisoned)
    assert "POISON-" not in _questions(poisoned)


def test_cargo_cases_and_items_do_not_depend_on_labelled_statements(world):
    config = SuiteConfig(sizes={"P1": 4, "P3": 4, "P2": 4, "P4": 4}, golden_per_procedure=1)
    cases, poisoned = cases_from_world(world), cases_from_world(_poisoned(world))
    assert cases == poisoned
    assert build_suite([(11, cases)], config).items == build_suite([(11, poisoned)], config).items


def _records(value):
    """Every returned record (a dict with an id and facts), however deep in a response."""
    if isinstance(value, dict):
        if "id" in value and isinstance(value.get("facts"), dict):
            yield value
        for inner in value.values():
            yield from _records(inner)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _records(inner)


def test_no_runtime_response_context_window_or_packet_carries_a_label(world):
    corpus = Corpus(world)
    responses = []
    for claim in world.claims:
        version = world.version(claim.ref)
        runtime = GatedRuntime(corpus, version.author, version.created_at, record_latency=False)
        fetched = runtime.fetch_artifact(claim.ref)
        assert fetched["artifact"]["facts"][claim.field] == claim.value          # what was said, as said
        responses.append(fetched)
        responses.append(runtime.search_artifacts(version.body[:80], None, 10))
    for question in build_questions(world, WORLD_RULES, BuildConfig(seed=5), "w11")[:40]:
        runtime = GatedRuntime(corpus, question.contract.actor, question.contract.as_of, record_latency=False)
        context = build_context(question.contract, runtime)
        responses.append({"items": context.items, "searches": context.searches})
    text = json.dumps(responses, sort_keys=True, default=str)
    for field in SIDECAR_FIELDS:
        assert field not in text
    claims = {(c.ref, c.field): c for c in world.claims}
    for shown in _records(responses):
        for field, value in shown["facts"].items():
            claim = claims.get((shown["id"], field))
            assert claim is None or value == claim.value != claim.true_value
    suite = build_suite([(11, cases_from_world(world))], SuiteConfig(sizes={"P1": 4, "P3": 4, "P2": 4, "P4": 4},
                                                                     golden_per_procedure=1))
    labelled = {c.ref.split("@")[0] for c in world.claims}
    for item in suite.items:
        request = render(condition("cargo"), item, 0)
        packet = json.dumps([m.content for m in request.messages])
        assert not any(f"{record}@" in packet or f" {record} " in packet for record in labelled)
        assert all(field not in packet for field in SIDECAR_FIELDS)
