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


def synthetic_world(seed: int = 0, days: int = 20, people: int = 16, changes_per_day: int = 4,
                    cases_per_day: int = 3, start: datetime = datetime(2026, 1, 5, tzinfo=UTC)) -> World:
    """A deterministic world for tests and benchmarks (``days`` × rates decide its size)."""
    rng = random.Random(f"groundeval-synthetic:{seed}")
    end = start + timedelta(days=days)
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
            assignments += [RoleAssignment(actor_id, role, joined, middle), RoleAssignment(actor_id, "engineer", middle)]
        else:
            assignments.append(RoleAssignment(actor_id, role, joined, left))
    engineers = [a.actor_id for a in actors if a.role == "engineer"]
    support = [a.actor_id for a in actors if a.role in ("support_l1", "support_manager")]
    grants = [Grant("G-1", support[0], "incidents", start + timedelta(days=2), start + timedelta(days=days // 2), "incident review")]
    ops_members = tuple(Membership(a, start - timedelta(days=100)) for a in engineers[:2])
    spaces = [PrivateSpace("SP-OPS", "chat", "ops-private", ops_members)]
    policy = AccessPolicy(ROLES, assignments, grants, spaces)

    events: list[Event] = []
    versions: list[ArtifactVersion] = []
    counter = {"ev": 0}

    def event(ts, type_, actors_, subsystem, entity, payload=None, parents=(), refs=()):
        counter["ev"] += 1
        events.append(Event(f"EV-{counter['ev']:06d}", ts, type_, tuple(actors_), subsystem, entity,
                            dict(payload or {}), tuple(parents), tuple(refs)))
        return events[-1]

    def artifact(artifact_id, version, subsystem, kind, ts, author, entity, title, body, facts, acl=Acl()):
        v = ArtifactVersion(artifact_id, version, subsystem, kind, ts, author, entity, title, body, dict(facts), acl)
        versions.append(v)
        return v

    change_n = incident_n = pm_n = case_n = esc_n = msg_n = 0
    for day in range(days):
        base = start + timedelta(days=day, hours=9)
        for _ in range(changes_per_day):
            change_n += 1
            cid = f"CHG-{change_n}"
            ts = base + timedelta(minutes=rng.randrange(0, 480))
            author = rng.choice(engineers)
            service = rng.choice(SERVICES)
            risk = rng.choice(("low", "medium", "high"))
            entity = EntityRef("change", cid)
            v = artifact(cid, 1, "deploys", "change", ts, author, entity, f"{cid} deploy {service}",
                         f"Change {cid} deployed to {service} by {author}. Risk {risk}. Touches {rng.choice(WORDS)} handling.",
                         {"service": service, "risk": risk}, Acl(participants=(author,)))
            deploy = event(ts, "deploy.completed", [author], "deploys", entity, {"change_id": cid, "service": service}, refs=[v.ref])
            if rng.random() < 0.35 and ts + timedelta(hours=8) < end:
                incident_n += 1
                iid = f"INC-{incident_n}"
                opened = ts + timedelta(minutes=rng.randrange(20, 300))
                responder = rng.choice(engineers)
                severity = rng.choice(("SEV1", "SEV2", "SEV3"))
                ient = EntityRef("incident", iid)
                v1 = artifact(iid, 1, "incidents", "incident", opened, responder, ient, f"{iid} {service} degraded",
                              f"Incident {iid}: {service} degraded after change {cid}. Severity {severity}.",
                              {"severity": severity, "service": service, "change_id": cid}, Acl(participants=(responder,)))
                event(opened, "incident.opened", [responder], "incidents", ient,
                      {"incident_id": iid, "change_id": cid, "service": service},
                      [ParentLink(deploy.event_id, {"change_id": cid})], [v1.ref])
                cause = rng.choice(WORDS)
                mechanism = rng.choice(MECHANISMS)
                resolved = opened + timedelta(hours=rng.uniform(1, 30))
                v2 = artifact(iid, 2, "incidents", "incident", resolved, responder, ient, f"{iid} {service} resolved",
                              f"Incident {iid} resolved. Root cause: {cause} regression introduced by {cid} "
                              f"({mechanism.replace('_', ' ')}).",
                              {"severity": severity, "service": service, "change_id": cid, "root_cause": cause,
                               "mechanism": mechanism, "mechanism_aliases": [mechanism.replace("_", " ")]},
                              Acl(participants=(responder,)))
                event(resolved, "incident.resolved", [responder], "incidents", ient, {"incident_id": iid, "change_id": cid},
                      refs=[v2.ref])
                msg_n += 1
                mid = f"MSG-{msg_n}"
                chat_ts = opened + timedelta(minutes=rng.randrange(5, 60))
                m = artifact(mid, 1, "chat", "message", chat_ts, responder, ient, f"ops-private on {iid}",
                             f"Heads up on {iid}: customer impact estimate {rng.randrange(10, 900)} accounts.",
                             {"impact_accounts": str(rng.randrange(10, 900))}, Acl(space="SP-OPS"))
                event(chat_ts, "chat.posted", [responder], "chat", ient, {}, refs=[m.ref])
                if rng.random() < 0.6:
                    pm_n += 1
                    pid = f"PM-{pm_n}"
                    published = resolved + timedelta(days=rng.uniform(0.5, 12))
                    if published < end:
                        p = artifact(pid, 1, "postmortems", "postmortem", published, responder, ient,
                                     f"Postmortem {pid} for {iid}",
                                     f"Postmortem for incident {iid}. The {cause} regression came from change {cid}.",
                                     {"incident_id": iid, "action_items": str(rng.randrange(1, 6))})
                        event(published, "postmortem.published", [responder], "postmortems", ient, {"incident_id": iid},
                              [ParentLink(events[-1].event_id, {"incident_id": iid})], [p.ref])
        for _ in range(cases_per_day):
            case_n += 1
            kid = f"CASE-{10000 + case_n}"
            ts = base + timedelta(minutes=rng.randrange(0, 480))
            agent = rng.choice(support)
            priority = rng.choice(("P1", "P2", "P3", "P4"))
            code = f"{rng.choice(('BAT', 'FW', 'DSK', 'NET'))}-0x{rng.randrange(16, 255):02X}"
            kent = EntityRef("case", kid)
            acl = Acl(participants=(agent,))
            v1 = artifact(kid, 1, "ticketing", "ticket", ts, agent, kent, f"{kid} customer reports {rng.choice(WORDS)} issue",
                          f"Case {kid} opened with priority {priority}.", {"priority": priority, "case_status": "open"}, acl)
            event(ts, "case.opened", [agent], "ticketing", kent, {"priority": priority}, refs=[v1.ref])
            ts2 = ts + timedelta(hours=rng.uniform(2, 48))
            v2 = artifact(kid, 2, "ticketing", "ticket", ts2, agent, kent, f"{kid} diagnostics",
                          f"Case {kid}: diagnostics returned {code}.",
                          {"priority": priority, "case_status": "in_progress", "diagnostic_code": code}, acl)
            event(ts2, "case.updated", [agent], "ticketing", kent, {"diagnostic_code": code}, refs=[v2.ref])
            if rng.random() < 0.4:
                esc_n += 1
                eid = f"ESC-{esc_n}"
                sent = ts2 + timedelta(hours=1)
                target = rng.choice(engineers)
                eent = EntityRef("escalation", eid)
                mail = artifact(f"EML-{eid}", 1, "email", "email", sent, agent, eent, f"Escalation {eid} for {kid}",
                                f"Escalating {kid} ({code}) to engineering, reference {eid}.", {"case_id": kid, "escalation_id": eid},
                                Acl(audience=(agent, target)))
                event(sent, "escalation.sent", [agent, target], "email", eent, {"case_id": kid, "escalation_id": eid},
                      refs=[mail.ref])
                if rng.random() < 0.6:
                    answered = sent + timedelta(hours=rng.uniform(1, 60))
                    if answered < end:
                        reply = artifact(f"EML-{eid}-R", 1, "email", "email", answered, target, eent,
                                         f"Re: Escalation {eid} for {kid}",
                                         f"Reply on {eid}: engineering looked at {code} for {kid}.", {"case_id": kid},
                                         Acl(audience=(agent, target)))
                        event(answered, "escalation.answered", [target, agent], "email", eent,
                              {"case_id": kid, "escalation_id": eid},
                              refs=[reply.ref])
    events.sort(key=lambda e: (e.ts, e.event_id))
    versions.sort(key=lambda v: (v.artifact_id, v.version))
    meta = {"format_version": 1, "source": "groundeval-synthetic", "seed": seed,
            "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "end": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "counts": {"actors": len(actors), "events": len(events), "artifacts": len(versions)}}
    return build_world(meta, actors, events, versions, policy, {"nodes": [], "links": []})
