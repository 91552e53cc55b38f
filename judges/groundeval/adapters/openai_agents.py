"""The OpenAI Agents SDK adapter (extra ``openai-agents``): the contract's tools as ``FunctionTool`` s, calls seen by ``RunHooks``.

The user's factory ``build_agent(tools, model)`` returns an ``agents.Agent``
that uses ``tools`` (a list of ``FunctionTool``; it may add its own) and a
model for ``model`` (``chat_model(model)`` builds one on the configured
OpenAI-compatible endpoint). The run's own trace export to OpenAI is
switched off (``set_tracing_disabled``): orgbench records every tool call
through ``RunHooks.on_tool_start`` / ``on_tool_end``.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Callable

from judges.groundeval.adapters.base import AgentTools, HookCall, ModelConfig
from orgbench.core.errors import InputError

try:
    import agents
except ImportError as exc:   # the extra is not installed
    raise InputError("--framework openai-agents: the OpenAI Agents SDK is not installed "
                     "(pip install 'orgbench[openai-agents]')") from exc

name = "openai-agents"


_LOOP: list[asyncio.AbstractEventLoop] = []     # one event loop for a whole observe run: clients outlive a contract


def _loop() -> asyncio.AbstractEventLoop:
    if not _LOOP:
        _LOOP.append(asyncio.new_event_loop())
    return _LOOP[0]


@functools.lru_cache(maxsize=8)
def chat_model(model: ModelConfig) -> Any:
    """A chat-completions model object on the configured endpoint (one per config: its HTTP client is reused)."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=model.base_url, api_key=model.api_key, max_retries=0)
    return agents.OpenAIChatCompletionsModel(model=model.model, openai_client=client)


def native_tools(tools: AgentTools) -> list[Any]:
    """The contract's tools (search_artifacts, fetch_artifact, a task's own tools, submit_answer) as
    ``FunctionTool`` s (arguments reach the runtime as sent)."""

    def invoker(tool: str) -> Callable[..., Any]:
        handle = tools.handler(tool)

        async def on_invoke(_context: Any, arguments: str) -> str:
            return handle(arguments)
        return on_invoke

    return [agents.FunctionTool(name=tool, description=tools.description(tool), params_json_schema=tools.schema(tool),
                                on_invoke_tool=invoker(tool), strict_json_schema=False)
            for tool in tools.names]


class _Recorder(agents.RunHooks):
    """Every local tool call the run makes, in the order the SDK starts them."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        row = {"tool": tool.name, "args": getattr(context, "tool_arguments", None), "output": None}
        self.calls.append(row)
        self._open[getattr(context, "tool_call_id", str(len(self.calls)))] = row

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        row = self._open.pop(getattr(context, "tool_call_id", ""), None)
        if row is not None:
            row["output"] = result


def answer(factory: Callable[..., Any], tools: AgentTools, model: ModelConfig) -> tuple[Any, list[HookCall]]:
    """Run the user's agent on the contract; its final output and the calls the hooks saw."""
    agents.set_tracing_disabled(True)
    agent = factory(native_tools(tools), model)
    if not isinstance(agent, agents.Agent):
        raise InputError(f"--agent: the factory returned {type(agent).__name__}, not an agents.Agent")
    recorder = _Recorder()
    try:
        result = _loop().run_until_complete(agents.Runner.run(agent, tools.prompt, hooks=recorder,
                                                             max_turns=model.max_turns))
        final = result.final_output
    except agents.MaxTurnsExceeded:
        final = "no answer submitted within the turn limit"
    return final, [HookCall(c["tool"], c["args"], c["output"]) for c in recorder.calls]
