"""Structured outputs against a real local server: the dialect each endpoint accepts, one fallback, run.json."""

from __future__ import annotations

import asyncio
import json

import pytest

from judges.backends import GenerationParams, JudgeRequest, Message, make_backend
from judges.backends.gbnf import schema_grammar
from judges.backends.structured import response_format
from judges.runner import Job, run_jobs_sync
from judges.verdict import parse_verdict
from judges.verdict_schema import verdict_schema
from orgbench.core.errors import InputError
from tests.judges.chat_server import ChatServer


def _jobs(n: int = 3) -> list[Job]:
    return [Job(f"item-{i}", "cargo", 0, JudgeRequest((Message("user", f"judge answer {i}"),),
                                                      GenerationParams(seed=0))) for i in range(n)]


def _run(server: ChatServer, tmp_path, structured: str):
    backend = make_backend("openai:m", base_url=server.base_url, api_key_env="ORGBENCH_NO_KEY",
                           structured=structured, backoff_base=0.01)
    return backend, run_jobs_sync(_jobs(), backend, tmp_path / "run", concurrency=2, progress=False)


def test_auto_uses_json_schema_where_it_is_accepted_and_records_it(tmp_path):
    with ChatServer() as server:
        backend, summary = _run(server, tmp_path, "auto")
        probe, *judged = server.bodies
    assert probe["response_format"]["type"] == "json_schema" and probe["max_tokens"] == 8
    assert len(judged) == 3 and summary.judgments == 3 and summary.unparsed == 0
    assert all(body["response_format"] == response_format("json_schema", verdict_schema(), "verdict")
               for body in judged)
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["backend"] == {"kind": "openai", "model": "m", "base_url": server.base_url,
                                 "structured": "json_schema"}


def test_a_refused_dialect_falls_back_once_to_llama_cpp_json_object(tmp_path):
    with ChatServer(refuse_formats=("json_schema",)) as server:
        _, summary = _run(server, tmp_path, "on")
        kinds = [(body.get("response_format") or {}).get("type") for body in server.bodies]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
    assert summary.errors == 0
    body = server.bodies[-1]["response_format"]
    assert body == {"type": "json_object", "schema": verdict_schema()}
    assert json.loads((tmp_path / "run" / "run.json").read_text())["backend"]["structured"] == "json_object"


def test_both_refused_auto_sends_plain_requests_and_on_stops_with_one_line(tmp_path):
    with ChatServer(refuse_formats=("json_schema", "json_object")) as server:
        _, summary = _run(server, tmp_path, "auto")
        assert all("response_format" not in body for body in server.bodies[2:])
        assert summary.judgments == 3
        assert "structured" not in json.loads((tmp_path / "run" / "run.json").read_text())["backend"]
        with pytest.raises(InputError, match=r"--structured on: .* refused response_format in both dialects"):
            _run(server, tmp_path / "on", "on")
    assert not (tmp_path / "on" / "run" / "judgments.jsonl").exists()


def test_off_sends_no_response_format_and_a_resume_with_another_dialect_is_refused(tmp_path):
    with ChatServer() as server:
        _run(server, tmp_path, "off")
        assert all("response_format" not in body for body in server.bodies)
        with pytest.raises(InputError, match=r"run.json: backend.structured is null in this run, \"json_schema\" now"):
            _run(server, tmp_path, "auto")


def test_the_verdict_schema_accepts_what_the_parser_reads():
    schema = verdict_schema(("supported", "contradicted"))
    assert schema["properties"]["claims"]["items"]["properties"]["status"]["enum"] == ["supported", "contradicted"]
    assert schema["properties"]["verdict"]["enum"] == ["pass", "fail", "cannot_decide"]
    answer = {"dimensions": {"procedure": 1}, "claims": [{"text": "CASE-1 is open", "status": "supported"}],
              "verdict": "pass"}
    assert set(schema["required"]) == set(answer)
    assert parse_verdict(json.dumps(answer)).verdict == "pass"


def test_a_caller_given_response_format_is_kept():
    backend = make_backend("openai:m", base_url="http://127.0.0.1:9/v1", structured="on")
    backend.dialect = "json_object"
    own = {"type": "json_object", "schema": {"type": "object"}}
    request = JudgeRequest((Message("user", "x"),), GenerationParams(extra={"response_format": own}))
    assert backend.prepare(request).params.extra["response_format"] == own
    asyncio.run(backend.aclose())


def test_the_gbnf_dialect_sends_the_verdict_grammar_and_no_response_format(tmp_path):
    with ChatServer() as server:
        backend = make_backend("openai:m", base_url=server.base_url, api_key_env="ORGBENCH_NO_KEY", structured="on")
        backend.dialect = "gbnf"            # what local: uses (a llama.cpp server orgbench started)
        summary = run_jobs_sync(_jobs(), backend, tmp_path / "run", concurrency=2, progress=False)
        bodies = server.bodies
    assert len(bodies) == 3 and summary.unparsed == 0          # no probe: the dialect was known
    assert all(body["grammar"] == schema_grammar(verdict_schema()).text and "response_format" not in body
               for body in bodies)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["backend"]["structured"] == "gbnf"
    own = JudgeRequest((Message("user", "x"),), GenerationParams(extra={"grammar": 'root ::= "{}"'}))
    assert backend.prepare(own).params.extra == {"grammar": 'root ::= "{}"'}      # a caller's grammar is kept
