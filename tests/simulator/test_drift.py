"""Time and procedure that drift: runbook revisions mid-run, heavy-tailed incidents, offices, leave, a daily curve."""

from __future__ import annotations

from statistics import median

from simulator.procedures import REVISIONS, procedure as runbook
from tests.simulator.test_cases import _tickets


def test_cases_before_and_after_a_revision_follow_the_steps_the_page_showed_when_they_opened(default_world):
    world = default_world
    revised = {e.payload["procedure_id"]: e for e in world.events if e.type == "wiki.runbook_revised"}
    assert set(revised) == {r.procedure_id for r in REVISIONS}
    for history in _tickets(world).values():
        first, last = history[0], history[-1]
        procedure_id = first.facts["procedure_id"]
        if procedure_id not in revised:
            assert first.facts["procedure_revision"] == 1
            continue
        revision = revised[procedure_id]
        expected = 2 if first.created_at >= revision.ts else 1
        assert first.facts["procedure_revision"] == expected, first.ref
        page = world.as_of(revision.payload["wiki_id"], first.created_at)
        assert page.facts["revision"] == expected
        steps = [s.step_id for s in runbook(procedure_id, expected).steps]
        assert page.facts["steps"] == steps
        assert last.facts["steps_completed"] == steps[:len(last.facts["steps_completed"])]
    for procedure_id in revised:
        followed = {h[0].facts["procedure_revision"] for h in _tickets(world).values()
                    if h[0].facts["procedure_id"] == procedure_id}
        assert followed == {1, 2}, procedure_id
    for revision in REVISIONS:  # each revision really changes the steps
        before = runbook(revision.procedure_id, 1)
        assert [(s.step_id, s.requires, s.escalates_to) for s in before.steps] != \
            [(s.step_id, s.requires, s.escalates_to) for s in revision.steps]


def test_incident_durations_are_heavy_tailed_and_some_stall_for_days(default_world):
    world = default_world
    opened = {e.payload["incident_id"]: e.ts for e in world.events if e.type == "incident.opened"}
    hours = {e.payload["incident_id"]: (e.ts - opened[e.payload["incident_id"]]).total_seconds() / 3600
             for e in world.events if e.type == "incident.resolved"}
    stalled = {e.payload["incident_id"] for e in world.events if e.type == "incident.stalled"}
    assert stalled and len(hours) >= 10
    assert max(hours[i] for i in stalled if i in hours) > 24           # days, not hours
    assert median(hours.values()) < 8 and max(hours.values()) > 10 * median(hours.values())
    assert min(hours.values()) < 2


def test_staff_work_from_three_offices_take_leave_and_cases_arrive_along_a_daily_curve(default_world):
    world = default_world
    offsets = {a.office: a.utc_offset for a in world.actors}
    assert offsets == {"London": 0, "New York": -5, "Singapore": 8}
    sre_offices = {a.office for a in world.actors if a.team == "sre"}
    assert sre_offices == {"London", "New York", "Singapore"}
    booked = [e for e in world.events if e.type == "hr.leave_booked"]
    assert len(booked) >= 10 and all(e.payload["leave_from"] <= e.payload["leave_to"] for e in booked)
    hours = [e.ts.hour for e in world.events if e.type == "case.opened"]
    by_hour = [hours.count(h) for h in range(24)]
    assert sum(1 for n in by_hour if n) >= 20                           # the portal files cases around the clock
    inside = sum(by_hour[9:17]) / len(hours)
    assert 0.5 < inside < 0.9                                           # most in the working day, not all
    weekend = [e for e in world.events if e.type == "case.opened" and e.ts.weekday() >= 5]
    assert weekend
