"""The organisation keeps each person's current Actor record, replaced when staffing changes it, and their role
history beside it."""

from __future__ import annotations

import random
from datetime import timedelta

from simulator.calendar import BusinessCalendar
from simulator.config import load_config
from simulator.model import Actor
from simulator.names import Names
from simulator.org import TEAM_ROLES, Org


def _org() -> Org:
    config = load_config(people=30, days=10)
    return Org.generate(config, BusinessCalendar(config.start, config.days, config.calendar), random.Random(7),
                        Names(7))


def test_staffing_changes_replace_the_record_and_close_the_role_history():
    org = _org()
    assert all(type(p) is Actor for p in org.people.values())
    mover = next(a for a in org.members("support_l1") if a != org.manager_of("support_l1"))
    before = org.people[mover]
    moment = org.calendar.start + timedelta(days=3)
    moved = org.change_role(mover, "sre", moment)
    assert org.people[mover] is moved and before.team == "support_l1"            # the old record is unchanged
    assert (moved.team, moved.role, moved.manager) == ("sre", TEAM_ROLES["sre"][0], org.manager_of("sre"))
    assert moved.title == org.titles["sre"][0]
    assert org.role_history[mover] == [["support_l1", before.joined_at, moment], ["sre", moment, None]]
    assert mover in org.members("sre") and mover not in org.members("support_l1")

    placed = org.place(mover, "Singapore", 8)
    assert (placed.office, placed.utc_offset, placed.team) == ("Singapore", 8, "sre")
    gone = org.depart(mover, moment + timedelta(days=1))
    assert gone.left_at == moment + timedelta(days=1) and not org.is_active(mover)
    assert org.role_history[mover][-1] == ["sre", moment, moment + timedelta(days=1)]
    assert org.actors()[int(mover[2:]) - 1] == gone == Actor.from_json(gone.to_json())
    assigned = [(r.role, r.valid_from, r.valid_to) for r in org.to_policy().assignments if r.actor_id == mover]
    assert assigned == [("support_l1", before.joined_at, moment), ("sre", moment, moment + timedelta(days=1))]
