"""BM25 ranking over one visible set of a corpus: the best versions for a query, as a session sees them.

``VisibleRanking`` ranks only the versions of its mask, with BM25 statistics computed over them (df over the
visible versions, their average length), so nothing outside the set can shape a result or a score. A term's
weights are worked out once per session; a query's sums are kept for the next few searches (the same query is
often searched again with another subsystem filter). A query with a long term (``ImpactOrder``) is answered by
``top_k`` without weighing every version of it; the results are the same.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from judges.groundeval.corpus import Corpus
from judges.groundeval.impact import Stream, top_k
from judges.groundeval.postings import tokenize

K1, B = 1.2, 0.75
#: A query with at least this many terms not yet weighed has them weighed in one pass (``_weigh_all``).
BATCH_TERMS = 6
#: A session keeps the scores of its last this many queries (``VisibleRanking._summed``).
SUMS_KEPT = 8
#: A session keeps the terms of its last this many queries (``VisibleRanking._rank``).
QUERIES_KEPT = 64
#: ``_norm`` of versions a ``NORM_ALL``-th of all or more is worked out for every version once, then looked up
#: (at most twice the work of the call that asks).
NORM_ALL = 2


def _bm25(idf: float | np.ndarray, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """The BM25 weight of a term of weight ``idf`` occurring ``tf`` times in versions of length part ``norm``."""
    weight = idf * tf
    weight *= K1 + 1.0         # in place: the same operations, in the same order, on one array
    weight /= tf + norm
    return weight


class VisibleRanking:
    """BM25 search over the versions of ``corpus`` that ``mask`` keeps."""

    def __init__(self, corpus: Corpus, mask: np.ndarray) -> None:
        self.corpus = corpus
        self._mask = mask
        visible = int(self._mask.sum())
        self._n = visible
        self._avgdl = float(corpus.lengths[self._mask].mean()) if visible else 1.0
        self._visible_in: dict[str, np.ndarray] = {}     # per subsystem: its visible versions (a mask)
        self._weights: dict[tuple[str, str | None], tuple[np.ndarray, np.ndarray] | None] = {}
        self._visible_bits: np.ndarray | None = None   # the mask packed, for the long terms' bitmaps
        self._long_idf: dict[str, float | None] = {}
        self._sums: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray] | None] = {}
        self._queries: dict[str, tuple[str, ...]] = {}      # each query's distinct terms, in order
        self._norms: np.ndarray | None = None      # ``_norm`` of every version, once many have been asked for

    def _weigh(self, idf: float | np.ndarray, tf: np.ndarray, docs: np.ndarray) -> np.ndarray:
        """BM25 weights of a term (of weight ``idf``) occurring ``tf`` times in versions ``docs``: the one formula."""
        return _bm25(idf, tf, self._norm(docs))

    def _norm(self, docs: np.ndarray) -> np.ndarray:
        """The length part of ``_weigh``'s formula for versions ``docs`` (the same for every term): worked out for
        every version at once when ``docs`` are a sizeable share of them, then looked up (the same values)."""
        if self._norms is None:
            lengths = self.corpus.lengths
            if len(docs) * NORM_ALL < len(lengths):
                return K1 * (1.0 - B + B * lengths[docs] / self._avgdl)
            self._norms = K1 * (1.0 - B + B * lengths / self._avgdl)
        return self._norms[docs]

    def _term_weights(self, term: str, subsystem: str | None) -> tuple[np.ndarray, np.ndarray] | None:
        """The visible versions (of one subsystem if given) holding ``term``, and its BM25 weight in each.

        The weight of a term in a version depends only on the visible set (df over every visible version, avgdl),
        never on the query or the subsystem filter, so it is worked out once per session, term and filter.
        """
        key = (term, subsystem)
        try:
            return self._weights[key]
        except KeyError:
            pass
        found = None
        posting = self.corpus.postings.get(term)
        if posting is not None:
            docs, tf = posting
            if subsystem is None:
                keep = self._mask[docs]
                df = None
            else:
                unfiltered = self._weights.get((term, None), posting)
                if unfiltered is None:          # no visible version holds the term
                    keep = None
                elif unfiltered is not posting:  # already weighed for every visible version: narrow those
                    docs, weights = unfiltered
                    keep = self.corpus.in_subsystem(subsystem)[docs]
                    found = (docs[keep], weights[keep]) if keep.any() else None
                    keep = None
                else:
                    in_subsystem = self._visible_in.get(subsystem)
                    if in_subsystem is None:
                        in_subsystem = self._visible_in[subsystem] = self._mask & self.corpus.in_subsystem(subsystem)
                    keep = in_subsystem[docs]
                    df = int(np.count_nonzero(self._mask[docs]))
            if keep is not None:
                docs = docs[keep].astype(np.intp)     # (intp: every later gather and sum indexes without a cast)
                if len(docs):
                    tf = tf[keep].astype(np.float64)
                    if df is None:
                        df = len(docs)
                    idf = math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))
                    found = (docs, self._weigh(idf, tf, docs))
        self._weights[key] = found
        return found

    def _weigh_all(self, terms: list[str]) -> tuple[np.ndarray, np.ndarray, int] | None:
        """Weigh every visible version of each of ``terms`` not weighed yet, in one pass over their postings.

        The same weights ``_term_weights`` works out term by term (the same formula on the same values, the
        idf with ``math.log``), for the many-term queries where a call per term would cost more than the work.
        Returns what it weighed, end to end in the order of ``terms`` (versions, weights, how many terms a visible
        version holds), or None when there were too few such terms to weigh at once.
        """
        postings, weights = self.corpus.postings, self._weights
        todo = []
        for term in terms:
            if (term, None) not in weights:
                k = postings.terms.get(term)
                if k is None:
                    weights[(term, None)] = None
                else:
                    todo.append((term, k))
        if len(todo) < BATCH_TERMS:
            return None      # term by term costs no more
        offsets, all_docs, all_tf = postings.offsets, postings.docs, postings.tf
        ids = np.array([k for _, k in todo], dtype=np.intp)
        spans = list(zip(offsets[ids].tolist(), offsets[ids + 1].tolist()))
        docs = np.concatenate([all_docs[a:b] for a, b in spans], dtype=np.intp)   # (intp: as ``_term_weights``)
        keep = self._mask[docs]
        firsts = np.cumsum([0] + [b - a for a, b in spans[:-1]])     # each term's run (never empty)
        df = np.add.reduceat(keep, firsts, dtype=np.intp).tolist()
        at = keep.nonzero()[0]         # the visible ones (found once, for both columns)
        tf = np.concatenate([all_tf[a:b] for a, b in spans]).take(at).astype(np.float64)
        docs = docs.take(at)
        idf = [math.log(1.0 + (self._n - d + 0.5) / (d + 0.5)) if d else 0.0 for d in df]
        weighed = self._weigh(np.repeat(idf, df), tf, docs)
        bounds = np.cumsum([0] + df).tolist()
        for (term, _), d, a, b in zip(todo, df, bounds, bounds[1:]):
            weights[(term, None)] = (docs[a:b], weighed[a:b]) if d else None
        return docs, weighed, sum(1 for d in df if d)

    def _rank(self, query: str, subsystem: str | None, limit: int) -> list[tuple[int, float]]:
        """BM25 over the visible versions (of one subsystem if given): the best ``limit`` (index, score), best first.

        A version's score is the same with or without the filter (its terms' weights over the visible set, summed
        in query order), so a filtered search keeps the subsystem's versions of the unfiltered sums (``_summed``).
        """
        terms = self._queries.get(query)
        if terms is None:       # a query is often searched again with another subsystem filter: tokenized once
            if len(self._queries) >= QUERIES_KEPT:
                del self._queries[next(iter(self._queries))]
            terms = self._queries[query] = tuple(dict.fromkeys(tokenize(query)))
        long_terms = self.corpus.impact.rows
        if any(t in long_terms for t in terms):
            return self._rank_pruned(list(terms), subsystem, limit)
        found = self._sums[terms] if terms in self._sums else self._summed(terms)
        if found is None:
            return []
        candidates, scores = found
        if subsystem is not None:
            at = self.corpus.in_subsystem(subsystem)[candidates].nonzero()[0]
            candidates, scores = candidates.take(at), scores.take(at)
        return self._best(candidates, scores, limit)

    def _summed(self, terms: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray] | None:
        """The visible versions holding any of ``terms`` (ascending) and each one's score: its terms' weights summed
        in query order; None if there is none. The last ``SUMS_KEPT`` are kept (a query is often searched again
        with another subsystem filter)."""
        batch = self._weigh_all(list(terms))
        weighed = self._weights
        parts = [w for w in (weighed[(t, None)] if (t, None) in weighed else self._term_weights(t, None)
                             for t in terms) if w is not None]
        found: tuple[np.ndarray, np.ndarray] | None
        if not parts:
            found = None
        elif len(parts) == 1:      # one posting: its versions are already distinct and in order
            found = parts[0]
        else:        # a version's score: its terms' weights added in query order (``bincount`` adds in array order)
            if batch is not None and batch[2] == len(parts):    # every part was weighed just now: already end to end
                docs, weights = batch[0], batch[1]
            else:
                docs, weights = np.concatenate([d for d, _ in parts]), np.concatenate([w for _, w in parts])
            if len(docs) * 32 < len(self._mask):
                candidates, inverse = np.unique(docs, return_inverse=True)
                found = candidates, np.bincount(inverse, weights=weights)
            else:                    # many versions: summed on a dense array
                dense = np.bincount(docs, weights, len(self._mask))
                candidates = np.flatnonzero(dense != 0.0)   # every weight is > 0: the versions some term reached
                found = candidates, dense[candidates]
        if len(self._sums) >= SUMS_KEPT:
            del self._sums[next(iter(self._sums))]
        self._sums[terms] = found
        return found

    @staticmethod
    def _best(candidates: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """The best ``limit`` of scored versions, best first: the top ``limit`` scores (and any tied with the last),
        ordered by score rounded to 9 places, then by version."""
        if len(candidates) > limit:       # (array methods, not numpy's functions: no wrapper per call)
            part = scores.copy()
            part.partition(len(scores) - limit)
            at = (scores >= part[len(scores) - limit]).nonzero()[0]
            candidates, scores = candidates.take(at), scores.take(at)
        order = np.lexsort((candidates, -scores.round(9)))[:limit]
        return list(zip(candidates[order].tolist(), scores[order].tolist()))

    def _idf_of_long(self, term: str) -> float | None:
        """The idf of a long term (``ImpactOrder``) over the visible versions, or None if none holds it."""
        try:
            return self._long_idf[term]
        except KeyError:
            pass
        if self._visible_bits is None:
            self._visible_bits = np.packbits(self._mask)
        df = self.corpus.impact.visible_df(term, self._visible_bits)
        idf = self._long_idf[term] = math.log(1.0 + (self._n - df + 0.5) / (df + 0.5)) if df else None
        return idf

    def _rank_pruned(self, terms: list[str], subsystem: str | None, limit: int) -> list[tuple[int, float]]:
        """``_rank`` for a query with long terms: the same results, found by ``top_k`` without weighing every version
        of them.

        A version's score is its terms' weights summed in query order, as ``_rank`` sums them (short terms' weights
        as ``_term_weights`` gives them, long terms' by the same formula on their counts looked up in the postings).
        """
        impact = self.corpus.impact
        self._weigh_all([t for t in terms if t not in impact.rows])
        parts: list[tuple[np.ndarray, np.ndarray, float]] = []   # (-, count row, idf | docs, weights, nan), query order
        streams, seen = [], []
        for term in terms:
            if term in impact.rows:
                idf = self._idf_of_long(term)
                if idf is None:
                    continue
                row = impact.rows[term]
                parts.append((np.zeros(0, dtype=np.int64), impact.counts[row], idf))
                streams.append(Stream(range(int(impact.term_layers[row]), int(impact.term_layers[row + 1])),
                                      partial(self._weigh, idf)))
            else:
                key = (term, subsystem)
                found = self._weights[key] if key in self._weights else self._term_weights(term, subsystem)
                if found is not None:
                    parts.append((found[0], found[1], math.nan))
                    seen.append(found[0])
        if not parts:
            return []

        def score(versions: np.ndarray) -> np.ndarray:
            total = np.zeros(len(versions), dtype=np.float64)
            norm = self._norm(versions)
            for docs, values, idf in parts:     # a weight of 0.0 where a version lacks the term: adding it changes nothing
                if math.isnan(idf):
                    at = np.minimum(np.searchsorted(docs, versions), len(docs) - 1)
                    total += np.where(docs[at] == versions, values[at], 0.0)
                else:
                    total += _bm25(idf, values[versions].astype(np.float64), norm)
            return total

        in_subsystem = self.corpus.in_subsystem(subsystem) if subsystem is not None else None

        def eligible(versions: np.ndarray) -> np.ndarray:
            keep = self._mask[versions]
            if in_subsystem is not None:
                keep &= in_subsystem[versions]
            return keep

        known = np.concatenate(seen).astype(np.int64) if seen else np.zeros(0, dtype=np.int64)
        candidates, scores = top_k(impact, streams, known, score, eligible, limit)
        return self._best(candidates, scores, limit) if len(candidates) else []


__all__ = ["B", "K1", "VisibleRanking"]
