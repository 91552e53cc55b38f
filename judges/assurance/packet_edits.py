"""Byte edits on rendered packets, the faults the fault study injects: a target call deleted, changed or renamed.

Each edit takes a packet's bytes and returns the altered bytes; the target step
is the one between ``[BEGIN TARGET STEP]`` and ``[END TARGET STEP]``.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["change_target_arguments", "delete_first_call", "delete_target_call", "rename_target_call",
           "swap_parallel_calls"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _target_call_line(lines: list[bytes]) -> int:
    begin = lines.index(b"[BEGIN TARGET STEP]")
    return next(i for i in range(begin, len(lines)) if lines[i].startswith(b"[TOOL CALL "))


def delete_target_call(data: bytes) -> bytes:
    """Drop the target step's first call line."""
    lines = _lines(data)
    del lines[_target_call_line(lines)]
    return b"\n".join(lines)


def _edit_target_call(data: bytes, change: Callable[[bytes], bytes]) -> bytes:
    """The packet with the target step's first call line replaced by ``change(line)``."""
    lines = _lines(data)
    k = _target_call_line(lines)
    lines[k] = change(lines[k])
    return b"\n".join(lines)


def _one_character_changed(line: bytes) -> bytes:
    start = line.index(b"(") + 1
    for pos in range(len(line) - 2, start, -1):
        if line[pos:pos + 1].isalnum():
            return line[:pos] + (b"7" if line[pos:pos + 1] != b"7" else b"8") + line[pos + 1:]
    return line


def _tool_renamed(line: bytes) -> bytes:
    close = line.index(b"] ") + 2
    paren = line.index(b"(", close)
    return line[:close] + (b"update_case" if line[close:paren] != b"update_case" else b"search_kb") + line[paren:]


def change_target_arguments(data: bytes) -> bytes:
    """Change one character of the target call's arguments, keeping their length."""
    return _edit_target_call(data, _one_character_changed)


def rename_target_call(data: bytes) -> bytes:
    """Rename the tool the target step calls."""
    return _edit_target_call(data, _tool_renamed)


def delete_first_call(data: bytes) -> bytes:
    """Drop the first call line of the packet (an earlier step's call)."""
    lines = _lines(data)
    del lines[next(i for i, line in enumerate(lines) if line.startswith(b"[TOOL CALL "))]
    return b"\n".join(lines)


def swap_parallel_calls(data: bytes) -> bytes:
    """Swap the first two consecutive call lines (a parallel call pair)."""
    lines = _lines(data)
    k = next(i for i in range(len(lines) - 1)
             if lines[i].startswith(b"[TOOL CALL ") and lines[i + 1].startswith(b"[TOOL CALL "))
    lines[k], lines[k + 1] = lines[k + 1], lines[k]
    return b"\n".join(lines)
