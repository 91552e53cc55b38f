"""The LangGraph adapter (extra ``langgraph``): the contract's tools as LangChain ``StructuredTool`` s, calls seen by a callback handler.

The user's factory ``build_agent(tools, model)`` returns a compiled graph
(e.g. ``langgraph.prebuilt.create_react_agent(chat_model(model), tools)``)
whose state has ``messages``. The graph is invoked with the contract prompt
as its one user message and orgbench's callback handler in its config:
every tool call is recorded from ``on_tool_start`` / ``on_tool_end``.
Nothing is sent to LangSmith unless the user's environment turns its
tracing on (``LANGSMITH_TRACING``); orgbench never does.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from judges.groundeval.adapters.base import AgentTools, HookCall, ModelConfig
from orgbench.core.errors import InputError

try:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.tools import StructuredTool
    from langgraph.errors import GraphRecursionError
except ImportError as exc:   # the extra is not installed
    raise InputError("--framework langgraph: LangGraph is not installed (pip install 'orgbench[langgraph]')") from exc

name = "langgraph"


def chat_model(model: ModelConfig) -> Any:
    """A ``ChatOpenAI`` on the configured OpenAI-compatible endpoint (needs langchain-openai, in the extra)."""
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(model=model.model, base_url=model.base_url, api_key=SecretStr(model.api_key),
                      temperature=model.temperature, max_retries=0)


def native_tools(tools: AgentTools) -> list[Any]:
    """The contract's tools (search_artifacts, fetch_artifact, a task's own tools, submit_answer) as
    ``StructuredTool`` s (a JSON schema: nothing coerced)."""

    def function(tool: str) -> Callable[..., str]:
        handle = tools.handler(tool)
        return lambda **arguments: handle(arguments)

    return [StructuredTool(name=tool, description=tools.description(tool), args_schema=tools.schema(tool), func=function(tool))
            for tool in tools.names]


class _Recorder(BaseCallbackHandler):
    """Every tool call the graph runs, in the order LangChain starts them."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._open: dict[Any, dict[str, Any]] = {}
        self._lock = threading.Lock()      # ToolNode may run a turn's calls in threads

    def on_tool_start(self, serialized: dict[str, Any] | None, input_str: str, *, run_id: Any,
                      inputs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        tool = (serialized or {}).get("name") or kwargs.get("name")
        with self._lock:
            row = {"tool": tool, "args": inputs if inputs is not None else input_str, "output": None}
            self.calls.append(row)
            self._open[run_id] = row

    def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            row = self._open.pop(run_id, None)
        if row is not None:
            row["output"] = getattr(output, "content", output)


def answer(factory: Callable[..., Any], tools: AgentTools, model: ModelConfig) -> tuple[Any, list[HookCall]]:
    """Run the user's graph on the contract; its last message and the calls the callbacks saw."""
    graph = factory(native_tools(tools), model)
    if not callable(getattr(graph, "invoke", None)):
        raise InputError(f"--agent: the factory returned {type(graph).__name__}, not a graph with invoke()")
    recorder = _Recorder()
    config = {"callbacks": [recorder], "recursion_limit": 2 * model.max_turns + 1}
    try:
        state = graph.invoke({"messages": [("system", model.instructions), ("user", tools.prompt)]}, config=config)
        messages = state.get("messages") if isinstance(state, dict) else None
        final = getattr(messages[-1], "content", "") if messages else ""
    except GraphRecursionError:
        final = "no answer submitted within the turn limit"
    return final, [HookCall(c["tool"], c["args"], c["output"]) for c in recorder.calls]
