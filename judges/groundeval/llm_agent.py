"""The model agent: an LLM with function calling over the gated runtime (or a context window).

It talks through any ``AgentBackend`` the backend registry makes
(``openai:MODEL``, ``local:MODEL``, ``replay:RUN``, ``stub:``, a plugin's
``KIND:MODEL``): the judges' client stack, with its retries and pacing, behind
a ``Recorder`` that answers from the response cache when given one and
records every turn (``judges.groundeval.turns``). In tool mode it is offered
``search_artifacts``, ``fetch_artifact`` and ``submit_answer``; every tool
call is executed on the contract's ``GatedRuntime`` (and so recorded). In
context mode it reads the pre-filtered context and submits its answer.
``submit_answer``'s ``answer`` parameter is the track's answer JSON Schema
(``Track.model_answer_schema``): the model's structured output, so a server
that constrains tool arguments to their schema (llama.cpp's does) holds the
answer to it. The model sees the contract only — never the truth.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from benchmark_builders.groundeval.contracts import Contract
from benchmark_builders.groundeval.tracks import track
from judges.backends import FatalBackendError
from judges.backends.base import AgentBackend, GenerationParams, Usage
from judges.cache import ResponseCache
from judges.groundeval.context import Context
from judges.groundeval.runtime import GatedRuntime
from judges.groundeval.turns import Recorder
from orgbench.core.errors import EndpointError

SYSTEM = (
    "You answer questions about an organisation as one of its people, at one moment in time. "
    "Use only evidence that person could see at that moment. Cite the ids of the artifacts you relied on. "
    "Submit your answer with submit_answer, as a JSON object following the answer schema."
)

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "search_artifacts",
        "description": "Search the artifacts you may see (BM25 over title and body). Returns ids, titles and snippets.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string", "description": "search terms"},
            "subsystem": {"type": ["string", "null"], "description": "restrict to one subsystem"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "how many results"}},
            "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "fetch_artifact",
        "description": "Read one artifact by id (ID for its version at your moment, or ID@N).",
        "parameters": {"type": "object", "properties": {"artifact_id": {
            "type": "string", "description": "ID (its version at your moment) or ID@N"}},
                       "required": ["artifact_id"]}}},
]
#: The answer of a conversation that used every turn without submitting.
TURN_LIMIT_ANSWER = "no answer submitted within the turn limit"
#: ``submit_answer`` with an open answer object (a task contract's, whose answer schema is not a track's).
SUBMIT: dict[str, Any] = {"type": "function", "function": {
    "name": "submit_answer",
    "description": "Submit the final answer (a JSON object following the answer schema).",
    "parameters": {"type": "object", "properties": {"answer": {
        "type": "object", "description": "the answer, following the answer schema"}}, "required": ["answer"]}}}


def submit_tool(track_name: str) -> dict[str, Any]:
    """``submit_answer`` for a question of ``track_name``: its ``answer`` parameter is the track's answer JSON
    Schema as models are sent it (``Track.model_answer_schema``), the model's structured output (a server that
    constrains tool arguments holds the answer to it)."""
    answer = {**track(track_name).model_answer_schema, "description": "the answer, following the answer schema"}
    return {"type": "function", "function": {**SUBMIT["function"], "parameters": {
        "type": "object", "properties": {"answer": answer}, "required": ["answer"]}}}


def contract_prompt(contract: Contract) -> str:
    """The user message: the contract as the agent may see it."""
    shown = contract.to_json()
    return json.dumps({k: shown[k] for k in ("question_id", "track", "question", "actor", "role", "subsystems",
                                             "as_of", "answer_schema", "options")}, ensure_ascii=False, indent=1)


class LLMAgent:
    """A function-calling agent over one AgentBackend (its turns cached in ``cache`` when given)."""

    def __init__(self, backend: AgentBackend, max_turns: int = 12, cache: ResponseCache | None = None) -> None:
        self.backend = Recorder(backend, cache)
        self.max_turns = max_turns
        self.params = GenerationParams(temperature=0.0)
        self.turns = 0
        self.spent = Usage()        # tokens of every answered turn (cached ones included)

    def usage(self) -> dict[str, int]:
        """What the run spent so far: answered turns (from the cache too), HTTP requests (retries included), tokens."""
        sent = self.backend.requests_sent()
        asked = self.turns - self.backend.from_cache
        return {"turns": self.turns, "from_cache": self.backend.from_cache, "requests": sent,
                "retries": max(0, sent - asked),
                **self.spent.to_json()}

    async def answer(self, contract: Contract, runtime: GatedRuntime | None, context: Context | None,
                     record: list[dict[str, Any]] | None = None) -> Any:
        """Run the conversation until the model submits; the answer object (or the raw text it gave).

        Every turn is appended to ``record`` (when given) as a ``turns.jsonl`` line.

        A request that failed for good raises ``BackendError``; an endpoint that cannot serve any request
        (``FatalBackendError``) is an ``EndpointError`` naming the backend's endpoint option.
        """
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM},
                                          {"role": "user", "content": contract_prompt(contract)}]
        if context is not None:
            messages.append({"role": "user", "content": "Evidence you may use (first the searches that gathered it; "
                             "cite a search by its [search:…] id to show where you looked):\n\n" + context.render()})

        def call(name: Any, args: Any) -> dict[str, Any]:
            if runtime is not None and name in ("search_artifacts", "fetch_artifact"):
                return runtime.call(name, args)       # traced whatever the arguments: invalid ones as invalid
            return {"error": "invalid_call", "message": f"unknown tool or bad arguments for {name!r}"}

        submit = submit_tool(contract.track)
        return await self.converse(messages, [*TOOLS, submit] if runtime is not None else [submit], call, record)

    async def converse(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                       run_tool: Callable[[Any, Any], dict[str, Any]],
                       record: list[dict[str, Any]] | None = None) -> Any:
        """The tool loop: each tool call but ``submit_answer`` goes to ``run_tool(name, arguments)``; returns the
        submitted answer (or the text the model ended with)."""
        for _ in range(self.max_turns):
            try:
                turn = await self.backend.turn(messages, tools, self.params, record)
            except FatalBackendError as exc:
                raise EndpointError(self.backend.endpoint_option, str(exc)) from None
            self.turns += 1
            self.spent += turn.usage
            message = dict(turn.message)
            calls = message.get("tool_calls") or []
            messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": calls} if calls
                            else {"role": "assistant", "content": message.get("content") or ""})
            if not calls:
                return message.get("content") or ""
            for call in calls:
                function = call.get("function") or {}
                name = function.get("name")
                try:
                    args = json.loads(function.get("arguments") or "{}")
                except json.JSONDecodeError:
                    args = None
                if name == "submit_answer":
                    return args.get("answer") if isinstance(args, dict) and "answer" in args else args
                result = run_tool(name, args)
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""),
                                 "content": json.dumps(result, ensure_ascii=False)})
        return TURN_LIMIT_ANSWER
