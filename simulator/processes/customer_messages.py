"""What customers write: the message that opens a case, in the words of the problem behind its category."""

from __future__ import annotations

from simulator.context import SimContext
from simulator.messaging import send_email
from simulator.model import ParentLink


#: How customers describe the problem behind each category.
SYMPTOMS: dict[str, tuple[str, ...]] = {
    "battery": ("the battery warning light is on", "the unit runs on battery for only a few minutes",
                "the battery module reports a fault"),
    "firmware": ("the unit keeps rebooting since the last firmware update", "the management console fails after the update",
                 "the firmware update left the unit unstable"),
    "hardware_failure": ("the unit is down with a hardware fault", "a component failed and the unit will not power on",
                         "we see repeated hardware errors"),
    "account_access": ("we are locked out of the customer portal", "our admin cannot sign in",
                       "password login fails for our account"),
    "onsite": ("the unit needs hands-on repair at our site", "a fault that our staff cannot fix remotely",
               "the controller fails and we need a technician"),
    "billing": ("an invoice does not reflect the outage we had", "we were billed for service we did not receive",
                "we dispute a charge after the service-level breach"),
    "data_loss": ("we lost data after a disk failure", "a volume is unreadable", "files are missing after a crash"),
    "licensing": ("we need to move a licence to another account", "a licence must be transferred to our subsidiary",
                  "please transfer our licence"),
}


def customer_request(ctx: SimContext, case) -> str:
    """The customer's message that opened the case, received into the owner's queue."""
    rng = ctx.rng("support.requests")
    facts = {"case_id": case.case_id, "contact_name": case.facts["contact_name"],
             "account_name": case.facts["account_name"]}
    for key in ("asset_serial", "asset_model", "license_key", "target_account_id", "invoice_id", "credit_amount"):
        if key in case.facts:
            facts[key] = case.facts[key]
    symptom = ctx.pick(rng, SYMPTOMS[case.procedure.category])
    event_id, _ = send_email(ctx, case.owner, [], f"{case.case_id}: {symptom}", "customer_request", facts,
                             case.entity, ctx.shared_context(symptom=symptom),
                             kind="customer_request", event_type="email.received_external",
                             parents=(ParentLink(case.opened_event, {"case_id": case.case_id}),),
                             external_from=case.facts["contact_email"])
    return event_id
