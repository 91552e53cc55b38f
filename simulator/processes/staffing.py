"""Staffing: hires, departures, role changes and temporary access grants during the run.

Each change takes effect at its moment: the access policy gains or ends role
assignments, space memberships and grants then, so what a person may see
changes from that moment on. Every change leaves an ``hr`` record visible to
HR, legal and leadership, and to the person and their manager.
"""

from __future__ import annotations

from datetime import timedelta

from orgbench.core.clock import format_ts
from simulator.context import SimContext
from simulator.messaging import post_chat
from simulator.model import Acl, Actor, EntityRef
from simulator.offices import OFFICES, pick_office
from simulator.config import STAFFING_PER_PEOPLE
from simulator.graph import INTRODUCTION_SHARE

#: Role moves people make: (from team, to team).
MOVES = (("support_l1", "support_l2"), ("engineering", "sre"), ("sre", "engineering"), ("support_l2", "engineering"))
GRANTS = (("sales", "ticketing", "account review with support"), ("engineering", "ticketing", "firmware bug triage"),
          ("support_l2", "incidents", "incident follow-up"), ("legal", "ticketing", "contract dispute review"))


def staffing(ctx: SimContext):
    """Plan the run's staffing changes at seeded business times, then carry them out in order."""
    rng = ctx.rng("staffing")
    cfg = ctx.config.staffing
    scale = ctx.config.people / STAFFING_PER_PEOPLE

    def count(n: int) -> int:
        return 0 if n == 0 else max(1, round(n * scale))

    days = ctx.calendar.working_days()
    # Away from the first and last day when the run is long enough; a short run uses any working day.
    window = [d for d in days if 1 <= d < ctx.config.days - 1] or days
    if not window:  # config validation requires a working day; nothing to plan without one
        return
    workday = ctx.calendar.work_end - ctx.calendar.open_minute  # ends a second before close
    plan = []
    for kind, n in (("hire", cfg.hires), ("departure", cfg.departures), ("role_change", cfg.role_changes),
                    ("grant", cfg.grants)):
        for _ in range(count(n)):
            day = rng.choice(window)
            plan.append((ctx.calendar.day_open(day) + rng.uniform(0, workday), kind, ""))
    for actor_id in sorted(ctx.leave):  # leave is booked a week or two ahead (or on the first day)
        first = ctx.leave[actor_id][0]
        booked = [d for d in days if first - 14 <= d <= first - 5] or days[:1]
        plan.append((ctx.calendar.day_open(rng.choice(booked)) + rng.uniform(0, workday), "leave", actor_id))
    plan.sort()
    for minute, kind, actor_id in plan:
        yield ctx.until(minute)
        if kind == "leave":
            book_leave(ctx, rng, actor_id)
            continue
        {"hire": hire, "departure": departure, "role_change": role_change, "grant": grant}[kind](ctx, rng)


def _hr_record(ctx: SimContext, person: Actor, author: str, event_type: str, facts: dict) -> str:
    record_id = ctx.ledger.next_id("HR")
    entity = EntityRef("person", person.actor_id)
    participants = tuple(dict.fromkeys(p for p in (author, person.actor_id, person.manager) if p))
    full = {"hr_record_id": record_id, "actor_id": person.actor_id, "name": person.name, **facts}
    ref = ctx.ledger.draft(record_id, "hr", "hr_record", author, entity, f"{record_id}: {event_type} — {person.name}",
                           "hr_record", full, Acl(participants=participants), {"event": event_type})
    return ctx.ledger.emit(event_type, participants, "hr", entity, {"actor_id": person.actor_id, **facts}, (), (ref,))


def _hr_author(ctx: SimContext, rng) -> str:
    """Someone in HR who is at work now (HR records every change, in HR's own office hours)."""
    members = ctx.org.members("hr")
    return ctx.pick(rng, [a for a in members if ctx.at_work(a)] or members)


def book_leave(ctx: SimContext, rng, actor_id: str) -> None:
    """Someone books their block of leave (decided at the start, so work already avoids it)."""
    person = ctx.org.people[actor_id]
    if person.left_at is not None:
        return
    first, last = ctx.leave[actor_id]
    _hr_record(ctx, person, _hr_author(ctx, rng), "hr.leave_booked",
               {"leave_from": ctx.calendar.date_of(first * 1440.0).isoformat(),
                "leave_to": ctx.calendar.date_of(last * 1440.0).isoformat(), "office": person.office})


def hire(ctx: SimContext, rng) -> None:
    """Someone joins a team; their access starts now."""
    team = rng.choice(("support_l1", "support_l1", "support_l2", "engineering", "sre", "sales"))
    hired = ctx.org.hire(team, ctx.ledger.now())
    office = pick_office(team, ctx.rng("offices.hires"))
    person = ctx.org.place(hired.actor_id, office, OFFICES[office][0])
    ctx.graph.add_person(person.actor_id, name=person.name, team=team)
    colleagues = ctx.org.members(team)
    for colleague in colleagues:  # introductions, shared among the team
        ctx.graph.interact(person.actor_id, colleague, ctx.now, min(INTRODUCTION_SHARE, 1.0 / len(colleagues)))
    _hr_record(ctx, person, _hr_author(ctx, rng), "hr.hired",
               {"team": team, "role": person.role, "title": person.title, "manager": person.manager,
                "effective": ctx.ledger.stamp()})
    post_chat(ctx, "CH-GENERAL", person.manager or person.actor_id, "chat_staffing",
              {"actor_id": person.actor_id, "team": team}, {"event": "hired", "name": person.name})


def departure(ctx: SimContext, rng) -> None:
    """Someone leaves; from now on they see nothing."""
    candidates: list[str] = []
    for team in ("support_l1", "support_l2", "engineering", "sre", "sales"):
        if len(ctx.org.members(team)) >= 3:
            manager = ctx.org.manager_of(team)
            candidates.extend(m for m in ctx.org.available(team) if m != manager)
    if not candidates:
        return
    person = ctx.org.people[ctx.pick(rng, candidates)]
    author = _hr_author(ctx, rng)
    _hr_record(ctx, person, author, "hr.departed",
               {"team": person.team, "role": person.role, "effective": ctx.ledger.stamp(),
                "reason": rng.choice(("resigned", "resigned", "contract ended", "relocated"))})
    person = ctx.org.depart(person.actor_id, ctx.ledger.now())
    post_chat(ctx, "CH-GENERAL", person.manager or author, "chat_staffing",
              {"actor_id": person.actor_id, "team": person.team}, {"event": "departed", "name": person.name})


def role_change(ctx: SimContext, rng) -> None:
    """Someone moves to another team; their old access ends and the new one starts now."""
    def movable(team: str) -> list[str]:
        return [m for m in ctx.org.available(team) if m != ctx.org.manager_of(team)]

    moves = [(a, b) for a, b in MOVES if len(ctx.org.members(a)) >= 3 and movable(a)]
    if not moves:
        return
    source, target = rng.choice(moves)
    person = ctx.org.people[ctx.pick(rng, movable(source))]
    old_role = person.role
    person = ctx.org.change_role(person.actor_id, target, ctx.ledger.now())
    _hr_record(ctx, person, _hr_author(ctx, rng), "hr.role_changed",
               {"from_team": source, "to_team": target, "from_role": old_role, "to_role": person.role,
                "manager": person.manager, "effective": ctx.ledger.stamp()})


def grant(ctx: SimContext, rng) -> None:
    """A temporary grant of one extra subsystem, for one to three weeks."""
    team, subsystem, reason = rng.choice(GRANTS)
    reason = reason.replace("firmware", ctx.pack.wording.word("software"))
    members = ctx.org.members(team)
    if not members:
        return
    person = ctx.org.people[ctx.pick(rng, members)]
    start = ctx.ledger.now()
    end = start + timedelta(days=rng.choice((7, 14, 21)))
    granted = ctx.org.grant(person, subsystem, start, end, reason)
    _hr_record(ctx, person, _hr_author(ctx, rng), "access.granted",
               {"grant_id": granted.grant_id, "subsystem": subsystem, "valid_from": format_ts(start),
                "valid_to": format_ts(end), "reason": reason})
