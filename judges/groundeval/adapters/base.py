"""The one small adapter interface: a contract's gated tools, the model config, and the trace the hooks saw.

A framework adapter (``openai_agents.py``, ``langgraph.py``) turns a
``ContractTools`` into that framework's native tools, calls the user's agent
factory ``build_agent(tools, model)`` with them and a ``ModelConfig``, runs
the agent on the contract's prompt, and reports every tool call its
framework's own hooks or callbacks saw as ``HookCall`` s. ``assemble_trace``
pairs those with what the gated runtime served (its ``CallRecord`` s carry
the gate claims the agent never sees) into orgbench's trace format; a served
call no hook saw is an error of the adapter, never silently dropped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from benchmark_builders.groundeval.contracts import Contract
from judges.groundeval.llm_agent import SYSTEM, contract_prompt, submit_tool
from judges.groundeval.runtime import GatedRuntime
from orgbench.core.errors import InputError

SEARCH, FETCH, SUBMIT = "search_artifacts", "fetch_artifact", "submit_answer"
GATED = (SEARCH, FETCH)

#: the JSON schema of each tool's arguments, as every framework is shown it (the same as run-agent's)
SCHEMAS: dict[str, dict[str, Any]] = {
    SEARCH: {"type": "object", "properties": {
        "query": {"type": "string"},
        "subsystem": {"type": ["string", "null"], "description": "restrict to one subsystem"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50}}, "required": ["query"]},
    FETCH: {"type": "object", "properties": {"artifact_id": {"type": "string"}}, "required": ["artifact_id"]},
    SUBMIT: {"type": "object", "properties": {"answer": {"type": "object"}}, "required": ["answer"]},
}
DESCRIPTIONS = {
    SEARCH: "Search the artifacts you may see (BM25 over title and body). Returns ids, titles and snippets.",
    FETCH: "Read one artifact by id (ID for its version at your moment, or ID@N).",
    SUBMIT: "Submit the final answer (a JSON object following the answer schema).",
}


@dataclass(frozen=True)
class ModelConfig:
    """The chat model the user's agent should use: an OpenAI-compatible endpoint and model name."""

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_turns: int = 50
    instructions: str = SYSTEM

    @property
    def api_key(self) -> str:
        """The key from ``api_key_env`` (a local server needs none: a placeholder then, never sent elsewhere)."""
        return os.environ.get(self.api_key_env) or "not-needed"


@dataclass(frozen=True)
class HookCall:
    """One tool call as a framework's hooks saw it: tool name, its arguments, the output the agent got."""

    tool: str
    args: Any
    output: Any = None


def call_args(tool: str, raw: Any) -> dict[str, Any]:
    """The arguments the runtime is called with for ``raw`` (defaults filled, nothing coerced)."""
    got = raw if isinstance(raw, dict) else {}
    if tool == SEARCH:
        return {"query": got.get("query"), "subsystem": got.get("subsystem"), "limit": got.get("limit", 10)}
    if tool == FETCH:
        return {"artifact_id": got.get("artifact_id")}
    return dict(got)


def parse_arguments(text: Any) -> Any:
    """A tool call's arguments from the JSON text a model sent (None when it is not JSON)."""
    if isinstance(text, dict):
        return text
    try:
        return json.loads(text) if isinstance(text, str) and text.strip() else {}
    except ValueError:
        return None


class AgentTools(Protocol):
    """What an adapter needs of a contract's tools: their names, schemas and handlers, and the prompt."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def prompt(self) -> str: ...

    def schema(self, tool: str) -> dict[str, Any]: ...

    def description(self, tool: str) -> str: ...

    def handler(self, tool: str) -> Callable[[Any], str]: ...


@dataclass
class Submitted:
    """The answer submitted through a contract's tools: the first one is read, later ones counted."""

    answer: Any = field(default=None, kw_only=True)
    submitted: bool = field(default=False, kw_only=True)
    extra_submissions: int = field(default=0, kw_only=True)

    def submit(self, raw: Any) -> dict[str, Any]:
        """Record the first submitted answer (a later submit is counted, never read)."""
        if self.submitted:
            self.extra_submissions += 1
            return {"status": "already_submitted"}
        self.submitted = True
        self.answer = raw.get("answer") if isinstance(raw, dict) and "answer" in raw else raw
        return {"status": "submitted"}


@dataclass
class ContractTools(Submitted):
    """One contract's gated search_artifacts / fetch_artifact and its submit_answer, framework-neutral."""

    contract: Contract
    runtime: GatedRuntime
    names: tuple[str, ...] = field(default=(SEARCH, FETCH, SUBMIT))

    @property
    def prompt(self) -> str:
        """The user message: the contract as the agent may see it (the same as run-agent's)."""
        return contract_prompt(self.contract)

    def schema(self, tool: str) -> dict[str, Any]:
        """The JSON schema of ``tool``'s arguments, as the framework shows it (``submit_answer``'s ``answer``: the
        track's answer JSON Schema, as run-agent offers it)."""
        if tool == SUBMIT:
            return dict(submit_tool(self.contract.track)["function"]["parameters"])
        return SCHEMAS[tool]

    def description(self, tool: str) -> str:
        """``tool``'s description, as the framework shows it."""
        return DESCRIPTIONS[tool]

    def served(self) -> list[dict[str, Any]]:
        """The calls the runtime served, with their gate claims."""
        return self.runtime.trace()

    def call(self, tool: str, raw: Any) -> dict[str, Any]:
        """Run one tool call with the arguments as the model sent them (a dict, or None if unreadable)."""
        if tool == SUBMIT:
            return self.submit(raw)
        args = call_args(tool, raw)
        if tool == SEARCH:
            return self.runtime.search_artifacts(args["query"], args["subsystem"], args["limit"])
        if tool == FETCH:
            return self.runtime.fetch_artifact(args["artifact_id"])
        raise InputError(f"unknown tool {tool!r}")

    def handler(self, tool: str) -> Callable[[Any], str]:
        """``tool`` as a function of the raw argument text (or dict), returning the JSON text the agent reads."""
        return lambda raw: json.dumps(self.call(tool, parse_arguments(raw)), ensure_ascii=False)


def assemble_trace(seen: list[HookCall], served: list[dict[str, Any]], where: str,
                   gated: tuple[str, ...] = GATED) -> list[dict[str, Any]]:
    """The trace in orgbench's format: every gated call the hooks saw, in their order, with the claims of the
    calls the runtime ``served``. Search and fetch calls pair by their arguments, a task's own tool by its name
    (the runtime records the record it returned)."""
    used = [False] * len(served)
    calls: list[dict[str, Any]] = []
    for hook in seen:
        if hook.tool not in gated:
            continue
        args = call_args(hook.tool, parse_arguments(hook.args))
        match = next((i for i, c in enumerate(served) if not used[i] and c["tool"] == hook.tool
                      and (c["args"] == args or hook.tool not in GATED)), None)
        if match is None:   # the framework refused the call before it reached the tools: traced, as invalid
            calls.append({"tool": hook.tool, "args": args, "returned_ids": [], "outcome": "invalid", "gates": None,
                          "latency_ms": None})
            continue
        used[match] = True
        calls.append(dict(served[match]))
    if not all(used):
        missing = served[used.index(False)]
        raise InputError(f"{where}: the runtime served a {missing['tool']} call that the framework's hooks did not "
                         f"report ({json.dumps(missing['args'])}); the trace would be incomplete")
    for seq, call in enumerate(calls, start=1):
        call["seq"] = seq
        if call["gates"] is None:
            del call["gates"]
    return calls
