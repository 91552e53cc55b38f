"""Incidents reach customers: cases that cite them, escalations to SRE by incident id, SLA credits, risk flags.

Each hop is checked from the raw events and records: the join keys, the
order in time, and the service-level arithmetic recomputed here from the
incident's own opened and resolved events.
"""

from __future__ import annotations

import random

from simulator.calendar import DAY
from simulator.config import load_config
from simulator.processes.cascades import CREDITED_LEVELS, SLA_HOURS, IncidentImpact, after_resolution
from simulator.processes.support import open_case


def _by_id(world):
    return {e.event_id: e for e in world.events}


def _incident_times(world):
    opened = {e.payload["incident_id"]: e for e in world.events if e.type == "incident.opened"}
    resolved = {e.payload["incident_id"]: e for e in world.events if e.type == "incident.resolved"}
    return opened, resolved


def test_incident_cases_cite_the_incident_and_escalate_to_sre_by_its_id(default_world):
    world = default_world
    events = _by_id(world)
    opened, _ = _incident_times(world)
    cited = [e for e in world.events if e.type == "case.opened" and "incident_id" in e.payload]
    assert len(cited) >= 10
    escalations = {e.payload["case_id"]: e for e in world.events
                   if e.type == "escalation.sent" and e.payload.get("target") == "sre"}
    for event in cited:
        incident_id = event.payload["incident_id"]
        parent = events[event.parents[0].event_id]
        assert event.parents[0].join_key["incident_id"] == incident_id == parent.payload["incident_id"]
        assert parent.ts <= event.ts and parent.type in ("incident.opened", "billing.sla_breached")
        ticket = world.version(event.artifacts[0])
        assert ticket.facts["incident_id"] == incident_id and incident_id in ticket.body
        if parent.type == "incident.opened":
            escalation = escalations.get(event.payload["case_id"])
            if escalation is not None:
                assert escalation.payload["incident_id"] == incident_id
                assert world.actor(escalation.payload["escalated_to"]).team == "sre"
                assert incident_id in world.version(escalation.artifacts[0]).body
    assert escalations and all(e.payload["incident_id"] in opened for e in escalations.values())


def test_sla_breaches_follow_the_incidents_duration_and_bring_credits_and_risk_flags(default_world):
    world = default_world
    events = _by_id(world)
    opened, resolved = _incident_times(world)
    breaches = [e for e in world.events if e.type == "billing.sla_breached"]
    assert breaches
    credit_cases = {(e.parents[0].join_key.get("account_id"), e.payload.get("incident_id")): e for e in world.events
                    if e.type == "case.opened" and e.parents and events[e.parents[0].event_id].type == "billing.sla_breached"}
    flags = [e for e in world.events if e.type == "crm.account_flagged"]
    flagged = {(e.payload["account_id"], e.payload["incident_id"]) for e in flags}
    for breach in breaches:
        incident_id = breach.payload["incident_id"]
        hours = (resolved[incident_id].ts - opened[incident_id].ts).total_seconds() / 3600
        severity = opened[incident_id].payload["severity"]
        assert hours > SLA_HOURS[severity] == breach.payload["sla_hours"]
        assert breach.payload["contract_level"] in CREDITED_LEVELS
        assert breach.parents[0].event_id == resolved[incident_id].event_id
        assert (breach.payload["account_id"], incident_id) in flagged
        credit = credit_cases[(breach.payload["account_id"], incident_id)]  # an account may breach twice
        assert credit.payload["procedure_id"] == "RB-BILLING-CREDIT" and credit.payload["incident_id"] == incident_id
    for flag in flags:
        account = world.version(flag.artifacts[0])
        assert account.facts["risk_flag"] == "at_risk" and account.facts["risk_incident_id"] == flag.payload["incident_id"]
        incident_id = flag.payload["incident_id"]
        hours = (resolved[incident_id].ts - opened[incident_id].ts).total_seconds() / 3600
        assert hours > SLA_HOURS[opened[incident_id].payload["severity"]]


def test_a_chain_runs_from_a_deploy_to_an_account(default_world):
    """deploy → incident → customer case → SLA breach → credit case, and the account flagged: all by join keys."""
    world = default_world
    events = _by_id(world)
    chains = 0
    for credit in (e for e in world.events if e.type == "case.opened" and e.parents):
        breach = events[credit.parents[0].event_id]
        if breach.type != "billing.sla_breached":
            continue
        resolved = events[breach.parents[0].event_id]
        reported = events[breach.parents[1].event_id]
        incident = events[reported.parents[0].event_id]
        deploy = events[incident.parents[0].event_id]
        assert incident.type == "incident.opened" and deploy.type == "deploy.completed"
        assert deploy.payload["change_id"] == incident.payload["change_id"]
        assert resolved.payload["incident_id"] == incident.payload["incident_id"] == credit.payload["incident_id"]
        chains += 1
    assert chains >= 2


def test_a_credit_is_for_the_contract_breached_even_if_it_is_renewed_before_the_credit_case(small_config_path):
    """A renewal (here to basic, which carries no credit) between the breach and its credit case changes nothing.

    The 64x world met this: the credit was priced by the contract in force when the case opened, and
    ``basic`` has no price per hour (KeyError); between two credited levels it would be silently wrong.
    """
    from simulator.simulate import _context

    ctx = _context(load_config(small_config_path))
    rng = random.Random(3)
    account = ctx.accounts[0]
    account.contract_level = "four_hour"
    case = open_case(ctx, rng, None, "INC-1", account)
    impact = IncidentImpact("INC-1", "svc", "SEV1", "EV-0000001", 0.0, [case])

    def resolve_then_renew():
        yield ctx.env.timeout(10 * 60)  # resolved 10 hours after it opened: 6 over SEV1's 4
        ctx.env.process(after_resolution(ctx, impact, "EV-0000002", rng))
        yield ctx.env.timeout(1)  # the credit case waits 30-240 working minutes; the contract is renewed first
        account.contract_level = "basic"

    ctx.env.process(resolve_then_renew())
    ctx.env.run(until=3 * DAY)
    credits = [d.facts["credit_amount"] for d in ctx.ledger.drafts
               if d.facts.get("incident_id") == "INC-1" and "credit_amount" in d.facts]
    assert credits and set(credits) == {150 * 7}  # USD 150 per started hour over on four_hour: 7 hours
