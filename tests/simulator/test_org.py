"""A Person carries exactly Actor's fields (typed, slotted) and its role history."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime, timezone

from simulator.model import Actor
from simulator.org import Person


def test_a_person_has_actors_fields_in_order_then_roles():
    assert Person.__slots__ == (*(f.name for f in fields(Actor)), "roles")
    actor = Actor("A-1", "Ada", "ada@example.com", "Engineer", "sre", "sre", None,
                  datetime(2026, 1, 5, tzinfo=timezone.utc), office="Berlin", utc_offset=1)
    person = Person(*(getattr(actor, f.name) for f in fields(Actor)))
    assert person.to_actor() == actor and person.roles == [] and person.active
