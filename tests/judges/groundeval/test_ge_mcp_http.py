"""serve-mcp over streamable HTTP on 127.0.0.1, driven by the official MCP client and by raw POSTs."""

import asyncio
import json
import re
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from judges.groundeval.mcp_server import make_server
from judges.groundeval.mcp_transports import http_app
from tests.judges.groundeval.mcp_wire import PATIENCE_S, valid_answer
from tests.judges.groundeval.test_ge_mcp_bounds import FUZZ

pytest.importorskip("uvicorn")
ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@contextmanager
def http_server(suite: Path, out: Path, agent: str = "http-agent") -> Iterator[str]:
    """``http_app`` of a suite server on a free 127.0.0.1 port (uvicorn in a thread); yields its /mcp URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(http_app(make_server(suite, None, out, agent)), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE_S          # a safety net against a server that never starts
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        thread.join(PATIENCE_S)
        sock.close()


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_official_clients_over_http_have_their_own_sessions_and_one_agent_answers_once(rt_suite, tmp_path):
    from mcp import Client

    contract, second = (json.loads(line) for line in (rt_suite / "contracts.jsonl").read_text().splitlines()[:2])
    qid, track, other = contract["question_id"], contract["track"], second["question_id"]

    async def run(url: str) -> dict[str, Any]:
        named = f"{url}?agent=alice"
        async with Client(named) as a, Client(named) as b, Client(url) as c, Client(url) as d:
            def call(client: Any, tool: str, args: dict[str, Any]) -> Any:
                return client.call_tool(tool, args)

            seen: dict[str, Any] = {"protocol": a.protocol_version}
            seen["listed"] = (await call(a, "list_contracts", {})).structured_content["count"]
            seen["a_start"] = (await call(a, "start_contract", {"question_id": qid})).structured_content
            await call(a, "search_artifacts", {"query": "incident", "limit": 3})
            seen["long_id"] = (await call(a, "fetch_artifact", {"artifact_id": "B" * 100_000})).structured_content
            seen["b_none"] = (await call(b, "get_contract", {})).structured_content
            seen["b_start"] = (await call(b, "start_contract", {"question_id": qid})).structured_content
            seen["five"] = (await call(a, "submit_answer", {"answer": 5})).structured_content
            seen["a_done"] = (await call(a, "submit_answer", {"answer": valid_answer(track)})).structured_content
            seen["b_done"] = (await call(b, "submit_answer", {"answer": valid_answer(track)})).structured_content
            seen["b_next"] = (await call(b, "start_contract", {"question_id": other})).structured_content
            for client, key in ((c, "c_done"), (d, "d_done")):       # unnamed sessions: each its own agent
                await call(client, "start_contract", {"question_id": qid})
                seen[key] = (await call(client, "submit_answer", {"answer": valid_answer(track)})).structured_content
            return seen

    with http_server(rt_suite, tmp_path / "out") as url:
        seen = asyncio.run(run(url))
    assert seen["protocol"].startswith("2025-")          # the handshake era: a session per client
    assert seen["listed"] == len((rt_suite / "contracts.jsonl").read_text().splitlines())
    assert seen["a_start"]["resumed"] is False and seen["b_none"]["error"] == "no_contract"
    assert seen["b_start"]["resumed"] is False and seen["b_start"]["calls_so_far"] == 0    # a's calls are not b's
    assert seen["long_id"] == {"error": "invalid_arguments", "message": "artifact_id must be a string"}
    assert seen["five"]["error"] == "invalid_answer" and seen["a_done"]["status"] == "submitted"
    assert seen["a_done"]["calls_recorded"] == 2 and seen["a_done"]["agent"] == "alice"
    assert seen["b_done"]["error"] == "already_answered"              # one agent's two sessions: the first stands
    assert seen["b_next"]["contract"]["question_id"] == other        # and b's contract is closed: b may go on
    unnamed = [seen["c_done"]["agent"], seen["d_done"]["agent"]]
    assert [seen[k]["status"] for k in ("c_done", "d_done")] == ["submitted"] * 2
    assert len(set(unnamed)) == 2 and all(re.fullmatch(r"http-agent-[0-9a-f]{12}", a) for a in unnamed)
    rows = _rows(tmp_path / "out" / "answers.jsonl")
    assert [(r["question_id"], r["agent"]) for r in rows] == [(qid, "alice"), (qid, unnamed[0]), (qid, unnamed[1])]
    trace = _rows(tmp_path / "out" / "traces.jsonl")[0]
    assert trace["calls"][1]["args"] == {"artifact_id": {"too_long_chars": 100_000}}


def _reply(response: Any) -> dict[str, Any]:
    """The one JSON-RPC message of a response: its JSON body, or the data of its SSE event."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return json.loads(data[-1])
    return response.json()


def test_every_malformed_post_is_answered_with_its_json_rpc_error(rt_suite, tmp_path):
    import httpx2

    with http_server(rt_suite, tmp_path / "out") as url, httpx2.Client(timeout=PATIENCE_S) as http:
        opened = http.post(url, headers=ACCEPT, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        session = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        assert http.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        replies = [http.post(url, headers=session, content=line.encode("utf-8")) for line, _, _ in FUZZ]
        huge = http.post(url, headers=session, content=json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                         "params": {"name": "fetch_artifact", "arguments": {"artifact_id": "A" * 20_000_000}}}))
        bad_agents = [http.post(f"{url}?{query}", headers=session, json={"jsonrpc": "2.0", "id": 101,
                                "method": "tools/call", "params": {"name": "list_contracts", "arguments": {}}})
                      for query in ("agent=", "agent=a%20b", "agent=x&agent=y", "agent=-lead", f"agent={'a' * 101}")]
        modern = http.post(url, headers={**ACCEPT, "mcp-protocol-version": "2026-07-28"},
                           json={"jsonrpc": "2.0", "id": 1, "method": "server/discover"})
        still = http.post(url, headers=session, json={"jsonrpc": "2.0", "id": 100, "method": "tools/call",
                                                      "params": {"name": "list_contracts", "arguments": {}}})
    assert _reply(opened)["result"]["serverInfo"]["name"] == "orgbench-groundeval"
    assert [(_reply(r)["error"]["code"], _reply(r)["id"]) for r in replies] == [(code, rid) for _, code, rid in FUZZ]
    assert huge.status_code == 413 and _reply(huge)["error"]["code"] == -32600 and len(huge.text) < 300   # never echoed
    assert [(r.status_code, _reply(r)["error"]["code"]) for r in bad_agents] == [(400, -32600)] * 5
    assert "?agent= must name one agent" in _reply(bad_agents[0])["error"]["message"]
    assert modern.status_code == 400 and "initialize handshake" in _reply(modern)["error"]["message"]
    assert _reply(still)["result"]["structuredContent"]["count"] > 0          # the session survived every one
