"""Incidents have one causing change (join key) and nearby decoys; postmortems and escalation silence."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from simulator.processes.engineering import MECHANISMS


def _index(world):
    return {e.event_id: e for e in world.events}


def _incidents(world):
    return [e for e in world.events if e.type == "incident.opened"]


def test_every_incident_has_exactly_one_causing_change(small_world):
    events = _index(small_world)
    incidents = _incidents(small_world)
    assert len(incidents) >= 3
    for incident in incidents:
        change_id = incident.payload["change_id"]
        assert len(incident.parents) == 1
        link = incident.parents[0]
        deploy = events[link.event_id]
        assert deploy.type == "deploy.completed" and deploy.payload["change_id"] == change_id
        assert dict(link.join_key) == {"change_id": change_id}
        assert deploy.ts < incident.ts


def _business_minutes(start, end, calendar: dict) -> float:
    """Working minutes between two moments under the world's calendar (weekdays, hours, holidays)."""
    total, day = 0.0, start.date()
    holidays = set(calendar["holidays"])
    while day <= end.date():
        if day.weekday() < 5 and day.isoformat() not in holidays:
            opens = datetime.combine(day, time(calendar["workday_start"]), tzinfo=start.tzinfo)
            closes = datetime.combine(day, time(calendar["workday_end"]), tzinfo=start.tzinfo)
            overlap = min(end, closes) - max(start, opens)
            total += max(overlap.total_seconds(), 0.0) / 60.0
        day += timedelta(days=1)
    return total


def test_every_incident_has_a_decoy_change_deployed_nearby_without_a_join_key(small_world):
    """Nearby in working time: a decoy goes out between the faulty deploy and the incident, at most 6 working hours before it."""
    events = _index(small_world)
    calendar = small_world.meta["config"]["calendar"]
    deploys = [e for e in small_world.events if e.type == "deploy.completed"]
    for incident in _incidents(small_world):
        cause = events[incident.parents[0].event_id]
        decoys = [d for d in deploys if d.payload["change_id"] != incident.payload["change_id"]
                  and cause.ts <= d.ts < incident.ts and _business_minutes(d.ts, incident.ts, calendar) <= 360]
        assert decoys, incident.payload["incident_id"]
        linked = {p.event_id for e in small_world.events if e.entity.id == incident.entity.id for p in e.parents}
        assert not linked & {d.event_id for d in decoys}
        for decoy in decoys:
            assert all(incident.payload["change_id"] != p.join_key.get("change_id") for p in decoy.parents)


def test_some_incidents_have_postmortems_and_some_never_do(small_world, default_world):
    """In the default world both happen; in the short small world some incident surely goes without one."""
    for world in (small_world, default_world):
        events = _index(world)
        with_pm = set()
        for event in world.events:
            if event.type == "postmortem.published":
                for link in event.parents:
                    if events[link.event_id].type == "incident.opened":
                        with_pm.add(link.join_key["incident_id"])
        ids = {e.payload["incident_id"] for e in _incidents(world)}
        assert with_pm < ids
        assert with_pm or world is small_world


def test_incident_and_postmortem_facts_name_the_change_and_mechanism(small_world):
    final = {}
    for version in small_world.artifacts:
        if version.kind in ("incident", "postmortem"):
            final[version.artifact_id] = version
    causes = {e.payload["incident_id"]: e.payload["change_id"] for e in _incidents(small_world)}
    stalled = {e.payload["incident_id"] for e in small_world.events if e.type == "incident.stalled"}
    for version in final.values():
        incident_id = version.facts["incident_id"]
        if version.kind == "incident" and version.facts["status"] != "resolved":
            assert incident_id in stalled, incident_id  # only a stalled incident can still be open at the end
            continue
        if version.kind == "incident":
            assert version.facts["status"] == "resolved"
        assert version.facts["change_id"] == causes[incident_id]
        mechanism = version.facts["mechanism"]
        assert mechanism in MECHANISMS and version.facts["mechanism_aliases"] == list(MECHANISMS[mechanism][0])
        assert version.facts["change_id"] in version.body
    first = [v for v in small_world.artifacts if v.kind == "incident" and v.version == 1]
    assert first and all("change_id" not in v.facts for v in first)  # the cause is not known when it opens


def test_some_escalations_are_never_answered(default_world):
    answered = {p.join_key["escalation_id"] for e in default_world.events if e.type == "escalation.answered"
                for p in e.parents if "escalation_id" in p.join_key}
    sent = {e.payload["escalation_id"] for e in default_world.events if e.type == "escalation.sent"}
    assert answered < sent
    unanswered = sent - answered
    kinds = {e.entity.kind for e in default_world.events if e.type == "escalation.sent"
             and e.payload["escalation_id"] in unanswered}
    assert kinds == {"case", "incident"}


def test_escalations_follow_the_org_graph_to_the_right_people(small_world):
    policy = small_world.policy
    graph = small_world.org_graph()
    sent = [e for e in small_world.events if e.type == "escalation.sent"]
    assert sent
    for event in sent:
        route = event.payload["route"]
        target = event.payload["escalated_to"]
        assert route[0] == event.actors[0] and route[-1] == target
        assert all(graph.has_edge(a, b) for a, b in zip(route, route[1:]))
        assert all(policy.employed_at(person, event.ts) for person in route)
        role = policy.role_at(target, event.ts)
        expected = {"support_manager": {"support_manager"}, "support_l2": {"support_l2", "support_manager"},
                    "engineering": {"engineer", "engineering_manager"},
                    "engineering_manager": {"engineering_manager"}, "sales_manager": {"sales_manager"},
                    "sre": {"sre", "engineering_manager"}}[event.payload["target"]]
        assert role in expected, (event.event_id, role)


def test_changes_ship_in_working_hours_and_some_incidents_page_after_hours(small_world, default_world):
    """No deploy stands out by its clock: decoys ship in business hours like every other change. Alerts fire
    at any hour: some incidents open (and page the on-call) after close, and the page says so."""
    calendar = small_world.meta["config"]["calendar"]
    for world in (small_world, default_world):
        pages = [e for e in world.events if e.type == "incident.paged"]
        late = [e for e in pages if not (calendar["workday_start"] <= e.ts.hour < calendar["workday_end"])
                or e.ts.weekday() >= 5]
        assert late and len(late) < len(pages)
        assert all(e.payload["after_hours"] for e in late)
    times = [e.ts for e in small_world.events if e.type in ("change.proposed", "change.approved", "deploy.completed")]
    assert len(times) >= 20
    for ts in times:
        assert ts.weekday() < 5 and ts.date().isoformat() not in calendar["holidays"], ts
        assert calendar["workday_start"] * 60 <= ts.hour * 60 + ts.minute < calendar["workday_end"] * 60, ts
