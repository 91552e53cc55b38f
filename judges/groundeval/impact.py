"""Long postings in impact order: a search's top-k found without weighing every version of a common term.

A term held by at least ``MIN_DF`` versions (and a 32nd of all; below that, weighing every version costs less) keeps, beside its postings in version order, the
same versions in layers by count (most first), each layer sorted by length (shortest first), then version. A
term's BM25 weight rises with its count and falls with the version's length (whatever the idf and the average
length of a session's visible set; IEEE rounding keeps both monotone), so the next unread version of a layer
bounds the weight of every version after it. ``threshold_top`` reads the layers a slice at a time and stops as
soon as no unread version can reach the k-th best score read (Fagin's threshold algorithm, the other terms'
weights of a read version looked up in their postings or count rows). ``top_k`` first drops the long terms that
cannot by themselves bring a version among the best (MaxScore): in a query of several long terms (a date's parts) most
are such, and the rest are few enough to score whole or are read in impact order. Each such term also keeps a bitmap
of its versions: how many of them a session can see (its idf) is one AND and a popcount, not a gather over its postings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

#: Fewest versions a term is in for its postings to be kept in impact order (and as a bitmap).
MIN_DF = 1 << 15
_FIRST_READ, _MOST_READ = 32, 1 << 14     # versions read from a layer per round: doubling from the first
_SEED = 128          # versions of each layer scored first by MaxScore, for its bound of the limit-th best score
_MARGIN = 1e-9       # relative: a float sum of weights each at most its bound exceeds the bounds' sum by far less
_MOST_OF = 8         # MaxScore gathers the essential terms' postings only if they hold under an eighth of all versions


def _distinct(versions: np.ndarray) -> np.ndarray:
    """The distinct versions, ascending (``np.unique`` without its hashing, which costs ten times a sort here)."""
    ordered = np.sort(versions)
    if len(ordered) > 1:
        ordered = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
    return ordered


def _popcount(bits: np.ndarray) -> int:
    count = getattr(np, "bitwise_count", None)     # numpy >= 2.0
    if count is not None:
        return int(count(bits).sum(dtype=np.int64))
    return int(np.unpackbits(bits).sum(dtype=np.int64))


class ImpactOrder:
    """The long terms' postings in impact layers, flat: term row ``r``'s layers are ``term_layers[r]:term_layers[r+1]``,
    layer ``l``'s versions ``docs[layer_bounds[l]:layer_bounds[l+1]]``, each holding the term ``layer_tf[l]`` times;
    ``bits[r]`` is the term's versions as a bitmap (``np.packbits`` of a mask over every version) and ``counts[r]`` its
    count in every version (0 where absent): a read version's weight for each long term is one lookup."""

    __slots__ = ("rows", "term_layers", "layer_bounds", "layer_tf", "docs", "bits", "counts")

    def __init__(self, rows: dict[str, int], term_layers: np.ndarray, layer_bounds: np.ndarray, layer_tf: np.ndarray,
                 docs: np.ndarray, bits: np.ndarray, counts: np.ndarray) -> None:
        self.rows, self.term_layers, self.layer_bounds = rows, term_layers, layer_bounds
        self.layer_tf, self.docs, self.bits, self.counts = layer_tf, docs, bits, counts

    @classmethod
    def of(cls, terms: Sequence[str] | Mapping[int, str], offsets: np.ndarray, docs: np.ndarray, tf: np.ndarray, lengths: np.ndarray,
           min_df: int | None = None) -> ImpactOrder:
        """The impact order of the postings (``terms``: each term by its id; those in ``MIN_DF`` versions or more
        suffice) of terms in ``min_df`` versions or more."""
        n = len(lengths)
        threshold = max(MIN_DF, n // 32) if min_df is None else max(1, min_df)
        long_ids = np.flatnonzero(np.diff(offsets) >= threshold).tolist()
        term_layers, layer_bounds, layer_tf = [0], [0], []
        ordered = np.empty(int(sum(offsets[k + 1] - offsets[k] for k in long_ids)), dtype=np.int32)
        bits = np.zeros((len(long_ids), (n + 7) // 8), dtype=np.uint8)
        most = max((int(tf[offsets[k]:offsets[k + 1]].max()) for k in long_ids), default=0)
        counts = np.zeros((len(long_ids), n), dtype=np.uint8 if most <= 255 else np.uint16 if most <= 65535 else np.uint32)
        at = 0
        for row, k in enumerate(long_ids):
            d, f = docs[offsets[k]:offsets[k + 1]], tf[offsets[k]:offsets[k + 1]]
            order = np.lexsort((d, lengths[d], -f.astype(np.int64)))
            f = f[order]
            starts = np.flatnonzero(np.diff(f, prepend=f[0] + 1))
            layer_tf.append(f[starts])
            layer_bounds.extend((starts[1:] + at).tolist() + [at + len(d)])
            term_layers.append(term_layers[-1] + len(starts))
            ordered[at:at + len(d)] = d[order]
            counts[row, d[order]] = f
            bits[row] = np.packbits(counts[row] != 0)
            at += len(d)
        return cls({terms[k]: row for row, k in enumerate(long_ids)}, np.array(term_layers, dtype=np.int64),
                   np.array(layer_bounds, dtype=np.int64),
                   np.concatenate(layer_tf).astype(np.float64) if layer_tf else np.zeros(0),
                   ordered, bits, counts)

    def arrays(self) -> dict[str, np.ndarray]:
        """The flat arrays, by the names ``from_arrays`` reads (the rows' terms are saved apart, as a list)."""
        return {"impact_term_layers": self.term_layers, "impact_layer_bounds": self.layer_bounds,
                "impact_layer_tf": self.layer_tf, "impact_docs": self.docs, "impact_bits": self.bits,
                "impact_counts": self.counts}

    @classmethod
    def from_arrays(cls, terms: list[str], arrays: dict[str, np.ndarray]) -> ImpactOrder:
        return cls({t: r for r, t in enumerate(terms)}, arrays["impact_term_layers"], arrays["impact_layer_bounds"],
                   arrays["impact_layer_tf"], arrays["impact_docs"], arrays["impact_bits"], arrays["impact_counts"])

    def terms(self) -> list[str]:
        """The long terms, by row."""
        return list(self.rows)

    def visible_df(self, term: str, visible_bits: np.ndarray) -> int:
        """How many versions in ``visible_bits`` (a packed mask) hold the long ``term``."""
        return _popcount(self.bits[self.rows[term]] & visible_bits)


@dataclass(frozen=True)
class Stream:
    """One long query term's layers as a search reads them: ``weigh(tf, docs)`` is its BM25 weight."""

    layers: range
    weigh: Callable[[np.ndarray, np.ndarray], np.ndarray]


def threshold_top(order: ImpactOrder, streams: list[Stream], candidates: np.ndarray, scores: np.ndarray,
                  score: Callable[[np.ndarray], np.ndarray], eligible: Callable[[np.ndarray], np.ndarray], limit: int,
                  beside: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Every version that can be among the best ``limit`` and its exact score, reading the streams' layers only as far
    as needed: the ``candidates`` already scored (distinct, eligible; every version of the query's short terms among
    them) and those read from the layers. ``beside`` bounds what the query's terms not read here (every version
    holding them among the candidates or in a stream) add to a score.

    ``score`` gives read versions their exact score (the sum ranking uses); ``eligible`` keeps the versions the search
    may return. Reading stops when the sum of the streams' bounds (and ``beside``), with a relative margin for a score's
    sum taken in another order, falls below the ``limit``-th best score read: every unread version scores at most that
    sum (each of its weights at most its term's bound), so strictly less than that many read ones, and the exhaustive
    top ``limit`` is among those read.
    """
    bounds, docs, layer_tf = order.layer_bounds, order.docs, order.layer_tf
    position = {layer: int(bounds[layer]) for s in streams for layer in s.layers}
    step = _FIRST_READ
    while True:
        kth = -np.inf
        if len(scores) >= limit:
            kth = float(np.partition(scores, len(scores) - limit)[len(scores) - limit])
        heads = []          # per stream: each unfinished layer's bound (the weight of its next version)
        for s in streams:
            live = [layer for layer in s.layers if position[layer] < bounds[layer + 1]]
            if live:
                at = np.array([position[layer] for layer in live], dtype=np.int64)
                heads.append((live, s.weigh(layer_tf[live], docs[at].astype(np.int64))))
            else:
                heads.append(([], np.zeros(0)))
        total = beside
        for _, w in heads:
            if len(w):
                total += float(w.max())
        if not any(live for live, _ in heads) or total * (1.0 + _MARGIN) < kth:
            return candidates, scores
        read = []
        for live, w in heads:
            for layer, weight in zip(live, w.tolist()):
                if weight + (total - float(w.max())) >= kth or weight == float(w.max()):
                    start = position[layer]
                    end = min(start + step, int(bounds[layer + 1]))
                    read.append(docs[start:end])
                    position[layer] = end
        step = min(step * 2, _MOST_READ)
        new = _distinct(np.concatenate(read).astype(np.int64))
        new = new[eligible(new)]
        if len(candidates):
            new = new[~np.isin(new, candidates, assume_unique=True)]
        if len(new):
            candidates = np.concatenate([candidates, new])
            scores = np.concatenate([scores, score(new)])


def _bound(order: ImpactOrder, stream: Stream) -> float:
    """The largest weight any version of the stream's term can have: the largest of its layers' first weights."""
    firsts = order.layer_bounds[stream.layers.start:stream.layers.stop]
    return float(stream.weigh(order.layer_tf[stream.layers.start:stream.layers.stop], order.docs[firsts].astype(np.int64)).max())


def top_k(order: ImpactOrder, streams: list[Stream], seen: np.ndarray, score: Callable[[np.ndarray], np.ndarray],
          eligible: Callable[[np.ndarray], np.ndarray], limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Every version that can be among the best ``limit`` and its exact score (``threshold_top``'s answer), reading
    only the streams that can bring a version among the best (MaxScore).

    A first score (the versions ``seen``, every version of the short terms, and each layer's first ones) gives
    ``theta``, a lower bound of the ``limit``-th best score. The terms whose bounds, smallest first, sum (with a
    margin for float rounding) below ``theta`` cannot by themselves bring a version among the best: every version
    that can is ``seen`` or holds another (essential) term. One essential term is read in impact order by
    ``threshold_top``; several (which rarely meet in a version, so the sum of their bounds stays high) are scored
    whole when they hold under an eighth of all versions, else read in impact order too.
    """
    bounds, docs = order.layer_bounds, order.docs
    first = [docs[int(bounds[layer]):min(int(bounds[layer]) + _SEED, int(bounds[layer + 1]))]
             for s in streams for layer in s.layers]
    seeds = np.concatenate([seen.astype(np.int64), *(f.astype(np.int64) for f in first)])
    seeds = _distinct(seeds[eligible(seeds)])
    scores = score(seeds)
    if len(seeds) < limit:
        return threshold_top(order, streams, seeds, scores, score, eligible, limit)
    theta = float(np.partition(scores, len(seeds) - limit)[len(seeds) - limit])
    below = 0.0
    essential = list(range(len(streams)))
    for weight, i in sorted((_bound(order, s), i) for i, s in enumerate(streams)):
        if (below + weight) * (1.0 + _MARGIN) >= theta:
            break
        below += weight
        essential.remove(i)
    spans = [(int(bounds[streams[i].layers.start]), int(bounds[streams[i].layers.stop])) for i in essential]
    if len(essential) < 2 or sum(b - a for a, b in spans) * _MOST_OF > order.counts.shape[1]:
        return threshold_top(order, [streams[i] for i in essential], seeds, scores, score, eligible, limit,
                             beside=below)
    if not spans:
        return seeds, scores
    more = np.concatenate([docs[a:b].astype(np.int64) for a, b in spans])
    more = _distinct(more[eligible(more)])
    more = more[seeds[np.minimum(np.searchsorted(seeds, more), len(seeds) - 1)] != more]
    return np.concatenate([seeds, more]), np.concatenate([scores, score(more)])


__all__ = ["MIN_DF", "ImpactOrder", "Stream", "threshold_top", "top_k"]
