"""What happens to a support case: opened, triaged, worked through its runbook step by step, resolved, closed.

Customers open cases during business hours. Each case follows the runbook
for its category (``simulator.procedures``): every step takes business
time, writes its facts, and leaves an event, a new ticket version, a ticket
comment and — when it talks to the customer — an email. A step that
escalates hands the case along the collaboration graph to the nearest person
of the target role or team. Some cases wait on the customer; a few never hear
back and stay open past the end of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulator.case_facts import initial_facts, next_weekday, step_writes, uses_asset
from simulator.context import SimContext
from simulator.customers import Account, Asset
from simulator.messaging import author_acl, post_chat, send_email
from simulator.model import EntityRef, ParentLink
from simulator.org import TEAM_ROLES
from simulator.procedures import Procedure, Step
from simulator.processes.customer_messages import customer_request
from simulator.processes.oncall import on_call
from simulator.graph import WITH_MANAGER

PRIORITIES = ("P1", "P2", "P3", "P4")
PRIORITY_WEIGHTS = (1, 3, 5, 3)
#: Steps that talk to the customer by email.
CUSTOMER_STEPS = {"notify_customer", "issue_rma", "issue_reset"}
CUSTOMER_SUBJECTS = {"notify_customer": "Update on your case {case_id}",
                     "issue_rma": "Return authorisation for your case {case_id}",
                     "issue_reset": "Password reset link for your case {case_id}"}
#: Steps after which the case waits for something outside (parts, visits, data).
WAITING_STEPS = {"create_dispatch": (1, 3), "schedule_visit": (1, 4), "create_exchange": (1, 3),
                 "create_recovery_job": (2, 5), "issue_rma": (2, 6)}
#: After a wait of whole business days, people pick the case up within this many business minutes.
PICKUP_MINUTES = 180.0
#: Share of a non-strategic case's completed steps posted as an update to the support channel (chat.message_posted).
CHAT_UPDATE_SHARE = 0.3
#: A resolved case is closed this many business days later (inclusive range, seeded).
CLOSE_AFTER_DAYS = (2, 5)


@dataclass
class SupportCase:
    """One case as it is worked: its runbook, owner and facts so far."""

    case_id: str
    procedure: Procedure
    account: Account
    asset: Asset | None
    owner: str
    facts: dict[str, Any]
    steps_completed: list[str] = field(default_factory=list)
    opened_event: str = ""
    last_event: str = ""
    #: A customer's report of an incident: the owner asks the on-call SRE about it after triage.
    reports_incident: bool = False
    #: The completed steps as the latest ticket version states them.
    steps_snapshot: list[str] = field(default_factory=list)
    #: The case as an entity reference.
    entity: EntityRef = field(init=False)
    #: The restricted queue the case lives in (strategic accounts), or None.
    space: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.entity = EntityRef("case", self.case_id)
        self.space = "SP-STRATEGIC-ACCOUNTS" if self.account.strategic else None


def business_days_later(ctx: SimContext, rng, days: int, actor_id: str):
    """Wait ``days`` of ``actor_id``'s working days, then 0–``PICKUP_MINUTES`` of their working minutes more:
    nobody picks a case up again at the same second of the day it was put down, and the work stays inside
    their office hours."""
    yield ctx.until(ctx.calendar_of(actor_id).business_days_after(ctx.now, days))
    yield ctx.work_as(actor_id, rng.uniform(0, PICKUP_MINUTES))


#: Customers' share of the day's cases by UTC hour (customers in Europe, the Americas and Asia): the portal
#: files cases at any hour, most in the European and American working day.
DAILY_CURVE = (1, 1, 2, 2, 3, 3, 4, 5, 8, 10, 11, 11, 10, 11, 12, 12, 11, 9, 7, 6, 5, 3, 2, 1)
#: Cases on a weekend or company holiday, relative to a working day.
OFF_DAY_LOAD = 0.15


def case_arrivals(ctx: SimContext):
    """Customers open cases at the configured rate per working day on average over a week, spread over the day
    by ``DAILY_CURVE`` and into weekends at ``OFF_DAY_LOAD`` (a thinned Poisson process in wall-clock minutes)."""
    rng = ctx.rng("support.arrivals")
    peak, total = max(DAILY_CURVE), sum(DAILY_CURVE)
    week = 5.0 / (5.0 + 2.0 * OFF_DAY_LOAD)  # the week's cases, five working days' worth, now spread over seven
    while True:
        per_day = week * ctx.config.workload.cases_per_person * len(ctx.org.active())
        if per_day <= 0:
            return
        yield ctx.env.timeout(rng.expovariate(per_day * peak / total / 60.0))
        day, hour = int(ctx.now // 1440), int(ctx.now % 1440 // 60)
        load = DAILY_CURVE[hour] / peak * (1.0 if ctx.calendar.is_working_day(day) else OFF_DAY_LOAD)
        if rng.random() < load:
            ctx.env.process(support_case(ctx, open_case(ctx, rng)))


def _owner_pool(ctx: SimContext, strategic: bool) -> list[str]:
    if strategic:
        return ctx.org.members("support_l2")
    return [a for a in ctx.org.members("support_l1") if ctx.org.people[a].role == "support_l1"]


def open_to_any_unit(procedures: tuple[Procedure, ...]) -> list[Procedure]:
    """Runbooks a customer can request for a unit out of warranty."""
    return [p for p in procedures if not p.covers_entitled_units_only]


def open_case(ctx: SimContext, rng, procedure: Procedure | None = None, incident_id: str | None = None,
              account: Account | None = None, credit: int | None = None) -> SupportCase:
    """A new case: a customer, an asset if the runbook needs one, and its opening facts.

    The portal checks the warranty: a runbook that covers entitled units only (battery replacement,
    advance exchange, on-site service, data recovery) is opened for one of the account's units under
    warranty that day; an account with none requests one of the other runbooks instead. A case a
    customer opens because of an incident (``incident_id``) names the incident in its facts; a credit
    for a breached service level comes with its amount (``credit``).
    """
    procedures = ctx.pack.procedures
    if procedure is None:
        procedure = procedures[rng.randrange(len(procedures))]
    procedure = ctx.runbooks.get(procedure.procedure_id, procedure)  # the revision in force today
    if account is None:
        account = ctx.pick(rng, ctx.accounts)
    contact = ctx.pick(rng, account.contacts)
    today = ctx.calendar.date_of(ctx.now)
    assets = account.assets
    if procedure.covers_entitled_units_only:
        assets = [a for a in account.assets if a.warranty_end >= today]
        if not assets:
            procedure, assets = ctx.pick(rng, open_to_any_unit(procedures)), account.assets
            procedure = ctx.runbooks.get(procedure.procedure_id, procedure)
    asset = ctx.pick(rng, assets) if uses_asset(procedure) else None
    case_id = ctx.ledger.next_id("CASE", 10001)
    priority = rng.choices(PRIORITIES, PRIORITY_WEIGHTS)[0]
    others = [a for a in ctx.accounts if a is not account]
    facts = initial_facts(case_id, procedure, account, contact, asset, today, priority, ctx.ledger, rng, others)
    if incident_id is not None:
        facts["incident_id"] = incident_id
    if credit is not None and "credit_amount" in facts:
        facts["credit_amount"] = credit
    pool = _owner_pool(ctx, account.strategic)
    owner = ctx.pick(rng, [a for a in pool if not ctx.on_leave(a)] or pool)
    return SupportCase(case_id, procedure, account, asset, owner, facts)


def _snapshot(case: SupportCase) -> dict[str, Any]:
    """The ticket's facts now; versions between two steps share one (never mutated) list of completed steps."""
    if len(case.steps_snapshot) != len(case.steps_completed):
        case.steps_snapshot = list(case.steps_completed)
    return {**case.facts, "procedure_id": case.procedure.procedure_id, "category": case.procedure.category,
            "procedure_revision": case.procedure.revision, "steps_completed": case.steps_snapshot}


def _voice(ctx: SimContext, author: str, **values: Any) -> dict[str, Any]:
    """A prose context with the author's team and role as they are now (the prose writes by seniority)."""
    person = ctx.org.people[author]
    return ctx.shared_context(team=person.team, role=person.role, **values)


def _ticket_version(ctx: SimContext, case: SupportCase, author: str, note: str) -> str:
    title = f"{case.case_id}: {case.procedure.name} for {case.account.name}"
    return ctx.ledger.draft(case.case_id, "ticketing", "ticket", author, case.entity, title, "ticket", _snapshot(case),
                            author_acl(ctx, case.space, author), _voice(ctx, author, note=note))


def _comment(ctx: SimContext, case: SupportCase, author: str, step: Step | None, written: dict[str, Any]) -> str:
    comment_id = ctx.ledger.next_id("CMT")
    facts = {"case_id": case.case_id, **written}
    context = ctx.shared_context(action=step.action if step else "triaged the case",
                              step_id=step.step_id if step else "triage")
    if step is not None:
        facts["step_id"] = step.step_id
    return ctx.ledger.draft(comment_id, "ticketing", "ticket_comment", author, case.entity,
                            f"Comment on {case.case_id}", "ticket_comment", facts,
                            author_acl(ctx, case.space, author), context)


def _eligible_owner(ctx: SimContext, case: SupportCase, actor_id: str) -> bool:
    person = ctx.org.people[actor_id]
    if person.left_at is not None or person.team not in ("support_l1", "support_l2") or ctx.on_leave(actor_id):
        return False
    return case.space is None or actor_id in ctx.org.space_members(case.space)


def _ensure_owner(ctx: SimContext, case: SupportCase, rng):
    """Reassign the case if its owner has left support (or the company) or is on leave; the new owner
    takes it at their next working moment (use with ``yield from``)."""
    if _eligible_owner(ctx, case, case.owner):
        return
    previous = case.owner
    pool = [a for a in _owner_pool(ctx, case.account.strategic) if _eligible_owner(ctx, case, a)] \
        or [a for a in ctx.org.members("support_l2") if _eligible_owner(ctx, case, a)]
    pool = [a for a in pool if ctx.at_work(a)] or pool  # someone whose working day it is, if anyone
    case.owner = ctx.pick(rng, pool)
    yield ctx.work_as(case.owner, 0.0)
    ref = _ticket_version(ctx, case, case.owner, f"reassigned from {ctx.org.people[previous].name}")
    case.last_event = ctx.ledger.emit("case.reassigned", (case.owner,), "ticketing", case.entity,
                                      {"case_id": case.case_id, "from": previous, "to": case.owner},
                                      (ParentLink(case.last_event, {"case_id": case.case_id}),), (ref,))


def _escalation_targets(ctx: SimContext, target: str) -> list[str]:
    if target in TEAM_ROLES:
        return ctx.org.members(target)
    return ctx.org.with_role(target)


def escalate(ctx: SimContext, case: SupportCase, step: Step, rng):
    """Hand the case along the org graph to the nearest person of ``step.escalates_to``; returns them."""
    assert step.escalates_to is not None, step.step_id     # only a step that escalates is handed here
    targets = [t for t in _escalation_targets(ctx, step.escalates_to) if t != case.owner]
    targets = [t for t in targets if not ctx.on_leave(t)] or targets
    if case.space is not None:
        members = ctx.org.space_members(case.space)
        targets = [t for t in targets if t in members] or targets
    route = ctx.graph.route(case.owner, targets, ctx.now, ctx.org.active_set()) or [case.owner, ctx.pick(rng, targets)]
    target = route[-1]
    escalation_id = ctx.ledger.next_id("ESC")
    facts = {"case_id": case.case_id, "escalation_id": escalation_id, "step_id": step.step_id,
             "escalated_to": target, "target": step.escalates_to}
    sent, _ = send_email(ctx, case.owner, [target], f"Escalation {escalation_id}: {case.case_id} needs {step.escalates_to}",
                         "escalation_email", facts, case.entity, {"route": route, "action": step.action},
                         event_type="escalation.sent",
                         parents=(ParentLink(case.last_event, {"case_id": case.case_id}),),
                         extra_payload={"route": route, "escalated_to": target, "target": step.escalates_to})
    ctx.graph.interact_all(case.owner, route[1:], ctx.now)
    ctx.org.hold(target, case.owner)
    yield ctx.work_as(target, rng.uniform(20, 240))
    ctx.org.release(target, case.owner)
    answered, _ = send_email(ctx, target, [case.owner], f"Re: Escalation {escalation_id}", "escalation_reply",
                             {**facts}, case.entity, {"route": route, "action": step.action},
                             event_type="escalation.answered",
                             parents=(ParentLink(sent, {"escalation_id": escalation_id}),))
    case.last_event = answered
    return target


def escalate_to_sre(ctx: SimContext, case: SupportCase, on_call: str, rng):
    """The case owner asks the on-call SRE about the incident the customer hit, naming it by id."""
    incident_id = case.facts["incident_id"]
    escalation_id = ctx.ledger.next_id("ESC")
    facts = {"case_id": case.case_id, "incident_id": incident_id, "escalation_id": escalation_id,
             "escalated_to": on_call, "target": "sre"}
    action = f"tell us when {incident_id} is fixed, the customer's case depends on it"
    sent, _ = send_email(ctx, case.owner, [on_call], f"Escalation {escalation_id}: {case.case_id} hit {incident_id}",
                         "escalation_incident_case", facts, case.entity, {"route": [case.owner, on_call], "action": action},
                         event_type="escalation.sent",
                         parents=(ParentLink(case.last_event, {"case_id": case.case_id, "incident_id": incident_id}),),
                         extra_payload={"route": [case.owner, on_call], "escalated_to": on_call, "target": "sre"})
    ctx.graph.interact(case.owner, on_call, ctx.now)
    yield ctx.work_as(on_call, rng.uniform(10, 90))
    answered, _ = send_email(ctx, on_call, [case.owner], f"Re: Escalation {escalation_id}", "escalation_incident_reply",
                             facts,
                             case.entity, {"route": [case.owner, on_call], "action": action},
                             event_type="escalation.answered",
                             parents=(ParentLink(sent, {"escalation_id": escalation_id}),))
    case.last_event = answered


def ask_engineering(ctx: SimContext, case: SupportCase, rng):
    """Support asks engineering whether a firmware fault is a known bug; sometimes nobody ever answers."""
    engineers = ctx.org.members("engineering")
    route = ctx.graph.route(case.owner, engineers, ctx.now, ctx.org.active_set()) or [case.owner, ctx.pick(rng, engineers)]
    target = route[-1]
    escalation_id = ctx.ledger.next_id("ESC")
    facts: dict[str, Any] = {"case_id": case.case_id, "escalation_id": escalation_id, "escalated_to": target,
                             "target": "engineering", **{k: case.facts[k] for k in ("diagnostic_code", "firmware_version") if k in case.facts}}
    software = ctx.pack.wording.word("software")
    action = f"confirm whether this {software} fault is a known bug"
    sent, _ = send_email(ctx, case.owner, [target], f"Escalation {escalation_id}: known {software} bug? ({case.case_id})",
                         "escalation_email", facts, case.entity, {"route": route, "action": action},
                         event_type="escalation.sent",
                         parents=(ParentLink(case.last_event, {"case_id": case.case_id}),),
                         extra_payload={"route": route, "escalated_to": target, "target": "engineering"})
    if rng.random() < ctx.config.workload.unanswered_escalation_rate:
        return  # never answered
    ctx.org.hold(target)
    yield ctx.work_as(target, rng.uniform(30, 600))
    ctx.org.release(target)
    send_email(ctx, target, [case.owner], f"Re: Escalation {escalation_id}", "escalation_reply", facts, case.entity,
               {"route": route, "action": action}, event_type="escalation.answered",
               parents=(ParentLink(sent, {"escalation_id": escalation_id}),))


def support_case(ctx: SimContext, case: SupportCase, cause: ParentLink | None = None):
    """The life of one support case, from the customer's first message to closing (``cause``: what made the
    customer open it, when known)."""
    rng = ctx.rng("support.cases")
    ledger = ctx.ledger
    link = lambda: (ParentLink(case.last_event, {"case_id": case.case_id}),)  # noqa: E731

    # Opened: the portal files the ticket into the owner's queue.
    ref = _ticket_version(ctx, case, case.owner, "case opened from the customer portal")
    opened = {"case_id": case.case_id, "procedure_id": case.procedure.procedure_id,
              "account_id": case.account.account_id, "priority": case.facts["priority"],
              **{k: case.facts[k] for k in ("incident_id",) if k in case.facts}}
    case.opened_event = case.last_event = ledger.emit(
        "case.opened", (case.owner,), "ticketing", case.entity, opened, (cause,) if cause else (), (ref,))
    ctx.open_cases[case.case_id] = case
    customer_request(ctx, case)

    # Triaged: the owner reads it and starts work.
    yield ctx.work_as(case.owner, rng.uniform(10, 120))
    yield from _ensure_owner(ctx, case, rng)
    case.facts["case_status"] = "in_progress"
    refs = (_ticket_version(ctx, case, case.owner, "triaged"), _comment(ctx, case, case.owner, None, {}))
    case.last_event = ledger.emit("case.triaged", (case.owner,), "ticketing", case.entity,
                                  {"case_id": case.case_id, "case_status": "in_progress"}, link(), refs)
    ctx.graph.interact(case.owner, ctx.org.people[case.owner].manager or case.owner, ctx.now, WITH_MANAGER)
    if case.reports_incident:
        yield from escalate_to_sre(ctx, case, on_call(ctx), rng)

    for step in case.procedure.steps:
        yield ctx.work_as(case.owner, rng.uniform(20, 180))
        if step.step_id == "resolve_case" and rng.random() < ctx.config.workload.stalled_case_rate:
            yield from wait_for_customer(ctx, case, rng, forever=True)
        elif step.step_id == "resolve_case" and rng.random() < 0.25:
            yield from wait_for_customer(ctx, case, rng, forever=False)
        yield from _ensure_owner(ctx, case, rng)
        worker = case.owner
        approver = None
        if step.escalates_to:
            approver = yield from escalate(ctx, case, step, rng)
            if step.escalates_to == "support_l2":
                case.owner = worker = approver  # the case now belongs to level 2
            else:
                worker = approver
        today = ctx.calendar.date_of(ctx.now)
        written = step_writes(step, case.procedure, case.facts, case.asset, today,
                              next_weekday(today, rng.randint(1, 4)), approver, ledger, rng)
        case.facts.update(written)
        case.steps_completed.append(step.step_id)
        step_refs = [_ticket_version(ctx, case, worker, step.action), _comment(ctx, case, worker, step, written)]
        case.last_event = ledger.emit(
            "case.step_completed", (worker,), "ticketing", case.entity,
            {"case_id": case.case_id, "procedure_id": case.procedure.procedure_id, "step_id": step.step_id, **written},
            link(), step_refs)
        if step.step_id == "check_known_issue" and rng.random() < 0.5:
            ctx.env.process(ask_engineering(ctx, case, rng))
        if step.step_id in CUSTOMER_STEPS:
            contact = case.facts["contact_email"]
            send_email(ctx, worker, [], CUSTOMER_SUBJECTS[step.step_id].format(case_id=case.case_id), "customer_email",
                       {"case_id": case.case_id, **{k: case.facts[k] for k in step.reads},
                        **written, "contact_name": case.facts["contact_name"]},
                       case.entity, _voice(ctx, worker, action=step.action, account_name=case.account.name),
                       kind="customer_email", event_type="email.sent_external", parents=link(), external_to=contact)
        if case.space is None and rng.random() < CHAT_UPDATE_SHARE:
            post_chat(ctx, "CH-SUPPORT", worker, "chat_case_update",
                      {"case_id": case.case_id, "step_id": step.step_id, **written},
                      ctx.shared_context(action=step.action, procedure=case.procedure.name), link())
        if case.space is None:
            ctx.remember("case", {"case_id": case.case_id, "case_status": case.facts["case_status"], **written})
        if step.step_id in WAITING_STEPS:
            low, high = WAITING_STEPS[step.step_id]
            yield from business_days_later(ctx, rng, rng.randint(low, high), case.owner)

    # Closed: a few days after resolution, unless the customer reopens it (not modelled).
    yield from business_days_later(ctx, rng, rng.randint(*CLOSE_AFTER_DAYS), case.owner)
    yield from _ensure_owner(ctx, case, rng)
    case.facts["case_status"] = "closed"
    ref = _ticket_version(ctx, case, case.owner, "closed after resolution")
    case.last_event = ledger.emit("case.closed", (case.owner,), "ticketing", case.entity,
                                  {"case_id": case.case_id, "case_status": "closed"}, link(), (ref,))
    ctx.open_cases.pop(case.case_id, None)


def wait_for_customer(ctx: SimContext, case: SupportCase, rng, forever: bool):
    """The case waits for the customer; with ``forever`` the reply never comes within the run."""
    yield from _ensure_owner(ctx, case, rng)  # the owner may have left while the case sat in the queue
    case.facts["case_status"] = "pending_customer"
    refs = (_ticket_version(ctx, case, case.owner, "waiting for the customer to confirm"),)
    case.last_event = ctx.ledger.emit("case.pending_customer", (case.owner,), "ticketing", case.entity,
                                      {"case_id": case.case_id, "case_status": "pending_customer"},
                                      (ParentLink(case.last_event, {"case_id": case.case_id}),), refs)
    if forever:
        yield ctx.until(ctx.calendar.end_minute + 1.0)
        return
    since = ctx.calendar.date_of(ctx.now).strftime("%A")  # the day support asked (the reply refers to it)
    yield from business_days_later(ctx, rng, rng.randint(1, 4), case.owner)
    yield from _ensure_owner(ctx, case, rng)
    event_id, _ = send_email(ctx, case.owner, [], f"Re: Your case {case.case_id}", "customer_reply",
                             {"case_id": case.case_id, "contact_name": case.facts["contact_name"]}, case.entity,
                             ctx.shared_context(account_name=case.account.name, since=since), kind="customer_reply",
                             event_type="email.received_external",
                             parents=(ParentLink(case.last_event, {"case_id": case.case_id}),),
                             external_from=case.facts["contact_email"])
    # The reply puts the case back in progress: a ticket version records it, so the history reads
    # pending_customer → in_progress → resolved.
    case.facts["case_status"] = "in_progress"
    ref = _ticket_version(ctx, case, case.owner, "customer replied")
    case.last_event = ctx.ledger.emit("case.customer_replied", (case.owner,), "ticketing", case.entity,
                                      {"case_id": case.case_id, "case_status": "in_progress"},
                                      (ParentLink(event_id, {"case_id": case.case_id}),), (ref,))
    yield ctx.work_as(case.owner, rng.uniform(10, 90))  # the owner reads the reply before going on
