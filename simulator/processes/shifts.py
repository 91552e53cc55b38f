"""Who is at work now across the offices, and when the next of them speaks up.

Everyday communication follows each author's own office hours: London,
New York and Singapore open at different UTC hours, keep their own holidays,
and a person on leave writes nothing. A process that draws its authors from
a group waits with ``Shift.wait``: events arrive at the group's configured
rate scaled by the share of the group at work, as a piecewise Poisson process
whose rate changes only where an office opens or closes (or a day ends), so
nights and weekends are quiet where nobody works, not everywhere at once.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from typing import Callable

from simpy.events import Timeout

from simulator.calendar import DAY
from simulator.context import SimContext

#: Minutes: a moment this close before a boundary counts as at it (sums of floats land just short of one).
EPSILON = 1e-6
#: Minutes: a moment this far before the end of the segment found last is in that segment (far beyond EPSILON and
#: float error, so the bisection is skipped only where it would find the same end).
SAME_SEGMENT = 1e-3


def _boundaries(ctx: SimContext) -> list[float]:
    """The minutes of a day at which some office opens or stops work, and the day's end."""
    found = ctx.shared.get(("shift-boundaries",))
    if found is None:
        calendars = list(ctx.calendars.values()) or [ctx.calendar]
        found = sorted({m for c in calendars for m in (c.open_minute, c.work_end)} | {DAY})
        ctx.shared[("shift-boundaries",)] = found
    return found


def at_work_now(ctx: SimContext, key: str, people: list[str], end: float) -> list[str]:
    """The members of ``people`` at work now (their office open, not on leave), cached until the segment's
    ``end`` (the next moment at which who is at work may change)."""
    cached = ctx.shared.get(("at-work", key))
    if cached is not None and cached[0] == end and cached[1] is people:
        return cached[2]
    at_work = _everyone_at_work(ctx, end)
    working = [p for p in people if p in at_work]
    ctx.shared[("at-work", key)] = (end, people, working)
    return working


def _everyone_at_work(ctx: SimContext, end: float) -> frozenset[str]:
    """Every employed person at work in the segment ending at ``end`` (office open, not on leave).

    One pass over the staff serves every group until the segment ends or the staff changes (a hire, a
    departure or a move rebuilds ``org.active()``; offices and leave change only with those).
    """
    active = ctx.org.active()
    cached = ctx.shared.get(("at-work-all",))
    if cached is not None and cached[0] == end and cached[1] is active:
        return cached[2]
    probe = ctx.now + EPSILON  # the segment's state, also when now lies a float's width short of its start
    day = int(probe // DAY)
    people_of, leave = ctx.org.people, ctx.leave
    open_offices = _open_offices(ctx, end, probe)
    company = open_offices[None]
    found = set()
    for p in active:
        if open_offices.get(people_of[p].office, company):
            away = leave.get(p)
            if away is None or not away[0] <= day <= away[1]:
                found.add(p)
    at_work = frozenset(found)
    ctx.shared[("at-work-all",)] = (end, active, at_work)
    return at_work


def _open_offices(ctx: SimContext, end: float, probe: float) -> dict[str | None, bool]:
    """Whether each office (``None``: the company calendar) is open in the segment ending at ``end``.

    Offices open and close only at the segment boundaries, so one look per office serves the whole segment.
    """
    cached = ctx.shared.get(("open-offices",))
    if cached is not None and cached[0] == end:
        return cached[1]
    found: dict[str | None, bool] = {office: calendar.is_open(probe) for office, calendar in ctx.calendars.items()}
    found[None] = ctx.calendar.is_open(probe)
    ctx.shared[("open-offices",)] = (end, found)
    return found


class Shift:
    """The events of one process's group at work: ``wait`` says what the process waits for next.

    What the last look found (the segment's end, the group list and who of it is at work) is kept from one wait to
    the next: ``at_work_now`` gives the same answer for the same segment end and group list. A process waits for
    its group's next event with::

        people = None
        while people is None:
            timeout, people = shift.wait(per_day)
            yield timeout
    """

    def __init__(self, ctx: SimContext, key: str, group: Callable[[], list[str]], rng: random.Random) -> None:
        self.ctx, self.key, self.group, self.expovariate = ctx, key, group, rng.expovariate
        self.open_length, self.end_of_run = ctx.calendar.open_length, ctx.calendar.end_minute
        self.bounds = _boundaries(ctx)
        self.seen: tuple[float, list[str] | None, list[str]] = (-1.0, None, [])

    def wait(self, per_day: float) -> tuple[Timeout, list[str] | None]:
        """The next wait for a group that makes ``per_day`` events per working day when all are at work: a timeout,
        and the members of the group at work when it ends if the group's next event falls there (never empty), or
        None if the process is to look again then (nobody at work, or no event before the group's segment ends)."""
        ctx = self.ctx
        now = ctx.env.now
        people = self.group()
        seen_end, seen_people, working = self.seen
        if now < seen_end - SAME_SEGMENT:  # time only moves on: still inside the segment found last
            boundary = seen_end
        else:
            day = int(now // DAY)  # the segment's end: the next boundary after now
            bounds = self.bounds
            boundary = day * DAY + bounds[bisect_right(bounds, now - day * DAY + EPSILON)]
        if boundary != seen_end or people is not seen_people:
            working = at_work_now(ctx, self.key, people, boundary) if people else []
            self.seen = (boundary, people, working)
        if not working or per_day <= 0:
            return ctx.until(boundary), None
        gap = self.expovariate(per_day * len(working) / len(people) / self.open_length)
        if now + gap < boundary:
            return ctx.until(now + gap), working
        # the run ends before the next segment: a wait past its end (never resumed)
        return ctx.until(self.end_of_run + 1.0 if boundary > self.end_of_run else boundary), None
