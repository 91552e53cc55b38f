"""Context mode: the same gated evidence a tool-mode agent could reach, packed into a size budget.

The builder sees only the contract (never the truth). Through a
``GatedRuntime`` for the contract's actor and ``as_of`` it searches each
subsystem the actor could read with the question text, ranks the hits (the
records the question names first), and fetches them — with the earlier,
visible versions of named records — until the character budget is spent. Its calls are recorded like any agent's, so the context is
provably gate-clean. The agent must cite the ids it relied on; the runner then
checks every cited id through the same gates (``cite_artifact`` calls).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmark_builders.groundeval.contracts import Contract
from judges.groundeval.runtime import GatedRuntime, tokenize

DEFAULT_BUDGET = 24_000
PER_SUBSYSTEM = 8


@dataclass(frozen=True)
class Context:
    """The evidence handed to a context-mode agent, and the text it reads."""

    question_id: str
    items: tuple[dict[str, Any], ...]
    budget: int
    used: int

    def ids(self) -> tuple[str, ...]:
        """The ids of the artifact versions in the context."""
        return tuple(item["id"] for item in self.items)

    def render(self) -> str:
        """The context as the agent reads it: one block per artifact version, id first."""
        blocks = [f"[{i['id']}] {i['subsystem']} / {i['kind']} / {i['created_at']}\n{i['title']}\n{i['body']}"
                  for i in self.items]
        return "\n\n".join(blocks)


def _block_size(artifact: dict[str, Any]) -> int:
    return len(artifact["id"]) + len(artifact["subsystem"]) + len(artifact["kind"]) + len(artifact["title"]) \
        + len(artifact["body"]) + 40


def build_context(contract: Contract, runtime: GatedRuntime, budget: int = DEFAULT_BUDGET) -> Context:
    """Search every readable subsystem with the question, then fetch the best hits within ``budget`` characters."""
    hits: dict[str, tuple[float, str]] = {}
    for subsystem in contract.subsystems:
        result = runtime.search_artifacts(contract.question, subsystem, PER_SUBSYSTEM)
        for item in result.get("results", ()):
            score = item["score"]
            if item["id"] not in hits or hits[item["id"]][0] < score:
                hits[item["id"]] = (score, item["artifact_id"])
    named = set(tokenize(contract.question))
    order = sorted(hits.items(), key=lambda kv: (kv[1][1].lower() not in named, -kv[1][0], kv[0]))
    items: list[dict[str, Any]] = []
    used = 0
    for ref, (_, artifact_id) in order:
        fetched = runtime.fetch_artifact(ref)
        artifact = fetched.get("artifact")
        if artifact is None:
            continue
        size = _block_size(artifact)
        if used + size > budget:
            break
        items.append(artifact)
        used += size
        if artifact_id.lower() not in named:   # earlier versions only of records the question names
            continue
        for older in range(artifact["version"] - 1, 0, -1):
            earlier = runtime.fetch_artifact(f"{artifact_id}@{older}")
            previous = earlier.get("artifact")
            if previous is None:
                break
            size = _block_size(previous)
            if used + size > budget:
                break
            items.append(previous)
            used += size
    return Context(contract.question_id, tuple(items), budget, used)


def check_citations(runtime: GatedRuntime, cited: Any) -> None:
    """Record one ``cite_artifact`` call per cited id, with the gates it would break (context mode)."""
    if not isinstance(cited, list):
        return
    for ref in cited:
        before = len(runtime.calls)
        runtime.fetch_artifact(ref)
        if len(runtime.calls) > before:
            call = runtime.calls[-1]
            runtime.calls[-1] = type(call)(call.seq, "cite_artifact", call.args, call.returned_ids, call.outcome,
                                           call.gates, call.latency_ms)
