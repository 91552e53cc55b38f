"""``mycorp:MODEL``: a backend from outside orgbench, registered under the ``orgbench.backends`` entry points.

As a judge it reads only the request: it fails a candidate whose text
contains a word of its model name's list (``mycorp:strict`` fails every
candidate, any other model passes every one), answering verdict JSON like an
LLM. As an agent it searches once with the question, fetches the first hit
and submits an answer citing it, through the tools the run offers.
"""

from __future__ import annotations

import json

from judges.backends.base import AgentBackend, AgentTurn, JudgeBackend, JudgeResponse, Usage


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
    """The entry point orgbench's registry calls with a ``BackendSpec``."""
    return MycorpBackend(wanted.model("mycorp:MODEL"))
