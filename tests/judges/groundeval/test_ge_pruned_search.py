"""The pruned top-k (impact-ordered long postings, threshold algorithm) ranks exactly as weighing every version."""

import copy
import math
import random
from collections import Counter

import numpy as np
import pytest

from judges.groundeval.impact import ImpactOrder
from judges.groundeval.runtime import GatedRuntime, searchable_text, tokenize


def _with_impact(corpus, min_df):
    """The corpus with its long terms those in ``min_df`` versions or more (0: none, every search exhaustive)."""
    other = copy.copy(corpus)
    postings = corpus.postings
    if min_df:
        other.impact = ImpactOrder.of(list(postings.terms), postings.offsets, postings.docs, postings.tf,
                                      corpus.lengths, min_df=min_df)
    else:
        other.impact = ImpactOrder.of(list(postings.terms), postings.offsets, postings.docs, postings.tf,
                                      corpus.lengths, min_df=len(corpus.lengths) + 1)
    return other


def test_impact_layers_hold_each_long_terms_versions_by_count_then_length():
    lengths = np.array([5.0, 3.0, 3.0, 9.0, 1.0])
    order = ImpactOrder.of(["a", "b"], np.array([0, 4, 5]), np.array([0, 1, 2, 3, 4]), np.array([1, 2, 1, 2, 7]),
                           lengths, min_df=2)
    assert order.rows == {"a": 0}                                   # "b" is in one version: short
    assert order.layer_tf.tolist() == [2.0, 1.0]
    assert order.layer_bounds.tolist() == [0, 2, 4] and order.term_layers.tolist() == [0, 2]
    assert order.docs.tolist() == [1, 3, 2, 0]                      # tf 2: lengths 3, 9; tf 1: lengths 3, 5
    assert np.unpackbits(order.bits[0])[:5].tolist() == [1, 1, 1, 1, 0]
    assert order.visible_df("a", np.packbits(np.array([1, 0, 1, 1, 1], dtype=bool))) == 3


def test_pruned_search_returns_the_exhaustive_results_on_random_queries(rt_world, rt_corpus):
    sizes = np.diff(rt_corpus.postings.offsets)
    exhaustive = _with_impact(rt_corpus, 0)
    pruned = {min_df: _with_impact(rt_corpus, min_df) for min_df in (1, 40, int(np.quantile(sizes, 0.999)))}
    assert all(len(c.impact.rows) for c in pruned.values()) and not exhaustive.impact.rows
    terms = list(rt_corpus.postings.terms)
    common = [terms[k] for k in np.argsort(-sizes, kind="stable")[:30].tolist()]
    words = sorted({t for v in rt_world.artifacts[:400] for t in tokenize(v.title + " " + v.body)})
    rng = random.Random(36)
    actors = [a.actor_id for a in rt_world.actors]
    begin, end = rt_world.events[0].ts, rt_world.events[-1].ts
    compared = long_queries = 0
    for _ in range(10):
        actor, moment = rng.choice(actors), begin + (end - begin) * rng.random()
        base = GatedRuntime(exhaustive, actor, moment, record_latency=False)
        runtimes = [GatedRuntime(c, actor, moment, record_latency=False) for c in pruned.values()]
        for _ in range(40):
            pick = rng.random()
            if pick < 0.4:
                query = rng.choice(common)                          # one common term: ties everywhere
            elif pick < 0.8:
                query = " ".join(rng.choice(common + words) for _ in range(rng.randint(2, 8)))
            else:
                query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) + " zzzunknown"
            subsystem = rng.choice([None, None, *rt_corpus.subsystems])
            limit = rng.choice([1, 3, 10, 25, 50])
            want = base._rank(query, subsystem, limit)
            for runtime in runtimes:
                assert runtime._rank(query, subsystem, limit) == want, (query, subsystem, limit)
                assert runtime.search_artifacts(query, subsystem, limit) == base.search_artifacts(query, subsystem, limit)
            compared += 1
            long_queries += any(t in runtimes[1].corpus.impact.rows for t in tokenize(query))
    assert compared == 400 and long_queries > 150


def test_tied_scores_keep_the_exhaustive_order(rt_world, rt_corpus):
    """A single common term at limit 1..5: many versions tie; the lowest versions among the tied best come first."""
    exhaustive, pruned = _with_impact(rt_corpus, 0), _with_impact(rt_corpus, 1)
    actor = rt_world.actors[0].actor_id
    moment = rt_world.events[-1].ts
    base, fast = GatedRuntime(exhaustive, actor, moment), GatedRuntime(pruned, actor, moment)
    sizes = np.diff(rt_corpus.postings.offsets)
    terms = list(rt_corpus.postings.terms)
    tied = 0
    for k in np.argsort(-sizes, kind="stable")[:20].tolist():
        for limit in range(1, 6):
            want = base._rank(terms[k], None, limit)
            assert fast._rank(terms[k], None, limit) == want
            tied += len({round(s, 9) for _, s in want}) < len(want)
    assert tied > 0


def _reference_rank(corpus, mask, query, subsystem, limit):
    """BM25 written apart from the runtime: each visible version's text tokenized and counted here (no postings, no
    impact order, no pruning), every version scored, sorted by (score rounded to 9 places, version) and cut at
    ``limit`` among those scoring at least the ``limit``-th best."""
    visible = [i for i in range(len(corpus.docs)) if mask[i]]
    counts = {}
    for i in visible:
        v = corpus.docs[i]
        counts[i] = Counter(tokenize(searchable_text(v.artifact_id, v.title, v.body, v.created_at)))
    lengths = np.array([sum(counts[i].values()) for i in visible], dtype=np.float64)
    avgdl = float(lengths.mean())
    scores = {}
    for term in dict.fromkeys(tokenize(query)):
        df = sum(1 for i in visible if counts[i][term])
        if not df:
            continue
        idf = math.log(1.0 + (len(visible) - df + 0.5) / (df + 0.5))
        for i in visible:
            tf = counts[i][term]
            if tf and (subsystem is None or corpus.docs[i].subsystem == subsystem):
                norm = 1.2 * (1.0 - 0.75 + 0.75 * sum(counts[i].values()) / avgdl)
                scores[i] = scores.get(i, 0.0) + idf * tf * 2.2 / (tf + norm)
    if not scores:
        return []
    kth = sorted(scores.values(), reverse=True)[min(limit, len(scores)) - 1]
    kept = sorted((-round(s, 9), i) for i, s in scores.items() if s >= kth)[:limit]
    return [(i, scores[i]) for _, i in kept]


def test_pruned_search_matches_an_independent_exhaustive_bm25(rt_world, rt_corpus):
    """Queries of several common terms (MaxScore, then impact order) and one (threshold algorithm), every term long,
    give the versions and scores of a plain BM25 written in this test."""
    sizes = np.diff(rt_corpus.postings.offsets)
    terms = list(rt_corpus.postings.terms)
    common = [terms[k] for k in np.argsort(-sizes, kind="stable")[:40].tolist()]
    rng = random.Random(3636)
    moment = rt_world.events[-1].ts
    compared = 0
    for min_df in (1, 40):
        corpus = _with_impact(rt_corpus, min_df)
        for actor in [a.actor_id for a in rt_world.actors][:3]:
            runtime = GatedRuntime(corpus, actor, moment, record_latency=False)
            for _ in range(12):
                query = " ".join(rng.sample(common, rng.choice([1, 2, 3, 5])))
                subsystem = rng.choice([None, None, *sorted(runtime.readable)])
                limit = rng.choice([1, 5, 10, 30])
                got = runtime._rank(query, subsystem, limit)
                want = _reference_rank(corpus, runtime._mask, query, subsystem, limit)
                assert [i for i, _ in got] == [i for i, _ in want], (query, subsystem, limit)
                assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12)
                compared += 1
    assert compared == 72
