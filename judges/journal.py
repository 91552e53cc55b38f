"""The one journal of every resumable run: append-only JSONL, bound to its run, recovered after a kill.

A journal holds one JSON line per finished unit of work (a CARGO judgment, a
GroundEval question, an assurance dispatch draw), named by a key. It is bound
to the run that wrote it by a *header*: the first line (GroundEval agent runs,
assurance dispatch), or a record beside it that the caller checks (CARGO's
``run.json``, see ``judges.run_record``). The header holds the suite's digest
and every setting that changes an answer.

How it stays exact:

- ``recover`` reads it without changing it (``orgbench.core.jsonl`` with
  ``journal=True``: a torn last line, the writer killed mid-line, is left out);
  lines the caller will not resume from (``resumable`` false, e.g. a failed
  request) and repeated keys are left out too, and ``dirty`` says the file
  must be rewritten before appending;
- a header that differs from the run's is refused (``InputError`` naming the
  journal) or, where the caller says so, the journal is started afresh;
- ``Appender`` writes finished lines in batches, one ``write`` + ``flush`` each;
- ``finish`` rewrites it once, atomically, sorted by key, so the same inputs
  give the same bytes however the work interleaved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping

from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import check_appendable, dumps, write_text_atomic

__all__ = ["Appender", "Journal", "Recovered"]


@dataclass
class Recovered:
    """What a journal holds for resuming: the kept lines by key (text and value), and whether to rewrite it."""

    lines: dict[Any, str] = field(default_factory=dict)
    rows: dict[Any, Any] = field(default_factory=dict)        # keyed as ``Journal.key`` keys (a caller's own type)
    dirty: bool = False


@dataclass(frozen=True)
class Journal:
    """A journal file: where it is, how a line is keyed, which lines resume, and the header binding it (if inline)."""

    path: Path
    key: Callable[[Any, int], Hashable]
    header: Mapping[str, Any] | None = None
    resumable: Callable[[Any], bool] = lambda row: True
    restart_on_other_header: bool = False

    def _header_line(self) -> str:
        return dumps(dict(self.header or {}))

    def recover(self) -> Recovered:
        """Read the journal for resuming without changing it (see the module docstring)."""
        found = Recovered()
        check_appendable(self.path)          # a FIFO here would block the run's first append
        if not self.path.is_file():
            return found
        read = read_jsonl(self.path, journal=True)
        lines = list(read)
        found.dirty = read.torn or bool(read.blank)
        if self.header is not None:
            if not lines or lines[0].value != json.loads(self._header_line()):
                if self.restart_on_other_header or not lines:
                    return Recovered(dirty=True)
                raise InputError(f"{self.path}: written by another run ({len(lines) - 1} finished; its first line "
                                 "differs from this run's settings); resume with the same suite and settings, choose "
                                 "a new output, or start afresh with --overwrite")
            lines = lines[1:]
        for line in lines:
            key = self.key(line.value, line.number)
            if not self.resumable(line.value) or key in found.lines:
                found.dirty = True
                continue
            found.lines[key] = line.text
            found.rows[key] = line.value
        return found

    def rewrite(self, lines: Iterable[str]) -> None:
        """Replace the journal atomically by its header (if inline) and ``lines``."""
        head = [self._header_line()] if self.header is not None else []
        write_text_atomic(self.path, "".join(line + "\n" for line in [*head, *lines]))

    def open(self) -> tuple[dict[Any, Any], "Appender"]:
        """Recover the journal (rewriting it if needed) and open it for appending: the finished rows, the appender."""
        found = self.recover()
        if found.dirty or (self.header is not None and not self.path.is_file()):
            self.rewrite(found.lines.values())
        return found.rows, Appender(self.path)

    def finish(self, order: Callable[[Hashable], Any] = lambda key: key) -> None:
        """Rewrite the journal sorted by key (atomically), unless it already is; every line is kept."""
        read = read_jsonl(self.path)
        body = list(read)[1:] if self.header is not None else list(read)
        keyed = [(self.key(line.value, line.number), line.text) for line in body]
        ordered = sorted(keyed, key=lambda pair: order(pair[0]))
        if ordered != keyed or read.blank:
            self.rewrite(text for _, text in ordered)


class Appender:
    """Buffered appends to a journal: ``add`` lines, ``flush`` writes them with one write and one flush."""

    def __init__(self, path: Path) -> None:
        self.handle = open(path, "a", encoding="utf-8")
        self.pending: list[str] = []
        self.written = 0

    def add(self, row: Mapping[str, Any], *, flush: bool = False) -> None:
        """Buffer one finished row (and write the buffer now if ``flush``)."""
        self.add_line(dumps(dict(row)), flush=flush)

    def add_line(self, line: str, *, flush: bool = False) -> None:
        """Buffer one finished row given as its JSON line, without the newline (``add``'s, made by the caller)."""
        self.pending.append(line + "\n")
        if flush:
            self.flush()

    def flush(self) -> int:
        """Write the buffered lines; how many."""
        if not self.pending:
            return 0
        count, chunk = len(self.pending), "".join(self.pending)
        self.pending = []
        self.handle.write(chunk)
        self.handle.flush()
        self.written += count
        return count

    def close(self) -> None:
        """Flush and close."""
        self.flush()
        self.handle.close()
