"""The array-backed lookups a saved index maps: the key table, and ``resolve`` against plain dicts of refs and ids."""

import random
from bisect import bisect_right

import numpy as np
import pytest

from judges.groundeval.key_table import KeyTable
from judges.groundeval.corpus import _micros


def test_a_key_table_finds_exactly_its_keys():
    words = ["b", "ab", "abc", "a", "é-x", "zz@1", "ä", "", "a-b_c.d"]
    table = KeyTable.of((w, 10 * i) for i, w in enumerate(words))
    assert {w: table.get(w) for w in words} == {w: 10 * i for i, w in enumerate(words)}
    assert [table.get(w) for w in ("abcd", "abx", "c", "zz", "ä-", "a" * 40, "b\0")] == [None] * 7
    assert list(table) == words and len(table) == len(words) and "abc" in table and "x" not in table
    assert table.get("abc") == 20                                   # remembered: the same answer
    loaded = KeyTable(table.keys.copy(), table.values.copy())
    assert [loaded.get(w) for w in words] == [table.get(w) for w in words]
    with pytest.raises(ValueError):
        KeyTable.of([("id\0", 1)])


def test_resolve_answers_as_dicts_of_every_ref_and_id(rt_world, rt_corpus):
    docs = rt_corpus.docs
    refs = {f"{v.artifact_id}@{v.version}": i for i, v in enumerate(docs)}
    by_id: dict[str, list[int]] = {}
    for i, v in enumerate(docs):
        by_id.setdefault(v.artifact_id, []).append(i)
    created = [_micros(v.created_at) for v in docs]

    def expected(requested, moment):
        index = refs.get(requested)
        if index is None and by_id.get(requested):
            history = by_id[requested]
            index = max(bisect_right(created, _micros(moment), history[0], history[-1] + 1) - 1, history[0])
        return index

    rng = random.Random(5)
    begin, end = rt_world.events[0].ts, rt_world.events[-1].ts
    asked = list(refs) + list(by_id) + ["nope", "@1", "", "x@"]
    asked += [f"{a}@0{v}" for a, v in list(refs.items())[:20]] + [f"{a}@-1" for a in list(by_id)[:5]]
    asked += [f"{a}@{len(h) + 1}" for a, h in list(by_id.items())[:20]] + [a[:-1] for a in list(by_id)[:20]]
    for requested in asked:
        moment = begin + (end - begin) * rng.random()
        assert rt_corpus.resolve(requested, moment) == expected(requested, moment), requested
    assert sum(len(h) > 1 for h in by_id.values()) > 10      # artifacts with several versions were resolved
    nxt = np.full(len(docs), np.iinfo(np.int64).max)
    for history in by_id.values():
        nxt[history[:-1]] = np.array(created)[history[1:]]
    assert np.array_equal(rt_corpus.next_created, nxt)
