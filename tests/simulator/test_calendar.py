"""Business hours: work happens on working days between the configured hours."""

from __future__ import annotations

from datetime import date

from simulator.calendar import DAY, BusinessCalendar
from simulator.config import load_config


def _calendar():
    config = load_config()  # starts Monday 2026-01-05; holiday Monday 2026-01-19
    return BusinessCalendar(config.start, config.days, config.calendar)


def test_work_skips_nights_weekends_and_holidays():
    cal = _calendar()
    friday_4pm = 4 * DAY + 16 * 60
    done = cal.after(friday_4pm, 120)  # one hour on Friday, one on Monday
    assert cal.date_of(done) == date(2026, 1, 12) and done == 7 * DAY + 10 * 60
    assert cal.next_open(11 * DAY + 18 * 60) == 15 * DAY + 9 * 60  # Friday 18:00 → Tuesday, past the holiday
    assert cal.next_open(11 * DAY + 12 * 60) == 11 * DAY + 12 * 60  # inside hours: unchanged
    assert not cal.is_working_day(14)  # Monday 2026-01-19 is a holiday
    assert cal.next_open(13 * DAY + 18 * 60) == 15 * DAY + 9 * 60  # Sunday 18:00 → Tuesday 2026-01-20 09:00


def test_moments_are_utc():
    cal = _calendar()
    moment = cal.moment(9 * 60 + 0.5)
    assert moment.isoformat() == "2026-01-05T09:00:30+00:00"
