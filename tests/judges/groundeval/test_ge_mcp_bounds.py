"""The MCP server answers every malformed message, bounds every argument, type-checks answers, appends submissions."""

import asyncio
import json
import os
from pathlib import Path

import pytest

from judges.groundeval.jsonrpc_screen import MAX_MESSAGE_BYTES, screen
from judges.groundeval.mcp_server import make_server
from judges.groundeval.submissions import SubmissionLog, SubmissionRefused, write_submission
from tests.judges.groundeval.mcp_wire import WireServer, valid_answer

FUZZ = [   # (raw line, JSON-RPC error code, id the reply carries)
    ("{bad json", -32700, None),
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700, None),
    ("\x00\x01", -32700, None),
    ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, None),
    ("[]", -32600, None),
    ('"ping"', -32600, None),
    ("5", -32600, None),
    ("null", -32600, None),
    ("true", -32600, None),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600, None),
    ('{"jsonrpc": "2.0", "id": [1], "method": "ping"}', -32600, None),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, None),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600, None),
    ('{"jsonrpc": "1.0", "id": 2, "method": "ping"}', -32600, 2),
    ('{"id": 3, "method": "ping"}', -32600, 3),
    ('{"jsonrpc": "2.0", "id": 4}', -32600, 4),
    ('{"jsonrpc": "2.0", "id": 5, "method": 5}', -32600, 5),
    ('{"jsonrpc": "2.0", "id": "s6", "method": null}', -32600, "s6"),
    ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": 5}', -32602, 7),
    ('{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": [1, 2]}', -32602, 8),
    ('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"arguments": {}}}', -32602, 9),
    ('{"jsonrpc": "2.0", "id": 10, "method": "no/such/method"}', -32601, 10),
    ('{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": 5}}', -32602, 11),
    ('{"jsonrpc": "2.0", "method": 5}', -32600, None),
    ('{"jsonrpc": "2.0", "id": 12, "result": 5}', -32600, 12),
]


@pytest.mark.parametrize("line, code, rid", [case for case in FUZZ if case[1] != -32601 and "params\": {" not in case[0]])
def test_the_screen_answers_each_malformed_message_with_its_code(line, code, rid):
    verdict = screen(line)
    assert verdict.message is None and verdict.error.error.code == code and verdict.error.id == rid


def test_the_screen_passes_well_formed_messages_and_refuses_an_oversized_one_unread():
    assert screen('{"jsonrpc": "2.0", "id": 1, "method": "ping"}').message.method == "ping"
    assert screen('{"jsonrpc": "2.0", "method": "notifications/initialized"}').error is None
    assert screen('{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"q": "\\ud800"}}').message.params == {"q": "\ufffd"}
    big = screen('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"q": "' + "x" * MAX_MESSAGE_BYTES + '"}}')
    assert big.error.error.code == -32600 and big.error.id is None and "limit" in big.error.error.message


@pytest.mark.slow          # a serve-mcp subprocess fed a 20 MB line (3-6 s, loaded machine)
def test_every_malformed_line_on_the_wire_is_answered_and_a_20_mb_argument_is_refused_unread(rt_suite, tmp_path):
    contract = json.loads((rt_suite / "contracts.jsonl").read_text().splitlines()[0])
    with WireServer("--suite", str(rt_suite), "--out", str(tmp_path / "out")) as wire:
        replies = [wire.request_line(line) for line, _, _ in FUZZ]
        huge = wire.request_line(wire.call_line("fetch_artifact", json.dumps({"artifact_id": "A" * 20_000_000})))
        wire.call("start_contract", json.dumps({"question_id": contract["question_id"]}))
        long_id = wire.call("fetch_artifact", json.dumps({"artifact_id": "B" * 100_000}))
        five = wire.call("submit_answer", '{"answer": 5}')
        missing = wire.call("submit_answer", '{"answer": {"reasoning": "no verdict"}}')
        done = wire.call("submit_answer", json.dumps({"answer": valid_answer(contract["track"])}))
    assert [(r["error"]["code"], r["id"]) for r in replies] == [(code, rid) for _, code, rid in FUZZ]
    assert huge["error"]["code"] == -32600 and len(json.dumps(huge)) < 300          # answered, never echoed
    assert long_id == {"error": "invalid_arguments", "message": "artifact_id must be a string"}
    assert five["error"] == "invalid_answer" and "int, not an object" in five["message"]
    assert missing["error"] == "invalid_answer" and done["status"] == "submitted"   # the contract stayed open
    trace = json.loads((tmp_path / "out" / "traces.jsonl").read_text())
    assert trace["calls"][0]["args"] == {"artifact_id": {"too_long_chars": 100_000}}
    assert len((tmp_path / "out" / "traces.jsonl").read_text()) < 2000


def _answers(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]


def test_a_second_session_of_one_agent_cannot_replace_its_answer(rt_suite, tmp_path):
    from mcp import Client

    contract = json.loads((rt_suite / "contracts.jsonl").read_text().splitlines()[0])
    qid, track = contract["question_id"], contract["track"]
    server = make_server(rt_suite, None, tmp_path / "out", "agent-a")
    other = make_server(rt_suite, None, tmp_path / "out", "agent-b")

    async def answer(srv, note: str) -> dict:
        async with Client(srv) as client:
            await client.call_tool("start_contract", {"question_id": qid})
            return (await client.call_tool("submit_answer", {"answer": valid_answer(track, note=note)})).structured_content

    async def run() -> list[dict]:
        return [await answer(server, "first"), await answer(server, "second"), await answer(other, "b")]

    first, second, b = asyncio.run(run())
    assert first["status"] == "submitted" and b["status"] == "submitted"
    assert second["error"] == "already_answered" and "the first answer stands" in second["message"]
    assert [(a["agent"], a["answer"]["note"]) for a in _answers(tmp_path / "out")] == [("agent-a", "first"), ("agent-b", "b")]


def _pair(qid: str) -> tuple[dict, dict]:
    base = {"question_id": qid, "agent": "a", "mode": "tool"}
    return {**base, "calls": []}, {**base, "answer": {}}


def test_submissions_are_appended_never_rewritten(tmp_path):
    log = SubmissionLog(tmp_path)
    log.submit(*_pair("q1"))
    before = (tmp_path / "answers.jsonl").read_bytes()
    inode = os.stat(tmp_path / "answers.jsonl").st_ino
    write_submission(tmp_path, *_pair("q0"))          # another writer (a fresh log) appends meanwhile
    log.submit(*_pair("q2"))
    after = (tmp_path / "answers.jsonl").read_bytes()
    assert after.startswith(before) and os.stat(tmp_path / "answers.jsonl").st_ino == inode
    assert [a["question_id"] for a in _answers(tmp_path)] == ["q1", "q0", "q2"]
    with pytest.raises(SubmissionRefused, match="already answered q0"):
        log.submit(*_pair("q0"))                       # the other writer's row was read, and it stands


@pytest.mark.parametrize("damage, where", [(b'{"question_id": "q9", "agent"', "answers.jsonl:2: incomplete line"),
                                           (b"not json\n", "answers.jsonl:2: not a JSON object"),
                                           (b'{"question_id": "q9"}\n', "answers.jsonl:2: not a JSON object")])
def test_a_torn_or_bad_line_refuses_every_later_submission(tmp_path, damage, where):
    write_submission(tmp_path, *_pair("q1"))
    with open(tmp_path / "answers.jsonl", "ab") as handle:
        handle.write(damage)
    kept = (tmp_path / "answers.jsonl").read_bytes()
    with pytest.raises(SubmissionRefused, match=where) as refused:
        write_submission(tmp_path, *_pair("q2"))
    assert refused.value.code == "unreadable_log" and (tmp_path / "answers.jsonl").read_bytes() == kept
    assert len((tmp_path / "traces.jsonl").read_text().splitlines()) == 1      # nothing half-written
