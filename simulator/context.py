"""The shared state every business process works on, and the small helpers they use to wait.

One ``SimContext`` per run: the simpy environment, the calendar, the ledger,
the organisation, the collaboration graph, the customers, one seeded RNG per
stream, and a short feed of recent news that chat and meetings repeat.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Sequence

import simpy
from simpy.events import Timeout

from simulator.calendar import BusinessCalendar
from simulator.config import SimConfig
from simulator.customers import Account
from simulator.graph import CollaborationGraph
from simulator.ledger import Ledger
from simulator.org import Org


def stream(seed: int, name: str) -> random.Random:
    """An independent RNG for one named stream, derived from the seed (hash-seed independent)."""
    return random.Random(f"orgbench:{seed}:{name}")


@dataclass
class SimContext:
    """Everything a process needs: time, records, people, customers and randomness."""

    env: simpy.Environment
    config: SimConfig
    calendar: BusinessCalendar
    ledger: Ledger
    org: Org
    graph: CollaborationGraph
    accounts: list[Account]
    rngs: dict[str, random.Random] = field(default_factory=dict)
    news: deque = field(default_factory=lambda: deque(maxlen=40))
    open_cases: dict[str, Any] = field(default_factory=dict)
    scale: float = 1.0
    #: Immutable records shared within the run (ACLs, entity refs), built once each; see simulator.messaging.
    shared: dict[tuple, Any] = field(default_factory=dict)

    def rng(self, name: str) -> random.Random:
        """The RNG of one stream (created on first use)."""
        found = self.rngs.get(name)
        if found is None:
            found = self.rngs[name] = stream(self.config.seed, name)
        return found

    def __post_init__(self) -> None:
        self._end = self.calendar.end_minute
        self._after = self.calendar.after
        self._open_length = self.calendar.open_length

    @property
    def now(self) -> float:
        """The current simulation minute."""
        return self.env.now

    def until(self, minute: float) -> simpy.Timeout:
        """A timeout that ends at simulation ``minute`` (or now, if that has passed)."""
        env = self.env
        delay = minute - env.now
        return Timeout(env, delay if delay > 0.0 else 0.0)

    def work(self, minutes: float) -> simpy.Timeout:
        """Wait for ``minutes`` of business time (past the end of the run: sleep until after it)."""
        env = self.env
        now = env.now
        delay = (self._end + 1.0 if minutes > self._end else self._after(now, minutes)) - now
        return Timeout(env, delay if delay > 0.0 else 0.0)

    def business_days(self, days: int) -> simpy.Timeout:
        """Wait ``days`` working days."""
        return self.until(self.calendar.business_days_after(self.env.now, days))

    def gap(self, per_business_day: float, rng: random.Random) -> float:
        """An exponential gap in business minutes for events at ``per_business_day``."""
        if per_business_day <= 0:
            return float("inf")
        return rng.expovariate(per_business_day / self._open_length)

    def pick(self, rng: random.Random, options: Sequence[Any]) -> Any:
        """One option chosen by ``rng``."""
        return options[int(rng.random() * len(options))]

    def remember(self, kind: str, facts: dict[str, Any]) -> None:
        """Add something people may mention later in chat or meetings."""
        self.news.append((kind, facts))

    def after_end(self, minute: float) -> bool:
        """True if ``minute`` lies beyond the end of the run."""
        return minute >= self.calendar.end_minute
