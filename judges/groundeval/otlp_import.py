"""Import OpenTelemetry GenAI tool spans (OTLP JSON) as orgbench traces, so any instrumented agent can be scored.

Pinned convention: the GenAI "execute tool" span of OpenTelemetry semantic
conventions v1.41.0 (``docs/gen-ai/gen-ai-agent-spans.md``): a span whose
``gen_ai.operation.name`` is ``execute_tool`` names its tool in
``gen_ai.tool.name`` and carries the opt-in ``gen_ai.tool.call.arguments``
and ``gen_ai.tool.call.result`` (JSON text, or a structured value).

Input: OTLP JSON, the protobuf JSON mapping of one ``ExportTraceServiceRequest``
per line as the Collector's file exporter writes it (``resourceSpans`` →
``scopeSpans`` → ``spans``; lowerCamelCase or proto field names; ids in hex
as OTLP/JSON says, or base64 as the canonical protobuf mapping writes bytes).
A tool span belongs to the contract named by ``orgbench.question_id`` (or
else ``gen_ai.conversation.id``) on the span or an ancestor span of its
trace; the agent is ``gen_ai.agent.name`` there, else the resource's
``service.name``. ``submit_answer``'s ``answer`` argument is the answer;
``search_artifacts`` / ``fetch_artifact`` (and ``cite_artifact``) calls are
the trace, ordered by start time; other tools are not the runtime's and are
counted, not scored. Gates are never taken from the spans: the scorer
re-derives them. A span that cannot be read is refused with its file, line
and span id (InputError: exit 2, nothing written).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl

SEMCONV_VERSION = "1.41.0"
OPERATION, TOOL, ARGUMENTS, RESULT = ("gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.arguments",
                                      "gen_ai.tool.call.result")
QUESTION_KEYS = ("orgbench.question_id", "gen_ai.conversation.id")
GATED = ("search_artifacts", "fetch_artifact", "cite_artifact")
SUBMIT = "submit_answer"
_HEX = re.compile(r"^[0-9a-fA-F]+$")


class SpanRefused(InputError):
    """A span or line that cannot be imported; the message names file, line and span id."""


@dataclass(frozen=True)
class Span:
    """One span as read from OTLP JSON: where it came from, its ids, start time and decoded attributes."""

    where: str            # FILE:LINE
    trace_id: str
    span_id: str
    parent_id: str
    start: int
    attributes: dict[str, Any]
    resource: dict[str, Any]

    def refuse(self, why: str) -> SpanRefused:
        """The refusal of this span, naming file, line and span id."""
        return SpanRefused(f"{self.where}: span {self.span_id or '(no spanId)'}: {why}")


def _field(obj: dict[str, Any], camel: str) -> Any:
    """A message field by its JSON name or its proto name (``startTimeUnixNano`` / ``start_time_unix_nano``)."""
    if not isinstance(obj, dict):
        return None
    if camel in obj:
        return obj[camel]
    return obj.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


def any_value(value: Any) -> Any:
    """A Python value from an OTLP ``AnyValue`` (stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue)."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "string_value", "boolValue", "bool_value", "doubleValue", "double_value"):
        if key in value:
            return value[key]
    for key in ("intValue", "int_value"):
        if key in value:
            return int(value[key])
    array = _field(value, "arrayValue")
    if isinstance(array, dict):
        return [any_value(v) for v in array.get("values", [])]
    kvlist = _field(value, "kvlistValue")
    if isinstance(kvlist, dict):
        return attributes(kvlist.get("values", []))
    raw = _field(value, "bytesValue")
    return raw if raw is not None else None


def attributes(pairs: Any) -> dict[str, Any]:
    """A ``KeyValue`` list as a dict (the first value of a repeated key is kept)."""
    out: dict[str, Any] = {}
    for pair in pairs if isinstance(pairs, list) else []:
        if isinstance(pair, dict) and isinstance(pair.get("key"), str) and pair["key"] not in out:
            out[pair["key"]] = any_value(pair.get("value"))
    return out


def span_id_hex(raw: Any) -> str:
    """An OTLP id as hex: hex as OTLP/JSON writes it, or base64 as the canonical protobuf JSON mapping writes bytes."""
    if not isinstance(raw, str) or not raw:
        return ""
    if _HEX.match(raw) and len(raw) in (16, 32):
        return raw.lower()
    try:
        return base64.b64decode(raw, validate=True).hex()
    except (binascii.Error, ValueError):
        return raw


def read_spans(path: Path) -> list[Span]:
    """Every span of an OTLP JSON file (one ExportTraceServiceRequest per line); SpanRefused for an unreadable line."""
    spans: list[Span] = []
    for number, request in read_jsonl(path).numbered():     # InputError naming file and line for a line that is not JSON
        where = f"{path}:{number}"
        resource_spans = _field(request, "resourceSpans") if isinstance(request, dict) else None
        if not isinstance(resource_spans, list):
            raise SpanRefused(f"{where}: not an OTLP ExportTraceServiceRequest (no resourceSpans list)")
        for block in resource_spans:
            resource = attributes(_field(_field(block, "resource") or {}, "attributes"))
            for scope in _field(block, "scopeSpans") or []:
                for raw in _field(scope, "spans") or []:
                    spans.append(_span(where, raw, resource))
    return spans


def _span(where: str, raw: Any, resource: dict[str, Any]) -> Span:
    if not isinstance(raw, dict):
        raise SpanRefused(f"{where}: a span that is not an object")
    span_id = span_id_hex(_field(raw, "spanId"))
    start = _field(raw, "startTimeUnixNano")
    try:
        moment = int(start) if start is not None else 0
    except (TypeError, ValueError):
        raise SpanRefused(f"{where}: span {span_id}: startTimeUnixNano {start!r} is not an integer") from None
    return Span(where, span_id_hex(_field(raw, "traceId")), span_id, span_id_hex(_field(raw, "parentSpanId")),
                moment, attributes(_field(raw, "attributes")), resource)


def _json_value(span: Span, key: str, required: bool) -> Any:
    value = span.attributes.get(key)
    if value is None:
        if required:
            raise span.refuse(f"execute_tool span has no {key} (opt-in: turn on tool content capture)")
        return None
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            if required:
                raise span.refuse(f"{key} is not JSON: {value[:60]!r}") from None
            return value
    return value


def returned_ids(result: Any) -> list[str] | None:
    """The artifact ids a runtime result shows (search results or the fetched artifact); None if it shows none."""
    if isinstance(result, str):
        try:
            result = json.loads(result)
        except ValueError:
            return None
    if not isinstance(result, dict):
        return None
    if isinstance(result.get("results"), list):
        return [str(r.get("id")) for r in result["results"] if isinstance(r, dict) and "id" in r]
    if isinstance(result.get("artifact"), dict) and "id" in result["artifact"]:
        return [str(result["artifact"]["id"])]
    return [] if "error" in result else None


def _inherited(span: Span, by_id: dict[tuple[str, str], Span], keys: Iterable[str]) -> Any:
    """The first of ``keys`` set on the span or its nearest ancestor that has one."""
    seen: set[str] = set()
    node: Span | None = span
    while node is not None and node.span_id not in seen:
        seen.add(node.span_id)
        for key in keys:
            if node.attributes.get(key) not in (None, ""):
                return node.attributes[key]
        node = by_id.get((node.trace_id, node.parent_id)) if node.parent_id else None
    return None


def is_tool_span(span: Span) -> bool:
    """Is this a GenAI execute_tool span?"""
    return span.attributes.get(OPERATION) == "execute_tool"


@dataclass(frozen=True)
class Imported:
    """What a set of OTLP files yields: answer and trace lines per (agent, question), and tool spans not scored."""

    answers: list[dict[str, Any]]
    traces: list[dict[str, Any]]
    other_tool_spans: int


def to_submissions(spans: list[Span], question_ids: set[str], suite: str, agent_name: str | None = None) -> Imported:
    """Group tool spans by agent and contract into answers and traces (SpanRefused for the first bad span)."""
    by_id: dict[tuple[str, str], Span] = {}
    for span in spans:
        if not span.span_id:
            continue
        first = by_id.setdefault((span.trace_id, span.span_id), span)
        if first is not span:
            raise span.refuse(f"repeats the span of {first.where} (the same trace given twice?)")
    calls: dict[tuple[str, str], list[tuple[int, int, dict[str, Any]]]] = {}
    answers: dict[tuple[str, str], Any] = {}
    other = 0
    for position, span in enumerate(spans):
        if not is_tool_span(span):
            continue
        tool = span.attributes.get(TOOL)
        if not isinstance(tool, str) or not tool:
            raise span.refuse(f"execute_tool span has no {TOOL}")
        if tool not in GATED and tool != SUBMIT:
            other += 1
            continue
        question = _inherited(span, by_id, QUESTION_KEYS)
        if question is None:
            raise span.refuse(f"no {' or '.join(QUESTION_KEYS)} on the span or an ancestor: which contract is it?")
        if str(question) not in question_ids:
            raise span.refuse(f"question {question!r} is not a contract of suite {suite}")
        agent = agent_name or str(_inherited(span, by_id, ("gen_ai.agent.name",)) or
                                  span.resource.get("service.name") or "otel-agent")
        key = (agent, str(question))
        args = _json_value(span, ARGUMENTS, required=True)
        if not isinstance(args, dict):
            raise span.refuse(f"{ARGUMENTS} is not a JSON object")
        if tool == SUBMIT:
            answers.setdefault(key, args.get("answer"))     # the first submission counts, as in every other path
            continue
        call: dict[str, Any] = {"tool": tool, "args": args}
        ids = returned_ids(_json_value(span, RESULT, required=False))
        if ids is not None:
            call["returned_ids"] = ids
        calls.setdefault(key, []).append((span.start, position, call))
    keys = sorted(set(calls) | set(answers))
    answer_rows, trace_rows = [], []
    for agent, question in keys:
        ordered = [c for _, _, c in sorted(calls.get((agent, question), []), key=lambda row: row[:2])]
        trace = [{"seq": seq, **call} for seq, call in enumerate(ordered, start=1)]
        answer_rows.append({"question_id": question, "agent": agent, "mode": "tool",
                            "answer": answers.get((agent, question))})
        trace_rows.append({"question_id": question, "agent": agent, "mode": "tool", "calls": trace})
    return Imported(answer_rows, trace_rows, other)


def import_run(files: list[Path], suite: Path, out: Path, agent_name: str | None = None) -> dict[str, Any]:
    """Read OTLP JSON files, write a run directory of their answers and traces (InputError: nothing written)."""
    from judges.groundeval.traces import load_suite
    from orgbench.core.storage import sha256_file, staged_directory, write_json, write_jsonl, write_manifest

    suite = Path(suite)
    contracts = load_suite(suite)[1]
    try:
        spans = [span for path in files for span in read_spans(Path(path))]
        found = to_submissions(spans, {c.question_id for c in contracts}, str(suite), agent_name)
    except OSError as exc:
        raise InputError(f"{exc.filename}: {exc.strerror}") from None
    except SpanRefused as exc:
        raise InputError(f"{exc}; nothing written") from None
    if not found.answers:
        raise InputError(f"{', '.join(map(str, files))}: no execute_tool span of search_artifacts, fetch_artifact or "
                         f"submit_answer; nothing written")
    agents = sorted({row["agent"] for row in found.answers})
    info = {"suite": str(suite), "suite_contracts_sha256": sha256_file(suite / "contracts.jsonl"),
            "agent": agents[0] if len(agents) == 1 else "otel:" + ",".join(agents), "mode": "tool",
            "context_budget": None, "base_url": None, "source": "otlp-json", "semconv": SEMCONV_VERSION,
            "files": {Path(p).name: sha256_file(Path(p)) for p in files}, "questions": len(found.answers),
            "other_tool_spans": found.other_tool_spans}
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "run.json", info)
        write_jsonl(tmp / "answers.jsonl", found.answers)
        write_jsonl(tmp / "traces.jsonl", found.traces)
        write_manifest(tmp)
    return info
