"""The ``stub`` / ``stub:LOG.jsonl`` agent: a fixed, model-free policy for tests and dry runs of the model loop.

It stands where a model would, through the same loop, journal and recorder
as ``openai:``: in tool mode it searches once for the question's text, then
submits the ids the search returned as its evidence; in context mode it
submits at once, citing nothing. With a log it appends, for every turn, the
request's hash (``judges.groundeval.turns.turn_hash``), how many messages it
read and the tools it was offered, so a test knows exactly what reached it.
It calls no model and costs nothing, so nothing of it is cached.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from judges.backends.base import AgentBackend, AgentTurn, GenerationParams
from judges.backends.registry import Backend
from judges.groundeval.turns import turn_hash
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps


def _call(number: int, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"stub-{number}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(dict(arguments), ensure_ascii=False)}}]}


def _found_ids(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    found: list[str] = []
    for message in messages:
        if message.get("role") == "tool":
            result = json.loads(message.get("content") or "{}")
            found.extend(str(hit["id"]) for hit in result.get("results") or [] if isinstance(hit, dict))
    return found


class StubAgent(AgentBackend):
    """One search for the question, then submit what it found (see the module docstring)."""

    name = "stub"
    cacheable = False

    def __init__(self, log_path: Path | None = None) -> None:
        self.log_path = log_path

    async def turn(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                   params: GenerationParams) -> AgentTurn:
        """Search first when searching is on offer, else submit the ids found so far."""
        offered = [tool["function"]["name"] for tool in tools]
        if self.log_path is not None:
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write(dumps({"sha256": turn_hash(messages, tools, params), "messages": len(messages),
                                    "tools": offered}) + "\n")
        asked = sum(1 for m in messages if m.get("role") == "assistant")
        if "search_artifacts" in offered and asked == 0:
            question = json.loads(messages[1]["content"]).get("question", "")
            return AgentTurn(_call(asked, "search_artifacts", {"query": question}), model="stub")
        return AgentTurn(_call(asked, "submit_answer", {"answer": {"evidence_artifacts": _found_ids(messages)}}),
                         model="stub")


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="stub", roles=("agent",), builtin=True, studies=("groundeval",), usage="stub",
                  summary="a scripted agent for tests: calls the tools, answers from what they returned")


def make(wanted: Any) -> StubAgent:
    """The registry's factory for the agent ``stub`` / ``stub:LOG.jsonl``."""
    if not wanted.arg:
        return StubAgent()
    log = Path(wanted.arg)
    if log.is_dir() or not log.parent.is_dir():
        raise InputError(f"{wanted.where}: {log} cannot be a log file (a directory, or not in one)")
    return StubAgent(log)
