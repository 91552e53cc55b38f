"""The one JSONL reader: every line numbered, every problem named by file and line.

Blank lines are passed over. A line that is not UTF-8 or not JSON is a
:class:`~orgbench.core.errors.FormatError` naming ``path:line`` — except
where the caller reads a *journal* (an append-only log a killed run may have
cut short): there a last line without its newline is torn and left out, and
the result says so. ``scan_jsonl`` is the lenient form for readers that report
each bad line and go on (imports of foreign files, submitted answers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

from orgbench.core.errors import FormatError
from orgbench.core.storage import loads_json, open_binary

__all__ = ["BLANK", "JsonLine", "JsonlFile", "iter_jsonl", "loads_jsonl", "parse_jsonl", "parse_line", "read_jsonl", "read_jsonl_file", "scan_jsonl"]


#: what ``parse_line`` gives for a line of only whitespace
BLANK: Any = object()


class JsonLine(NamedTuple):
    """One non-blank line: its 1-based number, its text (without the newline) and its value."""

    number: int
    text: str
    value: Any


@dataclass(frozen=True)
class JsonlFile:
    """A JSONL file as read: its lines, whether a torn last line was left out, and how many blank lines."""

    path: Path
    lines: tuple[JsonLine, ...]
    torn: bool = False
    blank: int = 0

    @property
    def values(self) -> list[Any]:
        """The value of every line, in file order."""
        return [line.value for line in self.lines]


def parse_line(raw: bytes) -> tuple[str, Any]:
    """A line's text and JSON value (``_BLANK`` for a blank line); ``ValueError`` with the reason otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason})") from None
    if not text.strip():
        return text, BLANK
    try:
        return text, loads_json(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg})") from None
    except ValueError as exc:  # a non-finite number, nested too deeply, an integer with too many digits
        raise ValueError(f"invalid JSON ({exc})") from None


def _lines(path: Path, journal: bool, counts: dict[str, int]) -> Iterator[JsonLine]:
    """Stream the non-blank lines; a journal's torn last line is counted in ``counts["torn"]``, not yielded."""
    with open_binary(path, "is a directory, expected a JSONL file") as handle:
        for number, raw in enumerate(handle, start=1):
            if journal and not raw.endswith(b"\n"):
                counts["torn"] = 1    # only the last line can lack its newline
                return
            try:
                text, value = parse_line(raw)
            except ValueError as exc:
                raise FormatError(path, str(exc), line=number) from None
            if value is BLANK:
                counts["blank"] += 1
                continue
            yield JsonLine(number, text.removesuffix("\n").removesuffix("\r"), value)


def read_jsonl_file(path: Path, *, journal: bool = False) -> JsonlFile:
    """Read every line of a JSONL file strictly (the first bad line is a FormatError naming it).

    With ``journal`` a torn last line (no newline: the writer was killed) is left out and ``torn`` set.
    """
    path = Path(path)
    counts = {"torn": 0, "blank": 0}
    lines = tuple(_lines(path, journal, counts))
    return JsonlFile(path, lines, bool(counts["torn"]), counts["blank"])


def iter_jsonl(path: Path, *, journal: bool = False) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) of every non-blank line of a JSONL file as it is read (see ``read_jsonl_file``)."""
    for line in _lines(Path(path), journal, {"torn": 0, "blank": 0}):
        yield line.number, line.value


def read_jsonl(path: Path, *, journal: bool = False) -> list[Any]:
    """Every value of a JSONL file, in file order (see ``read_jsonl_file``)."""
    return [value for _, value in iter_jsonl(path, journal=journal)]


def parse_jsonl(data: bytes, source: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of JSONL bytes held in memory, strictly; errors name ``source:line``."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            _, value = parse_line(raw)
        except ValueError as exc:
            raise FormatError(source, str(exc), line=number) from None
        if value is not BLANK:
            yield number, value


def loads_jsonl(data: bytes, source: str | Path) -> list[Any]:
    """Every value of JSONL bytes held in memory (a pack member, say), strictly (see ``parse_jsonl``)."""
    return [value for _, value in parse_jsonl(data, source)]


def scan_jsonl(raw_lines: Iterable[bytes]) -> Iterator[tuple[int, Any, str | None]]:
    """Leniently read lines: (number, value, None) for each good line, (number, None, reason) for a bad one.

    Blank lines are passed over; the caller names the file in its notes (``f"{path}:{number}: {reason}"``).
    """
    for number, raw in enumerate(raw_lines, start=1):
        try:
            _, value = parse_line(raw)
        except ValueError as exc:
            yield number, None, str(exc)
        else:
            if value is not BLANK:
                yield number, value, None
