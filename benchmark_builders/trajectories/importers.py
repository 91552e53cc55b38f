"""Importers for recorded trajectories: AgentProcessBench-style JSONL and tau2-style messages.

Every record is linked -- each tool result to the call it answers, by id --
and anything that cannot be linked or read is reported with its file and
line: a line that is not UTF-8 or not a JSON object, a result that answers no
call, a duplicate call or trajectory id, a message with neither content nor
calls, a label of a shape or value that cannot be read. Each record is judged
on its own and whole: ``import_file`` returns the records without a problem
beside every rejected record with all of its problems, and the caller decides
whether one rejected record stops the import or is left out (and listed).
Nothing is dropped silently, and no record is half-imported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark_builders.trajectories.identifiers import id_problem, index_key
from benchmark_builders.trajectories.label_files import LabelFile, tau2_results_records
from benchmark_builders.trajectories.records import (LABEL_VALUES, ChatMessage, StepLabels, ToolCall, Trajectory,
                                                     canonical_tools, check_token, message_from_json)
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import read_bytes

FORMATS = ("apb", "openai", "tau2")   # apb and openai: OpenAI-chat messages; tau2: results linked by id


@dataclass(frozen=True, slots=True)
class RejectedRecord:
    """A record that cannot be imported: its line, its own id when it has one, and every problem found in it."""

    line: int
    record_id: str | None
    problems: tuple[str, ...]          # each names file and line

    def to_json(self, path: Path) -> dict[str, Any]:
        """The record for suite.json, its problems naming the file by name only (as suite.json does)."""
        prefix = f"{path}:"
        return {"line": self.line, "record_id": self.record_id,
                "problems": [f"{path.name}:{p.removeprefix(prefix)}" if p.startswith(prefix) else p
                             for p in self.problems]}


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import read: the records without a problem (trajectories, labels) and every rejected record."""

    path: Path
    trajectories: tuple[Trajectory, ...]
    labels: tuple[StepLabels, ...]
    rejected: tuple[RejectedRecord, ...]

    @property
    def records_read(self) -> int:
        """How many records the file held: each one is imported or rejected."""
        return len(self.trajectories) + len(self.rejected)

    @property
    def problems(self) -> tuple[str, ...]:
        """Every problem of every rejected record, in file order."""
        return tuple(problem for record in self.rejected for problem in record.problems)

    def to_json(self) -> dict[str, Any]:
        """The import section of suite.json: the file, records read, imported, and each record left out."""
        return {"file": self.path.name, "records_read": self.records_read, "imported": len(self.trajectories),
                "skipped": [record.to_json(self.path) for record in self.rejected]}


def link_problems(messages: tuple[ChatMessage, ...], where: str) -> list[str]:
    """Every unlinkable thing in one trajectory, each line naming ``where`` and the message index."""
    problems = []
    open_calls: dict[str, int] = {}
    seen_ids: dict[str, int] = {}
    for i, message in enumerate(messages):
        if message.role in ("user", "assistant") and not message.content and not message.tool_calls:
            problems.append(f"{where}: messages[{i}]: {message.role} message with neither content nor tool calls")
        for call in message.tool_calls:
            if call.id in seen_ids:
                problems.append(f"{where}: messages[{i}]: duplicate call id {call.id} "
                                f"(first made in messages[{seen_ids[call.id]}])")
                continue
            seen_ids[call.id] = i
            open_calls[call.id] = i
        if message.role == "tool":
            if message.tool_call_id is None:
                problems.append(f"{where}: messages[{i}]: tool result without a call id")
            elif message.tool_call_id not in open_calls:
                answered = " (already answered)" if message.tool_call_id in seen_ids else ""
                problems.append(f"{where}: messages[{i}]: tool result answers no call: id {message.tool_call_id}"
                                f"{answered}")
            else:
                del open_calls[message.tool_call_id]
    for call_id, i in sorted(open_calls.items(), key=lambda item: (item[1], item[0])):
        problems.append(f"{where}: messages[{i}]: call {call_id} is never answered by a tool result")
    return problems


def _label_items(obj: dict[str, Any], raw_messages: list[Any], where: str,
                 problems: list[str]) -> list[tuple[Any, Any]]:
    """(message index, label) pairs from the one label field a record uses; any other shape is a problem."""
    given = [key for key in ("labels", "step_labels") if obj.get(key) is not None]
    if any(isinstance(m, dict) and "label" in m for m in raw_messages):
        given.append("messages[].label")
    if len(given) > 1:
        problems.append(f"{where}: labels given in more than one field ({', '.join(given)}); keep one")
        return []
    if not given:
        return []
    key = given[0]
    if key == "messages[].label":
        return [(i, m["label"]) for i, m in enumerate(raw_messages) if isinstance(m, dict) and "label" in m]
    raw = obj[key]
    if isinstance(raw, dict):                    # {message index: label}, AgentProcessBench's step_labels
        return list(raw.items())
    if not isinstance(raw, list):
        problems.append(f"{where}: field {key} must be an object {{message index: label}} or a list of "
                        f"{{message_index, label}} objects, got {type(raw).__name__}")
        return []
    items = []
    for k, item in enumerate(raw):
        if not isinstance(item, dict) or "message_index" not in item or "label" not in item:
            problems.append(f"{where}: field {key}[{k}] must be an object {{message_index, label}}, "
                            f"got {json.dumps(item)[:60]}")
            continue
        items.append((item["message_index"], item["label"]))
    return items


def _labels(obj: dict[str, Any], raw_messages: list[Any], trajectory_id: str, where: str,
            problems: list[str]) -> StepLabels:
    """The record's step labels; every label that cannot be read is a problem, never dropped silently."""
    labels: dict[int, int] = {}
    for key, value in _label_items(obj, raw_messages, where, problems):
        index = index_key(key)
        if index is None:
            numeric = isinstance(key, str) and key.strip().lstrip("+-").isdecimal() and key.strip().isascii()
            problems.append(f"{where}: labels: key {key!r} is not a canonical message index (write "
                            f"{int(key)})" if numeric else f"{where}: labels: key {key!r} is not a message index")
            continue
        if isinstance(value, bool) or value not in LABEL_VALUES or not 0 <= index < len(raw_messages):
            problems.append(f"{where}: labels[{key}]: must be -1, 0 or 1 on an existing message, got {value!r}")
            continue
        if index in labels:
            problems.append(f"{where}: labels[{key}]: message {index} is labelled twice")
            continue
        labels[index] = int(value)
    return StepLabels(trajectory_id, labels)


def _tau2_message(raw: Any, where: str) -> ChatMessage:
    """Convert one tau2-style message (calls with dict arguments, results linked by ``id``)."""
    if not isinstance(raw, dict):
        raise InputError(f"{where}: message is not an object")
    role = raw.get("role")
    calls = []
    for k, call in enumerate(raw.get("tool_calls") or ()):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not isinstance(call.get("name"), str):
            raise InputError(f"{where}: field tool_calls[{k}] needs id and name")
        check_token(call["id"], f"{where}: field tool_calls[{k}].id")
        check_token(call["name"], f"{where}: field tool_calls[{k}].name", name=True)
        arguments = call.get("arguments", {})
        calls.append(ToolCall(call["id"], call["name"],
                              arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)))
    if role == "tool":
        call_id = raw.get("id", raw.get("tool_call_id"))
        if isinstance(call_id, str):
            check_token(call_id, f"{where}: field id")
        return ChatMessage("tool", raw.get("content") or "", (), call_id if isinstance(call_id, str) else None,
                           raw.get("name") if isinstance(raw.get("name"), str) else None)
    converted = {"role": role, "content": raw.get("content")}
    message = message_from_json(converted, where)
    return ChatMessage(message.role, message.content, tuple(calls))


def _record_lines(path: Path) -> list[bytes]:
    """The file's lines as bytes (each is decoded on its own), or InputError when the file cannot be read at all.

    A tau2 ``results.json`` (one JSON object holding ``simulations``) becomes one line per simulation.
    """
    data = read_bytes(path, "JSONL file or tau2 results.json (--import)")
    if data.lstrip().startswith(b"{") and b'"simulations"' in data[:1 << 20]:
        rows = tau2_results_records(data, path)
        if rows is not None:
            return rows
    return data.split(b"\n")


def _read_record(obj: dict[str, Any], fmt: str, trajectory_id: str, where: str, source: str,
                 problems: list[str]) -> tuple[Trajectory, StepLabels] | None:
    """One record's trajectory and labels, every problem appended to ``problems`` (then the record is None)."""
    raw_messages = obj.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        problems.append(f"{where}: field messages must be a non-empty list")
        return None
    convert = _tau2_message if fmt == "tau2" else message_from_json
    messages = []
    for i, raw in enumerate(raw_messages):
        try:
            messages.append(convert(raw, f"{where}: messages[{i}]"))
        except InputError as exc:
            problems.append(exc.message)
    if len(messages) == len(raw_messages):        # links are only judged on a record whose every message was read
        problems.extend(link_problems(tuple(messages), where))
    labels = _labels(obj, raw_messages, trajectory_id, where, problems)
    tools = obj.get("tools")
    if tools is not None and not isinstance(tools, list):
        problems.append(f"{where}: field tools must be a list of tool schemas, got {type(tools).__name__}")
    if problems:
        return None
    return Trajectory(trajectory_id, record_cluster(obj, trajectory_id), tuple(messages), source,
                      canonical_tools(tools) if tools is not None else None), labels


def record_cluster(obj: dict[str, Any], trajectory_id: str) -> str:
    """The shared user request a record belongs to: ``cluster``, tau2's ``task_id``, or AgentProcessBench's
    ``query_index`` (within its ``data_source``); else the record is its own cluster."""
    for key in ("cluster", "task_id", "query_id"):
        if obj.get(key) not in (None, ""):
            return str(obj[key])
    if isinstance(obj.get("query_index"), int):
        return f"{obj['data_source']}:{obj['query_index']}" if obj.get("data_source") else str(obj["query_index"])
    return trajectory_id


def record_key(obj: dict[str, Any]) -> str | None:
    """AgentProcessBench's join key ``data_source:query_index:sample_index`` (its label files' ``record_id``)."""
    if all(obj.get(k) is not None for k in ("data_source", "query_index", "sample_index")):
        return f"{obj['data_source']}:{obj['query_index']}:{obj['sample_index']}"
    return None


def record_id(obj: dict[str, Any]) -> str | None:
    """A record's own id: ``trajectory_id``, ``id``, else AgentProcessBench's ``total_index``."""
    for key in ("trajectory_id", "id"):
        if obj.get(key) not in (None, ""):
            return str(obj[key])
    index = obj.get("total_index")
    return str(index) if isinstance(index, int) and not isinstance(index, bool) else None


def import_file(path: Path, fmt: str, labels_file: Path | None = None) -> ImportResult:
    """Read ``path`` (``apb``, ``openai``, ``tau2`` JSONL, or a tau2 ``results.json``): each record imported
    whole or rejected; ``labels_file`` holds labels stored apart (AgentProcessBench's ``*_final.jsonl``).

    Only a file that cannot be read at all (missing, a directory, unreadable)
    or holds no record raises; a line that is not UTF-8 or not a JSON object
    rejects that record alone. A label line that matches no record is bad input.
    """
    if fmt not in FORMATS:
        raise InputError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    path = Path(path)
    joined = LabelFile.read(Path(labels_file)) if labels_file is not None else None
    keys: dict[str | None, int] = {}
    source = f"{fmt}:{path.name}"
    trajectories, labels, rejected = [], [], []
    seen: set[str] = set()
    lines = _record_lines(path)
    for line in read_jsonl(path, lines, lenient=True, unique_keys=True):
        number, obj, unreadable = line.number, line.value, line.problem
        where = f"{path}:{number}"
        own_id, problems, record = None, [], None
        if unreadable is not None:
            problems.append(f"{where}: {unreadable}")
        elif isinstance(obj, dict):
            own_id = record_id(obj)
            trajectory_id = own_id or f"{path.stem}-{number}"
            bad_id = id_problem(trajectory_id)
            if bad_id:
                problems.append(f"{where}: trajectory id {trajectory_id[:60]!r} {bad_id} (ids: docs/assurance.md)")
            if trajectory_id in seen:
                problems.append(f"{where}: duplicate trajectory id {trajectory_id}")
            seen.add(trajectory_id)
            key = record_key(obj)
            if key is not None and key in keys:
                problems.append(f"{where}: record {key} present twice (first at line {keys[key]})")
            keys.setdefault(key, number)
            if joined is not None:
                obj = joined.attach(obj, key, where, problems)
            record = _read_record(obj, fmt, trajectory_id, where, source, problems)
        else:
            problems.append(f"{where}: record is not an object")
        if record is None:
            rejected.append(RejectedRecord(number, own_id, tuple(problems)))
        else:
            trajectories.append(record[0])
            labels.append(record[1])
    if not (trajectories or rejected):
        raise InputError(f"{path}: no trajectory records")
    if joined is not None:
        joined.require_all_used()
    return ImportResult(path, tuple(trajectories), tuple(labels), tuple(rejected))
