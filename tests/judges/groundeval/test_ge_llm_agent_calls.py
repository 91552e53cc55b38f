"""The openai: agent loop traces every gated call it makes, ill-formed ones included, as the MCP server does.

A real OpenAI-compatible server on 127.0.0.1 (tests/judges/chat_server.py) asks for a fetch whose
arguments are not JSON, a search whose ``limit`` is the string "5", then a valid fetch, then submits.
"""

import json

from judges.groundeval.run import run_agent
from tests.judges.chat_server import ChatServer


def _tool_call(number: int, name: str, arguments: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call-{number}", "type": "function", "function": {"name": name, "arguments": arguments}}]}


def _script(body: dict) -> dict:
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    steps = [("fetch_artifact", "{not json"), ("search_artifacts", json.dumps({"query": "incident", "limit": "5"})),
             ("fetch_artifact", json.dumps({"artifact_id": "NOTHING-1"}))]
    if done < len(steps):
        return _tool_call(done, *steps[done])
    return _tool_call(done, "submit_answer", json.dumps({"answer": {"evidence_artifacts": []}}))


def test_ill_formed_calls_of_a_model_agent_are_traced_invalid(rt_suite, tmp_path):
    with ChatServer(answer=_script) as server:
        run_agent(rt_suite, "openai:scripted", "tool", tmp_path / "run", record_latency=False,
                  base_url=server.base_url, limit=1)
    [trace] = [json.loads(line) for line in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    calls = [(c["tool"], c["outcome"]) for c in trace["calls"]]
    assert calls == [("fetch_artifact", "invalid"), ("search_artifacts", "invalid"), ("fetch_artifact", "not_found")]
