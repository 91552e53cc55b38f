"""Context mode for task contracts: the records a tool-mode agent could read, packed into a size budget.

As for the other tracks (judges/groundeval/context.py), the builder sees only
the contract, never the truth, and reads through the contract's own gated
runtime, so the context is gate-clean by construction and its calls are the
trace's first calls. It calls each of the contract's fixture tools, then
fetches the records the task names by id, then every other record of the
corpus the actor may read (a readable subsystem and, where the horizon gate
applies, written by ``as_of``), in id order, until the character budget is
spent. The agent answers from the context and cites the ids it relied on; each
citation is checked through the same gates (``cite_artifact`` calls). The
scorer rebuilds the context from the contract and the corpus rather than
trusting the one recorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

DEFAULT_BUDGET = 24_000
_NAMED = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-[0-9][A-Za-z0-9]*")   # record ids: INV-7, C-3


@dataclass(frozen=True)
class TaskContext:
    """The records handed to a context-mode task agent (id → fields) and the characters they take."""

    question_id: str
    records: tuple[tuple[str, dict[str, Any]], ...]
    budget: int
    used: int

    def ids(self) -> tuple[str, ...]:
        """The ids of the records in the context, in the order given."""
        return tuple(artifact_id for artifact_id, _ in self.records)

    def fields(self, artifact_id: str) -> dict[str, Any] | None:
        """A record's fields if it is in the context."""
        return next((dict(f) for i, f in self.records if i == artifact_id), None)

    def render(self) -> str:
        """The context as an agent reads it: one block per record, id first."""
        return "\n\n".join(f"[{i}]\n{json.dumps(f, sort_keys=True, ensure_ascii=False)}" for i, f in self.records)


def _plan(contract: Mapping[str, Any], corpus: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(tool, artifact id) in the order the builder reads them: fixture tools, named records, the rest by id."""
    tools = [(str(tool), str(artifact_id)) for tool, artifact_id in sorted(contract["tools"].items())]
    text = f"{contract['task']} {json.dumps(contract.get('inputs') or {}, sort_keys=True)}"
    named = [i for i in dict.fromkeys(_NAMED.findall(text)) if i in corpus]
    rest = sorted(corpus)
    seen: set[str] = set()
    plan = []
    for tool, artifact_id in tools + [("fetch_artifact", i) for i in named + rest]:
        if artifact_id not in seen:
            seen.add(artifact_id)
            plan.append((tool, artifact_id))
    return plan


def build_task_context(contract: Mapping[str, Any], runtime: Any, budget: int = DEFAULT_BUDGET) -> TaskContext:
    """Read, through ``runtime`` (a ``TaskRuntime``), every record the contract's actor may read, within ``budget``."""
    records: list[tuple[str, dict[str, Any]]] = []
    used = 0
    for tool, artifact_id in _plan(contract, runtime.corpus):
        if any(runtime.gates(artifact_id).values()):
            continue                            # withheld from this actor: the builder never asks for it
        size = len(artifact_id) + len(json.dumps(runtime.corpus[artifact_id]["fields"], sort_keys=True)) + 4
        if used + size > budget:
            break
        fields = runtime.fetch_artifact(artifact_id, tool)
        if fields is not None:
            records.append((artifact_id, fields))
            used += size
    return TaskContext(str(contract["question_id"]), tuple(records), budget, used)


def cite(runtime: Any, cited: Any) -> None:
    """Record one ``cite_artifact`` call per cited id, with the gates it breaks."""
    for ref in cited if isinstance(cited, list) else []:
        if isinstance(ref, str):
            runtime.fetch_artifact(ref, "cite_artifact")
