"""Errors a user can cause: bad config, malformed input files, unreachable endpoints.

Every stage raises :class:`InputError` with one line that names the file,
line or field; the CLI prints that line and exits with code 2.
"""

from __future__ import annotations


class InputError(Exception):
    """A problem with user-supplied input, reported as one line and exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
