"""What an incident does to the rest of the company: customer cases, escalations to SRE, SLA credits, risk flags.

While an incident is open, customers of the affected service report it: each
report is a support case whose facts and opening event cite the incident
(join key ``incident_id``), and whose owner escalates to the on-call SRE by
that incident id. When the incident resolves, its duration is measured
against the service level of its severity; every reporting account whose
contract promises a response gets a billing-credit case for a breach, and
sales flags the account as at risk on its CRM record. Every step is an event
with a parent link and join key, so a question can go from a deploy to an
incident to a case to a credit to an account.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.context import SimContext
from simulator.model import EntityRef, ParentLink
from simulator.processes.crm import flag_account
from simulator.processes.hearsay import repeat_old_status
from simulator.processes.support import open_case, support_case

#: The category of the runbook a credit for a breached service level follows (a pack without one gives none).
CREDIT_CATEGORY = "billing"
#: Customer reports per severity: (fewest, most).
REPORTS: dict[str, tuple[int, int]] = {"SEV1": (1, 3), "SEV2": (0, 2), "SEV3": (0, 1)}
#: Hours to resolve each severity before the service level counts as breached.
SLA_HOURS: dict[str, float] = {"SEV1": 4.0, "SEV2": 8.0, "SEV3": 24.0}
#: Contract levels that carry a service-level promise (and so a credit when it is broken).
CREDITED_LEVELS = ("four_hour", "next_business_day")
#: Credit in USD per started hour over the service level, by contract level, capped at ``MAX_CREDIT``.
CREDIT_PER_HOUR = {"four_hour": 150, "next_business_day": 50}
MAX_CREDIT = 2400


@dataclass
class IncidentImpact:
    """What one incident did to customers: the cases they opened, and the accounts behind them."""

    incident_id: str
    service: str
    severity: str
    opened_event: str
    opened_minute: float
    cases: list = field(default_factory=list)


def customer_reports(ctx: SimContext, impact: IncidentImpact, rng):
    """Customers of the failing service open cases citing the incident, spread over its first hours.

    The case category is the pack's ``engineering.service_categories``; a service it leaves out gets no reports.
    """
    category = dict(ctx.pack.service_categories).get(impact.service)
    if category is None:
        return
    low, high = REPORTS[impact.severity]
    procedure = ctx.pack.procedures_by_category[category]
    for _ in range(rng.randint(low, high)):
        yield ctx.env.timeout(rng.uniform(5, 180))  # customers notice at any hour, not only ours
        case = open_case(ctx, rng, procedure, impact.incident_id)
        case.reports_incident = True
        impact.cases.append(case)
        cause = ParentLink(impact.opened_event, {"incident_id": impact.incident_id})
        ctx.env.process(support_case(ctx, case, cause))


def credit_amount(level: str, hours_over: float) -> int:
    """The credit for a breach ``hours_over`` the service level on a ``level`` contract."""
    return min(MAX_CREDIT, CREDIT_PER_HOUR[level] * (int(hours_over) + 1))


def after_resolution(ctx: SimContext, impact: IncidentImpact, resolved_event: str, rng):
    """Measure the incident against its service level; credit and flag every reporting account it breached."""
    hours = (ctx.now - impact.opened_minute) / 60.0
    sla = SLA_HOURS[impact.severity]
    tellers = [a for a in ctx.org.members("support_l2") + ctx.org.with_role("support_manager")
               if ctx.can_read(a, "incidents")]
    if impact.cases and tellers:  # someone in support read the incident while it was investigating
        ctx.env.process(repeat_old_status(ctx, ctx.pick(rng, tellers), impact.incident_id, impact.service,
                                          "investigating", "resolved",
                                          (ParentLink(resolved_event, {"incident_id": impact.incident_id}),)))
    credit_runbook = ctx.pack.procedures_by_category.get(CREDIT_CATEGORY)
    seen: set[str] = set()
    for reported in impact.cases:
        account = reported.account
        if account.account_id in seen:
            continue
        seen.add(account.account_id)
        if hours > sla:
            flag_account(ctx, account, impact.incident_id, resolved_event, rng)
        if hours <= sla or account.contract_level not in CREDITED_LEVELS:
            continue
        breach = ctx.ledger.emit(
            "billing.sla_breached", (reported.owner,), "ticketing", EntityRef("incident", impact.incident_id),
            {"incident_id": impact.incident_id, "account_id": account.account_id, "case_id": reported.case_id,
             "duration_hours": round(hours, 2), "sla_hours": sla, "contract_level": account.contract_level},
            (ParentLink(resolved_event, {"incident_id": impact.incident_id}),
             ParentLink(reported.opened_event, {"case_id": reported.case_id})))
        if credit_runbook is None:
            continue
        credit = credit_amount(account.contract_level, hours - sla)  # the contract breached, not a later renewal's
        yield ctx.work(rng.uniform(30, 240))
        case = open_case(ctx, rng, credit_runbook, impact.incident_id, account, credit)
        ctx.env.process(support_case(ctx, case, ParentLink(breach, {"incident_id": impact.incident_id,
                                                                     "account_id": account.account_id})))
