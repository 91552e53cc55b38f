"""A model agent's turns: the hash that names one, the response cache in front of the model, and their record.

``turn_hash(messages, tools, params)`` names *what the model reads* for one
turn: the conversation so far, the tools on offer and the generation
parameters (canonical JSON, SHA-256). With the backend's identity it is the
turn's key in the judges' ``ResponseCache`` (``judges.cache``), so the same
cache file serves judges and agents and its semantics are the judges': only
what changes an answer is in the key, errors are never cached.

``Recorder`` is the ``AgentBackend`` a run talks to: it answers from the cache
when it can, asks the model otherwise (storing the answer), and records every
turn of a question, which the run writes to ``turns.jsonl`` for
``replay:RUN`` (``judges.backends.replay_agent``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Sequence

from judges.backends.base import AgentBackend, AgentTurn, GenerationParams, JudgeResponse, Usage
from judges.cache import ResponseCache, cache_key
from orgbench.core.storage import dumps


def turn_hash(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
              params: GenerationParams) -> str:
    """SHA-256 of one turn's request: the messages, the tools on offer and the generation parameters."""
    request = {"messages": list(messages), "tools": list(tools), "params": params.to_json()}
    return hashlib.sha256(dumps(request).encode("utf-8")).hexdigest()


def turn_record(req_hash: str, turn: AgentTurn) -> dict[str, Any]:
    """One line of ``turns.jsonl`` (without its question and position): the request hash and the answer."""
    return {"request_hash": req_hash, "message": dict(turn.message), "usage": turn.usage.to_json(),
            "model": turn.model}


def turn_from_record(row: Mapping[str, Any]) -> AgentTurn:
    """The AgentTurn a ``turns.jsonl`` line (or a cache entry read as one) holds."""
    usage = row.get("usage") or {}
    return AgentTurn(dict(row["message"]), Usage(int(usage.get("prompt_tokens", 0)),
                                                 int(usage.get("completion_tokens", 0))), str(row.get("model") or ""))


def _as_response(turn: AgentTurn) -> JudgeResponse:
    return JudgeResponse(dumps(dict(turn.message)), turn.usage, turn.model)


def turn_from_response(response: JudgeResponse) -> AgentTurn:
    """The AgentTurn a cache entry holds (its text is the message as JSON)."""
    return AgentTurn(json.loads(response.text), response.usage, response.model)


class Recorder(AgentBackend):
    """An agent backend in front of another: answers from ``cache`` when it holds the turn, records every turn."""

    def __init__(self, backend: AgentBackend, cache: ResponseCache | None = None) -> None:
        self.backend = backend
        self.name = backend.name
        self.endpoint_option = backend.endpoint_option
        self.cache = cache if backend.cacheable else None
        self.from_cache = 0

    def identity(self) -> dict[str, Any]:
        """The wrapped backend's identity."""
        return self.backend.identity()

    def requests_sent(self) -> int:
        """HTTP requests the wrapped backend sent."""
        return self.backend.requests_sent()

    def recorded_agent(self, spec: str) -> str:
        """The wrapped backend's name for the run's answers."""
        return self.backend.recorded_agent(spec)

    async def aclose(self) -> None:
        """Close the wrapped backend."""
        await self.backend.aclose()

    async def turn(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                   params: GenerationParams, record: list[dict[str, Any]] | None = None) -> AgentTurn:
        """The turn from the cache or the model; appended to ``record`` as a ``turns.jsonl`` line."""
        req_hash = turn_hash(messages, tools, params)
        key = cache_key(self.backend.identity(), req_hash) if self.cache is not None else ""
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            self.from_cache += 1
            turn = turn_from_response(hit)
        else:
            turn = await self.backend.turn(messages, tools, params)
            if self.cache is not None:
                self.cache.put_many([(key, _as_response(turn))], {key: req_hash})
        if record is not None:
            record.append(turn_record(req_hash, turn))
        return turn
