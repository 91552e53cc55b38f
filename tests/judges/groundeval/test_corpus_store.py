"""The saved index: loaded, it answers every search, fetch and score exactly as the index built from the world."""

import math
import random
import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.groundeval.corpus_store import corpus_key, open_corpus
from judges.groundeval.run import run_agent, score_submissions
from judges.groundeval.runtime import GatedRuntime, tokenize
from judges.groundeval.traces import load_submissions


def test_a_loaded_index_searches_and_fetches_as_the_built_one(rt_world, rt_corpus, rt_suite, tmp_path):
    open_corpus(rt_suite, tmp_path)                         # built and saved
    assert [p.name for p in tmp_path.iterdir()] == [corpus_key(rt_suite)]
    loaded = open_corpus(rt_suite, tmp_path)                # read back
    assert len(loaded.docs) == len(rt_corpus.docs) and len(loaded.postings) == len(rt_corpus.postings)
    assert [v.ref for v in loaded.docs] == [v.ref for v in rt_corpus.docs]
    assert loaded.docs[5] == rt_corpus.docs[5] and loaded.docs[-1] == rt_corpus.docs[-1]
    assert loaded.docs[-3:] == list(rt_corpus.docs[-3:]) and loaded.docs[::9000] == list(rt_corpus.docs[::9000])
    rng = random.Random(7)
    words = sorted({t for v in rt_world.artifacts[:300] for t in tokenize(v.title + " " + v.body)})
    actors = [a.actor_id for a in rt_world.actors]
    begin, end = rt_world.events[0].ts, rt_world.events[-1].ts
    for _ in range(12):
        actor, moment = rng.choice(actors), begin + (end - begin) * rng.random()
        built, read = GatedRuntime(rt_corpus, actor, moment), GatedRuntime(loaded, actor, moment)
        for _ in range(15):
            query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
            subsystem = rng.choice([None, *rt_corpus.subsystems])
            assert read.search_artifacts(query, subsystem, 10) == built.search_artifacts(query, subsystem, 10)
            requested = rng.choice(rt_corpus.docs).artifact_id
            assert read.fetch_artifact(requested) == built.fetch_artifact(requested)
        assert [c.to_json() | {"latency_ms": None} for c in read.calls] == \
               [c.to_json() | {"latency_ms": None} for c in built.calls]


def test_scores_from_the_saved_index_equal_scores_from_the_world(rt_corpus, rt_suite, tmp_path):
    submissions = []
    for agent in ("bm25", "leaky"):
        run_agent(rt_suite, agent, "tool", tmp_path / agent, record_latency=False, corpus=rt_corpus)
        submissions += load_submissions(tmp_path / agent)[0]
    fresh = score_submissions(rt_suite, submissions, corpus=rt_corpus)
    cache = tmp_path / "cache"
    assert score_submissions(rt_suite, submissions, index_cache=cache) == fresh     # cold: built, then kept
    assert score_submissions(rt_suite, submissions, index_cache=cache) == fresh     # warm: loaded


def test_changed_artifacts_give_a_new_key_and_a_broken_cache_is_rebuilt(rt_suite, tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(rt_suite, suite)
    key = corpus_key(suite)
    assert corpus_key(rt_suite) == key                      # the content decides, not the path
    with open(suite / "world" / "artifacts.jsonl", "ab") as handle:
        handle.write(b"\n")
    assert corpus_key(suite) != key
    cache = tmp_path / "cache"
    built = open_corpus(suite, cache)
    (cache / corpus_key(suite) / "records.pickle").write_bytes(b"not a pickle")
    rebuilt = open_corpus(suite, cache)
    assert [v.ref for v in rebuilt.docs] == [v.ref for v in built.docs]


def _exhaustive(corpus, runtime, query, subsystem, limit):
    """BM25 of every visible version, written out in plain Python: the ranking search must reproduce."""
    visible = [i for i in range(len(corpus.docs)) if runtime._mask[i]
               and (subsystem is None or corpus.docs[i].subsystem == subsystem)]
    counts = {}
    for i in (i for i in range(len(corpus.docs)) if runtime._mask[i]):
        v = corpus.docs[i]
        counts[i] = {}
        for t in tokenize(f"{v.artifact_id} {v.title} {v.body} {v.created_at.date().isoformat()}"):
            counts[i][t] = counts[i].get(t, 0) + 1
    terms = list(dict.fromkeys(tokenize(query)))
    df = {t: sum(1 for c in counts.values() if t in c) for t in terms}
    scores = {}
    for i in visible:
        score, hit = 0.0, False
        for t in terms:
            tf = counts[i].get(t)
            if tf:
                idf = math.log(1.0 + (runtime._n - df[t] + 0.5) / (df[t] + 0.5))
                norm = 1.2 * (1.0 - 0.75 + 0.75 * float(corpus.lengths[i]) / runtime._avgdl)
                score, hit = score + idf * tf * 2.2 / (tf + norm), True
        if hit:
            scores[i] = score
    ranked = sorted(scores, key=lambda i: (-scores[i], i))
    if len(ranked) > limit:
        kth = scores[ranked[limit - 1]]
        ranked = [i for i in ranked if scores[i] >= kth]
    return sorted(ranked, key=lambda i: (-round(scores[i], 9), i))[:limit], scores


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_search_ranks_as_bm25_over_every_visible_version(rt_world, rt_corpus, data):
    vocabulary = sorted({t for v in rt_world.artifacts[::7] for t in tokenize(v.title + " " + v.body)})
    actor = data.draw(st.sampled_from([a.actor_id for a in rt_world.actors]))
    begin, end = rt_world.events[0].ts, rt_world.events[-1].ts
    moment = begin + (end - begin) * data.draw(st.floats(0.2, 1.0))
    runtime = GatedRuntime(rt_corpus, actor, moment, record_latency=False)
    for _ in range(3):   # several queries in one session: weights worked out for one query serve the next
        query = " ".join(data.draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=12)))
        subsystem = data.draw(st.sampled_from([None, *sorted(runtime.readable)]))
        limit = data.draw(st.integers(1, 30))
        expected, scores = _exhaustive(rt_corpus, runtime, query, subsystem, limit)
        ranked = runtime._rank(query, subsystem, limit)
        assert [i for i, _ in ranked] == expected
        assert all(math.isclose(score, scores[i], rel_tol=1e-12) for i, score in ranked)


def test_the_index_read_from_the_suite_files_is_the_index_of_the_world(rt_suite):
    import numpy as np

    from judges.groundeval.corpus_store import index_world, load_served_world
    from judges.groundeval.runtime import Corpus

    read, made = index_world(rt_suite), Corpus(load_served_world(rt_suite))
    for name in ("created", "next_created", "subsystem_code", "space_code", "audience_docs", "open_to_all", "lengths"):
        assert np.array_equal(getattr(read, name), getattr(made, name)), name
    assert (read.subsystems, read.spaces) == (made.subsystems, made.spaces)
    for name in ("versions", "artifact_first"):
        assert np.array_equal(getattr(read, name), getattr(made, name)), name
    assert list(read.artifact_ids) == list(made.artifact_ids) == list(dict.fromkeys(v.artifact_id for v in made.docs))
    for table in ("by_audience", "by_participant"):
        mine, theirs = getattr(read, table), getattr(made, table)
        assert mine.keys() == theirs.keys() and all(np.array_equal(mine[k], theirs[k]) for k in mine)
    assert list(read.docs[::50]) == list(made.docs[::50])
    # the postings against a plain count of ``tokenize``'s tokens, version by version
    counts: dict[str, dict[int, int]] = {}
    for i, v in enumerate(made.docs):
        tokens = tokenize(f"{v.artifact_id} {v.title} {v.body} {v.created_at.date().isoformat()}")
        assert read.lengths[i] == len(tokens)
        for token in tokens:
            counts.setdefault(token, {})
            counts[token][i] = counts[token].get(i, 0) + 1
    assert set(read.postings.terms) == set(counts)
    for term, found in counts.items():
        docs, tf = read.postings.get(term)
        assert docs.tolist() == sorted(found) and tf.tolist() == [found[i] for i in sorted(found)], term


def test_a_bad_line_of_the_suite_artifacts_names_the_file_and_line(rt_suite, tmp_path):
    import pytest

    from judges.groundeval.corpus_store import index_world
    from orgbench.core.errors import InputError

    suite = tmp_path / "suite"
    shutil.copytree(rt_suite, suite)
    path = suite / "world" / "artifacts.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    for bad in (b'{"artifact_id": "X-1"}\n', b"[1, 2]\n", b'{"a": NaN}\n', b"{\"facts\": " + b"[" * 150 + b"]" * 150 + b"}\n"):
        path.write_bytes(b"".join(lines[:3]) + bad + b"".join(lines[3:]))
        with pytest.raises(InputError, match=r"artifacts\.jsonl:4: "):
            index_world(suite)


def test_with_no_disk_to_build_on_the_index_is_built_in_memory(rt_suite, tmp_path, monkeypatch):
    """The cache and the temporary directory both under a regular file (each mkdir fails with ENOTDIR): scores as ever."""
    import tempfile

    from judges.groundeval.corpus_store import index_world, load_served_world
    from judges.groundeval.runtime import Corpus

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    monkeypatch.setattr(tempfile, "tempdir", str(blocker / "tmp"))
    made = Corpus(load_served_world(rt_suite))
    for corpus in (index_world(rt_suite), open_corpus(rt_suite, blocker / "cache")):
        assert [v.ref for v in corpus.docs] == [v.ref for v in made.docs]
        assert set(corpus.postings.terms) == set(made.postings.terms)
    assert blocker.read_text() == "not a directory\n"
