"""A task contract's tools for a framework adapter: the ``TaskRuntime``'s search, fetch and own tools, and submit.

The same interface as ``ContractTools`` (``base.AgentTools``): the prompt is
the contract as ``run-agent``'s model agent sees it, the tools are
``search_artifacts``, ``fetch_artifact``, one per fixture tool of the contract
(no arguments; each returns its record) and ``submit_answer``, and every call
but the submit goes through the contract's ``TaskRuntime``, which records it
with its gates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from judges.groundeval.adapters.base import (
    DESCRIPTIONS, FETCH, GATED, SCHEMAS, SEARCH, SUBMIT, Submitted, call_args, parse_arguments,
)
from judges.groundeval.task_model import task_messages
from judges.groundeval.task_track import TaskRuntime

NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass
class TaskTools(Submitted):
    """One task contract's tools, framework-neutral, and the answer submitted through them."""

    contract: Mapping[str, Any]
    runtime: TaskRuntime

    @property
    def names(self) -> tuple[str, ...]:
        """search_artifacts, fetch_artifact, the contract's own tools, submit_answer."""
        return (SEARCH, FETCH, *sorted(self.contract["tools"]), SUBMIT)

    @property
    def gated(self) -> tuple[str, ...]:
        """The tools whose calls the runtime serves and records."""
        return (SEARCH, FETCH, *sorted(self.contract["tools"]))

    @property
    def prompt(self) -> str:
        """The user message: the contract as the agent may see it (the same as run-agent's)."""
        return str(task_messages(self.contract, None)[1]["content"])

    def schema(self, tool: str) -> dict[str, Any]:
        """The JSON schema of ``tool``'s arguments (a task's own tool takes none)."""
        return SCHEMAS.get(tool, NO_ARGUMENTS)

    def description(self, tool: str) -> str:
        """``tool``'s description."""
        return DESCRIPTIONS.get(tool) or f"A tool of this task: returns its record ({self.contract['task'][:80]})."

    def served(self) -> list[dict[str, Any]]:
        """The calls the runtime served, with their gate claims."""
        return [dict(call) for call in self.runtime.calls]

    def call(self, tool: str, raw: Any) -> dict[str, Any]:
        """Run one tool call with the arguments as the model sent them (a dict, or None if unreadable)."""
        if tool == SUBMIT:
            return self.submit(raw)
        return self.runtime.call(tool, call_args(tool, raw) if tool in GATED else raw)

    def handler(self, tool: str) -> Callable[[Any], str]:
        """``tool`` as a function of the raw argument text (or dict), returning the JSON text the agent reads."""
        return lambda raw: json.dumps(self.call(tool, parse_arguments(raw)), ensure_ascii=False)
