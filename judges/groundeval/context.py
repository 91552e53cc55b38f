"""Context mode: the same gated evidence a tool-mode agent could reach, packed into a size budget.

The builder sees only the contract (never the truth). Through a
``GatedRuntime`` for the contract's actor and ``as_of`` it searches each
subsystem the actor could read with the question text, and — without a
subsystem filter, so whatever else the actor may read (artifacts of events it
took part in, in subsystems outside its role) is reached too — each record the
question names, by its id, and then each record that a named record it found
names (one join further, at most ``JOINED`` per record), and each day it names, by that
day's date with the question. It ranks the hits (the records the question names
first) and fetches them, with the earlier visible versions of named records,
until the character budget is spent. It never filters a search to a subsystem
outside the actor's readable ones: the runtime answers such a search with
nothing and records a subsystem violation, for the builder as for any agent.
Its calls are recorded like any agent's, so the context is provably
gate-clean, and each search is listed in the context as ``search:<subsystem>``
(``search:*`` unfiltered) with what it found. The agent cites the artifact ids
it relied on and, to show where it looked, the searches; the runner checks
every cited artifact id through the same gates (``cite_artifact`` calls).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmark_builders.groundeval.contracts import Contract
from judges.groundeval.runtime import GatedRuntime, tokenize
from judges.groundeval.scoring import SEARCH_CITATION

DEFAULT_BUDGET = 24_000
PER_SUBSYSTEM = 8
JOINED = 4        # records named by a record the question names: searched by id, at most this many per record
_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}")          # the days a question names: records of that day, by date token
_NAMED = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-[0-9][A-Za-z0-9]*")   # record ids: INC-22, CASE-10362


def search_citation(subsystem: str | None) -> str:
    """How an agent cites one of its context's searches: ``search:<subsystem>``, or ``search:*`` when unfiltered."""
    return SEARCH_CITATION + (subsystem if subsystem is not None else "*")


@dataclass(frozen=True)
class Context:
    """The evidence handed to a context-mode agent, and the text it reads."""

    question_id: str
    items: tuple[dict[str, Any], ...]
    budget: int
    used: int
    searches: tuple[dict[str, Any], ...] = ()     # {"id": "search:<subsystem>", "subsystem", "query", "ids"}

    def ids(self) -> tuple[str, ...]:
        """The ids of the artifact versions in the context."""
        return tuple(item["id"] for item in self.items)

    def render(self) -> str:
        """The context as the agent reads it: the searches that built it, then one block per artifact version, id first."""
        lines = [f"[{s['id']}] searched {s['subsystem'] or 'every subsystem'} for {s['query']!r}: "
                 + (", ".join(s["ids"]) if s["ids"] else "nothing found") for s in self.searches]
        blocks = [f"[{i['id']}] {i['subsystem']} / {i['kind']} / {i['created_at']}\n{i['title']}\n{i['body']}"
                  for i in self.items]
        return "\n\n".join((["\n".join(lines)] if lines else []) + blocks)


def _block_size(artifact: dict[str, Any]) -> int:
    return len(artifact["id"]) + len(artifact["subsystem"]) + len(artifact["kind"]) + len(artifact["title"]) \
        + len(artifact["body"]) + 40


def named_records(question: str) -> list[str]:
    """The record ids a question names (``INC-22``, ``CASE-10362``), in order, each once."""
    return list(dict.fromkeys(_NAMED.findall(question)))


def build_context(contract: Contract, runtime: GatedRuntime, budget: int = DEFAULT_BUDGET) -> Context:
    """Search every readable subsystem with the question and the whole visible corpus for each record it names,
    then fetch the best hits within ``budget`` characters."""
    hits: dict[str, tuple[float, str]] = {}
    searches: list[dict[str, Any]] = []
    plan: list[tuple[str, str | None]] = [(contract.question, s) for s in contract.subsystems]
    plan += [(record, None) for record in named_records(contract.question)]
    plan += [(f"{day} {contract.question}", None) for day in dict.fromkeys(_DAY.findall(contract.question))]

    def run(queries: list[tuple[str, str | None]]) -> None:
        for query, subsystem in queries:
            result = runtime.search_artifacts(query, subsystem, PER_SUBSYSTEM)
            found = result.get("results", ())
            searches.append({"id": search_citation(subsystem), "subsystem": subsystem, "query": query,
                             "ids": [item["id"] for item in found]})
            for item in found:
                score = item["score"]
                if item["id"] not in hits or hits[item["id"]][0] < score:
                    hits[item["id"]] = (score, item["artifact_id"])

    run(plan)
    joined: list[tuple[str, str | None]] = []     # one join further: the records a found named record names
    for record in named_records(contract.question):
        ref = min((r for r, (_, artifact_id) in hits.items() if artifact_id == record), default=None)
        found = runtime.fetch_artifact(ref).get("artifact") if ref is not None else None
        if found is not None:
            named_there = named_records(f"{found['title']} {found['body']}")
            joined += [(other, None) for other in named_there[:JOINED]
                       if (other, None) not in plan and (other, None) not in joined]
    run(joined)
    named = set(tokenize(contract.question))
    order = sorted(hits.items(), key=lambda kv: (kv[1][1].lower() not in named, -kv[1][0], kv[0]))
    items: list[dict[str, Any]] = []
    used = 0

    def take(artifact: dict[str, Any]) -> bool:
        """Add ``artifact`` if it fits in what is left of the budget."""
        nonlocal used
        size = _block_size(artifact)
        if used + size > budget:
            return False
        items.append(artifact)
        used += size
        return True

    for ref, (_, artifact_id) in order:
        artifact = runtime.fetch_artifact(ref).get("artifact")
        if artifact is None:
            continue
        if not take(artifact):
            break
        if artifact_id.lower() not in named:   # earlier versions only of records the question names
            continue
        for older in range(artifact["version"] - 1, 0, -1):
            previous = runtime.fetch_artifact(f"{artifact_id}@{older}").get("artifact")
            if previous is None or not take(previous):
                break
    return Context(contract.question_id, tuple(items), budget, used, tuple(searches))


def check_citations(runtime: GatedRuntime, cited: Any) -> None:
    """Record one ``cite_artifact`` call per cited artifact id, with the gates it would break (context mode).

    Cited searches (``search:…``) are not artifacts: the scorer checks them against the builder's recorded searches.
    """
    if not isinstance(cited, list):
        return
    for ref in cited:
        if isinstance(ref, str) and ref.startswith(SEARCH_CITATION):
            continue
        before = len(runtime.calls)
        runtime.fetch_artifact(ref)
        if len(runtime.calls) > before:
            call = runtime.calls[-1]
            runtime.calls[-1] = type(call)(call.seq, "cite_artifact", call.args, call.returned_ids, call.outcome,
                                           call.gates, call.latency_ms)
