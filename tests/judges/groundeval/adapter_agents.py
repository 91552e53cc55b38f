"""Agent factories in a user's style, for ``orgbench observe --agent tests.judges.groundeval.adapter_agents:NAME``."""

from __future__ import annotations

from typing import Any


def openai_agent(tools: list[Any], model: Any) -> Any:
    """An OpenAI Agents SDK agent with the given tools, on the configured endpoint."""
    from agents import Agent

    from judges.groundeval.adapters.openai_agents import chat_model

    return Agent(name="analyst", instructions=model.instructions, tools=tools, model=chat_model(model))


def langgraph_agent(tools: list[Any], model: Any) -> Any:
    """A LangGraph ReAct agent with the given tools, on the configured endpoint."""
    from langgraph.prebuilt import create_react_agent

    from judges.groundeval.adapters.langgraph import chat_model

    return create_react_agent(chat_model(model), tools)


def broken(tools: list[Any], model: Any) -> Any:
    """A factory that raises, as a user's might."""
    raise RuntimeError("no model configured for this environment")
