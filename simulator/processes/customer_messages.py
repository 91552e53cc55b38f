"""What customers write: the message that opens a case, in the words of the problem behind its category."""

from __future__ import annotations

from simulator.context import SimContext
from simulator.messaging import send_email
from simulator.model import ParentLink



def customer_request(ctx: SimContext, case) -> str:
    """The customer's message that opened the case, received into the owner's queue."""
    rng = ctx.rng("support.requests")
    facts = {"case_id": case.case_id, "contact_name": case.facts["contact_name"],
             "account_name": case.facts["account_name"]}
    for key in ("asset_serial", "asset_model", "license_key", "target_account_id", "invoice_id", "credit_amount"):
        if key in case.facts:
            facts[key] = case.facts[key]
    symptom = ctx.pick(rng, case.procedure.symptoms)
    event_id, _ = send_email(ctx, case.owner, [], f"{case.case_id}: {symptom}", "customer_request", facts,
                             case.entity, ctx.shared_context(symptom=symptom),
                             kind="customer_request", event_type="email.received_external",
                             parents=(ParentLink(case.opened_event, {"case_id": case.case_id}),),
                             external_from=case.facts["contact_email"])
    return event_id
