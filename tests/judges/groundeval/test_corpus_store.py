"""The saved index: loaded, it answers every search, fetch and score exactly as the index built from the world."""

import random
import shutil

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
