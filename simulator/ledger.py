"""The ledger: what the running simulation records — events, and artifact version drafts to render later.

Processes call ``emit`` for every event and ``draft`` for every artifact
version. Both are stamped with the current simulation time, so events come
out in (time, sequence) order. Drafts carry the facts and the template name;
their text is rendered in bulk after the event loop (``simulator.artifacts``),
which keeps the loop fast.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Mapping

import simpy

from simulator.calendar import BusinessCalendar
from simulator.clock import format_ts
from simulator.model import Acl, EntityRef, Event, ParentLink

PUBLIC = Acl()


@dataclass(slots=True)
class Draft:
    """An artifact version whose body is not rendered yet."""

    artifact_id: str
    version: int
    subsystem: str
    kind: str
    created_at: datetime
    author: str
    entity: EntityRef
    title: str
    template: str
    variant: int
    facts: dict[str, Any]
    acl: Acl
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        """``ARTIFACT-ID@version``."""
        return f"{self.artifact_id}@{self.version}"


class Ledger:
    """Records events and artifact drafts at the simulation's current time."""

    def __init__(self, env: simpy.Environment, calendar: BusinessCalendar, wording: random.Random) -> None:
        self.env = env
        self.calendar = calendar
        self.wording = wording
        self.events: list[Event] = []
        self.drafts: list[Draft] = []
        self.latest: dict[str, Draft] = {}
        self._counters: dict[str, int] = {}
        self._now_minute = -1.0
        self._now = calendar.start

    def now(self) -> datetime:
        """The current simulation time as a UTC datetime (to the second)."""
        if self.env.now != self._now_minute:
            self._now_minute = self.env.now
            self._now = self.calendar.moment(self.env.now)
        return self._now

    def stamp(self) -> str:
        """The current simulation time as RFC 3339 UTC text."""
        return format_ts(self.now())

    def next_id(self, prefix: str, first: int = 1) -> str:
        """The next readable id with this prefix: ``CASE-10001``, ``INC-1``, …"""
        n = self._counters.get(prefix, first - 1) + 1
        self._counters[prefix] = n
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
        event_id = f"EV-{len(self.events) + 1:07d}"
        self.events.append(Event(event_id, self.now(), event_type,
                                 actors if isinstance(actors, tuple) else tuple(actors), subsystem, entity,
                                 payload or {}, parents if isinstance(parents, tuple) else tuple(parents),
                                 artifacts if isinstance(artifacts, tuple) else tuple(artifacts)))
        return event_id

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
        variants: int = 3,
    ) -> str:
        """Record a new version of an artifact now; returns ``ARTIFACT-ID@version``."""
        previous = self.latest.get(artifact_id)
        version = 1 if previous is None else previous.version + 1
        draft = Draft(artifact_id, version, subsystem, kind, self.now(), author, entity, title, template,
                      int(self.wording.random() * variants), facts, acl, context or {})
        self.drafts.append(draft)
        self.latest[artifact_id] = draft
        return draft.ref
