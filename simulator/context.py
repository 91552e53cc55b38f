"""The shared state every business process works on, and the small helpers they use to wait.

One ``SimContext`` per run: the simpy environment, the calendar, the ledger,
the organisation, the collaboration graph, the customers, one seeded RNG per
stream, and a short feed of recent news that chat and meetings repeat.

News is gossip with rules: each item remembers where its facts live (the
subsystem and private space of its source record), so only people who could
read that source at the moment repeat it; a repeated case states the status
its ticket shows at that moment, never the status it had when it was news.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from heapq import heappush
from typing import Any, Sequence

import simpy
from simpy.events import NORMAL, Timeout

from simulator.calendar import BusinessCalendar
from simulator.claims import Claim
from simulator.config import SimConfig
from simulator.customers import Account
from simulator.graph import CollaborationGraph
from simulator.ledger import Draft, Ledger
from simulator.org import Org

#: News kind → (subsystem its source lives in, the fact naming the source record).
NEWS_SOURCES: dict[str, tuple[str, str]] = {
    "case": ("ticketing", "case_id"), "incident": ("incidents", "incident_id"), "deploy": ("deploys", "change_id"),
    "postmortem": ("postmortems", "postmortem_id"),
}

_NEWS_SUBSYSTEMS = frozenset(subsystem for subsystem, _ in NEWS_SOURCES.values())


@dataclass(frozen=True, slots=True)
class NewsItem:
    """Something people may repeat: its facts as first told, and the record (and where it lives) they came from."""

    kind: str
    facts: dict[str, Any]
    source_id: str
    subsystem: str
    space: str | None = None


_new = object.__new__


def timeout(env: simpy.Environment, delay: float) -> Timeout:
    """``Timeout(env, delay)`` for a ``delay`` of at least 0: the same event and the same entry in simpy's queue
    (time, priority, event id), made without the two calls of ``Timeout.__init__`` (processes wait ~30k times a
    world)."""
    event = _new(Timeout)
    event.env = env
    event.callbacks = []
    event._value = None
    event._delay = delay
    event._ok = True
    heappush(env._queue, (env._now + delay, NORMAL, next(env._eid), event))
    return event


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
    #: Service → the change most recently deployed on it (what on-call suspects first).
    last_deploys: dict[str, str] = field(default_factory=dict)
    #: Labelled stale, wrong and conflicting statements made so far (the world's truth sidecar).
    claims: list[Claim] = field(default_factory=list)
    #: Account id → the incident after which sales flagged the account at risk.
    risk_flags: dict[str, str] = field(default_factory=dict)
    #: Runbook id → the revision in force now (``simulator.processes.runbooks`` publishes and revises them)…
    runbooks: dict[str, Any] = field(default_factory=dict)
    #: …and → the wiki page that states it.
    runbooks_page: dict[str, str] = field(default_factory=dict)
    #: Process → how many wiki pages it keeps: the configured wiki edit rate is shared among all pages.
    wiki_pages: dict[str, int] = field(default_factory=dict)
    #: Office → its business calendar (``simulator.offices``); people work in their own office's hours.
    calendars: dict[str, BusinessCalendar] = field(default_factory=dict)
    #: Actor → (first, last) day index of their leave.
    leave: dict[str, tuple[int, int]] = field(default_factory=dict)

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
        self._roles = self.config.roles_map
        self._pack = self.config.domain_pack
        self._latest: dict[str, Draft] = {}  # artifact id → its latest draft, caught up lazily
        self._seen = 0
        self._released = False  # set once ``release`` has handed drafts over (a streamed run)

    @property
    def pack(self):
        """The world's domain pack (simulator.packs.Pack): products, services, runbooks, topics."""
        return self._pack

    @property
    def now(self) -> float:
        """The current simulation minute."""
        return self.env.now

    def until(self, minute: float) -> simpy.Timeout:
        """A timeout that ends at simulation ``minute`` (or now, if that has passed)."""
        env = self.env
        delay = minute - env._now
        return timeout(env, delay if delay > 0.0 else 0.0)

    def work(self, minutes: float) -> simpy.Timeout:
        """Wait for ``minutes`` of business time (past the end of the run: sleep until after it)."""
        env = self.env
        now = env.now
        delay = (self._end + 1.0 if minutes > self._end else self._after(now, minutes)) - now
        return timeout(env, delay if delay > 0.0 else 0.0)

    def calendar_of(self, actor_id: str) -> BusinessCalendar:
        """The business calendar of the office ``actor_id`` works in (the company calendar if none)."""
        return self.calendars.get(self.org.people[actor_id].office, self.calendar)

    def work_as(self, actor_id: str, minutes: float) -> simpy.Timeout:
        """Wait for ``minutes`` of ``actor_id``'s working time (their office hours, not their leave)."""
        env = self.env
        calendar = self.calendar_of(actor_id)
        done = self._end + 1.0 if minutes > self._end else calendar.after(env.now, minutes)
        leave = self.leave.get(actor_id)
        if leave is not None and leave[0] <= int(done // 1440) <= leave[1]:  # back at work after the leave
            done = calendar.after(calendar.next_open((leave[1] + 1) * 1440.0), minutes)
        return timeout(env, max(0.0, done - env.now))

    def at_work(self, actor_id: str) -> bool:
        """True if ``actor_id`` is employed, in office hours now and not on leave."""
        person = self.org.people[actor_id]
        if person.left_at is not None:
            return False
        now = self.env.now
        leave = self.leave.get(actor_id)
        if leave is not None and leave[0] <= int(now // 1440) <= leave[1]:
            return False
        return self.calendars.get(person.office, self.calendar).is_open(now)  # calendar_of, inline

    def on_leave(self, actor_id: str) -> bool:
        """True if ``actor_id`` is on leave today."""
        leave = self.leave.get(actor_id)
        return leave is not None and leave[0] <= int(self.env.now // 1440) <= leave[1]

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
        """Add something people may mention later in chat or meetings (``kind`` is a ``NEWS_SOURCES`` key)."""
        subsystem, key = NEWS_SOURCES[kind]
        source_id = facts[key]
        case = self.open_cases.get(source_id) if kind == "case" else None
        self.news.append(NewsItem(kind, facts, source_id, subsystem, getattr(case, "space", None)))

    def latest(self, artifact_id: str) -> Draft | None:
        """The latest version (draft) of an artifact recorded so far: the record as it stands now."""
        drafts = self.ledger.drafts
        if self._seen < len(drafts):
            latest = self._latest
            for index in range(self._seen, len(drafts)):
                draft = drafts[index]
                latest[draft.artifact_id] = draft
            self._seen = len(drafts)
        found = self._latest.get(artifact_id)
        if found is None and self._released and artifact_id in self.ledger.latest:
            raise RuntimeError(f"latest({artifact_id!r}): its drafts left memory with a streamed chunk; "
                               f"only news sources ({', '.join(sorted(_NEWS_SUBSYSTEMS))}) are kept")
        return found

    def release(self) -> tuple[list[Any], list[Draft], list[Claim]]:
        """The events, drafts and labelled claims so far, handed over and forgotten (streaming writers call this).

        ``latest`` goes on knowing every record of a news source (``NEWS_SOURCES``: what processes ask it
        about); the latest drafts of other subsystems (chat, mail, wiki, ...) leave memory with their chunk,
        and asking ``latest`` about one of those afterwards is an error, never a silent None.
        """
        self.latest("")  # catch up on the drafts before they leave the ledger
        self._seen = 0
        self._released = True
        events, drafts = self.ledger.take()
        latest = self._latest
        for draft in drafts:
            if draft.subsystem not in _NEWS_SUBSYSTEMS and latest.get(draft.artifact_id) is draft:
                del latest[draft.artifact_id]
        claims, self.claims = self.claims, []
        return events, drafts, claims

    def can_read(self, actor_id: str, subsystem: str, space: str | None = None) -> bool:
        """Could ``actor_id`` read records of ``subsystem`` (in ``space``) now: role or a grant, and membership."""
        person = self.org.people[actor_id]
        if person.left_at is not None:
            return False
        if subsystem not in self._roles.get(person.role, ()):
            moment = self.ledger.now()
            if not any(g.actor_id == actor_id and g.subsystem == subsystem and g.covers(moment)
                       for g in self.org.grants):
                return False
        return space is None or actor_id in self.org.space_members(space)

    def told(self, item: NewsItem, teller: str) -> dict[str, Any] | None:
        """The facts of ``item`` as ``teller`` would repeat them now, or None if they could not read its source.

        Facts are true now: a case states its ticket's current status (the facts its steps wrote never change).
        """
        if not self.can_read(teller, item.subsystem, item.space):
            return None
        if item.kind != "case":
            return dict(item.facts)
        ticket = self.latest(item.source_id)
        facts = dict(item.facts)
        if ticket is not None and "case_status" in ticket.facts:
            facts["case_status"] = ticket.facts["case_status"]
        return facts

    def shared_context(self, **values: Any) -> dict[str, Any]:
        """A template context many drafts share (read-only, one dict per distinct content, as ACLs are)."""
        key = ("context", *values.items())
        found = self.shared.get(key)
        if found is None:
            found = self.shared[key] = values
        return found

    def wiki_share(self, keeper: str) -> float:
        """The share of wiki edits that fall on ``keeper``'s pages."""
        return self.wiki_pages.get(keeper, 0) / (sum(self.wiki_pages.values()) or 1)

    def label(self, ref: str, fact: str, value: Any, true_value: Any, kind: str, source: str) -> None:
        """Record that version ``ref`` states ``fact`` as ``value`` while the engine knows ``true_value``."""
        self.claims.append(Claim(ref, fact, value, true_value, kind, source))
