"""The project's errors: one root, and under it the errors a user can cause.

Every exception class of orgbench, the simulator, the builders and the judges
descends from :class:`OrgbenchError`. A problem with user input (bad config,
malformed input files, unreachable endpoints) is an :class:`InputError` or one
of its kinds — :class:`ConfigError`, :class:`FormatError` (a file, with its
line and field), :class:`EndpointError` (a model server) — with one line that
names the file, line, field or endpoint; the CLI prints that line and exits
with code 2. The other kinds (a failed backend request, a refused stage, a
damaged pack) say what went wrong inside a run and are handled where they arise.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["UNSHOWN", "ConfigError", "EndpointError", "FormatError", "InputError", "OrgbenchError", "one_line", "where"]

#: Characters that break a line, reorder what a terminal shows of it, or show as nothing: controls (newline,
#: carriage return, escape, NUL, ...), the line and paragraph separators, the bidirectional marks, embeddings,
#: overrides and isolates, and the zero-width space, word joiner and byte-order mark.
UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
                     "\u200b\u2060\ufeff]")


def one_line(text: str) -> str:
    """``text`` with every ``UNSHOWN`` character written as its escape (``\\n``,
    ``\\u202e``), so a name read from a file or typed by a user cannot split or disguise a one-line message."""
    return UNSHOWN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class OrgbenchError(Exception):
    """The root of every error the project raises on purpose."""


class InputError(OrgbenchError):
    """A problem with user-supplied input, reported as one line and exit code 2."""

    def __init__(self, message: str) -> None:
        message = one_line(message)
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(InputError):
    """A configuration value (option, TOML field, setting) that cannot be used."""


def where(path: str | Path, line: int | None = None, field: str | None = None) -> str:
    """The place a problem is in: ``path``, ``path:line``, ``path:line: field F``."""
    text = f"{path}:{line}" if line is not None else str(path)
    return f"{text}: field {field}" if field is not None else text


class FormatError(InputError):
    """A file that is not in the expected format; knows its path and, where known, the line and field."""

    def __init__(self, path: str | Path, problem: str, *, line: int | None = None, field: str | None = None) -> None:
        super().__init__(f"{where(path, line, field)}: {problem}")
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem


class EndpointError(InputError):
    """A model endpoint that cannot be reached or answers with an error; names the endpoint."""

    def __init__(self, endpoint: str, problem: str) -> None:
        super().__init__(f"{endpoint}: {problem}")
        self.endpoint = endpoint
        self.problem = problem
