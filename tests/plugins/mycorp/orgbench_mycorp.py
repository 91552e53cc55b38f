"""A package from outside orgbench that adds one thing of each kind through orgbench's entry-point groups.

- ``orgbench.backends``: ``mycorp:MODEL``, a judge and an agent (``BACKEND``), and
  ``mycorp-judge:MODEL``, the same registered as a judge only (``JUDGE_ONLY``);
- ``orgbench.agents``: ``mycorp-first-hit``, a procedural GroundEval agent (``AGENT``);
- ``orgbench.export_formats``: ``mycorp-people``, a world as one CSV of its people (``PEOPLE``).

As a judge it reads only the request: it fails a candidate whose text
contains a word of its model name's list (``mycorp:strict`` fails every
candidate, any other model passes every one), answering verdict JSON like an
LLM. As an agent it searches once with the question, fetches the first hit
and submits an answer citing it, through the tools the run offers.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from benchmark_builders.export.formats import ExportFormat
from judges.backends.base import AgentBackend, AgentTurn, JudgeBackend, JudgeResponse, Usage
from judges.backends.registry import Backend
from judges.groundeval.agent_registry import Agent


class MycorpBackend(JudgeBackend, AgentBackend):
    """Judge and agent in one class, as a real vendor's client would be."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.name = f"mycorp:{model}"
        self.sent = 0

    def identity(self) -> dict:
        return {"kind": "mycorp", "model": self.model}

    def requests_sent(self) -> int:
        return self.sent

    async def complete(self, request) -> JudgeResponse:
        self.sent += 1
        verdict = "fail" if self.model == "strict" else "pass"
        text = json.dumps({"dimensions": {}, "claims": [], "verdict": verdict})
        return JudgeResponse(text, Usage(len(request.messages[-1].text()) // 4, 12), self.name)

    async def turn(self, messages, tools, params) -> AgentTurn:
        self.sent += 1
        offered = {tool["function"]["name"] for tool in tools}
        results = [m for m in messages if m.get("role") == "tool"]
        question = json.loads(messages[1]["content"])["question"]
        if "search_artifacts" in offered and not results:
            return self._call("search_artifacts", {"query": question, "limit": 3})
        cited: list[str] = []
        if results:
            found = json.loads(results[-1]["content"])
            hits = found.get("results") or []
            if hits and len(results) == 1 and "fetch_artifact" in offered:
                return self._call("fetch_artifact", {"artifact_id": hits[0]["id"]})
            if "artifact" in found and found["artifact"]:
                cited = [found["artifact"]["id"]]
        return self._call("submit_answer", {"answer": {"exists": bool(cited), "evidence_artifacts": cited,
                                                       "reasoning": "mycorp read what the tools returned"}})

    def _call(self, name: str, arguments: dict) -> AgentTurn:
        call = {"id": f"call-{self.sent}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}
        return AgentTurn({"role": "assistant", "content": None, "tool_calls": [call]}, Usage(10, 5), self.name)


def make(wanted) -> MycorpBackend:
    """The factory orgbench's registry calls with a ``BackendSpec``."""
    return MycorpBackend(wanted.model("mycorp:MODEL"))


#: A judge and an agent, in every study that takes one (CARGO, the assurance contrast, GroundEval).
BACKEND = Backend(kind="mycorp", roles=("judge", "agent"), make=make, usage="mycorp:MODEL",
                  summary="mycorp's judge and agent (a test plugin)")

#: The same class registered as a judge only: refused wherever an agent is needed.
JUDGE_ONLY = Backend(kind="mycorp-judge", roles=("judge",), make=make, usage="mycorp-judge:MODEL",
                     summary="mycorp's judge alone (a test plugin)")


def first_hit(suite: Path, world) -> object:
    """``mycorp-first-hit``: in tool mode search the question and cite the first hit; in context mode cite nothing."""
    def answer(contract, runtime, context) -> dict:
        cited: list[str] = []
        if runtime is not None:
            hits = runtime.search_artifacts(contract.question, None, 3).get("results") or []
            if hits:
                cited = [hits[0]["id"]]
        return {"exists": bool(cited), "evidence_artifacts": cited, "reasoning": "mycorp cited the first hit"}

    return answer


AGENT = Agent(name="mycorp-first-hit", make=first_hit, builtin=True, summary="cites the first search hit")


def write_people(index, out: Path) -> dict[str, int]:
    """``people.csv``: one row per person of the world (id, name, team, role), in id order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["actor_id", "name", "team", "role"])
    for actor_id in sorted(index.people):
        person = index.people[actor_id]
        writer.writerow([actor_id, person.name, person.team, person.role])
    (Path(out) / "people.csv").write_text(buffer.getvalue(), encoding="utf-8")
    return {"people": len(index.people)}


PEOPLE = ExportFormat("mycorp-people", ("world",), write_people, "a world's people as one CSV (a test plugin)")
