"""What a run writes as it works: judgments.jsonl lines and cache entries in batches, the tally, the progress bar.

Completed judgments are buffered and written with one ``write`` + ``flush``
per batch, together with one cache transaction (see ``judges.runner``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from judges.backends.base import JudgeResponse, Usage
from judges.cache import ResponseCache, cache_key
from judges.journal import Appender
from judges.judgments import JobKey, Judgment
from judges.verdict import UNPARSED


@dataclass
class Tally:
    """Counts over a run's judgments: verdicts, unparsed, errors, and the tokens spent."""

    judgments: int = 0
    penalized: int = 0
    passed: int = 0
    cannot_decide: int = 0
    unparsed: int = 0
    errors: int = 0
    usage: Usage = field(default_factory=Usage)

    def add(self, judgment: Judgment) -> None:
        """Count one judgment."""
        self.judgments += 1
        self.usage += judgment.usage
        if judgment.error:
            self.errors += 1
            return
        verdict = judgment.verdict.verdict if judgment.verdict is not None else None
        if verdict == "fail":
            self.penalized += 1
        elif verdict == "pass":
            self.passed += 1
        elif verdict == "cannot_decide":
            self.cannot_decide += 1
        elif verdict == UNPARSED:
            self.unparsed += 1


def _rate_column() -> Any:
    """A rich progress column showing the rate (items/s), or "–/s" before there is one."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            return Text(f"{task.speed:.1f}/s" if task.speed else "–/s")

    return Rate()


class Progress:
    """The one progress display: a rich bar (count, rate, ETA) on a TTY; off a TTY a plain stderr line per tenth.

    Off a terminal (a pipe, a log file, CI) a run of at least ``LINES_FROM`` items prints a line when it starts
    and ``LABEL: DONE/TOTAL (PCT%, RATE/s)`` each time another tenth of the total is done (and at least every
    ``LINE_EVERY_S`` seconds while anything moved), so a long command is never silent until it ends.
    """

    LINE_EVERY_S = 15.0
    LINES_FROM = 20

    def __init__(self, enabled: bool, total: int, done: int, label: str, *, transient: bool = False) -> None:
        import time

        self._bar = None
        self._lines = enabled and total >= self.LINES_FROM and not sys.stderr.isatty()
        self._label, self._total, self._start_done = label, total, done
        self._started = self._last_time = time.perf_counter()
        self._last_step, self._last_done = done * 10 // total if total else 0, done
        if self._lines:
            print(f"{label}: {done}/{total} done, starting", file=sys.stderr, flush=True)
        if enabled and total and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 _rate_column(), TimeRemainingColumn(), transient=transient)
            self._task = self._bar.add_task(label, total=total, completed=done)
            self._bar.start()

    def update(self, done: int, total: int | None = None) -> None:
        """Show ``done`` finished (of ``total``, when it changed)."""
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)
        elif self._lines:
            self._line(done, total or self._total)

    def _line(self, done: int, total: int) -> None:
        import time

        self._total = total
        now = time.perf_counter()
        step = done * 10 // total if total else 10
        if done == self._last_done or (step == self._last_step and now - self._last_time < self.LINE_EVERY_S):
            return
        self._last_step, self._last_done, self._last_time = step, done, now
        rate = (done - self._start_done) / max(now - self._started, 1e-9)
        print(f"{self._label}: {done}/{total} ({100 * done // max(total, 1)}%, {rate:.1f}/s)", file=sys.stderr,
              flush=True)

    def close(self) -> None:
        """Stop the bar."""
        if self._bar is not None:
            self._bar.stop()


class RunLog:
    """Buffered appends to judgments.jsonl and the cache, one write and one transaction per batch.

    ``line`` turns a Judgment into the line written (default ``Judgment.to_json``; a study adds its own fields).
    """

    def __init__(self, path: Path, cache: ResponseCache | None, identity: Mapping[str, Any], tally: Tally,
                 line: Callable[[Judgment], Mapping[str, Any]] = Judgment.to_json) -> None:
        self.path = path
        self.cache = cache
        self.identity = identity
        self.tally = tally
        self.line = line
        self.to_cache: list[tuple[str, JudgeResponse]] = []
        self.journal = Appender(path)

    def record(self, key: JobKey, req_hash: str, response: JudgeResponse | None, error: str | None,
               cacheable: bool) -> None:
        """Buffer one judgment (parsed) or error, and its response for the cache."""
        if error is None and response is not None:
            judgment = Judgment.answered(key, req_hash, response)
            if cacheable and self.cache is not None:
                self.to_cache.append((cache_key(self.identity, req_hash), response))
        else:
            judgment = Judgment.failed(key, req_hash, error)
        self.tally.add(judgment)
        self.journal.add(self.line(judgment))

    @property
    def pending(self) -> int:
        """Judgments buffered, not yet written."""
        return len(self.journal.pending)

    @property
    def written(self) -> int:
        """Judgments written so far by this call."""
        return self.journal.written

    def flush(self) -> None:
        """Write the buffered lines and cache entries: one write, one transaction."""
        if self.to_cache:
            entries, self.to_cache = self.to_cache, []
            self.cache.put_many(entries)  # type: ignore[union-attr]
        self.journal.flush()

    def close(self) -> None:
        """Flush and close the log file."""
        self.flush()
        self.journal.close()
