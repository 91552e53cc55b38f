"""The ledger: what the running simulation records — events, and artifact version drafts to render later.

Processes call ``emit`` for every event and ``draft`` for every artifact
version. Both are stamped with the current simulation minute, so events come
out in (time, sequence) order; minutes become datetimes once, after the loop.
Drafts carry the facts and the template name; their text is rendered in bulk
after the event loop (``simulator.artifacts``), which keeps the loop fast.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any, Iterable, Mapping, NamedTuple

import simpy

from simulator.calendar import BusinessCalendar
from orgbench.core.clock import format_ts
from simulator.model import Acl, EntityRef, Event, ParentLink, new_event

PUBLIC = Acl()


class Draft(NamedTuple):
    """An artifact version whose body is not rendered yet (a plain tuple: drafts are many and short-lived)."""

    artifact_id: str
    version: int
    subsystem: str
    kind: str
    minute: float  # simulation minute it was written; ``Ledger.moment`` gives the datetime
    author: str
    entity: EntityRef
    title: str
    template: str
    variant: int
    facts: dict[str, Any]
    acl: Acl
    context: dict[str, Any]

    @property
    def ref(self) -> str:
        """``ARTIFACT-ID@version``."""
        return f"{self.artifact_id}@{self.version}"


_new_draft = tuple.__new__  # Draft(...) without the generated __new__'s extra call


class Ledger:
    """Records events and artifact drafts at the simulation's current time.

    The loop stores each event as a row (its id, minute and fields) and each
    draft as a ``Draft`` tuple; ``events`` builds the Event records once, after
    the loop, converting each distinct minute to a datetime once.
    """

    def __init__(self, env: simpy.Environment, calendar: BusinessCalendar, wording: random.Random) -> None:
        self.env = env
        self.calendar = calendar
        self.wording = wording
        self.drafts: list[Draft] = []
        #: artifact id → its latest version number
        self.latest: dict[str, int] = {}
        self._rows: list[tuple] = []
        self._events: list[Event] = []
        self._handed = 0  # events already handed to a writer (``take``) and dropped from memory
        self._moments: dict[float, datetime] = {}
        self._counters: dict[str, int] = {}
        self._random = wording.random

    def moment(self, minute: float) -> datetime:
        """The UTC datetime of a simulation minute (one shared object per minute)."""
        found = self._moments.get(minute)
        if found is None:
            found = self._moments[minute] = self.calendar.moment(minute)
        return found

    def now(self) -> datetime:
        """The current simulation time as a UTC datetime (to the second)."""
        return self.moment(self.env.now)

    def stamp(self) -> str:
        """The current simulation time as RFC 3339 UTC text."""
        return format_ts(self.now())

    def next_id(self, prefix: str, first: int = 1) -> str:
        """The next readable id with this prefix: ``CASE-10001``, ``INC-1``, …"""
        counters = self._counters
        n = counters[prefix] + 1 if prefix in counters else first
        counters[prefix] = n
        return f"{prefix}-{n}"

    def emit(
        self,
        event_type: str,
        actors: Iterable[str],
        subsystem: str,
        entity: EntityRef,
        payload: Mapping[str, Any] | None = None,
        parents: Iterable[ParentLink] = (),
        artifacts: Iterable[str] = (),
    ) -> str:
        """Record an event now; returns its event id."""
        rows = self._rows
        event_id = "EV-%07d" % (len(rows) + self._handed + 1)  # %-formatting: half the cost of an f-string's spec
        rows.append((event_id, self.env.now, event_type, actors if actors.__class__ is tuple else tuple(actors),
                     subsystem, entity, payload or {}, parents if parents.__class__ is tuple else tuple(parents),
                     artifacts if artifacts.__class__ is tuple else tuple(artifacts)))
        return event_id

    @property
    def events(self) -> list[Event]:
        """Every event recorded so far, in (time, sequence) order."""
        built = self._events
        rows = self._rows
        if len(built) < len(rows):
            moment = self.moment
            built.extend([new_event(event_id, moment(minute), event_type, actors, subsystem, entity, payload, parents,
                                artifacts)
                          for event_id, minute, event_type, actors, subsystem, entity, payload, parents, artifacts
                          in rows[len(built):]])
        return built

    def pending(self) -> int:
        """How many events and drafts are held in memory (not yet handed over by ``take``)."""
        return len(self._rows) + len(self.drafts)

    def take(self) -> tuple[list[Event], list[Draft]]:
        """Hand over every event and draft recorded so far, in order, and forget them (for streaming writers).

        Event ids keep counting from where they were; the caller must first let anything that reads
        ``drafts`` by position catch up (``SimContext.release`` does).
        """
        events, drafts = self.events, self.drafts
        self._handed += len(self._rows)
        self._rows, self._events, self.drafts, self._moments = [], [], [], {}
        return events, drafts

    def draft(
        self,
        artifact_id: str,
        subsystem: str,
        kind: str,
        author: str,
        entity: EntityRef,
        title: str,
        template: str,
        facts: dict[str, Any],
        acl: Acl = PUBLIC,
        context: dict[str, Any] | None = None,
        variants: int = 1 << 30,
    ) -> str:
        """Record a new version of an artifact now; returns ``ARTIFACT-ID@version``.

        ``variant`` seeds the version's wording (templates take it modulo 3; composers seed their grammar).
        """
        latest = self.latest
        version = latest[artifact_id] + 1 if artifact_id in latest else 1
        latest[artifact_id] = version
        variant = int(self._random() * variants)
        self.drafts.append(_new_draft(Draft, (artifact_id, version, subsystem, kind, self.env.now, author, entity,
                                              title, template, variant, facts, acl, context or {})))
        return f"{artifact_id}@{version}"
