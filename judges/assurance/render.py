"""Packets: the text an LLM judge reads about one target step of a trajectory.

A packet lists the trajectory's messages in order. The target step is wrapped
in ``[BEGIN TARGET STEP]`` ... ``[END TARGET STEP]``; a *prefix* packet ends
there (not even the target's own tool result follows), a *full* packet runs to
the end. In the *restored* rendering every tool call appears under its message
as ``[TOOL CALL id=… bytes=N] name(arguments)`` with the arguments copied byte
for byte but for escaped line breaks (N is the UTF-8 length of what is shown,
so arguments of any shape parse back exactly); every result shows the id it answers. The *original* rendering omits
the calls -- kept only to reproduce the failure the paper studied.

Content cannot forge structure, and every escape is reversible: each line
break other than the LF between content lines (CR, VT, FF, U+001C-U+001E,
U+0085, U+2028, U+2029; in arguments LF too) and the escape opener ``⟦``
itself are written ``⟦U+XXXX⟧``; the ``[`` of a target marker inside content
is written ``⟦U+005B⟧``; a content line that a reader could take for
structure -- it starts with ``[`` or ``\\`` once leading blanks and invisible
format characters are dropped and lookalikes (fullwidth brackets) folded --
gets a leading ``\\`` (so every content line starting with ``\\`` is escaped). So ``str.splitlines()`` and a byte parser split a packet into
the same lines, and un-escaping gives back the source text exactly. Labels and
other truth never reach this module.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from benchmark_builders.trajectories.records import ChatMessage, Trajectory

EXTENTS = ("prefix", "full")
RENDERINGS = ("original", "restored")
BEGIN = "[BEGIN TARGET STEP]"
END = "[END TARGET STEP]"


@dataclass(frozen=True, slots=True)
class PacketSpec:
    """Which packet to render: trajectory, target message index and kind, extent, rendering."""

    trajectory_id: str
    target_index: int
    target_kind: str
    extent: str
    rendering: str

    @property
    def packet_id(self) -> str:
        """A readable, unique packet name."""
        return f"{self.trajectory_id}.{self.target_kind}.{self.extent}.{self.rendering}"

    @property
    def filename(self) -> str:
        """The packet's file name under ``packets/``."""
        return f"{self.packet_id}.txt"

    def to_json(self) -> dict:
        """The spec as a job-list JSON object."""
        return {"packet_id": self.packet_id, "trajectory_id": self.trajectory_id, "target_index": self.target_index,
                "target_kind": self.target_kind, "extent": self.extent, "rendering": self.rendering}


#: Every character ``str.splitlines()`` breaks a line at, besides LF (packets use LF line ends only).
LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
ESCAPE_OPEN = "\u27e6"      # ⟦, always escaped itself, so every ⟦ in a packet opens an escape
_CONTENT_ESCAPES = {ord(ch): f"\u27e6U+{ord(ch):04X}\u27e7" for ch in LINE_BREAKS + ESCAPE_OPEN}
_ARGUMENT_ESCAPES = {**_CONTENT_ESCAPES, ord("\n"): "\u27e6U+000A\u27e7"}
_MARKERS = ((BEGIN, "\u27e6U+005B\u27e7" + BEGIN[1:]), (END, "\u27e6U+005B\u27e7" + END[1:]))


def escape_arguments(arguments: str) -> str:
    """Arguments as one packet line: every line break and the escape opener written ``⟦U+XXXX⟧``."""
    return arguments.translate(_ARGUMENT_ESCAPES)


def looks_like_structure(line: str) -> bool:
    """Whether a reader could take the line for structure: once leading blanks and invisible format characters
    are dropped and lookalikes folded (NFKC), it starts with ``[`` or ``\\``."""
    if line[:1].isascii() and line[:1] not in ("[", "\\", " ", "\t"):
        return False                                  # the common case
    i = 0
    while i < len(line) and (line[i].isspace() or unicodedata.category(line[i]) == "Cf"
                             or not unicodedata.normalize("NFKC", line[i]).strip()):
        i += 1
    return unicodedata.normalize("NFKC", line[i:i + 2]).lstrip().startswith(("[", "\\"))


def neutralise(content: str) -> list[str]:
    """Content as packet lines that cannot be read as packet structure (reversibly escaped)."""
    content = content.translate(_CONTENT_ESCAPES)
    for marker, escaped in _MARKERS:
        content = content.replace(marker, escaped)
    return ["\\" + line if looks_like_structure(line) else line for line in content.split("\n")]


def _message_lines(index: int, message: ChatMessage, restored: bool, out: list[str]) -> None:
    if message.role == "tool":
        out.append(f"[TOOL RESULT {index} id={message.tool_call_id}]")
    else:
        out.append(f"[MESSAGE {index} {message.role}]")
    if message.content:
        out.extend(neutralise(message.content))
    if restored:
        for call in message.tool_calls:
            arguments = escape_arguments(call.arguments)
            out.append(f"[TOOL CALL id={call.id} bytes={len(arguments.encode('utf-8'))}] {call.name}({arguments})")


def _rendered_messages(trajectory: Trajectory, restored: bool) -> list[str]:
    """Each message rendered on its own (lines joined, with a final newline)."""
    out = []
    for index, message in enumerate(trajectory.messages):
        lines: list[str] = []
        _message_lines(index, message, restored, lines)
        out.append("\n".join(lines) + "\n")
    return out


def _assemble(rendered: list[str], spec: PacketSpec) -> bytes:
    last = spec.target_index if spec.extent == "prefix" else len(rendered) - 1
    target = spec.target_index
    return ("".join(rendered[:target]) + BEGIN + "\n" + rendered[target] + END + "\n"
            + "".join(rendered[target + 1:last + 1])).encode("utf-8")


def render_packet(trajectory: Trajectory, spec: PacketSpec) -> bytes:
    """The packet's exact bytes (UTF-8, LF line ends, final newline)."""
    return _assemble(_rendered_messages(trajectory, spec.rendering == "restored"), spec)


def render_packets(trajectory: Trajectory, specs: list[PacketSpec]) -> list[bytes]:
    """Several packets of one trajectory, rendering each message once per rendering."""
    cache: dict[str, list[str]] = {}
    out = []
    for spec in specs:
        if spec.rendering not in cache:
            cache[spec.rendering] = _rendered_messages(trajectory, spec.rendering == "restored")
        out.append(_assemble(cache[spec.rendering], spec))
    return out
