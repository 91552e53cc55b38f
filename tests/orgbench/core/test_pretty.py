"""``indented`` writes the text ``json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2)`` writes."""

from __future__ import annotations

import enum
import json
import math
import random

import pytest

from orgbench.core.pretty import indented


def reference(obj):
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2)


class Text(str):
    pass


class Number(int):
    pass


class Level(enum.IntEnum):
    LOW = 1


CASES = [
    None, True, False, 0, -7, 10 ** 30, 1.0, -0.0, 0.1, math.pi, 1e300, float("nan"), float("inf"), -float("inf"),
    "", "plain", "quote \" backslash \\ newline \n tab \t nul \x00 del \x7f dash \u2014 surrogate \ud800 emoji \U0001f600",
    [], {}, (), [[]], [{}], {"": {}}, (1, (2, {"b": []})),
    {"b": 1, "a": [1, 2.5, None, True, "x"], "c": {"z": {"y": [{"x": {}}]}}},
    {"directed": False, "links": [{"source": "P-1", "target": "P-2", "weight": 0.25, "interactions": 3}]},
    # left to json.dumps: subclasses, enums, non-str keys
    {"a": Text("x")}, {"a": Number(3)}, {"a": Level.LOW}, [Level.LOW], {Text("k"): 1}, {1: 2}, {"a": {1: "b"}},
    {1.5: 0}, {True: 1, False: 2},
]


@pytest.mark.parametrize("obj", CASES, ids=range(len(CASES)))
def test_the_text_of_json_dumps(obj):
    assert indented(obj) == reference(obj)


def test_random_nested_data_gives_the_same_text():
    rng = random.Random(11)
    scalars = [None, True, False, 0, 3, -2 ** 40, 0.5, 1e-9, float("nan"), "", "a", "é", "\u2014", "\n\"", "\x01"]

    def value(depth):
        roll = rng.random()
        if depth > 3 or roll < 0.5:
            return rng.choice(scalars)
        if roll < 0.75:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice(["a", "b", "é", "", "z z", "\u2014"]) + str(rng.randrange(3)): value(depth + 1)
                for _ in range(rng.randrange(4))}

    for _ in range(300):
        obj = value(0)
        assert indented(obj) == reference(obj)


@pytest.mark.parametrize("obj, error", [({"a": object()}, TypeError), ({1: 2, "a": 3}, TypeError),
                                        ({True: 1, None: 2}, TypeError)])
def test_what_json_dumps_refuses_is_refused_alike(obj, error):
    with pytest.raises(error) as ours:
        indented(obj)
    with pytest.raises(error) as theirs:
        reference(obj)
    assert str(ours.value) == str(theirs.value)


def test_a_cycle_is_refused_as_json_dumps_refuses_it():
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference detected"):
        indented(cycle)
