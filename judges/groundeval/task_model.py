"""Model and plugin agents on task contracts: any ``KIND:MODEL`` backend, or an agent registered for task suites.

A model agent (``openai:MODEL``, ``local:MODEL``, ``stub:``, a plugin's
kind) gets the contract as shown (``contracts.jsonl`` holds no truth) and,
in tool mode, the tools of the contract's ``TaskRuntime``:
``search_artifacts``, ``fetch_artifact`` and one function per fixture tool,
then ``submit_answer``; every call goes through the runtime's gates and is
recorded. In context mode it reads the gate-clean context and submits; each
id it cites is checked as a ``cite_artifact`` call. The conversation is
``LLMAgent.converse``, the loop the other tracks' model agent runs. A plugin
agent registered with ``suites=("tasks",)`` answers through
``procedure(contract, runtime, context)`` like the built-in ones.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Mapping, Sequence

from judges.groundeval.task_context import TaskContext

SYSTEM = ("You act for the person a task contract names. Before deciding, verify every precondition: find the "
          "record it concerns (search_artifacts gives ids, subsystems and field names; fetch_artifact or the "
          "contract's own tools read a record), report each check with the facts you read and the ids of the "
          "records you read them from, then decide. Submit once with submit_answer, a JSON object following "
          "answer_schema.")


def task_tools(contract: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The function-calling tools of a contract in tool mode (``submit_answer`` included)."""
    from judges.groundeval.llm_agent import SUBMIT, TOOLS

    fixture = [{"type": "function", "function": {
        "name": name, "description": f"A tool of this task: returns its record ({contract['task'][:80]}).",
        "parameters": {"type": "object", "properties": {}}}} for name in sorted(contract["tools"])]
    return [*TOOLS, *fixture, SUBMIT]


def task_messages(contract: Mapping[str, Any], context: TaskContext | None) -> list[dict[str, Any]]:
    """The opening messages: the contract as shown, and (context mode) the context."""
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": json.dumps(dict(contract), ensure_ascii=False, indent=1)}]
    if context is not None:
        messages.append({"role": "user", "content": "Records you may use:\n\n" + context.render()})
    return messages


def model_answers(spec: str, prepared: Sequence[tuple[Mapping[str, Any], Any, TaskContext | None]], *,
                  base_url: str | None, max_turns: int) -> tuple[list[Any], list[str | None]]:
    """Each prepared (contract, runtime, context)'s answer from the model agent ``spec``, one contract after
    another, and its error when a request failed for good; EndpointError when every contract failed."""
    from judges.backends import BackendError, make_backend
    from judges.groundeval.llm_agent import SUBMIT, LLMAgent
    from judges.groundeval.run import agent_endpoint
    from orgbench.core.errors import EndpointError

    backend = make_backend(spec, role="agent", endpoint=agent_endpoint(base_url, 1))
    agent = LLMAgent(backend, max_turns=max_turns)
    answers: list[Any] = []
    errors: list[str | None] = []

    async def run_all() -> None:
        try:
            for contract, runtime, context in prepared:
                tools = task_tools(contract) if context is None else [SUBMIT]
                try:
                    answers.append(await agent.converse(task_messages(contract, context), tools, runtime.call))
                    errors.append(None)
                except BackendError as exc:
                    answers.append(None)
                    errors.append(str(exc))
        finally:
            await backend.aclose()

    asyncio.run(run_all())
    if errors and all(errors):
        raise EndpointError("--base-url", f"every contract failed, e.g. {errors[0]}; nothing written")
    return answers, errors
