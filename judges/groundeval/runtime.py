"""The gated runtime: BM25 search and fetch over a world's artifacts, as one actor at one moment.

``Corpus`` indexes every artifact version once (an inverted index over title,
body, id and date, plus one numpy column per gate input). A ``GatedRuntime``
serves one contract: on creation it computes which versions the actor could
see at ``as_of`` (horizon, actor and subsystem gates, exactly as
``AccessPolicy.violations`` decides) and from then on ranks only those, with
BM25 statistics computed over the visible set, so nothing withheld can shape a
result, a snippet, a count or a score. Fetching a withheld id returns the very
same answer as fetching an id that does not exist; only the trace, which the
agent never sees, records which gates it broke. Every call is recorded.

A search may be filtered only to a subsystem the actor's role and grants open
at ``as_of`` (``readable``); filtering to any other returns nothing and breaks
the subsystem gate, even where participation or a private space lets the actor
read some artifacts there — those are reached by an unfiltered search or by id.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from functools import partial
from datetime import datetime
from itertools import count, islice
from typing import Any, Iterable, NamedTuple, Protocol, Sequence

import numpy as np

from judges.groundeval.call_args import (
    DEFAULT_LIMIT, MAX_LIMIT, bounded, capped, fetch_problem, search_problem,
)
from judges.groundeval.impact import ImpactOrder, Stream, top_k
from judges.groundeval.key_table import KeyTable
from orgbench.core.clock import UTC, format_ts, parse_ts
from simulator.model import ArtifactVersion, EntityRef
from simulator.policy import ACTOR, GATES, HORIZON, SUBSYSTEM, AccessPolicy

K1, B = 1.2, 0.75
#: A query with at least this many terms not yet weighed has them weighed in one pass (``_weigh_all``).
BATCH_TERMS = 6
SNIPPET = 200
_TOKEN = re.compile(r"[a-z0-9]+(?:[-_.:/@][a-z0-9]+)*")
_PART = re.compile(r"[a-z0-9]+")
_VERSION = re.compile(r"-?[0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-case tokens; compound tokens (``chg-118``, ``2026-01-05``) also yield their parts."""
    out: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        out.append(token)
        if not token.isalnum():
            out.extend(_PART.findall(token))
    return out


#: Bytes that may be in a token kept, and ``\x00`` (the break between two texts of a block); any other byte made a space.
_TOKEN_BYTES = bytes(b if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789-_.:/@\x00" else 32 for b in range(256))
_BREAK = b"\x00"


def _block_pairs(chunk: list[str], terms: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each occurrence of a ``tokenize`` token in the texts ``chunk``: its term id (``terms``'s, new terms added)
    and its text's position in ``chunk`` (two int64 columns, in no particular order).

    A token lies within a run of the bytes it may hold (UTF-8 keeps every other character's bytes above 127), so
    the lower-cased texts, joined by breaks, are encoded, every other byte made a space and split at the spaces
    (all in C); each distinct run is tokenized once (``tokenize``) and its terms repeated for each occurrence.
    """
    joined = " \x00 ".join(chunk)
    if joined.count("\x00") != len(chunk) - 1:      # a text holds a NUL: a space, like any character no token has
        joined = " \x00 ".join(text.replace("\x00", " ") for text in chunk)
    runs = joined.lower().encode().translate(_TOKEN_BYTES).split()
    first: dict[bytes, int] = {}
    codes = np.fromiter(map(first.setdefault, runs, count()), dtype=np.int64, count=len(runs))   # a run's first place
    del runs, joined
    size = np.zeros(len(codes), dtype=np.int64)    # each distinct run's terms (at its first place): how many, which
    flat: list[int] = []
    for run, place in first.items():
        found = () if run == _BREAK else (run.decode(),) if run.isalnum() else tokenize(run.decode())
        size[place] = len(found)
        flat.extend(terms.setdefault(token, len(terms)) for token in found)
    many = size[codes]
    start = (np.cumsum(size) - size)[codes]        # where each occurrence's terms begin in ``flat``
    at = np.repeat(start - np.cumsum(many) + many, many) + np.arange(int(many.sum()), dtype=np.int64)
    doc = np.cumsum(codes == first.get(_BREAK, -1))   # each run's text
    return np.array(flat, dtype=np.int64)[at], np.repeat(doc, many)


def _micros(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


_SENTINEL = ArtifactVersion("", 0, "", "", datetime(1970, 1, 1, tzinfo=UTC), "", EntityRef("", ""), "", "")


def not_found(requested: str) -> dict[str, Any]:
    """The one answer for an id that is withheld or does not exist (they must be indistinguishable)."""
    return {"error": "not_found", "message": f"no artifact {requested!r} is available"}


class Served(Protocol):
    """What a corpus is built from: a world's artifact versions and access policy (a ``World`` serves)."""

    @property
    def artifacts(self) -> Sequence[ArtifactVersion]: ...

    @property
    def policy(self) -> AccessPolicy: ...


class Postings:
    """Every term's posting list in one compressed-sparse-row layout: a version column and a count column.

    The versions holding term ``t`` (ascending) are ``docs[offsets[k]:offsets[k + 1]]`` with ``k = terms[t]``,
    and ``tf`` holds how often ``t`` occurs in each; three flat arrays that can be saved and memory-mapped.
    """

    __slots__ = ("terms", "offsets", "docs", "tf")

    def __init__(self, terms: dict[str, int] | KeyTable, offsets: np.ndarray, docs: np.ndarray, tf: np.ndarray) -> None:
        self.terms, self.offsets, self.docs, self.tf = terms, offsets, docs, tf

    @classmethod
    def of_texts(cls, texts: Iterable[str], block: int = 1 << 15) -> tuple[Postings, np.ndarray]:
        """The postings of documents 0, 1, … given as their texts, and each one's token count.

        A text's tokens are ``tokenize``'s (the counts are all the index keeps). Documents are read ``block`` at a
        time, each block tokenized in one pass (``_block_pairs``); each block's (term, document) pairs are counted
        in numpy, and the blocks, each sorted by term, merged by one stable sort (a term's documents stay ascending).
        """
        terms: dict[str, int] = {}
        term_blocks, doc_blocks, tf_blocks, length_blocks = [], [], [], []
        first, source = 0, iter(texts)
        while chunk := list(islice(source, block)):
            ids, docs = _block_pairs(chunk, terms)
            length_blocks.append(np.bincount(docs, minlength=len(chunk)).astype(np.float64))
            pairs, counts = np.unique((ids << 32) | (docs + first), return_counts=True)   # by term, then document
            term_blocks.append((pairs >> 32).astype(np.int32))
            doc_blocks.append((pairs & 0xFFFFFFFF).astype(np.int32))
            tf_blocks.append(counts)
            first += len(chunk)
        term_of = np.concatenate(term_blocks) if term_blocks else np.zeros(0, dtype=np.int32)
        order = np.argsort(term_of, kind="stable")   # runs sorted by term, in document order: merged
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term_of, minlength=len(terms)), out=offsets[1:])
        del term_of
        tf = np.concatenate(tf_blocks)[order] if tf_blocks else np.zeros(0, dtype=np.int64)
        tf_type = np.uint16 if not len(tf) or tf.max() <= np.iinfo(np.uint16).max else np.uint32
        docs_all = np.concatenate(doc_blocks)[order] if doc_blocks else np.zeros(0, dtype=np.int32)
        lengths = np.concatenate(length_blocks) if length_blocks else np.zeros(0, dtype=np.float64)
        return cls(terms, offsets, docs_all, tf.astype(tf_type)), lengths

    def get(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The versions holding ``term`` and its count in each (a view), or None."""
        k = self.terms.get(term)
        if k is None:
            return None
        start, end = int(self.offsets[k]), int(self.offsets[k + 1])
        return self.docs[start:end], self.tf[start:end]

    def __len__(self) -> int:
        return len(self.terms)


class IndexedVersion(NamedTuple):
    """What the index keeps of one version: its id and number, creation (µs), gate inputs and searchable text."""

    artifact_id: str
    version: int
    created: int
    subsystem: str
    space: str | None
    audience: Sequence[str] | None
    participants: Sequence[str]
    text: str

    @staticmethod
    def of(v: ArtifactVersion) -> IndexedVersion:
        return IndexedVersion(v.artifact_id, v.version, _micros(v.created_at), v.subsystem, v.acl.space, v.acl.audience,
                              v.acl.participants, searchable_text(v.artifact_id, v.title, v.body, v.created_at))

    @staticmethod
    def of_json(obj: dict[str, Any]) -> IndexedVersion:
        """What ``of(ArtifactVersion.from_json(obj))`` gives, read straight from the JSON object (the same errors)."""
        created_at = parse_ts(obj["created_at"])
        _ = (obj["kind"], obj["author"], obj["entity"]["id"], obj["entity"]["kind"])   # what from_json requires too
        acl = obj.get("acl") or {}
        audience = acl.get("audience")
        return IndexedVersion(obj["artifact_id"], int(obj["version"]), _micros(created_at), obj["subsystem"],
                              acl.get("space"), None if audience is None else tuple(audience),
                              tuple(acl.get("participants", ())),
                              searchable_text(obj["artifact_id"], obj["title"], obj["body"], created_at))


def searchable_text(artifact_id: str, title: str, body: str, created_at: datetime) -> str:
    """The text search matches a version by: its id, title, body and creation date."""
    return f"{artifact_id} {title} {body} {created_at.date().isoformat()}"


class Corpus:
    """Every artifact version of a world, indexed once for gated search and fetch."""

    def __init__(self, world: Served) -> None:
        docs = sorted(world.artifacts, key=lambda v: (v.artifact_id, v.version))
        self.index(world.policy, docs, [IndexedVersion.of(v) for v in docs])

    def index(self, policy: AccessPolicy, docs: Sequence[ArtifactVersion], rows: Sequence[IndexedVersion]) -> None:
        """Index ``rows``, one per version of ``docs`` (sorted by artifact id, then version)."""
        self.policy = policy
        self.docs = docs
        n = len(rows)
        ids: list[str] = []
        first: list[int] = []
        for i, r in enumerate(rows):
            if not ids or r.artifact_id != ids[-1]:
                ids.append(r.artifact_id)
                first.append(i)
        self.artifact_ids = KeyTable.of((a, p) for p, a in enumerate(ids))
        self.artifact_first = np.array(first + [n], dtype=np.int64)
        self.versions = np.fromiter((r.version for r in rows), dtype=np.int64, count=n)
        self.created = np.fromiter((r.created for r in rows), dtype=np.int64, count=n)
        nxt = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        owner = np.repeat(np.arange(len(ids)), np.diff(self.artifact_first))
        same = owner[:-1] == owner[1:]            # the next version is the same artifact's
        nxt[:-1][same] = self.created[1:][same]
        self.next_created = nxt
        self.subsystems = sorted({r.subsystem for r in rows})
        code = {s: i for i, s in enumerate(self.subsystems)}
        self.subsystem_code = np.fromiter((code[r.subsystem] for r in rows), dtype=np.int16, count=n)
        self.spaces = sorted({r.space for r in rows if r.space is not None})
        space_code = {s: i for i, s in enumerate(self.spaces)}
        self.space_code = np.fromiter((-1 if r.space is None else space_code[r.space] for r in rows),
                                      dtype=np.int32, count=n)
        audience_docs: list[int] = []
        by_audience: dict[str, list[int]] = {}
        by_participant: dict[str, list[int]] = {}
        for i, r in enumerate(rows):
            if r.audience is not None:
                audience_docs.append(i)
                for who in r.audience:
                    by_audience.setdefault(who, []).append(i)
            for who in r.participants:
                by_participant.setdefault(who, []).append(i)
        self.audience_docs = np.array(audience_docs, dtype=np.int64)
        self.open_to_all = np.ones(n, dtype=bool)     # False where an audience restricts who may read
        self.open_to_all[self.audience_docs] = False
        self.by_audience = {a: np.array(x, dtype=np.int64) for a, x in by_audience.items()}
        self.by_participant = {a: np.array(x, dtype=np.int64) for a, x in by_participant.items()}
        self.postings, self.lengths = Postings.of_texts(r.text for r in rows)
        postings = self.postings
        self.impact = ImpactOrder.of(list(postings.terms), postings.offsets, postings.docs, postings.tf, self.lengths)
        self.derive_lookups()

    def derive_lookups(self) -> None:
        """The lookup forms of the columns (worked out again when a saved corpus is loaded)."""
        self._subsystem_at = self.subsystem_code.astype(np.intp)   # lookup-table indices (intp: the fast gather)
        self._space_at = self.space_code.astype(np.intp)

    def history(self, artifact_id: str) -> range:
        """The indices of the artifact's versions (contiguous: ``docs`` is sorted by id, then version); empty if unknown."""
        p = self.artifact_ids.get(artifact_id)
        if p is None:
            return range(0)
        return range(int(self.artifact_first[p]), int(self.artifact_first[p + 1]))

    def resolve(self, requested: str, moment: datetime) -> int | None:
        """The index of ``ID@N``, or of ``ID``'s version current at ``moment`` (its first if none was yet); None if unknown."""
        head, at, tail = requested.rpartition("@")
        if at and _VERSION.fullmatch(tail) and str(int(tail)) == tail:
            history = self.history(head)
            if history:
                found = int(np.searchsorted(self.versions[history.start:history.stop], int(tail), side="right")) - 1
                if found >= 0 and self.versions[history.start + found] == int(tail):
                    return history.start + found
        history = self.history(requested)
        if not history:
            return None
        later = int(np.searchsorted(self.created[history.start:history.stop], _micros(moment), side="right"))
        return history.start + max(later - 1, 0)

    def current_at(self, index: int, moment: datetime) -> bool:
        """Is version ``index`` the one current at ``moment`` (the only kind search ever returns)?"""
        t = _micros(moment)
        return bool(self.created[index] <= t < self.next_created[index])

    def visible_mask(self, actor_id: str, moment: datetime) -> np.ndarray:
        """For each version: is it the current version at ``moment`` and visible to the actor then?

        Each gate input is a small per-subsystem or per-space table looked up by code, not a set test per version.
        """
        n = len(self.docs)
        if self.policy.role_at(actor_id, moment) is None:
            return np.zeros(n, dtype=bool)
        t = _micros(moment)
        readable = self.policy.subsystems_at(actor_id, moment)
        by_role = np.array([s in readable for s in self.subsystems], dtype=bool)[self._subsystem_at]
        part = self.by_participant.get(actor_id)
        if part is not None:
            by_role[part] = True
        member = [self.policy.is_member(s, actor_id, moment) for s in self.spaces]
        mask = np.array(member + [True], dtype=bool)[self._space_at]   # code -1 (no space) picks the last: True
        mask &= by_role
        mask &= self.created <= t
        mask &= self.next_created > t
        if len(self.audience_docs):
            mine = self.by_audience.get(actor_id)
            if mine is None:
                mask &= self.open_to_all
            else:
                allowed = self.open_to_all.copy()
                allowed[mine] = True
                mask &= allowed
        return mask


def _bm25(idf: float | np.ndarray, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """The BM25 weight of a term of weight ``idf`` occurring ``tf`` times in versions of length part ``norm``."""
    return idf * tf * (K1 + 1.0) / (tf + norm)


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One recorded tool call: arguments, what came back, the gates it broke, and its latency."""

    seq: int
    tool: str
    args: dict[str, Any]
    returned_ids: tuple[str, ...]
    outcome: str                       # ok | empty | withheld | not_found | invalid
    gates: tuple[str, ...]             # gates the call broke, in precedence order
    latency_ms: float | None

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "tool": self.tool, "args": self.args, "returned_ids": list(self.returned_ids),
                "outcome": self.outcome, "gates": {g: g in self.gates for g in GATES},
                "latency_ms": self.latency_ms}


class GatedRuntime:
    """search_artifacts / fetch_artifact for one actor at one moment, recording every call."""

    def __init__(self, corpus: Corpus, actor_id: str, as_of: datetime, *, record_latency: bool = True) -> None:
        self.corpus = corpus
        self.actor_id = actor_id
        self.as_of = as_of
        self.record_latency = record_latency
        self.calls: list[CallRecord] = []
        self.readable = frozenset(corpus.policy.subsystems_at(actor_id, as_of))
        self._mask = corpus.visible_mask(actor_id, as_of)
        visible = int(self._mask.sum())
        self._n = visible
        self._avgdl = float(corpus.lengths[self._mask].mean()) if visible else 1.0
        self._codes = {s: i for i, s in enumerate(corpus.subsystems)}
        self._in_subsystem: dict[str, np.ndarray] = {}
        self._weights: dict[tuple[str, str | None], tuple[np.ndarray, np.ndarray] | None] = {}
        self._scores: np.ndarray | None = None     # all zeros between searches: where large result sets are summed
        self._visible_bits: np.ndarray | None = None   # the mask packed, for the long terms' bitmaps
        self._long_idf: dict[str, float | None] = {}

    # -- helpers ------------------------------------------------------------------------------------
    def _record(self, started: float, tool: str, args: dict[str, Any], ids: tuple[str, ...], outcome: str,
                gates: tuple[str, ...]) -> None:
        latency = round((time.perf_counter() - started) * 1000, 3) if self.record_latency else None
        self.calls.append(CallRecord(len(self.calls) + 1, tool, args, ids, outcome, gates, latency))

    def _summary(self, v: ArtifactVersion) -> dict[str, Any]:
        return {"id": v.ref, "artifact_id": v.artifact_id, "version": v.version, "subsystem": v.subsystem,
                "kind": v.kind, "title": v.title, "created_at": format_ts(v.created_at),
                "snippet": v.body[:SNIPPET]}

    # -- tools ----------------------------------------------------------------------------------------
    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        """A ``search_artifacts`` / ``fetch_artifact`` call with its arguments as an agent sent them (any JSON)."""
        args = bounded(arguments) if isinstance(arguments, dict) else {}
        if tool == "search_artifacts":
            return self._search(time.perf_counter(), args)
        if tool == "fetch_artifact":
            return self._fetch(time.perf_counter(), args)
        raise ValueError(f"not a runtime tool: {tool!r}")

    def search_artifacts(self, query: Any, subsystem: Any = None, limit: Any = DEFAULT_LIMIT) -> dict[str, Any]:
        """BM25 over the versions this actor could see at as_of; optional subsystem filter; at most ``limit``."""
        started = time.perf_counter()
        return self._search(started, bounded({"query": query, "subsystem": subsystem, "limit": limit}))

    def _search(self, started: float, args: dict[str, Any]) -> dict[str, Any]:
        problem = search_problem(args)
        if problem is not None:
            self._record(started, "search_artifacts", args, (), "invalid", ())
            return {"error": "invalid_arguments", "message": problem}
        query, subsystem, limit = args["query"], args.get("subsystem"), capped(args.get("limit", DEFAULT_LIMIT))
        if subsystem is not None and subsystem not in self.readable:
            self._record(started, "search_artifacts", args, (), "empty", (SUBSYSTEM,))
            return {"results": [], "count": 0}
        ranked = self._rank(query, subsystem, limit)
        if not ranked:
            self._record(started, "search_artifacts", args, (), "empty", ())
            return {"results": [], "count": 0}
        docs = self.corpus.docs
        results = [self._summary(docs[index]) | {"score": round(score, 4)} for index, score in ranked]
        ids = tuple(r["id"] for r in results)
        self._record(started, "search_artifacts", args, ids, "ok", ())
        return {"results": results, "count": len(results)}

    def ranked_ids(self, query: str, subsystem: str | None, limit: int) -> tuple[str, ...]:
        """The ids ``search_artifacts`` returns for these (valid) arguments, unrecorded: the scorer's re-run."""
        docs = self.corpus.docs
        return tuple(docs[index].ref for index in self.ranked_versions(query, subsystem, limit))

    def ranked_versions(self, query: str, subsystem: str | None, limit: int) -> tuple[int, ...]:
        """The corpus indices of the versions ``search_artifacts`` returns, best first: ranking only, no summaries."""
        limit = capped(max(1, limit))
        if subsystem is not None and subsystem not in self.readable:
            return ()
        return tuple(index for index, _ in self._rank(query, subsystem, limit))

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
                    keep = self.corpus.subsystem_code[docs] == self._codes.get(subsystem, -1)
                    found = (docs[keep], weights[keep]) if keep.any() else None
                    keep = None
                else:
                    in_subsystem = self._in_subsystem.get(subsystem)
                    if in_subsystem is None:
                        code = self._codes.get(subsystem, -1)
                        in_subsystem = self._in_subsystem[subsystem] = self._mask & (self.corpus.subsystem_code == code)
                    keep = in_subsystem[docs]
                    df = int(np.count_nonzero(self._mask[docs]))
            if keep is not None:
                docs = docs[keep]
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
        offsets = postings.offsets
        starts = np.array([offsets[k] for _, k in todo], dtype=np.int64)
        sizes = np.array([offsets[k + 1] for _, k in todo], dtype=np.int64) - starts
        ends = np.cumsum(sizes)
        at = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(starts - (ends - sizes), sizes)
        docs = postings.docs[at]
        keep = self._mask[docs]
        term_of = np.repeat(np.arange(len(todo)), sizes)[keep]
        docs = docs[keep]
        tf = postings.tf[at][keep].astype(np.float64)
        df = np.bincount(term_of, minlength=len(todo)).tolist()
        idf = np.array([math.log(1.0 + (self._n - d + 0.5) / (d + 0.5)) if d else 0.0 for d in df])
        weighed = self._weigh(idf[term_of], tf, docs)
        bounds = np.cumsum([0] + df).tolist()
        for (term, _), d, a, b in zip(todo, df, bounds, bounds[1:]):
            weights[(term, None)] = (docs[a:b], weighed[a:b]) if d else None

    def _narrow_all(self, terms: list[str], subsystem: str) -> None:
        """For each of ``terms`` weighed over every visible version, its versions in ``subsystem``, in one pass.

        What ``_term_weights(term, subsystem)`` narrows term by term (the versions of the subsystem, in order, with
        the weights weighed), for the filtered searches where a call per term would cost more than the work.
        """
        weights = self._weights
        todo = []
        for term in terms:
            key = (term, subsystem)
            if key not in weights and (term, None) in weights:
                unfiltered = weights[(term, None)]
                if unfiltered is None:      # no visible version holds the term
                    weights[key] = None
                else:
                    todo.append((key, unfiltered))
        if len(todo) < 2:
            return
        docs = np.concatenate([d for _, (d, _w) in todo])
        keep = self.corpus.subsystem_code[docs] == self._codes.get(subsystem, -1)
        kept_docs = docs[keep]
        kept_weights = np.concatenate([w for _, (_d, w) in todo])[keep]
        starts = np.cumsum([0] + [len(d) for _, (d, _w) in todo[:-1]])   # each term's run (never empty)
        bounds = [0, *np.add.reduceat(keep, starts, dtype=np.intp).cumsum().tolist()]
        for (key, _), a, b in zip(todo, bounds, bounds[1:]):
            weights[key] = (kept_docs[a:b], kept_weights[a:b]) if b > a else None

    def _rank(self, query: str, subsystem: str | None, limit: int) -> list[tuple[int, float]]:
        """BM25 over the visible versions (of one subsystem if given): the best ``limit`` (index, score), best first."""
        terms = list(dict.fromkeys(tokenize(query)))
        long_terms = self.corpus.impact.rows
        if any(t in long_terms for t in terms):
            return self._rank_pruned(terms, subsystem, limit)
        self._weigh_all(terms)
        if subsystem is not None:
            self._narrow_all(terms, subsystem)
        weighed = self._weights
        parts = [w for w in (weighed[(t, subsystem)] if (t, subsystem) in weighed else self._term_weights(t, subsystem)
                             for t in terms) if w is not None]
        if not parts:
            return []
        if len(parts) == 1:      # one posting: its versions are already distinct and in order
            candidates, scores = parts[0]
        elif sum(len(d) for d, _ in parts) * 32 < len(self._mask):   # a version's score: its terms' weights, in query order
            candidates, inverse = np.unique(np.concatenate([d for d, _ in parts]), return_inverse=True)
            scores = np.bincount(inverse, weights=np.concatenate([w for _, w in parts]))
        else:                    # many versions: the same sums, in the same order, on a dense array
            dense = self._scores
            if dense is None:
                dense = self._scores = np.zeros(len(self._mask), dtype=np.float64)
            for docs, weights in parts:
                dense[docs] += weights
            candidates = np.flatnonzero(dense != 0.0)   # every weight is > 0: the versions some term reached
            scores = dense[candidates]
            dense[candidates] = 0.0
        return self._best(candidates, scores, limit)

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

        code = self._codes.get(subsystem, -1) if subsystem is not None else None

        def eligible(versions: np.ndarray) -> np.ndarray:
            keep = self._mask[versions]
            if code is not None:
                keep &= self.corpus.subsystem_code[versions] == code
            return keep

        known = np.concatenate(seen).astype(np.int64) if seen else np.zeros(0, dtype=np.int64)
        candidates, scores = top_k(impact, streams, known, score, eligible, limit)
        return self._best(candidates, scores, limit) if len(candidates) else []

    def fetch_artifact(self, artifact_id: Any) -> dict[str, Any]:
        """The artifact (``ID`` for the version current at as_of, or ``ID@N``), or not_found if withheld or absent."""
        started = time.perf_counter()
        return self._fetch(started, bounded({"artifact_id": artifact_id}))

    def _fetch(self, started: float, args: dict[str, Any]) -> dict[str, Any]:
        problem = fetch_problem(args)
        if problem is not None:
            self._record(started, "fetch_artifact", args, (), "invalid", ())
            return {"error": "invalid_arguments", "message": problem}
        artifact_id = args["artifact_id"]
        corpus = self.corpus
        index = corpus.resolve(artifact_id, self.as_of)
        if index is None:
            corpus.policy.violations(self.actor_id, _SENTINEL, self.as_of)  # same work as a withheld id
            self._record(started, "fetch_artifact", args, (), "not_found", ())
            return not_found(artifact_id)
        version = corpus.docs[index]
        broken = corpus.policy.violations(self.actor_id, version, self.as_of)
        if broken:
            self._record(started, "fetch_artifact", args, (), "withheld", broken)
            return not_found(artifact_id)
        body = self._summary(version)
        del body["snippet"]
        body["author"] = version.author
        body["body"] = version.body
        body["facts"] = dict(version.facts)
        self._record(started, "fetch_artifact", args, (version.ref,), "ok", ())
        return {"artifact": body}

    def trace(self) -> list[dict[str, Any]]:
        """Every call so far, as JSON objects."""
        return [c.to_json() for c in self.calls]


__all__ = ["ACTOR", "HORIZON", "MAX_LIMIT", "SUBSYSTEM", "CallRecord", "Corpus", "GatedRuntime", "IndexedVersion", "Postings",
           "not_found", "searchable_text", "tokenize"]
