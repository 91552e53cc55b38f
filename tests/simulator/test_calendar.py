"""Business hours: work happens on working days between the configured hours."""

from __future__ import annotations

import random
from datetime import date, time

from simulator.calendar import DAY, BusinessCalendar
from simulator.config import load_config


def _calendar():
    config = load_config()  # starts Monday 2026-01-05; holiday Monday 2026-01-19
    return BusinessCalendar(config.start, config.days, config.calendar)


def test_work_skips_nights_weekends_and_holidays():
    cal = _calendar()
    friday_4pm = 4 * DAY + 16 * 60
    done = cal.after(friday_4pm, 120)  # one hour on Friday (work stops at 16:59:59), one on Monday
    assert cal.date_of(done) == date(2026, 1, 12)
    assert cal.moment(done).isoformat() == "2026-01-12T10:00:01+00:00"
    assert cal.next_open(11 * DAY + 18 * 60) == 15 * DAY + 9 * 60  # Friday 18:00 → Tuesday, past the holiday
    assert cal.next_open(11 * DAY + 12 * 60) == 11 * DAY + 12 * 60  # inside hours: unchanged
    assert not cal.is_working_day(14)  # Monday 2026-01-19 is a holiday
    assert cal.next_open(13 * DAY + 18 * 60) == 15 * DAY + 9 * 60  # Sunday 18:00 → Tuesday 2026-01-20 09:00


def test_moments_are_utc():
    cal = _calendar()
    moment = cal.moment(9 * 60 + 0.5)
    assert moment.isoformat() == "2026-01-05T09:00:30+00:00"


def test_working_moments_are_stamped_before_closing_time():
    """A moment in the last second before 17:00 would be stamped 17:00:00; work never lands there."""
    cal = _calendar()
    close = 17 * 60
    last_half_second = close - 0.4 / 60
    assert cal.moment(last_half_second).time() == time(17)  # the rounding that made events land at closing time
    assert not cal.is_open(last_half_second)
    assert cal.next_open(last_half_second) == 1 * DAY + 9 * 60  # the next morning
    assert cal.moment(cal.after(9 * 60, 8 * 60 - 0.5 / 60)) == cal.moment(DAY + 9 * 60 + 0.5 / 60)
    assert cal.moment(cal.after(9 * 60, 8 * 60 - 1.5 / 60)).time() == time(16, 59, 58)
    rng = random.Random(5)
    for _ in range(20_000):
        start = rng.uniform(0, 40 * DAY)
        for done in (cal.after(start, rng.expovariate(1 / 60)), cal.after(start, rng.uniform(0, 480)),
                     cal.business_days_after(start, rng.randint(1, 5))):
            stamped = cal.moment(done)
            assert cal.is_working_day((stamped.date() - date(2026, 1, 5)).days), stamped
            assert time(9) <= stamped.time() < time(17), (start, done, stamped)
