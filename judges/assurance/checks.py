"""Checkers: named requirements on source records and on packets, each able to pass and to fail.

Source requirements cover the records a packet is built from; packet
requirements compare a packet's bytes, parsed independently of the renderer,
with the source record they claim to show. Call/result matching runs in both
directions: ``calls-answered`` (every call, the simulated user's included, has
a result) and ``results-answer-calls`` (every result answers one earlier,
not yet answered call) -- the reverse direction is control P3.
``arguments-json`` only flags invalid argument JSON -- text that does not
parse, a JSON string holding the JSON (double encoded) or any other
non-object -- (it is data to be judged, rendered verbatim), it never fails a
record. Call ids, result ids and tool names must be single tokens
(``records.token_problem``): the packet checks fail a trajectory whose frame
tokens could forge structure, on the quick path and in detail alike.

"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Sequence

from benchmark_builders.trajectories.records import ChatMessage, StepLabels, Trajectory, token_problem
from judges.assurance.packet_syntax import (_Block, _expected_content, content_from_lines, expected_content_lines,
                                            parse_packet, shown_arguments, unescape)  # noqa: F401  (unescape: re-exported)
from judges.assurance.render import PacketSpec

REQUIREMENTS: dict[str, str] = {
    "call-ids-unique": "no two tool calls in a trajectory share an id",
    "calls-answered": "every tool call (assistant or simulated user) is answered by a tool result",
    "results-answer-calls": "every tool result answers exactly one earlier, unanswered call (user calls count)",
    "steps-not-empty": "every user and assistant message has content or tool calls",
    "arguments-json": "invalid argument JSON (not parsing, double encoded, not an object) is flagged and rendered verbatim",
    "packet-structure": "the packet parses: headers, call lines with exact byte lengths, LF the only line break "
                        "(str.splitlines() and the byte parser read the same lines)",
    "messages-in-order": "the packet shows the source messages in order with their roles and content that "
                         "un-escapes to the source text exactly",
    "calls-rendered": "restored packets show every call under its message: id, name and byte-identical arguments",
    "results-show-ids": "every rendered tool result shows the id of the call it answers",
    "target-marked-once": "exactly one target marker pair, enclosing exactly the target message",
    "extent": "a prefix packet ends at the target step; a full packet reaches the last message",
    "delimiters-neutralised": "no content line can be read as packet structure",
    "excluded-fields-absent": "labels and other excluded fields never appear in a packet: text the source does not "
                              "account for names no excluded field and carries none of the record's excluded values",
}

# An excluded field's name used as a key (``label:``, ``"notes" =``, ``error_kind:`` ...), matched case-insensitively.
_EXCLUDED_KEY = re.compile(rb'(?i)(?<![a-z0-9_])(?:labels?|step_labels?|notes?|error_kinds?)"?[ \t]*[:=]')


def excluded_values(labels: StepLabels | None) -> tuple[bytes, ...]:
    """The record's own excluded values a packet must not carry: its notes (how each label was made)."""
    if labels is None:
        return ()
    return tuple(sorted({note.encode("utf-8") for note in labels.notes.values() if note}))


def _excluded(residual: list[bytes], values: tuple[bytes, ...] = ()) -> str | None:
    """The first excluded-field text in the packet's residual (bytes not accounted for by the source), or None.

    Only the residual is searched: text that is the source's own content is data to be judged, so a user who
    writes "Note: ..." or a tool that returns ``"label": 1`` is shown as is. An excluded field can only reach
    a packet as bytes the source does not account for, and there it is found by name or by the record's value.
    """
    for text in residual:
        found = _EXCLUDED_KEY.search(text)
        if found:
            return found.group(0).strip().decode("utf-8", "replace")
        lowered = text.lower()
        for value in values:
            if value.lower() in lowered:
                return value.decode("utf-8", "replace")
    return None


@dataclass(frozen=True, slots=True)
class Finding:
    """One requirement's outcome on one object: passed, failed, or a flag that does not fail."""

    requirement: str
    ok: bool
    detail: str = ""
    subject: str = ""

    @staticmethod
    def failed(requirement: str, detail: str) -> "Finding":
        """A failure of ``requirement``, its detail naming what failed (as a stage records it)."""
        return Finding(requirement, False, detail)

    def to_json(self) -> dict:
        """The finding as JSON."""
        return {"requirement": self.requirement, "ok": self.ok, "detail": self.detail, "subject": self.subject}


def check_source(trajectory: Trajectory, *, reverse: bool = True) -> list[Finding]:
    """Source requirements on one trajectory; ``reverse=False`` skips reverse matching (controls below P3)."""
    subject = trajectory.trajectory_id
    out: list[Finding] = []
    calls: dict[str, int] = {}
    duplicates, empty, invalid = [], [], []
    for i, message in enumerate(trajectory.messages):
        if message.role in ("user", "assistant") and not message.content and not message.tool_calls:
            empty.append(i)
        for call in message.tool_calls:
            if call.id in calls:
                duplicates.append(call.id)
            calls.setdefault(call.id, i)
            try:
                value = json.loads(call.arguments)
            except ValueError:
                invalid.append(f"{call.id}@{i}")
            else:
                if isinstance(value, str):
                    invalid.append(f"{call.id}@{i} (double encoded)")
                elif not isinstance(value, dict):
                    invalid.append(f"{call.id}@{i} (not an object)")
    out.append(Finding("call-ids-unique", not duplicates, ", ".join(duplicates), subject))
    out.append(Finding("steps-not-empty", not empty, ", ".join(f"messages[{i}]" for i in empty), subject))
    out.append(Finding("arguments-json", True, ("invalid JSON: " + ", ".join(invalid)) if invalid else "", subject))
    answered = {m.tool_call_id for m in trajectory.messages if m.role == "tool" and m.tool_call_id is not None}
    unanswered = sorted(c for c in calls if c not in answered)
    out.append(Finding("calls-answered", not unanswered, ", ".join(unanswered), subject))
    if reverse:
        out.append(_reverse_matching(trajectory))
    return out


def _reverse_matching(trajectory: Trajectory) -> Finding:
    """Every tool result must answer one earlier call that no earlier result answered."""
    open_calls: set[str] = set()
    answered: set[str] = set()
    bad = []
    for i, message in enumerate(trajectory.messages):
        if message.role == "tool":
            call_id = message.tool_call_id
            if call_id is None or call_id not in open_calls:
                why = "already answered" if call_id in answered else "no such earlier call"
                bad.append(f"messages[{i}] id={call_id} ({why})")
            else:
                open_calls.discard(call_id)
                answered.add(call_id)
        for call in message.tool_calls:
            open_calls.add(call.id)
    return Finding("results-answer-calls", not bad, "; ".join(bad), trajectory.trajectory_id)


def message_blocks(trajectory: Trajectory, restored: bool) -> list[bytes]:
    """Each message as the contract requires it in a packet (header, content lines, calls), one block each."""
    blocks = []
    for index, message in enumerate(trajectory.messages):
        if message.role == "tool":
            out = [f"[TOOL RESULT {index} id={message.tool_call_id}]".encode("utf-8")]
        else:
            out = [f"[MESSAGE {index} {message.role}]".encode("utf-8")]
        out.extend(expected_content_lines(message.content) if message.content else ())
        if restored:
            for call in message.tool_calls:
                arguments = shown_arguments(call.arguments)
                out.append(b"[TOOL CALL id=" + call.id.encode("utf-8") + b" bytes=" + str(len(arguments)).encode()
                           + b"] " + call.name.encode("utf-8") + b"(" + arguments + b")")
        blocks.append(b"\n".join(out) + b"\n")
    return blocks


def expected_packet(trajectory: Trajectory, spec: PacketSpec, blocks: list[bytes] | None = None) -> bytes:
    """The packet the contract requires, derived from the source record (written apart from the renderer)."""
    if blocks is None:
        blocks = message_blocks(trajectory, spec.rendering == "restored")
    target = spec.target_index
    stop = target + 1 if spec.extent == "prefix" else len(trajectory.messages)
    return b"".join(blocks[:target]) + b"[BEGIN TARGET STEP]\n" + blocks[target] + b"[END TARGET STEP]\n" + \
        b"".join(blocks[target + 1:stop])


@dataclass(frozen=True, slots=True)
class Contract:
    """One trajectory's expected message blocks (restored) and whether its frame tokens are unambiguous."""

    blocks: list[bytes]
    frame_safe: bool


def packet_contract(trajectory: Trajectory) -> Contract:
    """The contract every restored packet of ``trajectory`` is held to (computed once per trajectory)."""
    return Contract(message_blocks(trajectory, True), frame_tokens_safe(trajectory))


def check_packet(data: bytes, trajectory: Trajectory, spec: PacketSpec, contract: Contract | None = None,
                 excluded: tuple[bytes, ...] = ()) -> list[Finding]:
    """Packet requirements: the bytes against the source record and the packet's spec.

    ``contract`` (from ``packet_contract``) may be passed to reuse one trajectory's contract across packets;
    ``excluded`` (from ``excluded_values``) are the record's own excluded values.
    """
    if packet_holds(data, trajectory, spec, contract):
        return [Finding(name, True, "", spec.packet_id) for name in _PACKET_REQUIREMENTS]
    return _check_packet_in_detail(data, trajectory, spec, excluded)


def frame_tokens_safe(trajectory: Trajectory) -> bool:
    """Whether every call id, result id and tool name is one token, so the contract's frame is unambiguous."""
    for message in trajectory.messages:
        if message.tool_call_id is not None and token_problem(message.tool_call_id):
            return False
        for call in message.tool_calls:
            if token_problem(call.id) or token_problem(call.name, name=True):
                return False
    return True


def packet_holds(data: bytes, trajectory: Trajectory, spec: PacketSpec, contract: Contract | None = None) -> bool:
    """Whether every packet requirement holds: the bytes equal the contract's packet, whose frame is unambiguous.

    Equal bytes leave no residual, so no excluded field can be present (see ``_excluded``).
    """
    if spec.rendering != "restored":
        return False
    if contract is None:
        contract = packet_contract(trajectory)
    return contract.frame_safe and data == expected_packet(trajectory, spec, contract.blocks)


def original_holds(data: bytes, trajectory: Trajectory, spec: PacketSpec) -> bool:
    """Whether an original-rendering packet (asked for only to reproduce the failure) is exactly its contract:
    every message as the source gives it, calls omitted, frame tokens unambiguous."""
    return frame_tokens_safe(trajectory) and data == expected_packet(trajectory, spec)


def packet_requirement_count() -> int:
    """How many requirements ``check_packet`` reports on one packet."""
    return len(_PACKET_REQUIREMENTS)


def _residual_lines(shown: list[bytes], wanted: list[bytes]) -> list[bytes]:
    """The shown lines not matched, in order, to the wanted ones (what the source does not account for)."""
    if shown == wanted:
        return []
    matcher = SequenceMatcher(None, wanted, shown, autojunk=False)
    return [line for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for line in shown[j1:j2]]


@dataclass
class _Problems:
    """What the detailed packet check found wrong, per requirement, and the packet text the source does not explain."""

    order: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    neutral: list[str] = field(default_factory=list)
    residual: list[bytes] = field(default_factory=list)

    def add_residual(self, blocks: Sequence[_Block]) -> None:
        """The id, name and payload of each block, as text the source does not account for."""
        self.residual.extend(part for b in blocks for part in (b.ident.encode("utf-8"), b.name.encode("utf-8"),
                                                               b.payload))


def _marker_and_extent(blocks: list[_Block], trajectory: Trajectory, spec: PacketSpec, subject: str) -> list[Finding]:
    """The target is marked once, around the target step; the packet ends where its extent says."""
    markers = [k for k, b in enumerate(blocks) if b.kind in ("begin", "end")]
    kinds = [blocks[k].kind for k in markers]
    target_ok = kinds == ["begin", "end"]
    if target_ok:
        inner = [b for b in blocks[markers[0] + 1:markers[1]] if b.kind in ("message", "result")]
        target_ok = len(inner) == 1 and inner[0].index == spec.target_index
    messages = trajectory.messages
    if spec.extent == "prefix":
        extent_ok = bool(blocks) and blocks[-1].kind == "end"
        extent_why = "" if extent_ok else "prefix packet continues after the target step"
    else:
        shown = [b.index for b in blocks if b.kind in ("message", "result")]
        extent_ok = bool(shown) and shown[-1] == len(messages) - 1
        extent_why = "" if extent_ok else "full packet stops before the last message"
    return [Finding("target-marked-once", target_ok, "" if target_ok else f"markers {kinds}", subject),
            Finding("extent", extent_ok, extent_why, subject)]


def _grouped(blocks: list[_Block], problems: _Problems) -> list[tuple[_Block, list[_Block]]]:
    """Each message or result header with the text and call blocks that follow it."""
    grouped: list[tuple[_Block, list[_Block]]] = []
    for block in blocks:
        if block.kind in ("message", "result"):
            grouped.append((block, []))
        elif block.kind in ("text", "call") and grouped:
            grouped[-1][1].append(block)
        elif block.kind in ("text", "call"):
            problems.order.append("content before the first message")
            problems.add_residual([block])
    return grouped


def _check_message(header: _Block, body: list[_Block], source: ChatMessage, restored: bool,
                   problems: _Problems) -> None:
    """One shown message against its source message: role, result id, content, calls and their position."""
    where = f"messages[{header.index}]"
    role = "tool" if header.kind == "result" else header.role
    if role != source.role:
        problems.order.append(f"{where} shown as {role}, source is {source.role}")
    if header.kind == "result" and header.ident != str(source.tool_call_id):
        problems.ids.append(f"{where} shows id={header.ident}, answers {source.tool_call_id}")
        problems.residual.append(header.ident.encode("utf-8"))
    if source.tool_call_id is not None and token_problem(source.tool_call_id):
        problems.ids.append(f"{where} answers id {source.tool_call_id!r}, which is not one token")
    texts = [b.payload for b in body if b.kind == "text"]
    wanted_texts = _expected_content(source.content)
    if texts != wanted_texts or content_from_lines(texts) != source.content:
        problems.order.append(f"{where} content does not un-escape to the source text")
        problems.residual.extend(_residual_lines(texts, wanted_texts))
    for line in texts:
        if b"[BEGIN TARGET STEP]" in line or b"[END TARGET STEP]" in line:
            problems.neutral.append(f"{where} content carries a target marker")
    shown = [(b.ident, b.name, b.payload) for b in body if b.kind == "call"]
    wanted = [(c.id, c.name, shown_arguments(c.arguments)) for c in source.tool_calls]
    problems.residual.extend(part for s in shown if s not in wanted
                             for part in (s[0].encode("utf-8"), s[1].encode("utf-8"), s[2]))
    unsafe = [c.id for c in source.tool_calls if token_problem(c.id) or token_problem(c.name, name=True)]
    if unsafe:
        problems.calls.append(f"{where} call id or name of {unsafe[:3]!r} is not one token")
    if not restored and wanted:
        problems.calls.append(f"{where} original rendering omits {len(wanted)} call(s)")
    elif shown != wanted:
        missing = [w[0] for w in wanted if w not in shown]
        extra = [s[0] for s in shown if s not in wanted]
        problems.calls.append(f"{where} calls missing or changed {missing}, unexpected {extra}")
    sequence = [b.kind for b in body]
    if "call" in sequence and "text" in sequence[sequence.index("call"):]:
        problems.calls.append(f"{where} content after its calls (calls out of position)")


def _check_packet_in_detail(data: bytes, trajectory: Trajectory, spec: PacketSpec,
                            excluded: tuple[bytes, ...] = ()) -> list[Finding]:
    """Parse the packet and test each requirement on its own, naming what fails."""
    subject = spec.packet_id
    blocks, problem = parse_packet(data)
    if problem:
        return [Finding("packet-structure", False, problem, subject)]
    out = [Finding("packet-structure", True, "", subject), *_marker_and_extent(blocks, trajectory, spec, subject)]
    messages = trajectory.messages
    last = spec.target_index if spec.extent == "prefix" else len(messages) - 1
    problems = _Problems()
    grouped = _grouped(blocks, problems)
    if [g[0].index for g in grouped] != list(range(min(last, len(messages) - 1) + 1)):
        problems.order.append(f"message indices {[g[0].index for g in grouped][:12]} do not run 0..{last}")
    for header, body in grouped:
        if not 0 <= header.index < len(messages):
            problems.add_residual(body)
            continue
        _check_message(header, body, messages[header.index], spec.rendering == "restored", problems)
    found = _excluded(problems.residual, excluded)
    out.insert(1, Finding("excluded-fields-absent", found is None,
                          f"excluded field text {found!r} not in the source" if found else "", subject))
    for requirement, listed in (("messages-in-order", problems.order), ("calls-rendered", problems.calls),
                                ("results-show-ids", problems.ids), ("delimiters-neutralised", problems.neutral)):
        out.append(Finding(requirement, not listed, "; ".join(listed[:3]), subject))
    if all(f.ok for f in out) and data != expected_packet(trajectory, spec) and spec.rendering == "restored":
        expected = expected_packet(trajectory, spec)
        at = next((i for i, (a, b) in enumerate(zip(data, expected)) if a != b), min(len(data), len(expected)))
        out = [f if f.requirement != "messages-in-order" else
               Finding("messages-in-order", False, f"packet differs from the required packet at byte {at}", subject)
               for f in out]
    return out


_PACKET_REQUIREMENTS = ("packet-structure", "excluded-fields-absent", "target-marked-once", "extent",
                        "messages-in-order", "calls-rendered", "results-show-ids", "delimiters-neutralised")


def failures(findings: list[Finding]) -> list[Finding]:
    """The findings that failed."""
    return [f for f in findings if not f.ok]
