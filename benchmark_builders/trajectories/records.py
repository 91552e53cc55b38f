"""Trajectory records: OpenAI-chat messages with tool calls, kept apart from their step labels.

A trajectory suite is a directory with ``suite.json``, ``trajectories.jsonl``
(the messages a judge may read), ``labels.jsonl`` (the truth: per-step labels
+1 / 0 / -1 and how each was constructed) and ``MANIFEST.json``. Labels live
in their own file so that code rendering judge inputs never holds them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from benchmark_builders.trajectories.identifiers import disguising_character, id_problem, index_key
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import (read_json, require_sealed, staged_directory, write_json, write_jsonl,
                                   write_manifest)

ROLES = ("system", "user", "assistant", "tool")
LABEL_VALUES = (-1, 0, 1)
TRAJECTORIES_FILE = "trajectories.jsonl"
LABELS_FILE = "labels.jsonl"
SUITE_FILE = "suite.json"


_FRAME_CHARS = re.compile("[ \\[\\]()\u27e6\u27e7]")


def token_problem(text: str, *, name: bool = False) -> str:
    """Why ``text`` cannot stand in a packet's frame as one token (a call id or tool name), or ''.

    Ids are rendered byte for byte and names verbatim, so neither may contain
    whitespace or non-printable characters (a line break would forge packet
    structure) nor the packet escape brackets ``⟦`` ``⟧``, nor ``[ ] ( )``,
    which end a header or a name; neither may be empty.
    """
    if text and text.isascii() and text.isprintable() and not _FRAME_CHARS.search(text):
        return ""                                   # the common case
    if not text:
        return "must not be empty"
    if any(ch.isspace() or not ch.isprintable() or ch in "\u27e6\u27e7" for ch in text):
        return "must be one token (no whitespace, control characters or packet escape brackets)"
    if _FRAME_CHARS.search(text):
        return "must not contain brackets or parentheses ([ ] ( )), which end frame fields"
    if any(map(disguising_character, text)):
        return "must not contain characters that render blank or look like brackets (U+3164, U+2800, a fullwidth [ ...)"
    return ""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One structured call: its id, the tool's name and the arguments exactly as recorded (a JSON string)."""

    id: str
    name: str
    arguments: str

    def to_json(self) -> dict[str, Any]:
        """The call in OpenAI chat format."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message: role, text content (may be empty), calls it makes, and the call id it answers."""

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The message in OpenAI chat format (absent fields omitted)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [call.to_json() for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        return out


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A recorded run: its id, the cluster it belongs to (shared user request) and its messages."""

    trajectory_id: str
    cluster: str
    messages: tuple[ChatMessage, ...]
    source: str = "orgbench"
    tools: str | None = None          # the tool schemas the agent was given, as canonical JSON text (kept, not shown)

    def to_json(self) -> dict[str, Any]:
        """The trajectory as one JSONL object (no labels)."""
        out = {"trajectory_id": self.trajectory_id, "cluster": self.cluster, "source": self.source,
               "messages": [m.to_json() for m in self.messages]}
        if self.tools is not None:
            out["tools"] = json.loads(self.tools)
        return out


@dataclass(frozen=True, slots=True)
class StepLabels:
    """The truth for one trajectory: label per judged message index, and why (error kind per index)."""

    trajectory_id: str
    labels: Mapping[int, int]
    notes: Mapping[int, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Labels as JSON (message indices as sorted string keys)."""
        return {"trajectory_id": self.trajectory_id,
                "labels": {str(i): self.labels[i] for i in sorted(self.labels)},
                "notes": {str(i): self.notes[i] for i in sorted(self.notes)}}


def check_token(text: str, field_name: str, *, name: bool = False) -> None:
    """Raise an input error naming ``field_name`` when ``text`` is not one frame token (see ``token_problem``)."""
    problem = token_problem(text, name=name)
    if problem:
        raise InputError(f"{field_name} {problem}, got {text!r}")


def message_from_json(obj: Any, where: str) -> ChatMessage:
    """Parse one OpenAI-chat message; ``where`` names file, line and index for errors."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: message is not an object")
    role = obj.get("role")
    if role not in ROLES:
        raise InputError(f"{where}: field role must be one of {', '.join(ROLES)}, got {role!r}")
    content = obj.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise InputError(f"{where}: field content must be a string or null")
    calls = []
    for k, raw in enumerate(obj.get("tool_calls") or ()):
        fn = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(fn, dict) or not isinstance(raw.get("id"), str) or not isinstance(fn.get("name"), str):
            raise InputError(f"{where}: field tool_calls[{k}] needs id and function.name")
        arguments = fn.get("arguments", "")
        if not isinstance(arguments, str):
            raise InputError(f"{where}: field tool_calls[{k}].function.arguments must be a JSON string")
        check_token(raw["id"], f"{where}: field tool_calls[{k}].id")
        check_token(fn["name"], f"{where}: field tool_calls[{k}].function.name", name=True)
        calls.append(ToolCall(raw["id"], fn["name"], arguments))
    call_id = obj.get("tool_call_id")
    if call_id is not None and not isinstance(call_id, str):
        raise InputError(f"{where}: field tool_call_id must be a string")
    if call_id is not None:
        check_token(call_id, f"{where}: field tool_call_id")
    name = obj.get("name")
    return ChatMessage(role, content, tuple(calls), call_id, name if isinstance(name, str) else None)


def trajectory_from_json(obj: Any, where: str) -> Trajectory:
    """Parse one trajectory line; ``where`` names the file and line."""
    if not isinstance(obj, dict) or not isinstance(obj.get("trajectory_id"), str):
        raise InputError(f"{where}: field trajectory_id missing")
    bad_id = id_problem(obj["trajectory_id"])
    if bad_id:
        raise InputError(f"{where}: field trajectory_id {obj['trajectory_id'][:60]!r} {bad_id}")
    raw = obj.get("messages")
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: field messages must be a non-empty list")
    messages = tuple(message_from_json(m, f"{where}: messages[{i}]") for i, m in enumerate(raw))
    tools = obj.get("tools")
    return Trajectory(obj["trajectory_id"], str(obj.get("cluster") or obj["trajectory_id"]), messages,
                      str(obj.get("source") or "orgbench"), canonical_tools(tools) if tools is not None else None)


def canonical_tools(tools: Any) -> str:
    """Tool schemas as canonical JSON text (sorted keys), so a suite keeps them byte-stable."""
    return json.dumps(tools, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def labels_from_json(obj: Any, where: str) -> StepLabels:
    """Parse one labels line; ``where`` names the file and line."""
    if not isinstance(obj, dict) or not isinstance(obj.get("trajectory_id"), str):
        raise InputError(f"{where}: field trajectory_id missing")
    for name in ("labels", "notes"):
        if not isinstance(obj.get(name) or {}, dict):
            raise InputError(f"{where}: field {name} must be an object {{message index: value}}")
    labels = {}
    for key, value in (obj.get("labels") or {}).items():
        index = index_key(key)
        if index is None:
            raise InputError(f"{where}: field labels key {key!r} is not a message index in canonical form")
        if value not in LABEL_VALUES:
            raise InputError(f"{where}: field labels[{key}] must be -1, 0 or 1, got {value!r}")
        labels[index] = int(value)
    notes: dict[int, str] = {}
    for key, value in (obj.get("notes") or {}).items():
        index = index_key(key)
        if index is None:
            raise InputError(f"{where}: field notes has a key that is not a message index in canonical form")
        notes[index] = str(value)
    return StepLabels(obj["trajectory_id"], labels, notes)


def write_suite_files(directory: Path, trajectories: Iterable[Trajectory], labels: Iterable[StepLabels],
                      meta: Mapping[str, Any]) -> None:
    """Write a suite's files into an existing (temporary) directory, without the manifest."""
    trajectories = list(trajectories)
    write_json(Path(directory) / SUITE_FILE, {**dict(meta), "trajectories": len(trajectories)})
    write_jsonl(Path(directory) / TRAJECTORIES_FILE, (t.to_json() for t in trajectories))
    write_jsonl(Path(directory) / LABELS_FILE, (l.to_json() for l in labels))


def write_suite(directory: Path, trajectories: Iterable[Trajectory], labels: Iterable[StepLabels],
                meta: Mapping[str, Any]) -> None:
    """Write a sealed trajectory suite atomically (files plus MANIFEST.json)."""
    with staged_directory(Path(directory)) as tmp:
        write_suite_files(tmp, trajectories, labels, meta)
        write_manifest(tmp)


def trajectories_of(lines: Iterable[tuple[int, Any]], path: Path) -> list[Trajectory]:
    """The trajectories of ``path``'s numbered JSON lines; a malformed record, a repeated id or none is bad input."""
    out = []
    seen: set[str] = set()
    for number, obj in lines:
        trajectory = trajectory_from_json(obj, f"{path}:{number}")
        if trajectory.trajectory_id in seen:
            raise InputError(f"{path}:{number}: duplicate trajectory_id {trajectory.trajectory_id}")
        seen.add(trajectory.trajectory_id)
        out.append(trajectory)
    if not out:
        raise InputError(f"{path}: no trajectories")
    return out


def labels_of(lines: Iterable[tuple[int, Any]], path: Path,
              trajectories: Iterable[Trajectory]) -> dict[str, StepLabels]:
    """The labels of ``path``'s numbered JSON lines, by trajectory id, each checked against the suite's trajectories.

    A second line for one trajectory, a line for a trajectory the suite does not hold, or a label or note on a
    message index past the trajectory's last message is bad input: its truth would be lost without a word.
    """
    lengths = {t.trajectory_id: len(t.messages) for t in trajectories}
    out: dict[str, StepLabels] = {}
    for number, obj in lines:
        where = f"{path}:{number}"
        labels = labels_from_json(obj, where)
        if labels.trajectory_id in out:                 # never "the last one wins"
            raise InputError(f"{where}: a second labels line for trajectory {labels.trajectory_id}")
        if labels.trajectory_id not in lengths:
            raise InputError(f"{where}: field trajectory_id {labels.trajectory_id!r} is not a trajectory of the "
                             f"suite's {TRAJECTORIES_FILE}")
        count = lengths[labels.trajectory_id]
        for name, indices in (("labels", labels.labels), ("notes", labels.notes)):
            past = [i for i in sorted(indices) if i >= count]
            if past:
                raise InputError(f"{where}: field {name}[{past[0]}]: trajectory {labels.trajectory_id} has "
                                 f"{count} messages (indices 0-{count - 1})")
        out[labels.trajectory_id] = labels
    return out


def read_trajectories(path: Path) -> list[Trajectory]:
    """Read trajectories.jsonl, naming file and line on any malformed record."""
    return trajectories_of(read_jsonl(Path(path)).numbered(), Path(path))


def read_suite(directory: Path, *, verify: bool = True) -> tuple[list[Trajectory], dict[str, StepLabels]]:
    """Read a suite; with ``verify``, refuse one whose files differ from its manifest."""
    directory = Path(directory)
    if not (directory / TRAJECTORIES_FILE).is_file():
        raise InputError(f"{directory / TRAJECTORIES_FILE}: file not found (not a trajectory suite)")
    if verify:
        require_sealed(directory, "a sealed trajectory suite")
    trajectories = read_trajectories(directory / TRAJECTORIES_FILE)
    path = directory / LABELS_FILE
    labels = labels_of(read_jsonl(path).numbered(), path, trajectories) if path.is_file() else {}
    return trajectories, labels


def suite_meta(directory: Path) -> dict[str, Any]:
    """The suite.json of a suite directory."""
    return read_json(Path(directory) / SUITE_FILE)
