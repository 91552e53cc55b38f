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


def _bm25(idf: float | np.ndarray, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """The BM25 weight of a term of weight ``idf`` occurring ``tf`` times in versions of length part ``norm``."""
    return idf * tf * (K1 + 1.0) / (tf + norm)


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
        self._scores: np.ndarray | None = None     # all zeros between searches: where large result sets are summed
        self._visible_bits: np.ndarray | None = None   # the mask packed, for the long terms' bitmaps
        self._long_idf: dict[str, float | None] = {}
        self._sums: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray] | None] = {}

    def _weigh(self, idf: float | np.ndarray, tf: np.ndarray, docs: np.ndarray) -> np.ndarray:
        """BM25 weights of a term (of weight ``idf``) occurring ``tf`` times in versions ``docs``: the one formula."""
        return _bm25(idf, tf, self._norm(docs))

    def _norm(self, docs: np.ndarray) -> np.ndarray:
        """The length part of ``_weigh``'s formula for versions ``docs`` (the same for every term)."""
        return K1 * (1.0 - B + B * self.corpus.lengths[docs] / self._avgdl)

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

    def _weigh_all(self, terms: list[str]) -> None:
        """Weigh every visible version of each of ``terms`` not weighed yet, in one pass over their postings.

        The same weights ``_term_weights`` works out term by term (the same formula on the same values, the
        idf with ``math.log``), for the many-term queries where a call per term would cost more than the work.
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
            return      # term by term costs no more
        offsets, all_docs, all_tf = postings.offsets, postings.docs, postings.tf
        spans = [(int(offsets[k]), int(offsets[k + 1])) for _, k in todo]
        docs = np.concatenate([all_docs[a:b] for a, b in spans], dtype=np.intp)   # (intp: as ``_term_weights``)
        keep = self._mask[docs]
        tf = np.concatenate([all_tf[a:b] for a, b in spans])[keep].astype(np.float64)
        firsts = np.cumsum([0] + [b - a for a, b in spans[:-1]])     # each term's run (never empty)
        df = np.add.reduceat(keep, firsts, dtype=np.intp).tolist()
        docs = docs[keep]
        idf = [math.log(1.0 + (self._n - d + 0.5) / (d + 0.5)) if d else 0.0 for d in df]
        weighed = self._weigh(np.repeat(idf, df), tf, docs)
        bounds = np.cumsum([0] + df).tolist()
        for (term, _), d, a, b in zip(todo, df, bounds, bounds[1:]):
            weights[(term, None)] = (docs[a:b], weighed[a:b]) if d else None

    def _rank(self, query: str, subsystem: str | None, limit: int) -> list[tuple[int, float]]:
        """BM25 over the visible versions (of one subsystem if given): the best ``limit`` (index, score), best first.

        A version's score is the same with or without the filter (its terms' weights over the visible set, summed
        in query order), so a filtered search keeps the subsystem's versions of the unfiltered sums (``_summed``).
        """
        terms = tuple(dict.fromkeys(tokenize(query)))
        long_terms = self.corpus.impact.rows
        if any(t in long_terms for t in terms):
            return self._rank_pruned(list(terms), subsystem, limit)
        found = self._sums[terms] if terms in self._sums else self._summed(terms)
        if found is None:
            return []
        candidates, scores = found
        if subsystem is not None:
            keep = self.corpus.in_subsystem(subsystem)[candidates]
            candidates, scores = candidates[keep], scores[keep]
        return self._best(candidates, scores, limit)

    def _summed(self, terms: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray] | None:
        """The visible versions holding any of ``terms`` (ascending) and each one's score: its terms' weights summed
        in query order; None if there is none. The last ``SUMS_KEPT`` are kept (a query is often searched again
        with another subsystem filter)."""
        self._weigh_all(list(terms))
        weighed = self._weights
        parts = [w for w in (weighed[(t, None)] if (t, None) in weighed else self._term_weights(t, None)
                             for t in terms) if w is not None]
        found: tuple[np.ndarray, np.ndarray] | None
        if not parts:
            found = None
        elif len(parts) == 1:      # one posting: its versions are already distinct and in order
            found = parts[0]
        elif sum(len(d) for d, _ in parts) * 32 < len(self._mask):   # a version's score: its terms' weights, in query order
            candidates, inverse = np.unique(np.concatenate([d for d, _ in parts]), return_inverse=True)
            found = candidates, np.bincount(inverse, weights=np.concatenate([w for _, w in parts]))
        else:                    # many versions: the same sums, in the same order, on a dense array
            dense = self._scores
            if dense is None:
                dense = self._scores = np.zeros(len(self._mask), dtype=np.float64)
            for docs, weights in parts:
                dense[docs] += weights
            candidates = np.flatnonzero(dense != 0.0)   # every weight is > 0: the versions some term reached
            found = candidates, dense[candidates]
            dense[candidates] = 0.0
        if len(self._sums) >= SUMS_KEPT:
            del self._sums[next(iter(self._sums))]
        self._sums[terms] = found
        return found

    @staticmethod
    def _best(candidates: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """The best ``limit`` of scored versions, best first: the top ``limit`` scores (and any tied with the last),
        ordered by score rounded to 9 places, then by version."""
        if len(candidates) > limit:
            kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            keep = np.nonzero(scores >= kth)[0]
            candidates, scores = candidates[keep], scores[keep]
        order = np.lexsort((candidates, -np.round(scores, 9)))[:limit]
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
