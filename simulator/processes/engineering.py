"""Changes, deploys and the incidents they cause: proposed, reviewed, deployed; paged, mitigated, resolved.

Engineers propose changes that a colleague reviews (standard changes are
pre-approved) and an engineer or SRE deploys. Every change — harmless,
faulty or decoy — draws its type, summary and risk from one table
(the pack's ``engineering.changes``), so none of them tells which change broke something. A
deploy may be faulty: some time later an incident opens whose event carries
the change id and a parent link to the deploy with join key
``{"change_id": ...}``. Before the incident fires, an unrelated change is
always deployed close in time (a decoy with no join key). Every change —
decoys included — is proposed, reviewed and deployed in business hours, so
the clock tells no decoy apart; alerts are not office-bound: about two in five
fire after close, through the night, and page the on-call at home. The on-call SRE is
paged; responders suspect the change most recently deployed on the service
(often the decoy) and say so in #sre-oncall with the suspect in the facts —
the cause is named only once the incident is mitigated. The on-call
mitigates by rolling the cause back, sometimes escalates (and sometimes
never hears back), resolves, and for some incidents writes a postmortem
naming the mechanism.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulator.context import SimContext
from simulator.messaging import author_acl, post_chat, send_email
from simulator.model import Acl, EntityRef, ParentLink
from simulator.mechanisms import MECHANISM_PHRASES, MECHANISMS
from simulator.processes.cascades import IncidentImpact, after_resolution, customer_reports
from simulator.processes.hearsay import guess_cause
from simulator.processes.oncall import on_call
from simulator.graph import WITH_MANAGER

#: Risk by change type: standard changes are pre-approved because they are low risk; the rest vary.
RISKS: dict[str, tuple[str, ...]] = {"standard": ("low",)}
OTHER_RISKS = ("low", "low", "medium", "high")
SEVERITIES = ("SEV1", "SEV2", "SEV3")
#: Share of incidents noticed outside the working day (the alert fires hours after the deploy, at night).
AFTER_HOURS_SHARE = 0.55
#: Minutes to mitigate are log-normal around this median (a heavy tail: most are quick, a few take all night)…
MITIGATION_MEDIAN = 45.0
MITIGATION_SIGMA = 1.1
#: …and this share of incidents stalls for whole working days (waiting on a vendor or a fix) before it is mitigated.
STALL_SHARE = 0.12
#: Share of incidents whose decoy change is made to another service than the causing one (else the same service).
DECOY_OTHER_SERVICE = 0.7


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


def _new_change(ctx: SimContext, rng, author: str, service: str, faulty: bool) -> Change:
    """A change drawn from the pack's change kinds (the same draw for every change); ``faulty`` ones carry a mechanism."""
    change_id = ctx.ledger.next_id("CHG", 101)
    kinds = ctx.pack.change_kinds
    change_type, pattern, mechanism = kinds[int(rng.random() * len(kinds))]
    risks = RISKS.get(change_type, OTHER_RISKS)
    summary = pattern.format(svc=service)
    facts = {"change_id": change_id, "service": service, "summary": summary, "change_type": change_type,
             "author": author, "risk": risks[int(rng.random() * len(risks))]}
    return Change(change_id, service, author, summary, change_type, mechanism if faulty else None, facts)


def _ship(ctx: SimContext, rng, change: Change, review_wait: float, deploy_wait: float):
    """Propose, review (standard changes are pre-approved) and deploy ``change``; waits are business minutes."""
    author = change.author
    wait = ctx.work
    proposed = _record_change(ctx, change, author, "proposed", "change.proposed", {})
    ctx.graph.interact(author, ctx.org.people[author].manager or author, ctx.now, WITH_MANAGER)
    previous = ParentLink(proposed, {"change_id": change.change_id})
    review = {"reviewer": "pre-approved"}
    if change.change_type != "standard":
        yield wait(review_wait)
        reviewers = [e for e in _engineers(ctx) if e != author] or [author]
        reviewer = ctx.pick(rng, reviewers)
        approved = _record_change(ctx, change, reviewer, "approved", "change.approved", {"reviewer": reviewer},
                                  (previous,))
        ctx.graph.interact(author, reviewer, ctx.now)
        previous, review = ParentLink(approved, {"change_id": change.change_id}), {}
    yield wait(deploy_wait)
    deployers = ctx.org.members("sre") + [author]
    deployer = ctx.pick(rng, deployers)
    if ctx.org.people[deployer].left_at is not None:
        deployer = ctx.pick(rng, ctx.org.members("sre"))
    change.deploy_event = _record_change(ctx, change, deployer, "deployed", "deploy.completed",
                                         {**review, "deployed_by": deployer, "deployed_at": ctx.ledger.stamp()},
                                         (previous,))
    post_chat(ctx, "CH-DEPLOYS", deployer, "chat_deploy", {"change_id": change.change_id, "service": change.service},
              {"summary": change.summary})
    ctx.graph.interact(author, deployer, ctx.now)
    ctx.last_deploys[change.service] = change.change_id
    ctx.remember("deploy", {"change_id": change.change_id, "service": change.service})


def change_lifecycle(ctx: SimContext, rng):
    """One change: proposed, reviewed, deployed — and, if faulty, the incident it causes."""
    author = ctx.pick(rng, _engineers(ctx))
    service = ctx.pick(rng, ctx.pack.services)
    faulty = rng.random() < ctx.config.workload.incident_rate
    change = _new_change(ctx, rng, author, service, faulty)
    yield from _ship(ctx, rng, change, rng.uniform(30, 480), rng.uniform(30, 900))
    if faulty:
        yield from incident(ctx, change, rng)


def _decoy_deploy(ctx: SimContext, rng, service: str, window: float):
    """An unrelated change deployed within ``window`` business minutes of a faulty deploy (no join key to it).

    It is drawn, proposed, reviewed and deployed like any other change, in business hours, only sooner:
    it must go out after the faulty deploy and before the incident opens.
    """
    author = ctx.pick(rng, _engineers(ctx))
    change = _new_change(ctx, rng, author, service, faulty=False)
    deploy_at = window * rng.uniform(0.2, 0.8)
    proposed_at = deploy_at * rng.uniform(0.0, 0.3)
    yield ctx.work(proposed_at)
    review_wait = (deploy_at - proposed_at) * rng.uniform(0.2, 0.6)
    yield from _ship(ctx, rng, change, review_wait, deploy_at - proposed_at - review_wait)


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
    other = rng.choice([s for s in ctx.pack.services if s != change.service]) if rng.random() < DECOY_OTHER_SERVICE \
        else change.service
    timing = ctx.rng("incidents.timing")
    night = _night_alert(ctx, timing)
    if night is not None:  # the alert fires tonight: the decoy goes out before close, the page comes after it
        gap = night[0]
    ctx.env.process(_decoy_deploy(ctx, rng, other, gap))
    yield ctx.work(gap)  # past every decoy
    if night is not None:
        yield ctx.until(night[1])
    suspect = ctx.last_deploys.get(change.service)  # what on-call sees first: the service's latest deploy
    mechanism = change.mechanism or "config_regression"
    aliases, symptom = MECHANISMS[mechanism]
    incident_id = ctx.ledger.next_id("INC")
    severity = rng.choices(SEVERITIES, (1, 3, 4))[0]
    oncall = on_call(ctx)
    ctx.org.hold(oncall)
    facts = {"incident_id": incident_id, "service": change.service, "severity": severity, "status": "investigating",
             "symptom": symptom, "opened_at": ctx.ledger.stamp(), "on_call": oncall}
    opened = _record_incident(ctx, incident_id, oncall, facts, "incident.opened",
                              {"change_id": change.change_id, "service": change.service, "severity": severity},
                              (ParentLink(change.deploy_event, {"change_id": change.change_id}),))
    inc_link = (ParentLink(opened, {"incident_id": incident_id}),)
    page_id = ctx.ledger.next_id("PAGE")
    ctx.ledger.emit("incident.paged", (oncall,), "incidents", EntityRef("incident", incident_id),
                    {"incident_id": incident_id, "page_id": page_id, "paged": oncall,
                     "after_hours": not ctx.calendar.is_open(ctx.now)}, inc_link)
    impact = IncidentImpact(incident_id, change.service, severity, opened, ctx.now)
    ctx.env.process(customer_reports(ctx, impact, ctx.rng("cascades")))
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
        said = {"incident_id": incident_id, "service": change.service}
        if rng.random() < 0.5 and suspect is not None:
            said["suspected_change_id"] = suspect
        post_chat(ctx, "CH-SRE-ONCALL", speaker, "chat_oncall", said, {"symptom": symptom}, inc_link)
        guess_cause(ctx, speaker, incident_id, change.service, mechanism, MECHANISM_PHRASES, inc_link)
        yield ctx.env.timeout(rng.uniform(3, 20))

    if rng.random() < 0.5:
        yield from incident_escalation(ctx, incident_id, oncall, change, rng, inc_link)

    yield from _until_mitigated(ctx, timing, incident_id, oncall, inc_link)
    facts.update(status="mitigated", change_id=change.change_id, mechanism=mechanism,
                 mechanism_aliases=list(aliases), mitigation=f"rolled back {change.change_id}")
    mitigated = _record_incident(ctx, incident_id, oncall, facts, "incident.mitigated",
                                 {"change_id": change.change_id, "mechanism": mechanism}, inc_link)
    _record_change(ctx, change, oncall, "rolled_back", "change.rolled_back", {"rolled_back_for": incident_id},
                   (ParentLink(mitigated, {"incident_id": incident_id, "change_id": change.change_id}),))
    ctx.graph.interact_all(oncall, responders + [change.author], ctx.now)

    yield ctx.env.timeout(rng.uniform(30, 240))
    facts.update(status="resolved", resolved_at=ctx.ledger.stamp())
    resolved = _record_incident(ctx, incident_id, oncall, facts, "incident.resolved", {"change_id": change.change_id},
                                inc_link)
    ctx.env.process(after_resolution(ctx, impact, resolved, ctx.rng("cascades")))
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


def _night_alert(ctx: SimContext, timing) -> tuple[float, float] | None:
    """Whether this incident's alert fires after close, decided at the faulty deploy: (working minutes left
    before close, the minute the alert fires at night), or None for an alert in the working day.

    Only when the deploy went out in the last 6 working hours of the day, so every change deployed between
    it and the alert (the decoy) is within 6 working hours of the incident; the alert fires before the next
    morning and within 23 hours of the deploy (GroundEval's deploy→incident rule allows 24)."""
    calendar = ctx.calendar
    now = ctx.now
    day = int(now // 1440)
    close = day * 1440 + calendar.close_minute
    left = day * 1440 + calendar.work_end - now - 1.0
    if timing.random() >= AFTER_HOURS_SHARE or not calendar.is_open(now) or not 5.0 <= left <= 360.0:
        return None
    night = min(calendar.next_open(close) - close, now + 23 * 60.0 - close)
    return left, close + timing.uniform(1.0, night - 1.0)


def _until_mitigated(ctx: SimContext, timing, incident_id: str, oncall: str, parents):
    """Wait until the incident is mitigated: a log-normal time, and now and then days of waiting on a fix."""
    if timing.random() < STALL_SHARE:
        yield ctx.env.timeout(timing.uniform(30, 120))
        ctx.ledger.emit("incident.stalled", (oncall,), "incidents", EntityRef("incident", incident_id),
                        {"incident_id": incident_id, "waiting_on": timing.choice(("vendor fix", "upstream patch",
                                                                                  "hardware replacement"))}, parents)
        yield ctx.business_days(timing.randint(1, 4))
    yield ctx.env.timeout(min(timing.lognormvariate(math.log(MITIGATION_MEDIAN), MITIGATION_SIGMA), 18 * 60.0))


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
