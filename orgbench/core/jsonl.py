"""The one JSONL reader: every line numbered, every problem named by file and line.

``read_jsonl(source)`` reads a file, or bytes held in memory (``data``: a pack
member, say) named ``source`` in errors. Blank lines are passed over. A line
that is not UTF-8 or not JSON is a :class:`~orgbench.core.errors.FormatError`
naming ``source:line``. The options are what callers need:

- ``journal``: an append-only log a killed run may have cut short; a last
  line without its newline is torn and left out, and ``torn`` says so;
- ``lenient``: each bad line is handed on with its ``problem`` instead of
  raised (imports of foreign files, submitted answers report it and go on);
- ``unique_keys``: an object that repeats a key is a bad line, never read as
  "the last one wins".
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from orgbench.core.errors import FormatError, OrgbenchError
from orgbench.core.storage import loads_json, open_binary

__all__ = ["JsonLine", "JsonlFile", "read_jsonl", "repeated_key"]


class JsonLine(NamedTuple):
    """One non-blank line: its 1-based number, its value, its text (no newline), read leniently its problem, and
    where its bytes start and end in the source (the end before its newline)."""

    number: int
    value: Any
    text: str = ""
    problem: str | None = None
    span: tuple[int, int] = (0, 0)


class _Repeated(OrgbenchError):
    """A key repeated inside one JSON object (the message is the key)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):                  # some key repeats: name the first
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
    return made


def repeated_key(text: bytes | str) -> str | None:
    """The first key a JSON text repeats inside one object, or None (also None when the text is not JSON)."""
    try:
        json.loads(text, object_pairs_hook=_pairs)
    except _Repeated as repeated:
        return str(repeated)
    except (ValueError, RecursionError):
        return None
    return None


_BLANK: Any = object()
#: ``JsonLine`` made from its fields in C (the class's own ``__new__`` is a Python function with defaults).
_line = tuple.__new__


def _json(text: str, pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """A line's JSON value; ``ValueError("invalid JSON (why)")`` if it is none (``pairs_hook`` may raise too)."""
    try:
        return loads_json(text, pairs_hook)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg})") from None
    except ValueError as exc:  # a non-finite number, nested too deeply, an integer with too many digits
        raise ValueError(f"invalid JSON ({exc})") from None


def _parse(raw: bytes, unique_keys: bool) -> tuple[str, Any]:
    """A line's text and JSON value (``_BLANK`` for a blank line); ``ValueError`` with the reason otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason})") from None
    if not text or text.isspace():
        return text, _BLANK
    try:
        value = _json(text, _pairs if unique_keys else None)      # one parse, repeated keys refused in it
    except _Repeated as repeated:
        _json(text)                     # a line that is not JSON is named so first, even if it also repeats a key
        raise ValueError(f"key {str(repeated)!r} appears twice in one object") from None
    return text, value


class JsonlFile:
    """A JSONL file (or bytes) read line by line as it is iterated; ``torn`` and ``blank`` are known once it has been.

    Iterating yields a :class:`JsonLine` per non-blank line (a bad one only when read ``lenient``, value None).
    """

    def __init__(self, source: str | Path, data: bytes | Iterable[bytes] | None = None, *, journal: bool = False,
                 lenient: bool = False, unique_keys: bool = False) -> None:
        self.source, self.data = source, data
        self.journal, self.lenient, self.unique_keys = journal, lenient, unique_keys
        self.torn = False
        self.blank = 0

    def _raw(self) -> Iterator[bytes]:
        if self.data is None:
            with open_binary(Path(self.source), "is a directory, expected a JSONL file") as handle:
                yield from handle
        elif isinstance(self.data, bytes):
            yield from io.BytesIO(self.data)         # split at b"\n" only, each line keeping it
        else:
            yield from self.data

    def __iter__(self) -> Iterator[JsonLine]:
        self.torn, self.blank = False, 0
        offset = 0
        journal, unique_keys = self.journal, self.unique_keys
        for number, raw in enumerate(self._raw(), start=1):
            start = offset
            offset += len(raw)
            if journal and not raw.endswith(b"\n"):
                self.torn = True        # only the last line can lack its newline
                return
            try:
                text, value = _parse(raw, unique_keys)
            except ValueError as exc:
                if not self.lenient:
                    raise FormatError(self.source, str(exc), line=number) from None
                yield JsonLine(number, None, "", str(exc))
                continue
            if value is _BLANK:
                self.blank += 1
                continue
            yield _line(JsonLine, (number, value, text.removesuffix("\n").removesuffix("\r"), None,
                                   (start, offset - raw.endswith(b"\n"))))

    def numbered(self) -> Iterator[tuple[int, Any]]:
        """(line number, value) of each line, in file order."""
        for line in self:
            yield line.number, line.value

    @property
    def values(self) -> list[Any]:
        """The value of every line, in file order."""
        return [line.value for line in self]


def read_jsonl(source: str | Path, data: bytes | Iterable[bytes] | None = None, *, journal: bool = False,
               lenient: bool = False, unique_keys: bool = False) -> JsonlFile:
    """The JSONL file at ``source`` (or ``data``, named ``source`` in errors), read as it is iterated (module docstring)."""
    return JsonlFile(source, data, journal=journal, lenient=lenient, unique_keys=unique_keys)
