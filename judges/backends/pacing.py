"""How many requests one endpoint gets at once: a known slot count, or AIMD on overload signals.

A :class:`Pacer` is the gate every HTTP attempt passes. It holds a window
(requests allowed in flight):

- **fixed** — a ``local:`` server orgbench started knows its slot count; the
  window is that count and never grows, so requests never queue inside the
  server where they would run into the client's timeout;
- **adaptive** — other endpoints start at the caller's concurrency (the
  ceiling). Every answered request adds ``1/window`` (about one per window
  of answers: additive increase); a timeout, 429 or 503 halves the window
  (multiplicative decrease, at most once per window's worth of requests sent
  before the signal, so one burst of timeouts counts once).

``Retry-After`` on a 429/503 pauses every new attempt until then. A request
that timed out is retried only through the gate again, so it waits while the
endpoint still has a full window in flight instead of piling onto it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

OK, OVERLOAD, OTHER = "ok", "overload", "other"


@dataclass(frozen=True, slots=True)
class PacerStats:
    """What a pacer saw: attempts, overload signals (timeouts, 429/503), decreases, the final and least window."""

    attempts: int
    timeouts: int
    overloads: int
    decreases: int
    window: float
    least_window: float
    most_in_flight: int

    def to_json(self) -> dict[str, float | int]:
        """The stats as a JSON object."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


class Pacer:
    """The in-flight gate for one endpoint (see the module docstring)."""

    def __init__(self, ceiling: int, *, fixed: bool = False) -> None:
        self.ceiling = max(1, int(ceiling))
        self.fixed = fixed
        self.window = float(self.ceiling)
        self.in_flight = 0
        self.resume_at = 0.0
        self._epoch = 0            # bumped on every decrease; an attempt sent before it cannot cause another
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Condition | None = None
        self._attempts = self._timeouts = self._overloads = self._decreases = 0
        self._waiting = 0          # acquirers queued on the condition
        self._least = self.window
        self._most = 0

    def set_ceiling(self, ceiling: int) -> None:
        """Allow at most ``ceiling`` in flight, starting there (adaptive pacers only; a slot count stays)."""
        if not self.fixed:
            self.ceiling = max(1, int(ceiling))
            self.window = float(self.ceiling)
            self._least = self.window

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._changed is None or self._loop is not loop:
            self._changed, self._loop = asyncio.Condition(), loop
            self.in_flight = self._waiting = 0     # a new event loop: nothing of the old one is in flight
        return self._changed

    async def acquire(self) -> int:
        """Wait for room in the window (and past any Retry-After pause); the ticket to hand back to release."""
        changed = self._condition()
        if not self._waiting and self.resume_at <= time.monotonic() and self.in_flight < max(1, int(self.window)):
            return self._admit()            # the common case: room, nobody queued (one event loop: no race)
        async with changed:
            self._waiting += 1
            try:
                while True:
                    pause = self.resume_at - time.monotonic()
                    if pause > 0:
                        changed.release()
                        try:
                            await asyncio.sleep(pause)
                        finally:
                            await changed.acquire()
                        continue
                    if self.in_flight < max(1, int(self.window)):
                        break
                    await changed.wait()
            finally:
                self._waiting -= 1
            return self._admit()

    def _admit(self) -> int:
        self.in_flight += 1
        self._attempts += 1
        self._most = max(self._most, self.in_flight)
        return self._epoch

    async def release(self, ticket: int, outcome: str, *, timed_out: bool = False,
                      retry_after: float | None = None) -> None:
        """Hand back a slot with what happened: OK grows the window, OVERLOAD shrinks it (once per window)."""
        changed = self._condition()
        self.in_flight = max(0, self.in_flight - 1)
        if outcome == OK and not self.fixed:
            self.window = min(float(self.ceiling), self.window + 1.0 / self.window)
        elif outcome == OVERLOAD:
            self._overloads += 1
            self._timeouts += int(timed_out)
            if not self.fixed and ticket == self._epoch:
                self.window = max(1.0, self.window / 2.0)
                self._least = min(self._least, self.window)
                self._epoch += 1
                self._decreases += 1
        if retry_after is not None and retry_after > 0:
            self.resume_at = max(self.resume_at, time.monotonic() + retry_after)
        if self._waiting:
            async with changed:
                room = max(1, int(self.window)) - self.in_flight
                if room > 0:
                    changed.notify(room)

    def stats(self) -> PacerStats:
        """Counters so far."""
        return PacerStats(self._attempts, self._timeouts, self._overloads, self._decreases, round(self.window, 3),
                          round(self._least, 3), self._most)
