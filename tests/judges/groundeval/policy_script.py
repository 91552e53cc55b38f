"""Script the in-repo chat server to play a built-in policy: exactly the tool calls ``run-agent`` recorded for it.

``PolicyScript(run_dir)`` reads a ``run-agent`` run (answers and traces) and,
as the chat server's answer function, replies to each request with the next
call of that question's trace (one call per turn, counted from the tool
results already in the conversation), then ``submit_answer`` with the
policy's answer, then a closing text. Each call it asks for is kept in
``issued`` as ``(question_id, tool, args)``.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any


def _question_id(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and content.lstrip().startswith("{"):
            return json.loads(content)["question_id"]
    raise AssertionError("no contract prompt in the conversation")


class PolicyScript:
    """The answer function of a ChatServer replaying one run-agent run."""

    def __init__(self, run: Path) -> None:
        self.calls = {row["question_id"]: row["calls"] for row in map(json.loads, (run / "traces.jsonl").open())}
        self.answers = {row["question_id"]: row["answer"] for row in map(json.loads, (run / "answers.jsonl").open())}
        self.issued: list[tuple[str, str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        qid = _question_id(messages)
        done = sum(1 for m in messages if m.get("role") == "tool")
        calls = self.calls[qid]
        if done < len(calls):
            tool, args = calls[done]["tool"], calls[done]["args"]
        elif done == len(calls):
            tool, args = "submit_answer", {"answer": self.answers[qid]}
        else:
            return {"role": "assistant", "content": "Submitted."}
        with self._lock:
            self.issued.append((qid, tool, args))
        call = {"id": f"call-{qid}-{done}", "type": "function",
                "function": {"name": tool, "arguments": json.dumps(args)}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
