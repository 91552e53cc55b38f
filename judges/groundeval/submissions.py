"""The answers and traces an MCP ``--out`` directory collects: appended, one answer per question, agent and mode.

``SubmissionLog(out).submit(trace, answer)`` appends one line to
``traces.jsonl`` and one to ``answers.jsonl`` under an exclusive
``fcntl.flock`` on ``OUT/.submissions.lock``, so any number of sessions and
processes may submit into one directory and no row is lost. Nothing is ever
rewritten: each log remembers how far it has read both files and, under the
lock, reads only what other writers appended since, so a submission costs its
own line plus the others' new lines (the old merge rewrote both files on every
submission).

A second answer to a question the agent already answered in this directory
(same ``question_id``, ``agent`` and ``mode``, from any session or process) is
refused: the first answer stands and nothing is written. A line that is not a
JSON object naming ``question_id``, ``agent`` and ``mode``, or a file that does
not end in a newline (a torn write), is not skipped: every later submission
is refused, naming the file and line, until the file is repaired.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from orgbench.core.storage import check_appendable, dumps
from orgbench.core.errors import OrgbenchError

LOCK = ".submissions.lock"
FILES = ("traces.jsonl", "answers.jsonl")
Key = tuple[str, str, str]


class SubmissionRefused(OrgbenchError):
    """A submission that was not written: ``code`` is ``already_answered`` or ``unreadable_log``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / LOCK, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def key_of(row: Any) -> Key | None:
    """``(question_id, agent, mode)`` of a row, or None when it is not an object naming all three as strings."""
    if not isinstance(row, dict):
        return None
    qid, agent, mode = row.get("question_id"), row.get("agent"), row.get("mode")
    return (qid, agent, mode) if isinstance(qid, str) and isinstance(agent, str) and isinstance(mode, str) else None


@dataclass
class _Tail:
    """How far one file was read (bytes, lines) and the keys of the rows read."""

    offset: int = 0
    lines: int = 0
    keys: set[Key] = field(default_factory=set)


@dataclass
class SubmissionLog:
    """One process's appender for ``out``: keeps how far it read both files, so it never reads a line twice.

    With ``agent`` given (a server's one agent name) only that agent's answered questions are kept in memory,
    so a log's memory grows with its own answers, not with every row of a shared directory.
    """

    out: Path
    agent: str | None = None
    tails: dict[str, _Tail] = field(default_factory=lambda: {name: _Tail() for name in FILES})

    def _catch_up(self, name: str) -> set[Key]:
        """Read what was appended to ``name`` since the last look (call under the lock)."""
        path, tail = self.out / name, self.tails[name]
        if not path.is_file():
            return tail.keys
        with open(path, "rb") as handle:
            handle.seek(tail.offset)
            new = handle.read()
        if new and not new.endswith(b"\n"):
            torn = tail.lines + new.count(b"\n") + 1
            raise SubmissionRefused("unreadable_log", f"{path}:{torn}: incomplete line "
                                    "(a torn write): repair or move the file; nothing was written")
        for number, raw in enumerate(new.splitlines(), start=tail.lines + 1):
            try:
                key = key_of(json.loads(raw))
            except ValueError:
                key = None
            if key is None:
                raise SubmissionRefused("unreadable_log", f"{path}:{number}: not a JSON object with question_id, "
                                        "agent and mode: repair or move the file; nothing was written")
            if name == "answers.jsonl" and self.agent in (None, key[1]):
                tail.keys.add(key)
            tail.lines = number
        tail.offset += len(new)
        return tail.keys

    def _append(self, name: str, row: dict[str, Any]) -> None:
        data = (dumps(row) + "\n").encode("utf-8")
        fd = os.open(self.out / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        tail = self.tails[name]
        tail.offset, tail.lines = tail.offset + len(data), tail.lines + 1
        if name == "answers.jsonl":
            tail.keys.add(key_of(row))  # type: ignore[arg-type]

    def submit(self, trace: dict[str, Any], answer: dict[str, Any]) -> None:
        """Append the trace and the answer, or raise ``SubmissionRefused`` and write nothing."""
        key = key_of(answer)
        if key is None or key_of(trace) != key or self.agent not in (None, key[1]):
            raise ValueError("a submission's trace and answer must name one question_id, agent and mode (the log's)")
        with _locked(self.out):
            answered = self._catch_up("answers.jsonl")
            self._catch_up("traces.jsonl")
            if key in answered:
                raise SubmissionRefused("already_answered", f"agent {key[1]!r} already answered {key[0]} in "
                                        f"{self.out} (another session); the first answer stands")
            self._append("traces.jsonl", trace)
            self._append("answers.jsonl", answer)


def check_writable(out: Path) -> None:
    """Create ``out`` and take its lock once: a directory no submission could be written to, or whose logs are not
    regular files (a FIFO would block the first submit), fails now (OSError, InputError), before an agent has
    worked on a question, not at its first submit."""
    with _locked(Path(out)):
        for name in FILES:
            check_appendable(Path(out) / name)


def write_submission(out: Path, trace: dict[str, Any], answer: dict[str, Any]) -> None:
    """Append one trace line and one answer line to ``out`` (a fresh log: reads both files once)."""
    SubmissionLog(Path(out)).submit(trace, answer)
