"""Where people work: offices in three time zones, each with its own working hours and holidays, and leave.

Everyone works 09:00–17:00 local time in their office (the configured hours,
read as local time); the company calendar's holidays apply everywhere and an
office may add its own. London keeps UTC in winter, so its calendar is the
company calendar itself. Teams are spread over offices in fixed proportions
(SRE follows the sun); each person is assigned one office, seeded. Leave
(PTO) is booked in blocks of working days; a person on leave or on an office
holiday picks up no work.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date

from simulator.calendar import BusinessCalendar
from simulator.config import CalendarConfig

#: Office → (hours from UTC during the run's season, office holidays on top of the company's).
OFFICES: dict[str, tuple[int, tuple[date, ...]]] = {
    "London": (0, ()),
    "New York": (-5, ()),
    "Singapore": (8, (date(2026, 2, 17), date(2026, 2, 18), date(2027, 2, 6), date(2027, 2, 8))),
}
#: Team → (office, weight) shares; teams not named work in London.
TEAM_OFFICES: dict[str, tuple[tuple[str, int], ...]] = {
    "support_l1": (("London", 2), ("New York", 1)),
    "support_l2": (("London", 2), ("New York", 1)),
    "engineering": (("London", 3), ("Singapore", 1)),
    "sre": (("London", 1), ("New York", 1), ("Singapore", 1)),
    "sales": (("London", 1), ("New York", 1)),
}
HOME = "London"
#: Share of people who book a block of leave during the run, and its length in working days.
LEAVE_SHARE = 0.5
LEAVE_DAYS = (1, 5)


def office_calendars(start: date, days: int, config: CalendarConfig) -> dict[str, BusinessCalendar]:
    """One business calendar per office: the local working hours in UTC, company plus office holidays.

    An office whose local hours would cross midnight UTC under this config works the company's hours.
    """
    out = {}
    for office, (offset, holidays) in OFFICES.items():
        opens, closes = config.workday_start - offset, config.workday_end - offset
        shifted = replace(config, holidays=tuple(sorted({*config.holidays, *holidays})))
        if 0 <= opens and closes <= 24:
            shifted = replace(shifted, workday_start=opens, workday_end=closes)
        out[office] = BusinessCalendar(start, days, shifted)
    return out


def pick_office(team: str, rng: random.Random) -> str:
    """A seeded office for a member of ``team``."""
    shares = TEAM_OFFICES.get(team)
    if not shares:
        return HOME
    offices = [office for office, weight in shares for _ in range(weight)]
    return offices[int(rng.random() * len(offices))]


def plan_leave(actor_ids: list[str], working_days: list[int], rng: random.Random) -> dict[str, tuple[int, int]]:
    """Actor → (first, last) day index of the one block of leave they take, for about ``LEAVE_SHARE`` of them."""
    out: dict[str, tuple[int, int]] = {}
    if len(working_days) < 10:
        return out
    for actor_id in actor_ids:
        if rng.random() >= LEAVE_SHARE:
            continue
        first = rng.randrange(2, len(working_days) - LEAVE_DAYS[1])
        length = rng.randint(*LEAVE_DAYS)
        out[actor_id] = (working_days[first], working_days[first + length - 1])
    return out
