"""The packet syntax as the inline checker reads it, written apart from the renderer (but for the keywords'
escape, ``render.escape_keywords``): parsing packet bytes into blocks, and the escapes content and arguments must
show under packet format 2 (``⟦U+XXXX⟧`` for the characters of the committed escape table, for what is not
printable ASCII at a line start or next to a structure character, and for a keyword's ``[``; a leading backslash on
a content line that opens with structure; ``⟦DATA⟧`` on a line holding label-like text)."""

from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from judges.assurance.render import escape_keywords

_HEADER = re.compile(rb"^\[MESSAGE (\d+) (system|user|assistant)\]$")
_RESULT = re.compile(rb"^\[TOOL RESULT (\d+) id=(.*)\]$")
_CALL = re.compile(rb"\[TOOL CALL id=(\S+) bytes=(\d+)\] ([^(\s]+)\(")


@dataclass(frozen=True, slots=True)
class _Block:
    kind: str            # message | result | call | begin | end | text
    index: int = -1
    role: str = ""
    ident: str = ""
    name: str = ""
    payload: bytes = b""


def parse_packet(data: bytes) -> tuple[list[_Block], str]:
    """Parse packet bytes into blocks; returns (blocks, problem or '')."""
    blocks: list[_Block] = []
    pos, size = 0, len(data)
    if not data.endswith(b"\n"):
        return blocks, "packet does not end with a newline"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return blocks, f"packet is not UTF-8 (byte {exc.start})"
    if text.splitlines() != text.split("\n")[:-1]:
        at = _RAW_BREAK.search(text)
        return blocks, (f"a line break other than LF ({repr(text[at.start()]) if at else '?'}, CR or another) at character "
                        f"{at.start() if at else '?'}: str.splitlines() and the byte parser would read different "
                        f"lines")
    while pos < size:
        call = _CALL.match(data, pos) if data.startswith(b"[TOOL CALL ", pos) else None
        if call:
            start = call.end()
            end = start + int(call.group(2))
            if data[end:end + 2] != b")\n":
                return blocks, f"call line at byte {pos}: arguments do not end after {call.group(2).decode()} bytes"
            blocks.append(_Block("call", ident=call.group(1).decode("utf-8", "replace"),
                                 name=call.group(3).decode("utf-8", "replace"), payload=data[start:end]))
            pos = end + 2
            continue
        eol = data.index(b"\n", pos)
        line = data[pos:eol]
        pos = eol + 1
        if line.startswith(b"["):
            if line == b"[BEGIN TARGET STEP]":
                blocks.append(_Block("begin"))
            elif line == b"[END TARGET STEP]":
                blocks.append(_Block("end"))
            elif (m := _HEADER.match(line)):
                blocks.append(_Block("message", int(m.group(1)), m.group(2).decode()))
            elif (m := _RESULT.match(line)):
                blocks.append(_Block("result", int(m.group(1)), "tool", m.group(2).decode("utf-8", "replace")))
            else:
                return blocks, f"unrecognised structural line {line[:60]!r}"
        else:
            blocks.append(_Block("text", payload=line))
    return blocks, ""


_RAW_BREAK = re.compile("[\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_ESCAPED = re.compile("\u27e6U\\+([0-9A-F]{4,6})\u27e7")
_DATA = "\u27e6DATA\u27e7"
_STRUCT = frozenset("[]()\\")
_LABELISH = re.compile(r'(?i)(?<![a-z0-9_])(?:labels?|step_labels?|notes?|error_kinds?)"?[ \t]*[:=]')


def _always_escaped_starts() -> tuple[list[int], list[int]]:
    table = json.loads(resources.files("judges.assurance").joinpath("escape_table.json").read_text("utf-8"))
    return [lo for lo, _ in table["escape_everywhere"]], [hi for _, hi in table["escape_everywhere"]]


_STARTS, _ENDS = _always_escaped_starts()


def _always(char: str) -> bool:
    """Whether the committed table escapes ``char`` wherever it appears."""
    k = bisect.bisect_right(_STARTS, ord(char)) - 1
    return k >= 0 and ord(char) <= _ENDS[k]


def _shown(text: str, before: str, after: str, escape_lf_and_parens: bool) -> str:
    """One line (or arguments) as format 2 shows it: every character checked against its neighbours."""
    out: list[str] = []
    started = escape_lf_and_parens                     # arguments have no line start
    if text.isascii() and text.isprintable():          # printable ASCII only: each shown as itself but ( and )
        out.append(text.replace("(", "\u27e6U+0028\u27e7").replace(")", "\u27e6U+0029\u27e7")
                   if escape_lf_and_parens else text)
        text = ""
    for i, char in enumerate(text):
        prev = text[i - 1] if i else before
        nxt = text[i + 1] if i + 1 < len(text) else after
        if " " <= char <= "~":
            out.append(f"\u27e6U+{ord(char):04X}\u27e7" if escape_lf_and_parens and char in "()" else char)
        elif char == "\n" or _always(char) or not started or prev in _STRUCT or nxt in _STRUCT:
            out.append(f"\u27e6U+{ord(char):04X}\u27e7")
        else:
            out.append(char)
        started = started or char != " "
    return escape_keywords("".join(out))


def unescape(text: str) -> str:
    """Undo the packet escapes ``⟦U+XXXX⟧``."""
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text)


def _expected_content(content: str) -> list[bytes]:
    """The lines a content string must appear as under packet format 2 (written apart from the renderer)."""
    return list(expected_content_lines(content)) if content else []


@functools.lru_cache(maxsize=1 << 15)
def expected_content_lines(content: str) -> tuple[bytes, ...]:
    """``_expected_content``'s lines, made once per distinct content (a suite repeats its prompts and replies)."""
    lines = []
    for raw in content.split("\n"):
        line = _shown(raw, "", "", False)
        if _structure_like(line):
            line = "\\" + line
        if _LABELISH.search(line):
            line = _DATA + line
        lines.append(line.encode("utf-8"))
    return tuple(lines)


def _structure_like(line: str) -> bool:
    """Past leading spaces and escapes, does the line open with ``[`` or a backslash?"""
    k = 0
    while k < len(line):
        if line[k] == " ":
            k += 1
        elif (m := _ESCAPED.match(line, k)):
            k = m.end()
        else:
            break
    return line[k:k + 1] in ("[", "\\")


def content_from_lines(lines: list[bytes]) -> str:
    """The source text a packet's content lines stand for (``⟦DATA⟧`` and one leading ``\\`` dropped, escapes
    undone)."""
    out = []
    for raw in lines:
        line = raw.decode("utf-8", "replace")
        line = line[len(_DATA):] if line.startswith(_DATA) else line
        out.append(unescape(line[1:] if line.startswith("\\") else line))
    return "\n".join(out)


@functools.lru_cache(maxsize=1 << 15)
def shown_arguments(arguments: str) -> bytes:
    """Arguments as a call line must show them: one line, LF and both parentheses escaped, their ends next to the
    call's parentheses."""
    return _shown(arguments, "(", ")", True).encode("utf-8")
