"""The business calendar: working hours on working days, in simulation minutes since the start (UTC).

Simulation time is a float number of minutes since ``start`` 00:00 UTC.
People work only inside business hours; ``after`` turns an amount of work
into the moment it is finished, skipping nights, weekends and holidays.
Moments are stamped to the second (rounded), so working time ends one second
before ``workday_end``: a moment in the last second would be stamped at the
closing time itself, outside the (exclusive) business hours.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from orgbench.core.clock import UTC
from simulator.config import WEEKDAYS, CalendarConfig

DAY = 1440.0
_from_seconds = datetime.fromtimestamp
#: One second, in minutes: the resolution at which moments are stamped.
SECOND = 1.0 / 60.0
#: A microsecond, in minutes: how far from midnight a minute must be for its date to be its day's.
NEAR_MIDNIGHT = 1e-6 / 60.0


class BusinessCalendar:
    """Working hours in simulation minutes; converts simulation time to UTC datetimes."""

    def __init__(self, start: date, days: int, config: CalendarConfig) -> None:
        self.start = datetime.combine(start, time(0), tzinfo=UTC)
        self._epoch = int(self.start.timestamp())  # whole seconds: a UTC midnight
        self.days = days
        self.open_minute = config.workday_start * 60.0
        self.close_minute = config.workday_end * 60.0
        #: Work stops here, one second before close, so every working moment is stamped before closing time.
        self.work_end = self.close_minute - SECOND
        holidays = set(config.holidays)
        workdays = {WEEKDAYS.index(d) for d in config.workdays}
        # A generous horizon so processes can look past the end of the run.
        horizon = days + 400
        #: The date of each day index, and whether it is a working day.
        self._dates = [start + timedelta(days=i) for i in range(horizon)]
        self._working = [d.weekday() in workdays and d not in holidays for d in self._dates]
        self._next_working = [0] * horizon
        following = horizon + 7
        for i in range(horizon - 1, -1, -1):
            if self._working[i]:
                following = i
            self._next_working[i] = following

    @property
    def end_minute(self) -> float:
        """The simulation minute at which the run ends."""
        return self.days * DAY

    def moment(self, minute: float) -> datetime:
        """The UTC datetime of a simulation minute, to the second (``start + timedelta(seconds=...)``, built from
        the whole seconds since the epoch in two thirds of its time)."""
        return _from_seconds(self._epoch + round(minute * 60.0), UTC)

    def date_of(self, minute: float) -> date:
        """The calendar date of a simulation minute."""
        day = int(minute // DAY)
        # a minute further than a microsecond from midnight is on its day's date (timedelta rounds to microseconds)
        if 0 <= day < len(self._dates) and NEAR_MIDNIGHT < minute - day * DAY < DAY - NEAR_MIDNIGHT:
            return self._dates[day]
        return (self.start + timedelta(minutes=minute)).date()

    def is_working_day(self, day: int) -> bool:
        """True if day index ``day`` (0 = start) is a working day."""
        return 0 <= day < len(self._working) and self._working[day]

    def working_days(self) -> list[int]:
        """Indexes of the working days inside the run."""
        return [d for d in range(self.days) if self._working[d]]

    def is_open(self, minute: float) -> bool:
        """True if ``minute`` falls inside business hours (and is stamped before closing time)."""
        day = int(minute // DAY)
        if not 0 <= day < len(self._working) or not self._working[day]:  # is_working_day, inline
            return False
        return self.open_minute <= minute - day * DAY < self.work_end

    def next_open(self, minute: float) -> float:
        """``minute`` if inside business hours, else the start of the next business period."""
        day = int(minute // DAY)
        within = minute - day * DAY
        if day < len(self._working) and self._working[day]:
            if within < self.open_minute:
                return day * DAY + self.open_minute
            if within < self.work_end:
                return minute
        nxt = self._next_working[day + 1] if day + 1 < len(self._next_working) else day + 1
        return nxt * DAY + self.open_minute

    def after(self, minute: float, work: float) -> float:
        """The moment ``work`` business minutes after ``minute`` (starting at the next open time)."""
        day = int(minute // DAY)
        within = minute - day * DAY
        if day < len(self._working) and self._working[day] and self.open_minute <= within < self.work_end:
            if work < day * DAY + self.work_end - minute:  # the common case: done the same business day
                return minute + work
            now = minute
        else:
            now = self.next_open(minute)
        while True:
            day = int(now // DAY)
            left_today = day * DAY + self.work_end - now
            if work < left_today:
                return now + work
            work -= left_today
            now = self.next_open(day * DAY + self.close_minute)

    def business_days_after(self, minute: float, days: int) -> float:
        """The same time of day ``days`` working days later (at the next open time if outside hours)."""
        now = self.next_open(minute)
        day = int(now // DAY)
        offset = now - day * DAY
        for _ in range(days):
            day = self._next_working[day + 1] if day + 1 < len(self._next_working) else day + 1
        return day * DAY + offset

    def day_open(self, day: int) -> float:
        """The minute business opens on day index ``day``."""
        return day * DAY + self.open_minute

    @property
    def open_length(self) -> float:
        """Length of a business day in minutes."""
        return self.close_minute - self.open_minute
