"""Backend ``toys:MODEL``: a judge that fails a candidate repeating another section of its request verbatim.

It reads only the request, as an LLM judge would: when two ``## `` sections
have the same text of 40 or more characters (the reference given back as the
answer, family P5) it fails; anything else passes.
"""

from __future__ import annotations

import json

from judges.backends.base import JudgeBackend, JudgeResponse, Usage
from judges.backends.registry import Backend


class ToysJudge(JudgeBackend):
    """The repeated-section judge."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.name = f"toys:{model}"
        self.sent = 0

    def identity(self) -> dict:
        return {"kind": "toys", "model": self.model}

    def requests_sent(self) -> int:
        return self.sent

    async def complete(self, request) -> JudgeResponse:
        self.sent += 1
        text = "\n".join(m.text() for m in request.messages)
        bodies = [s.partition("\n")[2].strip() for s in text.split("\n## ")[1:]]
        bodies = [b for b in bodies if len(b) >= 40]
        verdict = "fail" if len(bodies) != len(set(bodies)) else "pass"
        answer = json.dumps({"dimensions": {}, "claims": [], "verdict": verdict})
        return JudgeResponse(answer, Usage(len(text) // 4, 12), self.name)


def make(wanted) -> ToysJudge:
    """The factory orgbench's registry calls with a ``BackendSpec``."""
    return ToysJudge(wanted.model("toys:MODEL"))


BACKEND = Backend(kind="toys", roles=("judge",), make=make, usage="toys:MODEL",
                  summary="fails a candidate that repeats its reference (a toy plugin)")
