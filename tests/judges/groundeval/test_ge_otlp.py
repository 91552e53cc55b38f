"""OTLP JSON trace import: spans from the real OpenTelemetry SDK (in-memory exporter, opentelemetry-proto encoding), and hand-written JSON.

A built-in policy is instrumented the way an agent developer would: each
tool call is an ``execute_tool`` span carrying the GenAI attributes, the
contract named on the agent's root span. The exported spans, imported and
scored, must score every contract exactly as ``run-agent`` with that policy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judges.groundeval.run import _builtin, run_agent, score_run
from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.traces import load_corpus_world, load_suite
from orgbench.cli import cli
from tests.judges.groundeval.extras import require

NEEDED = ("opentelemetry.sdk", "opentelemetry.proto", "opentelemetry.exporter.otlp.proto.common")
SCORED = ("answer_correct", "s_answer", "s_traj", "s_adj", "v", "n_calls", "malformed", "trace_tampered", "track")


def _needs_sdk() -> None:
    require("otel", *NEEDED)


class TracedRuntime:
    """The gated runtime with every call wrapped in a GenAI execute_tool span (an instrumented agent's tools)."""

    def __init__(self, runtime: GatedRuntime, tracer: Any) -> None:
        self.runtime, self.tracer, self.n = runtime, tracer, 0

    def _span(self, tool: str, args: dict[str, Any], run) -> dict[str, Any]:
        self.n += 1
        with self.tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "gen_ai.tool.type": "function",
                "gen_ai.tool.call.id": f"call_{self.n}", "gen_ai.tool.call.arguments": json.dumps(args)}) as span:
            result = run()
            span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
            return result

    def search_artifacts(self, query, subsystem=None, limit=10):
        return self._span("search_artifacts", {"query": query, "subsystem": subsystem, "limit": limit},
                          lambda: self.runtime.search_artifacts(query, subsystem, limit))

    def fetch_artifact(self, artifact_id):
        return self._span("fetch_artifact", {"artifact_id": artifact_id}, lambda: self.runtime.fetch_artifact(artifact_id))


def _export(suite: Path, policy: str, out: Path) -> None:
    """Run ``policy`` instrumented with the OpenTelemetry SDK; write OTLP JSON, one export request per contract."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "my-service"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("my-agent")
    world = load_corpus_world(suite)
    corpus, agent = Corpus(world), _builtin(policy, suite, world)
    with open(out, "w", encoding="utf-8") as handle:
        for number, contract in enumerate(load_suite(suite)[1]):
            key = "orgbench.question_id" if number % 2 else "gen_ai.conversation.id"
            with tracer.start_as_current_span("invoke_agent analyst", attributes={
                    "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"otel-{policy}",
                    key: contract.question_id}):
                tools = TracedRuntime(GatedRuntime(corpus, contract.actor, contract.as_of), tracer)
                answer = agent(contract, tools, None)
                tools._span("submit_answer", {"answer": answer}, lambda: {"status": "submitted"})
            request = MessageToDict(encode_spans(exporter.get_finished_spans()))   # the canonical protobuf JSON mapping
            exporter.clear()
            handle.write(json.dumps(request) + "\n")


def _rows(path: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (path / "questions.jsonl").read_text().splitlines()]
    return {r["question_id"]: {**{k: r[k] for k in SCORED}, "trajectory": r["diagnostics"]["trajectory"],
                               "answer": r["diagnostics"]["answer"],
                               "calls": [{k: v for k, v in c.items() if k not in ("claimed", "latency_ms", "mismatch")}
                                         for c in r["diagnostics"].get("calls", [])]} for r in rows}


def _import(*args: str):
    return CliRunner().invoke(cli, ["import-otel", *args])


@pytest.mark.parametrize("policy", ["oracle", "leaky"])
def test_sdk_spans_import_and_score_as_run_agent(policy, rt_suite, tmp_path):
    _needs_sdk()
    _export(rt_suite, policy, tmp_path / "spans.jsonl")
    result = _import(str(tmp_path / "spans.jsonl"), "--suite", str(rt_suite), "--out", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    first = json.loads((tmp_path / "spans.jsonl").read_text().splitlines()[0])
    assert "resourceSpans" in first and "startTimeUnixNano" in first["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    run_agent(rt_suite, policy, "tool", tmp_path / "ref", record_latency=False)
    score_run(rt_suite, tmp_path / "run", tmp_path / "s-otel")
    score_run(rt_suite, tmp_path / "ref", tmp_path / "s-ref")
    imported, reference = _rows(tmp_path / "s-otel"), _rows(tmp_path / "s-ref")
    assert len(imported) == len(reference) > 50
    assert imported == reference
    assert json.loads((tmp_path / "run" / "run.json").read_text())["agent"] == f"otel-{policy}"


HAND = """{"resource_spans": [{"resource": {"attributes": [{"key": "service.name", "value": {"string_value": "hand-agent"}}]},
 "scope_spans": [{"scope": {"name": "manual"}, "spans": [
  {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "b7ad6b7169203331", "name": "execute_tool fetch_artifact",
   "start_time_unix_nano": 1700000000000000100,
   "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                  {"key": "gen_ai.tool.name", "value": {"string_value": "fetch_artifact"}},
                  {"key": "gen_ai.conversation.id", "value": {"string_value": "QID"}},
                  {"key": "gen_ai.tool.call.arguments", "value": {"kvlist_value": {"values": [
                      {"key": "artifact_id", "value": {"string_value": "REF"}}]}}}]},
  {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "c8be7c8270314442", "name": "execute_tool lookup_weather",
   "start_time_unix_nano": 1700000000000000200,
   "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                  {"key": "gen_ai.tool.name", "value": {"string_value": "lookup_weather"}}]},
  {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "d9cf8d9381425553", "name": "execute_tool submit_answer",
   "start_time_unix_nano": 1700000000000000300,
   "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                  {"key": "gen_ai.tool.name", "value": {"string_value": "submit_answer"}},
                  {"key": "gen_ai.conversation.id", "value": {"string_value": "QID"}},
                  {"key": "gen_ai.tool.call.arguments", "value": {"string_value": "{\\"answer\\": {\\"exists\\": true}}"}}]}
 ]}]}]}"""


def _first_fetch(suite: Path, tmp_path: Path) -> tuple[str, str]:
    run_agent(suite, "oracle", "tool", tmp_path / "oracle", record_latency=False)
    for line in (tmp_path / "oracle" / "traces.jsonl").read_text().splitlines():
        trace = json.loads(line)
        fetches = [c for c in trace["calls"] if c["tool"] == "fetch_artifact" and c["outcome"] == "ok"]
        if fetches:
            return trace["question_id"], fetches[0]["args"]["artifact_id"]
    raise AssertionError("the oracle fetched nothing")


def test_hand_written_otlp_in_proto_field_names(rt_suite, tmp_path):
    qid, ref = _first_fetch(rt_suite, tmp_path)
    (tmp_path / "hand.json").write_text(HAND.replace("QID", qid).replace("REF", ref).replace("\n", " ") + "\n")
    result = _import(str(tmp_path / "hand.json"), "--suite", str(rt_suite), "--out", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    assert "1 answers from hand-agent" in result.output and "1 spans of other tools not scored" in result.output
    trace = json.loads((tmp_path / "run" / "traces.jsonl").read_text())
    assert trace["calls"] == [{"seq": 1, "tool": "fetch_artifact", "args": {"artifact_id": ref}}]
    answer = json.loads((tmp_path / "run" / "answers.jsonl").read_text())
    assert answer["answer"] == {"exists": True} and answer["agent"] == "hand-agent"
    score_run(rt_suite, tmp_path / "run", tmp_path / "scores", answered_only=True)
    row = _rows(tmp_path / "scores")[qid]
    assert row["calls"][0]["outcome"] == "ok" and row["calls"][0]["returned_ids"] == [ref]   # re-derived, not claimed


@pytest.mark.parametrize("edit, says", [
    (lambda s: s.replace('{"key": "gen_ai.tool.name", "value": {"string_value": "fetch_artifact"}},', ""),
     "span b7ad6b7169203331: execute_tool span has no gen_ai.tool.name"),
    (lambda s: s.replace('"QID"', '"PER-nosuchquestion"', 1),
     "span b7ad6b7169203331: question 'PER-nosuchquestion' is not a contract of suite"),
    (lambda s: s.replace('{"key": "gen_ai.conversation.id", "value": {"string_value": "QID"}},', "", 1),
     "span b7ad6b7169203331: no orgbench.question_id or gen_ai.conversation.id"),
    (lambda s: s.replace('{"key": "gen_ai.tool.call.arguments", "value": {"kvlist_value"', '{"key": "x", "value": {"kvlist_value"', 1),
     "span b7ad6b7169203331: execute_tool span has no gen_ai.tool.call.arguments"),
    (lambda s: s.replace('"resource_spans"', '"resources"'), "not an OTLP ExportTraceServiceRequest"),
    (lambda s: s[:40], "invalid JSON"),
])
def test_a_bad_span_is_one_line_exit_2_naming_file_and_span(edit, says, rt_suite, tmp_path):
    qid, ref = _first_fetch(rt_suite, tmp_path)
    path = tmp_path / "bad.json"
    path.write_text(edit(HAND.replace("\n", " ")).replace("QID", qid).replace("REF", ref) + "\n")
    result = _import(str(path), "--suite", str(rt_suite), "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{path}:1: " in result.output and says in result.output, result.output
    assert not (tmp_path / "run").exists()
