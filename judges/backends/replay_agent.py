"""The ``replay:RUN_OR_CACHE`` agent: answers every turn with the one recorded for its request hash.

``RUN_OR_CACHE`` is a model agent's run directory (its ``turns.jsonl``, and
``run.json`` for the agent's name), a ``turns.jsonl`` itself, or a response
cache file that ``run-agent --cache`` wrote. The same suite, mode, budget and
turn limit then ask exactly the recorded requests, so the rerun writes the
recorded answers and traces again, byte for byte, calling no model. Replayed
from a run directory the answers carry the recorded agent's name; from a
cache they carry the replay's spec (a cache does not say which agent asked).
A request that was never recorded (another suite, mode or budget) stops the
run with one line naming the recording and the hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from judges.backends.base import AgentBackend, AgentTurn, GenerationParams
from judges.backends.registry import Backend
from judges.cache import ResponseCache
from judges.groundeval.turns import turn_from_record, turn_from_response, turn_hash
from orgbench.core.errors import FormatError, InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import read_json

TURNS = "turns.jsonl"


def _from_turns(path: Path) -> dict[str, list[AgentTurn]]:
    recorded: dict[str, list[AgentTurn]] = {}
    for number, row in read_jsonl(path).numbered():
        if not isinstance(row, dict) or not isinstance(row.get("request_hash"), str) \
                or not isinstance(row.get("message"), dict):
            raise FormatError(path, "not a recorded turn (request_hash, message)", line=number)
        recorded.setdefault(row["request_hash"], []).append(turn_from_record(row))
    return recorded


def _from_cache(path: Path) -> dict[str, list[AgentTurn]]:
    with ResponseCache(path) as cache:
        stored = cache.by_request_hash()
    return {req_hash: [turn_from_response(r) for r in found] for req_hash, found in stored.items()}


def load_turns(path: Path) -> tuple[dict[str, list[AgentTurn]], str | None]:
    """The recorded turns by request hash, and the recorded agent's name (None for a cache)."""
    path = Path(path)
    if path.is_dir():
        if not (path / TURNS).is_file():
            raise InputError(f"{path}: no {TURNS} (replay:RUN needs a model agent's run directory)")
        return _from_turns(path / TURNS), str(read_json(path / "run.json").get("agent") or "") or None
    if not path.is_file():
        raise InputError(f"{path}: file not found (replay: needs a run directory, a {TURNS} or a cache file)")
    return (_from_turns(path) if path.suffix == ".jsonl" else _from_cache(path)), None


class ReplayAgent(AgentBackend):
    """An AgentBackend that answers each turn with its recording, never calling a model."""

    cacheable = False

    def __init__(self, path: Path, spec: str) -> None:
        self.path = Path(path)
        self.spec = spec
        self.name = "replay"
        self.recorded, self.agent = load_turns(self.path)

    def identity(self) -> dict[str, Any]:
        """Replays are named by the recording they come from."""
        return {"kind": "replay", "path": str(self.path.resolve())}

    def recorded_agent(self, spec: str) -> str:
        """The recorded run's agent (a cache's replay keeps its own spec)."""
        return self.agent or spec

    async def turn(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                   params: GenerationParams) -> AgentTurn:
        """The recorded turn for this request."""
        req_hash = turn_hash(messages, tools, params)
        found = self.recorded.get(req_hash)
        if not found:
            raise InputError(f"{self.spec}: {self.path} has no recorded turn for request {req_hash} (replay with the "
                             "recorded run's suite, mode, budget and turn limit)")
        if any(turn != found[0] for turn in found[1:]):
            raise InputError(f"{self.spec}: {self.path} holds {len(found)} different answers to request {req_hash} "
                             "(several agents shared the cache); replay a run directory instead")
        return found[0]


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="replay", roles=("agent",), studies=("groundeval",), usage="replay:RUN",
                  summary="a GroundEval run's recorded turns, answered again as the recorded agent")


def make(wanted: Any) -> ReplayAgent:
    """The registry's factory for the agent ``replay:RUN_OR_CACHE``."""
    if not wanted.arg:
        raise InputError(f"{wanted.where}: give the recording as replay:RUN_DIR or replay:CACHE_FILE")
    return ReplayAgent(Path(wanted.arg), wanted.spec)
