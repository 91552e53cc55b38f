"""The gated runtime: BM25 search and fetch over a world's artifacts, as one actor at one moment.

``Corpus`` (``corpus.py``) indexes every artifact version once (an inverted
index over title, body, id and date, ``postings.py``, plus one numpy column per
gate input). A ``GatedRuntime`` serves one contract: on creation it computes
which versions the actor could see at ``as_of`` (horizon, actor and subsystem
gates, exactly as ``AccessPolicy.violations`` decides) and from then on ranks
only those (``ranking.py``), with BM25 statistics computed over the visible
set, so nothing withheld can shape a result, a snippet, a count or a score. Fetching a withheld id returns the very
same answer as fetching an id that does not exist; only the trace, which the
agent never sees, records which gates it broke. Every call is recorded.

A search may be filtered only to a subsystem the actor's role and grants open
at ``as_of`` (``readable``); filtering to any other returns nothing and breaks
the subsystem gate, even where participation or a private space lets the actor
read some artifacts there — those are reached by an unfiltered search or by id.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from judges.groundeval.call_args import (
    DEFAULT_LIMIT, MAX_LIMIT, bounded, capped, fetch_problem, search_problem,
)
from judges.groundeval.corpus import Corpus, IndexedVersion, Served, searchable_text
from judges.groundeval.postings import Postings, tokenize
from judges.groundeval.ranking import VisibleRanking
from orgbench.core.clock import UTC, format_ts
from simulator.model import ArtifactVersion, EntityRef
from simulator.policy import ACTOR, GATES, HORIZON, SUBSYSTEM

SNIPPET = 200
_SENTINEL = ArtifactVersion("", 0, "", "", datetime(1970, 1, 1, tzinfo=UTC), "", EntityRef("", ""), "", "")


def not_found(requested: str) -> dict[str, Any]:
    """The one answer for an id that is withheld or does not exist (they must be indistinguishable)."""
    return {"error": "not_found", "message": f"no artifact {requested!r} is available"}


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


class GatedRuntime(VisibleRanking):
    """search_artifacts / fetch_artifact for one actor at one moment, recording every call."""

    def __init__(self, corpus: Corpus, actor_id: str, as_of: datetime, *, record_latency: bool = True,
                 mask: np.ndarray | None = None) -> None:
        """``mask``, when given, is ``corpus.visible_mask(actor_id, as_of)`` computed already (never edited here)."""
        self.actor_id = actor_id
        self.as_of = as_of
        self.record_latency = record_latency
        self.calls: list[CallRecord] = []
        self.readable = frozenset(corpus.policy.subsystems_at(actor_id, as_of))
        super().__init__(corpus, corpus.visible_mask(actor_id, as_of) if mask is None else mask)

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
           "Served", "not_found", "searchable_text", "tokenize"]
