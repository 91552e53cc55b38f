"""Progress and totals for long commands: live stage lines, a rich bar on a terminal, a totals line at the end.

Stage lines go to stderr as each stage finishes (so an interrupted command
has already shown what it finished). The bar is drawn only when stderr is a
terminal; redirected output gets the stage lines and a plain line per tenth
of a long run's items. ``Totals`` adds up
what model-calling commands spent: requests, retries, tokens and wall time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, TypeVar

import click

from judges.backends.base import Usage

T = TypeVar("T")

class Stages:
    """Prints one line per finished stage at once, with its wall time."""

    def __init__(self, echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo or (lambda line: click.echo(line, err=True))
        self.lines: list[str] = []

    def done(self, name: str, seconds: float, reused: bool = False) -> None:
        """Report a finished (or reused) stage."""
        line = f"  {name}: {'reused' if reused else 'built'} ({seconds:.1f} s)"
        self.lines.append(line)
        self.echo(line)

    def __enter__(self) -> "Stages":
        from orgbench.stages import reporting

        self._reporting = reporting(self.done)
        self._reporting.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._reporting.__exit__(*exc)


class Bar:
    """``judges.run_log.Progress`` as a context manager whose ``update(done, total)`` moves it (a bar on a
    terminal, plain lines off one)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._progress: Any = None          # judges.run_log.Progress, made on the first update

    def __enter__(self) -> Callable[[int, int], None]:
        return self.update

    def update(self, done: int, total: int) -> None:
        """Show ``done`` of ``total``."""
        if self._progress is None:
            from judges.run_log import Progress

            self._progress = Progress(True, total, done, self.label, transient=True)
        self._progress.update(done, total)

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.close()


def track(items: Iterable[T], total: int, label: str) -> Iterator[T]:
    """Iterate ``items`` with a ``Bar`` (plain lines off a terminal)."""
    with Bar(label) as update:
        for done, item in enumerate(items):
            update(done, total)
            yield item
        update(total, total)


@dataclass
class Totals:
    """What a model-calling command spent."""

    requests: int = 0
    retries: int = 0
    usage: Usage = field(default_factory=Usage)
    started: float = field(default_factory=time.perf_counter)

    def add_backend(self, backend: Any, answered: int) -> None:
        """Count the HTTP requests an openai or local backend sent for ``answered`` answers (the rest were retries)."""
        sent = backend.requests_sent()
        self.requests += sent
        self.retries += max(0, sent - answered)

    def wall(self) -> str:
        """The wall-time line of a command that called no model."""
        return f"total: {time.perf_counter() - self.started:.1f} s wall"

    def line(self) -> str:
        """The totals line printed at the end of the command."""
        return (f"totals: {self.requests:,} requests ({self.retries:,} retries), {self.usage.prompt_tokens:,} prompt"
                f" + {self.usage.completion_tokens:,} completion tokens, {time.perf_counter() - self.started:.1f} s wall")
