"""A small seeded world generator shaped for GroundEval: deploys, incidents, postmortems, cases, escalations.

It stands in for nothing: the real worlds come from ``simulator``. This one
exists so that tests can build tiny worlds in milliseconds and the benchmark
can build a world with 100,000+ artifact versions, with the same record
types, event types and join keys as docs/world.md describes (an incident's
``change_id``, a postmortem's ``incident_id``, decoy changes deployed close in
time with no join, escalations with or without an answer, private spaces,
staffing changes).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from orgbench.core.clock import UTC
from simulator.model import Acl, Actor, ArtifactVersion, EntityRef, Event, ParentLink
from simulator.policy import AccessPolicy, Grant, Membership, PrivateSpace, RoleAssignment
from simulator.world import World, build_world

ROLES = {
    "support_l1": ["ticketing", "crm", "email", "chat", "wiki"],
    "engineer": ["deploys", "incidents", "postmortems", "chat", "wiki", "email"],
    "support_manager": ["ticketing", "crm", "incidents", "postmortems", "email", "chat", "wiki"],
    "hr": ["hr", "email"],
}
SERVICES = ("billing-api", "auth-gateway", "sync-worker", "search", "notifications", "storage")
MECHANISMS = ("config_regression", "memory_leak", "schema_migration", "dependency_upgrade")
WORDS = ("latency", "timeout", "rollback", "cache", "queue", "config", "certificate", "memory", "disk", "retry")


def _people(start: datetime, days: int, people: int) -> tuple[list[Actor], AccessPolicy]:
    """The staff (a late hire, a departure, a role change half-way) and their access policy."""
    role_cycle = ["engineer", "support_l1", "support_manager", "engineer", "support_l1", "hr"]
    actors, assignments = [], []
    for i in range(people):
        actor_id = f"P-{i + 1:03d}"
        role = role_cycle[i % len(role_cycle)]
        joined = start - timedelta(days=100)
        left = None
        if i == people - 1:
            joined = start + timedelta(days=days // 2)           # a late hire
        if i == people - 2:
            left = start + timedelta(days=days // 2)             # a departure
        actors.append(Actor(actor_id, f"Person {i + 1}", f"p{i + 1}@example.test", role, role, role, None, joined, left))
        if i == people - 3:                                      # a role change half-way
            middle = start + timedelta(days=days // 2)
            assignments += [RoleAssignment(actor_id, role, valid_from=joined, valid_to=middle),
                            RoleAssignment(actor_id, "engineer", valid_from=middle)]
        else:
            assignments.append(RoleAssignment(actor_id, role, valid_from=joined, valid_to=left))
    engineers = [a.actor_id for a in actors if a.role == "engineer"]
    support = [a.actor_id for a in actors if a.role in ("support_l1", "support_manager")]
    grants = [Grant("G-1", support[0], "incidents", "incident review", valid_from=start + timedelta(days=2),
                    valid_to=start + timedelta(days=days // 2))]
    ops_members = tuple(Membership(a, valid_from=start - timedelta(days=100)) for a in engineers[:2])
    spaces = [PrivateSpace("SP-OPS", "chat", "ops-private", ops_members)]
    return actors, AccessPolicy(ROLES, assignments, grants, spaces)


class _Recorder:
    """The world's events and artifact versions as the day loop makes them, with one seeded stream."""

    def __init__(self, rng: random.Random, end: datetime, engineers: list[str], support: list[str]) -> None:
        self.rng, self.end, self.engineers, self.support = rng, end, engineers, support
        self.events: list[Event] = []
        self.versions: list[ArtifactVersion] = []
        self.n = {"ev": 0, "change": 0, "incident": 0, "pm": 0, "case": 0, "esc": 0, "msg": 0}

    def next(self, kind: str) -> int:
        """The next number of ``kind`` (events, changes, incidents, ...), from 1."""
        self.n[kind] += 1
        return self.n[kind]

    def event(self, ts, type_, actors_, subsystem, entity, payload=None, parents=(), refs=()) -> Event:
        """Record an event."""
        self.events.append(Event(f"EV-{self.next('ev'):06d}", ts, type_, tuple(actors_), subsystem, entity,
                                 dict(payload or {}), tuple(parents), tuple(refs)))
        return self.events[-1]

    def artifact(self, artifact_id, version, subsystem, kind, ts, author, entity, title, body, facts,
                 acl=Acl()) -> ArtifactVersion:
        """Record an artifact version."""
        v = ArtifactVersion(artifact_id, version, subsystem, kind, ts, author, entity, title, body, dict(facts), acl)
        self.versions.append(v)
        return v

    def change(self, base: datetime) -> None:
        """A deploy; about a third of them cause an incident."""
        rng = self.rng
        cid = f"CHG-{self.next('change')}"
        ts = base + timedelta(minutes=rng.randrange(0, 480))
        author = rng.choice(self.engineers)
        service = rng.choice(SERVICES)
        risk = rng.choice(("low", "medium", "high"))
        entity = EntityRef("change", cid)
        v = self.artifact(cid, 1, "deploys", "change", ts, author, entity, f"{cid} deploy {service}",
                          f"Change {cid} deployed to {service} by {author}. Risk {risk}. Touches {rng.choice(WORDS)} handling.",
                          {"service": service, "risk": risk}, Acl(participants=(author,)))
        deploy = self.event(ts, "deploy.completed", [author], "deploys", entity, {"change_id": cid, "service": service},
                            refs=[v.ref])
        if rng.random() < 0.35 and ts + timedelta(hours=8) < self.end:
            self.incident(ts, cid, service, deploy)

    def incident(self, ts: datetime, cid: str, service: str, deploy: Event) -> None:
        """An incident a change caused: opened, resolved with its cause, a private chat note, maybe a postmortem."""
        rng = self.rng
        iid = f"INC-{self.next('incident')}"
        opened = ts + timedelta(minutes=rng.randrange(20, 300))
        responder = rng.choice(self.engineers)
        severity = rng.choice(("SEV1", "SEV2", "SEV3"))
        ient = EntityRef("incident", iid)
        v1 = self.artifact(iid, 1, "incidents", "incident", opened, responder, ient, f"{iid} {service} degraded",
                           f"Incident {iid}: {service} degraded after change {cid}. Severity {severity}.",
                           {"severity": severity, "service": service, "change_id": cid}, Acl(participants=(responder,)))
        self.event(opened, "incident.opened", [responder], "incidents", ient,
                   {"incident_id": iid, "change_id": cid, "service": service},
                   [ParentLink(deploy.event_id, {"change_id": cid})], [v1.ref])
        cause = rng.choice(WORDS)
        mechanism = rng.choice(MECHANISMS)
        resolved = opened + timedelta(hours=rng.uniform(1, 30))
        v2 = self.artifact(iid, 2, "incidents", "incident", resolved, responder, ient, f"{iid} {service} resolved",
                           f"Incident {iid} resolved. Root cause: {cause} regression introduced by {cid} "
                           f"({mechanism.replace('_', ' ')}).",
                           {"severity": severity, "service": service, "change_id": cid, "root_cause": cause,
                            "mechanism": mechanism, "mechanism_aliases": [mechanism.replace("_", " ")]},
                           Acl(participants=(responder,)))
        self.event(resolved, "incident.resolved", [responder], "incidents", ient,
                   {"incident_id": iid, "change_id": cid}, refs=[v2.ref])
        mid = f"MSG-{self.next('msg')}"
        chat_ts = opened + timedelta(minutes=rng.randrange(5, 60))
        m = self.artifact(mid, 1, "chat", "message", chat_ts, responder, ient, f"ops-private on {iid}",
                          f"Heads up on {iid}: customer impact estimate {rng.randrange(10, 900)} accounts.",
                          {"impact_accounts": str(rng.randrange(10, 900))}, Acl(space="SP-OPS"))
        self.event(chat_ts, "chat.posted", [responder], "chat", ient, {}, refs=[m.ref])
        if rng.random() < 0.6:
            pid = f"PM-{self.next('pm')}"
            published = resolved + timedelta(days=rng.uniform(0.5, 12))
            if published < self.end:
                p = self.artifact(pid, 1, "postmortems", "postmortem", published, responder, ient,
                                  f"Postmortem {pid} for {iid}",
                                  f"Postmortem for incident {iid}. The {cause} regression came from change {cid}.",
                                  {"incident_id": iid, "action_items": str(rng.randrange(1, 6))})
                self.event(published, "postmortem.published", [responder], "postmortems", ient, {"incident_id": iid},
                           [ParentLink(self.events[-1].event_id, {"incident_id": iid})], [p.ref])

    def case(self, base: datetime) -> None:
        """A support case opened and diagnosed; four in ten are escalated to engineering."""
        rng = self.rng
        kid = f"CASE-{10000 + self.next('case')}"
        ts = base + timedelta(minutes=rng.randrange(0, 480))
        agent = rng.choice(self.support)
        priority = rng.choice(("P1", "P2", "P3", "P4"))
        code = f"{rng.choice(('BAT', 'FW', 'DSK', 'NET'))}-0x{rng.randrange(16, 255):02X}"
        kent = EntityRef("case", kid)
        acl = Acl(participants=(agent,))
        v1 = self.artifact(kid, 1, "ticketing", "ticket", ts, agent, kent,
                           f"{kid} customer reports {rng.choice(WORDS)} issue",
                           f"Case {kid} opened with priority {priority}.", {"priority": priority, "case_status": "open"},
                           acl)
        self.event(ts, "case.opened", [agent], "ticketing", kent, {"priority": priority}, refs=[v1.ref])
        ts2 = ts + timedelta(hours=rng.uniform(2, 48))
        v2 = self.artifact(kid, 2, "ticketing", "ticket", ts2, agent, kent, f"{kid} diagnostics",
                           f"Case {kid}: diagnostics returned {code}.",
                           {"priority": priority, "case_status": "in_progress", "diagnostic_code": code}, acl)
        self.event(ts2, "case.updated", [agent], "ticketing", kent, {"diagnostic_code": code}, refs=[v2.ref])
        if rng.random() < 0.4:
            self.escalation(kid, code, agent, ts2)

    def escalation(self, kid: str, code: str, agent: str, ts2: datetime) -> None:
        """An escalation email about a case; six in ten are answered (if before the world ends)."""
        rng = self.rng
        eid = f"ESC-{self.next('esc')}"
        sent = ts2 + timedelta(hours=1)
        target = rng.choice(self.engineers)
        eent = EntityRef("escalation", eid)
        mail = self.artifact(f"EML-{eid}", 1, "email", "email", sent, agent, eent, f"Escalation {eid} for {kid}",
                             f"Escalating {kid} ({code}) to engineering, reference {eid}.",
                             {"case_id": kid, "escalation_id": eid}, Acl(audience=(agent, target)))
        self.event(sent, "escalation.sent", [agent, target], "email", eent, {"case_id": kid, "escalation_id": eid},
                   refs=[mail.ref])
        if rng.random() < 0.6:
            answered = sent + timedelta(hours=rng.uniform(1, 60))
            if answered < self.end:
                reply = self.artifact(f"EML-{eid}-R", 1, "email", "email", answered, target, eent,
                                      f"Re: Escalation {eid} for {kid}",
                                      f"Reply on {eid}: engineering looked at {code} for {kid}.", {"case_id": kid},
                                      Acl(audience=(agent, target)))
                self.event(answered, "escalation.answered", [target, agent], "email", eent,
                           {"case_id": kid, "escalation_id": eid}, refs=[reply.ref])


def synthetic_world(seed: int = 0, days: int = 20, people: int = 16, changes_per_day: int = 4,
                    cases_per_day: int = 3, start: datetime = datetime(2026, 1, 5, tzinfo=UTC)) -> World:
    """A deterministic world for tests and benchmarks (``days`` × rates decide its size)."""
    rng = random.Random(f"groundeval-synthetic:{seed}")
    end = start + timedelta(days=days)
    actors, policy = _people(start, days, people)
    engineers = [a.actor_id for a in actors if a.role == "engineer"]
    support = [a.actor_id for a in actors if a.role in ("support_l1", "support_manager")]
    record = _Recorder(rng, end, engineers, support)
    for day in range(days):
        base = start + timedelta(days=day, hours=9)
        for _ in range(changes_per_day):
            record.change(base)
        for _ in range(cases_per_day):
            record.case(base)
    events = sorted(record.events, key=lambda e: (e.ts, e.event_id))
    versions = sorted(record.versions, key=lambda v: (v.artifact_id, v.version))
    meta = {"format_version": 1, "source": "groundeval-synthetic", "seed": seed,
            "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "end": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "counts": {"actors": len(actors), "events": len(events), "artifacts": len(versions)}}
    return build_world(meta, actors, events, versions, policy, {"nodes": [], "links": []})
