"""The packet syntax as the inline checker reads it, written apart from the renderer: parsing packet bytes into
blocks, and the escapes content and arguments must show (``⟦U+XXXX⟧`` for line breaks and the escape opener, a
leading backslash on a content line a reader could take for structure)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

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
        return blocks, (f"a line break other than LF ({text[at.start()]!r}, CR or another) at character "
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


_BREAK = re.compile("[\r\v\f\x1c-\x1e\x85\u2028\u2029\u27e6]")
_BREAK_OR_LF = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029\u27e6]")
_RAW_BREAK = re.compile("[\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_ESCAPED = re.compile("\u27e6U\\+([0-9A-F]{4})\u27e7")


def _escape(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: "\u27e6U+%04X\u27e7" % ord(m.group(0)), text)


def unescape(text: str) -> str:
    """Undo the packet escapes ``⟦U+XXXX⟧`` (a line break, the escape opener, a marker's ``[``)."""
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text)


def _expected_content(content: str) -> list[bytes]:
    """The neutralised lines a content string must appear as (written apart from the renderer)."""
    if not content:
        return []
    lines = []
    text = _escape(content, _BREAK)
    for marker in ("[BEGIN TARGET STEP]", "[END TARGET STEP]"):
        text = text.replace(marker, "\u27e6U+005B\u27e7" + marker[1:])
    for line in text.split("\n"):
        lines.append(("\\" + line if _structure_like(line) else line).encode("utf-8"))
    return lines


def _structure_like(line: str) -> bool:
    """A content line a reader could take for structure (leading blanks / format characters dropped, NFKC)."""
    core = line.lstrip()
    while core and (unicodedata.category(core[0]) == "Cf" or core[0].isspace()
                    or unicodedata.normalize("NFKC", core[0]).strip() == ""):
        core = core[1:]
    return unicodedata.normalize("NFKC", core[:2]).lstrip()[:1] in ("[", "\\")


def content_from_lines(lines: list[bytes]) -> str:
    """The source text a packet's content lines stand for (leading ``\\`` dropped, escapes undone)."""
    return "\n".join(unescape(line.decode("utf-8", "replace")[1:] if line.startswith(b"\\")
                               else line.decode("utf-8", "replace")) for line in lines)


def shown_arguments(arguments: str) -> bytes:
    """Arguments as a call line must show them: one line, breaks and the escape opener escaped."""
    return _escape(arguments, _BREAK_OR_LF).encode("utf-8")
