"""Packets: the text an LLM judge reads about one target step of a trajectory.

A packet lists the trajectory's messages in order. The target step is wrapped
in ``[BEGIN TARGET STEP]`` ... ``[END TARGET STEP]``; a *prefix* packet ends
there (not even the target's own tool result follows), a *full* packet runs to
the end. In the *restored* rendering every tool call appears under its message
as ``[TOOL CALL id=… bytes=N] name(arguments)`` with the arguments copied byte
for byte but for escaped line breaks (N is the UTF-8 length of what is shown,
so arguments of any shape parse back exactly); every result shows the id it answers. The *original* rendering omits
the calls -- kept only to reproduce the failure the paper studied.

Packet format 2 (``PACKET_FORMAT``): neither a parser nor a human or model
reader can take content for structure or for a label, and every escape is
reversible (``⟦U+XXXX⟧``, 4-6 hex digits):

- escaped wherever they appear: the characters of the committed escape table
  (``escape_table.json``, generated from a pinned Unicode version by
  ``make_escape_table``): controls but LF, format characters (zero-width,
  bidi controls), default-ignorables, characters that render blank, surrogates,
  private-use and unassigned code points, line and paragraph separators,
  brackets that are not ASCII and lookalikes of ``[ ] ( ) \\``, and the escape
  brackets ``⟦ ⟧`` themselves; in arguments also LF, ``(`` and ``)``, so a
  call line holds exactly one raw ``(`` and ``)`` (N is the UTF-8 length of
  the arguments as shown);
- every character that is not printable ASCII at the start of a content line
  (after leading spaces) or next to a structure character (``[ ] ( ) \\``;
  the start and end of arguments sit next to the call's parentheses);
- the ``[`` of every structure keyword (``[BEGIN TARGET STEP]``,
  ``[END TARGET STEP]``, ``[MESSAGE``, ``[TOOL CALL``, ``[TOOL RESULT``);
- a content line that, past leading spaces and escapes, opens with ``[`` or
  ``\\`` gets a leading ``\\`` (so every content line starting with ``\\`` is
  escaped);
- a content line holding label-like text (``label:``, ``"notes" =``,
  ``error_kind:`` ...) is marked as the source's data with the reserved
  ``⟦DATA⟧`` prefix.

So ``str.splitlines()`` and a byte parser split a packet into the same lines,
and un-escaping (drop ``⟦DATA⟧``, then one leading ``\\``, then undo each
``⟦U+XXXX⟧``) gives back the source text exactly. Labels and other truth
never reach this module.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

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


def _table() -> dict:
    """The committed escape table (``escape_table.json``, made by ``make_escape_table`` from a pinned Unicode)."""
    return json.loads(resources.files("judges.assurance").joinpath("escape_table.json").read_text("utf-8"))


_TABLE = _table()
#: The packet format: its number and the Unicode version its escape table was generated from.
PACKET_FORMAT = f"{_TABLE['packet_format']} (Unicode {_TABLE['unicode']})"
#: Characters escaped wherever they appear (controls but LF, format, default-ignorable, bidi, lookalike brackets...).
_EVERYWHERE = re.compile("[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _TABLE["escape_everywhere"]) + "]")
#: The same table's ASCII part: what ``_EVERYWHERE`` finds in ASCII text, at a small class's speed (the whole
#: table's 742 ranges cost ~0.3 ms per searched line).
_EVERYWHERE_ASCII = re.compile("[" + "".join(f"\\x{lo:02x}-\\x{min(hi, 127):02x}"
                                              for lo, hi in _TABLE["escape_everywhere"] if lo < 128) + "]")
_STRUCTURE = frozenset("[]()\\")
#: Structure a line could forge: each occurrence's ``[`` is escaped in content and arguments.
KEYWORDS = ("[BEGIN TARGET STEP]", "[END TARGET STEP]", "[MESSAGE ", "[TOOL CALL ", "[TOOL RESULT ")
#: Text that reads like a label (``label:``, ``"notes" =``, ``error_kind:`` ...): its line is marked as data.
_LABEL_LIKE = re.compile(r'(?i)(?<![a-z0-9_])(?:labels?|step_labels?|notes?|error_kinds?)"?[ \t]*[:=]')
DATA_MARK = "\u27e6DATA\u27e7"
_LEADING_ESCAPES = re.compile("^(?: |\u27e6U\\+[0-9A-F]{4,6}\u27e7)*")


#: Every character ``str.splitlines()`` breaks a line at, besides LF (each in the escape table: escaped everywhere).
LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _code(char: str) -> str:
    return f"\u27e6U+{ord(char):04X}\u27e7"


def _escape(text: str, arguments: bool) -> str:
    """Escape ``text`` as packet format 2 shows it (see the module docstring); ``arguments``: one call line."""
    if text.isascii() and not _EVERYWHERE_ASCII.search(text) and not (arguments and ("\n" in text or "(" in text
                                                                                or ")" in text)):
        out = text                                     # the common case: printable ASCII and LF only
    else:
        chars = []
        last = len(text) - 1
        line_start = not arguments                     # content: only blanks so far on this line
        for i, char in enumerate(text):
            code = ord(char)
            if 0x20 <= code <= 0x7E:
                chars.append(_code(char) if arguments and char in "()" else char)
                line_start = line_start and char == " "
                continue
            if char == "\n" and not arguments:
                chars.append(char)
                line_start = True
                continue
            before = text[i - 1] if i else ("(" if arguments else "\n")
            after = text[i + 1] if i < last else (")" if arguments else "\n")
            if _EVERYWHERE.match(char) or char == "\n" or line_start or before in _STRUCTURE or after in _STRUCTURE:
                chars.append(_code(char))
            else:
                chars.append(char)
            line_start = False
        out = "".join(chars)
    return escape_keywords(out)


def escape_keywords(text: str) -> str:
    """``text`` with each keyword's ``[`` written ``⟦U+005B⟧``, so no content reads as a marker or a header."""
    if "[" in text:
        for keyword in KEYWORDS:
            text = text.replace(keyword, "\u27e6U+005B\u27e7" + keyword[1:])
    return text


@functools.lru_cache(maxsize=1 << 15)
def escape_arguments(arguments: str) -> str:
    """Arguments as one call line shows them: format 2's escapes, LF and both parentheses written ``⟦U+XXXX⟧``."""
    return _escape(arguments, True)


def looks_like_structure(line: str) -> bool:
    """Whether an escaped content line could be read as structure: past leading blanks and escapes, it opens with
    ``[`` or ``\\``."""
    leading = _LEADING_ESCAPES.match(line)              # the pattern matches every line (maybe empty)
    rest = line[leading.end():] if leading else line
    return rest[:1] in ("[", "\\")


def neutralise(content: str) -> list[str]:
    """Content as packet lines no reader can take for structure or for a label (reversibly escaped)."""
    return list(_neutralised(content))


@functools.lru_cache(maxsize=1 << 15)
def _neutralised(content: str) -> tuple[str, ...]:
    """``neutralise``'s lines, made once per distinct content (a suite repeats its system prompts and replies)."""
    out = []
    for line in _escape(content, False).split("\n"):
        line = "\\" + line if looks_like_structure(line) else line
        out.append(DATA_MARK + line if _LABEL_LIKE.search(line) else line)
    return tuple(out)


def _message_lines(index: int, message: ChatMessage, restored: bool, out: list[str]) -> None:
    if message.role == "tool":
        out.append(f"[TOOL RESULT {index} id={message.tool_call_id}]")
    else:
        out.append(f"[MESSAGE {index} {message.role}]")
    if message.content:
        out.extend(_neutralised(message.content))
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


def render_packets(trajectory: Trajectory, specs: list[PacketSpec],
                   known: dict[PacketSpec, bytes] | None = None) -> list[bytes]:
    """Several packets of one trajectory, rendering each message once per rendering; ``known``: packets of this
    very trajectory rendered before (taken from it, and what is rendered now added to it)."""
    known = {} if known is None else known
    cache: dict[str, list[str]] = {}
    out = []
    for spec in specs:
        if spec not in known:
            if spec.rendering not in cache:
                cache[spec.rendering] = _rendered_messages(trajectory, spec.rendering == "restored")
            known[spec] = _assemble(cache[spec.rendering], spec)
        out.append(known[spec])
    return out
