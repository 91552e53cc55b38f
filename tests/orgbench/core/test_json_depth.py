"""``storage.depth`` (the nesting bound every strict JSON read checks) against a recursive count."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from orgbench.core.storage import depth

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4),
                     max_leaves=30)


def _recursive(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_recursive(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_recursive(v) for v in value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_depth_is_the_recursive_nesting_count(value):
    assert depth(value) == _recursive(value)


def test_fixed_examples():
    assert [depth(v) for v in (1, "x", [], {}, [1, [2, [3]]], {"a": [{}]}, [[], [[[]]]])] == [0, 0, 1, 1, 3, 3, 4]
