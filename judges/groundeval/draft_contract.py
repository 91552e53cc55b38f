"""Draft a task contract from an observed run in a user's own domain: what it read, which tools, what it decided.

The run is the OTLP JSON of the user's agent (``otlp_import`` reads it): its
``execute_tool`` spans with arguments and results. A result that is a record
(an object with string ``id`` and ``subsystem``, or such records under
``artifact`` / ``results``) is an artifact the agent touched and goes to
``data/observed.json``; any other object result becomes a fixture tool
(``allowed_tools.<tool>.returns``). Each record read becomes one
precondition on one of its fields (the first that is not ``id``/``subsystem``:
a guess the checklist asks the reviewer to confirm) with the value the run saw
as ``expected``; the decision is whether the agent called the ``--action``
tool. The draft is written as a task-contract domain (``config.yaml``,
``data/``, ``REVIEW.md``) whose contract says ``reviewed: false``:
``build groundeval --domain`` refuses it until a person has gone through the
checklist and set ``reviewed: true``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeGuard

from judges.groundeval.otlp_import import RESULT, TOOL, Span, _json_value, is_tool_span, read_spans
from orgbench.core.errors import InputError
from orgbench.core.storage import staged_directory, write_json, write_text_atomic

SKIP_FIELDS = ("id", "subsystem", "timestamp", "created_at")


def _records(result: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The artifact records a tool result reads (itself or its ``artifact``) and those it only lists (``results``)."""
    if not isinstance(result, dict):
        return [], []

    def is_record(obj: Any) -> TypeGuard[dict[str, Any]]:
        return isinstance(obj, dict) and isinstance(obj.get("id"), str) and isinstance(obj.get("subsystem"), str)

    read = [r for r in (result, result.get("artifact")) if is_record(r)]
    listed = [r for r in result.get("results", []) if is_record(r)] if isinstance(result.get("results"), list) else []
    return read, listed


def select_run(spans: list[Span], trace_id: str | None, source: str) -> list[Span]:
    """The tool spans of one trace (the only one in the file, or ``trace_id``), in start order."""
    traces = sorted({s.trace_id for s in spans if is_tool_span(s)})
    if not traces:
        raise InputError(f"{source}: no execute_tool span (OTLP GenAI, gen_ai.operation.name execute_tool): nothing "
                         "to draft a contract from")
    if trace_id is None:
        if len(traces) != 1:
            raise InputError(f"{source}: {len(traces)} traces with execute_tool spans; choose one with --trace-id "
                             f"({', '.join(traces[:5])}{' …' if len(traces) > 5 else ''})")
        trace_id = traces[0]
    chosen = [(s.start, i, s) for i, s in enumerate(spans) if is_tool_span(s) and s.trace_id == trace_id]
    if not chosen:
        raise InputError(f"--trace-id {trace_id}: no execute_tool span of that trace in {source}")
    return [s for _, _, s in sorted(chosen, key=lambda row: row[:2])]


def _first_field(record: dict[str, Any], where: str) -> str:
    fields = [k for k in record if k not in SKIP_FIELDS]
    if not fields:
        raise InputError(f"{where}: the record has no field to verify")
    return fields[0]


def draft(spans: list[Span], action: str, *, name: str, actor: str, role: str) -> tuple[dict[str, Any], list[dict], list[str]]:
    """The draft config (one task contract), the touched artifacts and the review checklist lines."""
    artifacts: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, Any]] = {}
    preconditions: list[dict[str, Any]] = []
    checklist: list[str] = []
    calls: dict[str, int] = {}
    verified: set[str] = set()
    acted = False
    for span in spans:
        tool = span.attributes.get(TOOL)
        if not isinstance(tool, str) or not tool:
            raise span.refuse(f"execute_tool span has no {TOOL}")
        calls[tool] = calls.get(tool, 0) + 1
        if tool == action:
            acted = True
            tools[tool] = {"action": True}
            continue
        result = _json_value(span, RESULT, required=False)
        records, listed = _records(result)
        for record in listed:       # seen in a result list: touched, not verified
            artifacts.setdefault(record["id"], dict(record))
        for record in records:
            if record["id"] in verified:
                continue
            verified.add(record["id"])
            artifacts[record["id"]] = dict(record)
            field = _first_field(record, f"{span.where}: span {span.span_id}")
            preconditions.append({"check": f"{record['id']}_{field}".lower().replace("-", "_"),
                                  "description": f"REVIEW: what must hold of {record['id']}.{field} before acting",
                                  "required_facts": [field], "ground_truth_field": f"{record['id']}.{field}",
                                  "expected": record[field]})
            checklist.append(f"{record['id']} (read with {tool}): the check is on field `{field}` (the record also "
                             f"has {', '.join(k for k in record if k not in SKIP_FIELDS and k != field) or 'nothing else'}); "
                             f"`expected: {record[field]!r}` is the value the run saw: is it the value that must hold?")
        if not records and not listed and isinstance(result, dict) and tool not in tools:
            field = _first_field(result, f"{span.where}: span {span.span_id}")
            tools[tool] = {"returns": {k: v for k, v in result.items() if k not in SKIP_FIELDS}, "subsystem": "tools"}
            preconditions.append({"check": f"{tool}_{field}".lower(), "description": f"REVIEW: what must hold of "
                                  f"{tool}'s {field} before acting", "required_facts": [field], "required_tool": tool,
                                  "expected_field": field, "expected": result[field]})
            checklist.append(f"{tool}: its first result is the fixture; the check is on `{field}`, expected "
                             f"{result[field]!r} (the value the run saw): confirm both, and the subsystem `tools`")
    if not preconditions:
        raise InputError(f"{spans[0].where}: the run read no record (no tool result with id and subsystem, and no "
                         f"object result): nothing to verify before {action}")
    subsystems = sorted({a["subsystem"] for a in artifacts.values()} | ({"tools"} if any("returns" in t for t in
                                                                                          tools.values()) else set()))
    contract: dict[str, Any] = {"name": name, "reviewed": False,
                "task_description": f"REVIEW: describe the task; the observed agent decided to "
                                    f"{'call' if acted else 'not call'} {action}",
                "actor": actor, "preconditions": preconditions, "decision_field": "should_act",
                "expected_action": acted, "allowed_tools": dict(sorted(tools.items())) or {action: {"action": True}}}
    contract["allowed_tools"].setdefault(action, {"action": True})
    checklist += [f"expected_action: {str(acted).lower()} is what the observed agent did ({action} "
                  f"{'called' if acted else 'never called'}), not necessarily what is right: confirm it",
                  f"actor `{actor}`, role `{role}` reading {', '.join(subsystems)}: set the real role and what it may read",
                  "tools used: " + ", ".join(f"{t} ×{n}" for t, n in sorted(calls.items())),
                  "task_description: replace the REVIEW text with what the agent is asked to do",
                  "then set `reviewed: true` in config.yaml; until then build groundeval refuses the contract"]
    config = {"actors": {actor: role}, "roles": {role: {"subsystems": subsystems}}, "artifacts_dir": "data",
              "task_contracts": [contract]}
    return config, [artifacts[k] for k in sorted(artifacts)], checklist


def write_draft(files: list[Path], out: Path, action: str, *, trace_id: str | None = None, name: str = "observed_task",
                actor: str = "agent", role: str = "agent") -> int:
    """Read the run's spans, write the draft domain to ``out`` (staged); the number of preconditions drafted."""
    import yaml

    from judges.groundeval.otlp_import import SpanRefused

    try:
        spans = [s for path in files for s in read_spans(Path(path))]
        config, artifacts, checklist = draft(select_run(spans, trace_id, ", ".join(map(str, files))), action,
                                             name=name, actor=actor, role=role)
    except SpanRefused as exc:
        raise InputError(f"{exc}; nothing written") from None
    with staged_directory(Path(out)) as tmp:
        write_text_atomic(tmp / "config.yaml", "# DRAFT from an observed run: go through REVIEW.md first\n"
                          + yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        (tmp / "data").mkdir()
        write_json(tmp / "data" / "observed.json", artifacts)
        write_text_atomic(tmp / "REVIEW.md", f"# Review checklist: {name}\n\nDrafted from "
                          f"{', '.join(Path(f).name for f in files)}. Tick each before setting `reviewed: true`.\n\n"
                          + "".join(f"- [ ] {line}\n" for line in checklist))
    return len(config["task_contracts"][0]["preconditions"])
