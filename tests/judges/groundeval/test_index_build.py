"""The index built from a suite's files in blocks (``build_index``) is the index built in memory from the world."""

import pickle
import random
import shutil

import numpy as np
import pytest

import judges.groundeval.impact as impact
import judges.groundeval.index_build as index_build
import judges.groundeval.postings as postings
from judges.groundeval.corpus_store import corpus_key, corpus_state, index_world, load_served_world, open_corpus
from judges.groundeval.runtime import Corpus, tokenize


@pytest.fixture
def shuffled_suite(rt_suite, tmp_path):
    """The suite with its artifact lines shuffled (the build must sort them) and a blank line among them."""
    suite = tmp_path / "suite"
    shutil.copytree(rt_suite, suite)
    path = suite / "world" / "artifacts.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    random.Random(36).shuffle(lines)
    path.write_bytes(b"".join(lines[:5]) + b"\n" + b"".join(lines[5:]))
    return suite


def _expected_terms(corpus):
    """Each term's versions and counts, counted version by version with ``tokenize``; the terms in the order they
    first occur reading the versions in order (the order of their ids)."""
    counts: dict[str, dict[int, int]] = {}
    for i, v in enumerate(corpus.docs):
        for token in tokenize(f"{v.artifact_id} {v.title} {v.body} {v.created_at.date().isoformat()}"):
            counts.setdefault(token, {})
            counts[token][i] = counts[token].get(i, 0) + 1
    return counts


def test_a_build_in_small_blocks_gives_every_array_of_the_index_built_in_memory(shuffled_suite, monkeypatch):
    monkeypatch.setattr(impact, "MIN_DF", 12)         # long terms in a small world: an impact order to compare
    expected = Corpus(load_served_world(shuffled_suite))   # in memory, one block, from the records
    monkeypatch.setattr(index_build, "BLOCK", 16)      # many runs, read back in sorted order,
    monkeypatch.setattr(postings, "_HELD", 10_000)     # a few held at a time, then spilled (the last ones held)
    monkeypatch.setattr(postings, "_SLICE", 300)       # and merged a few hundred postings at a time
    built = index_world(shuffled_suite)
    assert len(built.docs) == len(expected.docs) > 10 * 16
    assert built.impact.terms() and built.postings.offsets[-1] > 10 * 300
    arrays, objects = corpus_state(built)
    want_arrays, want_objects = corpus_state(expected)
    assert sorted(arrays) == sorted(want_arrays)
    for name in sorted(arrays):
        if not name.startswith("versions_"):    # the file's lines, against the records dumped again: below
            assert arrays[name].dtype == want_arrays[name].dtype, name
            assert np.array_equal(arrays[name], want_arrays[name]), name
    assert arrays["versions_text"].tobytes() == (shuffled_suite / "world" / "artifacts.jsonl").read_bytes()
    assert list(built.docs) == list(expected.docs)
    lines = arrays["versions_text"].tobytes().split(b"\n")
    lines.remove(b"")
    assert sorted(lines[:-1]) == sorted(arrays["versions_text"][a:b].tobytes()
                                        for a, b in zip(arrays["versions_starts"], arrays["versions_ends"]))
    for name in ("subsystems", "spaces", "format", "arrays", "impact_terms"):
        assert objects[name] == want_objects[name], name
    assert pickle.dumps(objects["policy"]) == pickle.dumps(want_objects["policy"])
    for table in ("by_audience", "by_participant"):
        assert list(objects[table]) == list(want_objects[table]), table    # the same keys in the same order
        assert all(np.array_equal(objects[table][k], want_objects[table][k]) for k in objects[table]), table
    # the postings against a plain count of each version's tokens, the term ids in order of first occurrence
    counts = _expected_terms(expected)
    assert list(built.postings.terms) == list(counts)
    for term, found in counts.items():
        docs, tf = built.postings.get(term)
        assert docs.tolist() == sorted(found) and tf.tolist() == [found[i] for i in sorted(found)], term
    texts = [f"{v.artifact_id} {v.title} {v.body} {v.created_at.date().isoformat()}" for v in expected.docs]
    assert built.lengths.tolist() == [len(tokenize(text)) for text in texts]


def test_a_kept_index_leaves_no_scratch_files(shuffled_suite, tmp_path, monkeypatch):
    monkeypatch.setattr(index_build, "BLOCK", 50)
    open_corpus(shuffled_suite, tmp_path / "cache")
    kept = tmp_path / "cache" / corpus_key(shuffled_suite)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [kept.name]
    names = sorted(p.name for p in kept.iterdir())
    assert names == sorted([f"{name}.npy" for name in pickle.loads((kept / "records.pickle").read_bytes())["arrays"]]
                           + ["records.pickle"])


def test_a_bad_line_found_while_building_leaves_no_index(shuffled_suite, tmp_path):
    from orgbench.core.errors import InputError

    path = shuffled_suite / "world" / "artifacts.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]) + b'{"artifact_id": "X-1"}\n')
    with pytest.raises(InputError, match=rf"artifacts\.jsonl:{len(lines)}: bad or missing field"):
        open_corpus(shuffled_suite, tmp_path / "cache")
    assert not any((tmp_path / "cache").iterdir())


def test_a_lone_surrogate_in_a_text_is_no_token_and_the_build_goes_on(shuffled_suite):
    """JSON may escape a lone surrogate (``\\ud800``); the texts are tokenized as UTF-8 with it kept as its bytes,
    which no token holds: the words around it are tokens, as ``tokenize`` says (the build stopped with a
    UnicodeEncodeError traceback before)."""
    path = shuffled_suite / "world" / "artifacts.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"body":"' in line)
    lines[at] = lines[at].replace(b'"body":"', b'"body":"zqxsurr\\ud800ogate ', 1)
    path.write_bytes(b"".join(lines))
    built, expected = index_world(shuffled_suite), Corpus(load_served_world(shuffled_suite))
    assert tokenize("zqxsurr\ud800ogate") == ["zqxsurr", "ogate"]
    for term in ("zqxsurr", "ogate"):
        docs, tf = built.postings.get(term)
        assert len(docs) == 1 and "\ud800" in built.docs[int(docs[0])].body
        assert docs.tolist() == expected.postings.get(term)[0].tolist() and tf.tolist() == [1]
