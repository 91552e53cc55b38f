"""Draft a task contract from an observed run (OTLP spans of a user's agent in its own domain), reviewed before use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from orgbench.cli import cli
from tests.judges.groundeval.extras import require

RECORDS = {"get_invoice": {"id": "INV-7", "subsystem": "ledger", "state": "paid", "amount": 120},
           "get_customer": {"id": "C-3", "subsystem": "crm", "status": "active", "tier": "gold"},
           "risk_lookup": {"score": 12, "band": "low"}}


def _observed_run(path: Path, *, act: bool = True, drop_name: bool = False) -> None:
    """A refund agent's run, instrumented with the real OpenTelemetry SDK, written as OTLP JSON."""
    require("otel", "opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.common")
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("refund-bot")
    calls = [("get_invoice", {"invoice_id": "INV-7"}), ("get_customer", {"customer_id": "C-3"}),
             ("risk_lookup", {"customer_id": "C-3"})] + ([("issue_refund", {"invoice_id": "INV-7"})] if act else [])
    with tracer.start_as_current_span("invoke_agent refund-bot", attributes={"gen_ai.operation.name": "invoke_agent"}):
        for tool, args in calls:
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                          "gen_ai.tool.call.arguments": json.dumps(args)}
            if drop_name and tool == "get_customer":
                del attributes["gen_ai.tool.name"]
            with tracer.start_as_current_span(f"execute_tool {tool}", attributes=attributes) as span:
                span.set_attribute("gen_ai.tool.call.result", json.dumps(RECORDS.get(tool, {"status": "refunded"})))
    path.write_text(json.dumps(MessageToDict(encode_spans(exporter.get_finished_spans()))) + "\n", encoding="utf-8")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("act", [True, False])
def test_a_draft_is_refused_until_reviewed_then_scores(act, tmp_path):
    runner = CliRunner()
    _observed_run(tmp_path / "run.jsonl", act=act)
    result = runner.invoke(cli, ["draft-contract", str(tmp_path / "run.jsonl"), "--action", "issue_refund",
                                 "--out", str(tmp_path / "draft"), "--name", "refund_paid"])
    assert result.exit_code == 0, result.output
    config = yaml.safe_load((tmp_path / "draft" / "config.yaml").read_text())
    contract = config["task_contracts"][0]
    assert contract["reviewed"] is False and contract["expected_action"] is act
    assert [(p.get("ground_truth_field") or p["required_tool"], p.get("expected")) for p in contract["preconditions"]] \
        == [("INV-7.state", "paid"), ("C-3.status", "active"), ("risk_lookup", 12)]
    assert contract["allowed_tools"]["issue_refund"] == {"action": True}
    assert config["roles"]["agent"]["subsystems"] == ["crm", "ledger", "tools"]
    assert json.loads((tmp_path / "draft" / "data" / "observed.json").read_text()) == [
        RECORDS["get_customer"], RECORDS["get_invoice"]]
    review = (tmp_path / "draft" / "REVIEW.md").read_text()
    assert review.count("- [ ] ") == 8 and "`tier`" not in review.split("C-3")[0]
    assert f"expected_action: {str(act).lower()} is what the observed agent did" in review
    refused = runner.invoke(cli, ["build", "groundeval", "--domain", str(tmp_path / "draft"),
                                  "--out", str(tmp_path / "suite")])
    assert refused.exit_code == 2 and refused.output.count("\n") == 1, refused.output
    assert "task_contracts[0].reviewed: False: a drafted contract is used only after review" in refused.output
    assert not (tmp_path / "suite").exists()
    contract["reviewed"] = True     # the reviewer went through the checklist
    (tmp_path / "draft" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    built = runner.invoke(cli, ["build", "groundeval", "--domain", str(tmp_path / "draft"), "--out", str(tmp_path / "suite")])
    assert built.exit_code == 0, built.output
    truth = _rows(tmp_path / "suite" / "truth.jsonl")[0]
    assert truth["decision"] is act
    assert [(p["artifact"], p["field"], p["value"]) for p in truth["preconditions"]] == [
        ("INV-7", "state", "paid"), ("C-3", "status", "active"), ("risk_lookup", "score", 12)]
    for agent, s_adj in (("oracle", 1.0), ("skip-precondition", 0.5 + 0.5 * 2 / 3)):
        assert runner.invoke(cli, ["run-agent", "--suite", str(tmp_path / "suite"), "--agent", agent,
                                   "--out", str(tmp_path / agent)]).exit_code == 0
        scored = runner.invoke(cli, ["score", "groundeval", "--suite", str(tmp_path / "suite"), "--answers",
                                     str(tmp_path / agent), "--out", str(tmp_path / f"s-{agent}")])
        assert scored.exit_code == 0, scored.output
        assert _rows(tmp_path / f"s-{agent}" / "questions.jsonl")[0]["s_adj"] == pytest.approx(s_adj)


def test_a_span_without_a_tool_name_is_one_line_exit_2(tmp_path):
    _observed_run(tmp_path / "run.jsonl", drop_name=True)
    result = CliRunner().invoke(cli, ["draft-contract", str(tmp_path / "run.jsonl"), "--action", "issue_refund",
                                      "--out", str(tmp_path / "draft")])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{tmp_path / 'run.jsonl'}:1: span " in result.output and "has no gen_ai.tool.name" in result.output
    assert not (tmp_path / "draft").exists()


def test_a_file_with_no_tool_span_says_so_not_to_choose_a_trace(tmp_path):
    (tmp_path / "run.json").write_text('{"resourceSpans": []}\n')
    result = CliRunner().invoke(cli, ["draft-contract", str(tmp_path / "run.json"), "--action", "issue_refund",
                                      "--out", str(tmp_path / "draft")])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{tmp_path / 'run.json'}: no execute_tool span" in result.output and "--trace-id" not in result.output
    assert not (tmp_path / "draft").exists()
