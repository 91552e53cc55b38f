"""Changes, deploys and the incidents they cause: proposed, reviewed, deployed; paged, mitigated, resolved.

Engineers propose changes that a colleague reviews and an engineer or SRE
deploys. A deploy may be faulty: some time later an incident opens whose
event carries the change id and a parent link to the deploy with join key
``{"change_id": ...}``. Before the incident fires, an unrelated standard
change is always deployed close in time (a decoy with no join key). The
on-call SRE is paged, mitigates by rolling the change back, sometimes
escalates (and sometimes never hears back), resolves, and for some incidents
writes a postmortem naming the mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.context import SimContext
from simulator.messaging import author_acl, post_chat, send_email
from simulator.model import Acl, EntityRef, ParentLink

SERVICES = ("billing-api", "device-telemetry", "license-service", "auth-gateway", "firmware-updates",
            "support-portal", "dispatch-scheduler", "crm-sync")
#: Failure mechanisms: label → (aliases, change type, change summary pattern, symptom).
MECHANISMS: dict[str, tuple[tuple[str, ...], str, str, str]] = {
    "config_regression": (("configuration regression", "bad config push", "config change"), "config",
                          "Tune {svc} rate limiter and timeout settings", "elevated 5xx error rate"),
    "memory_leak": (("memory leak", "heap exhaustion", "out of memory"), "code",
                    "Cache device lookups in {svc}", "pods restarting with OOM kills"),
    "schema_migration": (("database migration", "schema change", "migration lock"), "migration",
                         "Add index and column to {svc} orders table", "write latency above 5 s"),
    "dependency_upgrade": (("library upgrade", "dependency bump", "incompatible dependency"), "dependency",
                           "Upgrade HTTP client library in {svc}", "TLS handshake failures"),
    "feature_flag": (("feature flag rollout", "flag misconfiguration", "toggle"), "flag",
                     "Enable new request router flag for {svc}", "requests routed to the wrong region"),
    "connection_pool_exhaustion": (("connection pool exhaustion", "pool saturation", "too many connections"), "code",
                                   "Raise worker concurrency in {svc}", "database connection timeouts"),
}
ROUTINE_SUMMARIES = ("Rotate TLS certificate for {svc}", "Bump base image for {svc}", "Update dashboards for {svc}",
                     "Add structured logging fields to {svc}", "Refactor retry helper in {svc}",
                     "Increase log retention for {svc}", "Fix typo in {svc} error message",
                     "Add metrics for {svc} queue depth", "Clean up unused endpoints in {svc}")
SEVERITIES = ("SEV1", "SEV2", "SEV3")


@dataclass
class Change:
    """A change to one service, as it moves from proposed to deployed."""

    change_id: str
    service: str
    author: str
    summary: str
    change_type: str
    mechanism: str | None  # set when the change is faulty
    facts: dict
    deploy_event: str = ""

    @property
    def entity(self) -> EntityRef:
        """The change as an entity reference."""
        return EntityRef("change", self.change_id)


def _engineers(ctx: SimContext) -> list[str]:
    return ctx.org.members("engineering")


def change_arrivals(ctx: SimContext):
    """Engineers propose changes through the business day."""
    rng = ctx.rng("engineering.arrivals")
    while True:
        rate = ctx.config.workload.changes_per_person * len(ctx.org.active())
        yield ctx.work(ctx.gap(rate, rng))
        ctx.env.process(change_lifecycle(ctx, rng))


def _record_change(ctx: SimContext, change: Change, author: str, status: str, event_type: str, extra: dict,
                   parents=()) -> str:
    change.facts.update(status=status, **extra)
    ref = ctx.ledger.draft(change.change_id, "deploys", "change", author, change.entity,
                           f"{change.change_id}: {change.summary}", "change", dict(change.facts),
                           author_acl(ctx, None, author))
    return ctx.ledger.emit(event_type, (author,), "deploys", change.entity,
                           {"change_id": change.change_id, "service": change.service, "status": status, **extra},
                           parents, (ref,))


def _new_change(ctx: SimContext, rng, author: str, service: str, faulty: str | None, routine: bool) -> Change:
    change_id = ctx.ledger.next_id("CHG", 101)
    if faulty:
        _, change_type, pattern, _ = MECHANISMS[faulty]
    else:
        change_type, pattern = ("standard" if routine else rng.choice(("code", "config", "dependency"))), \
            rng.choice(ROUTINE_SUMMARIES)
    summary = pattern.format(svc=service)
    facts = {"change_id": change_id, "service": service, "summary": summary, "change_type": change_type,
             "author": author, "risk": rng.choice(("low", "low", "medium", "high"))}
    return Change(change_id, service, author, summary, change_type, faulty, facts)


def change_lifecycle(ctx: SimContext, rng):
    """One change: proposed, reviewed, deployed — and, if faulty, the incident it causes."""
    engineers = _engineers(ctx)
    author = ctx.pick(rng, engineers)
    service = ctx.pick(rng, SERVICES)
    faulty = None
    if rng.random() < ctx.config.workload.incident_rate:
        faulty = rng.choice(sorted(MECHANISMS))
    change = _new_change(ctx, rng, author, service, faulty, routine=False)
    proposed = _record_change(ctx, change, author, "proposed", "change.proposed", {})
    ctx.graph.interact(author, ctx.org.people[author].manager or author, ctx.now, 0.2)

    yield ctx.work(rng.uniform(30, 480))
    reviewers = [e for e in _engineers(ctx) if e != author] or [author]
    reviewer = ctx.pick(rng, reviewers)
    approved = _record_change(ctx, change, reviewer, "approved", "change.approved", {"reviewer": reviewer},
                              (ParentLink(proposed, {"change_id": change.change_id}),))
    ctx.graph.interact(author, reviewer, ctx.now)

    yield ctx.work(rng.uniform(30, 900))
    deployers = ctx.org.members("sre") + [change.author]
    deployer = ctx.pick(rng, deployers)
    if ctx.org.people[deployer].left_at is not None:
        deployer = ctx.pick(rng, ctx.org.members("sre"))
    change.deploy_event = _record_change(ctx, change, deployer, "deployed", "deploy.completed",
                                         {"deployed_by": deployer, "deployed_at": ctx.ledger.stamp()},
                                         (ParentLink(approved, {"change_id": change.change_id}),))
    post_chat(ctx, "CH-DEPLOYS", deployer, "chat_deploy", {"change_id": change.change_id, "service": service},
              {"summary": change.summary})
    ctx.graph.interact(author, deployer, ctx.now)
    ctx.remember("deploy", {"change_id": change.change_id, "service": service})
    if faulty:
        yield from incident(ctx, change, rng)


def _decoy_deploy(ctx: SimContext, rng, service: str, delay: float):
    """An unrelated standard change deployed shortly before an incident opens (no join key to it)."""
    yield ctx.env.timeout(delay)
    sres = ctx.org.members("sre")
    author = ctx.pick(rng, sres)
    change = _new_change(ctx, rng, author, service, None, routine=True)
    proposed = _record_change(ctx, change, author, "proposed", "change.proposed", {})
    _record_change(ctx, change, author, "deployed", "deploy.completed",
                   {"deployed_by": author, "deployed_at": ctx.ledger.stamp(), "reviewer": "pre-approved"},
                   (ParentLink(proposed, {"change_id": change.change_id}),))
    post_chat(ctx, "CH-DEPLOYS", author, "chat_deploy", {"change_id": change.change_id, "service": service},
              {"summary": change.summary})


def _on_call(ctx: SimContext) -> str:
    sres = sorted(ctx.org.members("sre"))
    week = int(ctx.now // (7 * 1440))
    return sres[week % len(sres)]


def _record_incident(ctx: SimContext, incident_id: str, author: str, facts: dict, event_type: str, payload: dict,
                     parents) -> str:
    ref = ctx.ledger.draft(incident_id, "incidents", "incident", author, EntityRef("incident", incident_id),
                           f"{incident_id}: {facts['symptom']} on {facts['service']}", "incident", dict(facts),
                           author_acl(ctx, None, author))
    return ctx.ledger.emit(event_type, (author,), "incidents", EntityRef("incident", incident_id),
                           {"incident_id": incident_id, **payload}, parents, (ref,))


def incident(ctx: SimContext, change: Change, rng):
    """The incident a faulty change causes, from the first alert to the postmortem (if any)."""
    gap = rng.uniform(40, 360)
    other = rng.choice([s for s in SERVICES if s != change.service]) if rng.random() < 0.7 else change.service
    ctx.env.process(_decoy_deploy(ctx, rng, other, gap * rng.uniform(0.2, 0.8)))
    yield ctx.env.timeout(gap)

    mechanism = change.mechanism or "config_regression"
    aliases, _, _, symptom = MECHANISMS[mechanism]
    incident_id = ctx.ledger.next_id("INC")
    severity = rng.choices(SEVERITIES, (1, 3, 4))[0]
    oncall = _on_call(ctx)
    ctx.org.hold(oncall)
    facts = {"incident_id": incident_id, "service": change.service, "severity": severity, "status": "investigating",
             "symptom": symptom, "opened_at": ctx.ledger.stamp(), "on_call": oncall}
    opened = _record_incident(ctx, incident_id, oncall, facts, "incident.opened",
                              {"change_id": change.change_id, "service": change.service, "severity": severity},
                              (ParentLink(change.deploy_event, {"change_id": change.change_id}),))
    inc_link = (ParentLink(opened, {"incident_id": incident_id}),)
    page_id = ctx.ledger.next_id("PAGE")
    ctx.ledger.emit("incident.paged", (oncall,), "incidents", EntityRef("incident", incident_id),
                    {"incident_id": incident_id, "page_id": page_id, "paged": oncall}, inc_link)
    post_chat(ctx, "CH-INCIDENTS", oncall, "chat_incident",
              {"incident_id": incident_id, "service": change.service, "severity": severity},
              {"symptom": symptom}, inc_link)
    ctx.remember("incident", {"incident_id": incident_id, "service": change.service, "severity": severity})

    yield ctx.env.timeout(rng.uniform(2, 15))
    ctx.ledger.emit("incident.page_acknowledged", (oncall,), "incidents", EntityRef("incident", incident_id),
                    {"incident_id": incident_id, "page_id": page_id}, inc_link)
    responders = [oncall]
    for _ in range(rng.randint(1, 3)):
        speaker = ctx.pick(rng, ctx.org.space_members("SP-SRE-ONCALL"))
        responders.append(speaker)
        ctx.org.hold(speaker)
        post_chat(ctx, "CH-SRE-ONCALL", speaker, "chat_oncall",
                  {"incident_id": incident_id, "service": change.service},
                  {"symptom": symptom, "suspect": change.change_id if rng.random() < 0.5 else None}, inc_link)
        yield ctx.env.timeout(rng.uniform(3, 20))

    if rng.random() < 0.5:
        yield from incident_escalation(ctx, incident_id, oncall, change, rng, inc_link)

    yield ctx.env.timeout(rng.uniform(15, 120))
    facts.update(status="mitigated", change_id=change.change_id, mechanism=mechanism,
                 mechanism_aliases=list(aliases), mitigation=f"rolled back {change.change_id}")
    mitigated = _record_incident(ctx, incident_id, oncall, facts, "incident.mitigated",
                                 {"change_id": change.change_id, "mechanism": mechanism}, inc_link)
    _record_change(ctx, change, oncall, "rolled_back", "change.rolled_back", {"rolled_back_for": incident_id},
                   (ParentLink(mitigated, {"incident_id": incident_id, "change_id": change.change_id}),))
    ctx.graph.interact_all(oncall, responders + [change.author], ctx.now)

    yield ctx.env.timeout(rng.uniform(30, 240))
    facts.update(status="resolved", resolved_at=ctx.ledger.stamp())
    _record_incident(ctx, incident_id, oncall, facts, "incident.resolved", {"change_id": change.change_id}, inc_link)
    post_chat(ctx, "CH-INCIDENTS", oncall, "chat_incident_resolved",
              {"incident_id": incident_id, "service": change.service, "change_id": change.change_id},
              {"mechanism": aliases[0]}, inc_link)
    ctx.remember("incident", {"incident_id": incident_id, "service": change.service, "change_id": change.change_id,
                              "status": "resolved"})

    chance = {"SEV1": 1.0, "SEV2": ctx.config.workload.postmortem_rate,
              "SEV3": ctx.config.workload.postmortem_rate / 3}[severity]
    if rng.random() < chance:
        yield ctx.business_days(rng.randint(2, 6))
        yield from postmortem(ctx, incident_id, facts, change, oncall, responders, rng, inc_link)
    ctx.org.release(*responders)


def incident_escalation(ctx: SimContext, incident_id: str, oncall: str, change: Change, rng, parents):
    """The on-call escalates to the change's engineering manager; sometimes nobody ever answers."""
    target = ctx.org.people[change.author].manager
    if target is None or ctx.org.people[target].role != "engineering_manager" or not ctx.org.is_active(target):
        target = ctx.org.manager_of("engineering")
    route = ctx.graph.route(oncall, [target], ctx.now, ctx.org.active_set()) or [oncall, target]
    escalation_id = ctx.ledger.next_id("ESC")
    facts = {"incident_id": incident_id, "escalation_id": escalation_id, "escalated_to": target,
             "target": "engineering_manager", "service": change.service}
    sent, _ = send_email(ctx, oncall, [target], f"Escalation {escalation_id}: {incident_id} needs an owner",
                         "escalation_email", facts, EntityRef("incident", incident_id),
                         {"route": route, "action": "take ownership of the incident"},
                         event_type="escalation.sent", parents=parents,
                         extra_payload={"route": route, "escalated_to": target, "target": "engineering_manager"})
    if rng.random() < ctx.config.workload.unanswered_escalation_rate:
        return  # never answered
    yield ctx.env.timeout(rng.uniform(5, 60))
    send_email(ctx, target, [oncall], f"Re: Escalation {escalation_id}", "escalation_reply", facts,
               EntityRef("incident", incident_id), {"route": route, "action": "take ownership of the incident"},
               event_type="escalation.answered", parents=(ParentLink(sent, {"escalation_id": escalation_id}),))


def postmortem(ctx: SimContext, incident_id: str, incident_facts: dict, change: Change, author: str,
               responders: list[str], rng, parents):
    """A postmortem: drafted, then published, naming the change and the mechanism."""
    postmortem_id = ctx.ledger.next_id("PM")
    mechanism = incident_facts["mechanism"]
    facts = {"postmortem_id": postmortem_id, "incident_id": incident_id, "change_id": change.change_id,
             "service": change.service, "severity": incident_facts["severity"], "mechanism": mechanism,
             "mechanism_aliases": list(incident_facts["mechanism_aliases"]), "status": "draft",
             "action_items": [f"Add a canary check for {change.service}",
                              f"Require a second reviewer for {change.change_type} changes"]}
    entity = EntityRef("postmortem", postmortem_id)
    ref = ctx.ledger.draft(postmortem_id, "postmortems", "postmortem", author, entity,
                           f"{postmortem_id}: postmortem for {incident_id}", "postmortem", dict(facts),
                           Acl(participants=tuple(dict.fromkeys(responders))), {"summary": change.summary})
    drafted = ctx.ledger.emit("postmortem.drafted", (author,), "postmortems", entity,
                              {"postmortem_id": postmortem_id, "incident_id": incident_id}, parents, (ref,))
    yield ctx.work(rng.uniform(60, 600))
    facts["status"] = "published"
    ref = ctx.ledger.draft(postmortem_id, "postmortems", "postmortem", author, entity,
                           f"{postmortem_id}: postmortem for {incident_id}", "postmortem", dict(facts),
                           Acl(participants=tuple(dict.fromkeys(responders))), {"summary": change.summary})
    ctx.ledger.emit("postmortem.published", (author,), "postmortems", entity,
                    {"postmortem_id": postmortem_id, "incident_id": incident_id, "change_id": change.change_id,
                     "mechanism": mechanism},
                    (*parents, ParentLink(drafted, {"postmortem_id": postmortem_id})), (ref,))
    ctx.remember("postmortem", {"postmortem_id": postmortem_id, "incident_id": incident_id, "mechanism": mechanism})
