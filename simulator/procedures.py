"""The support runbooks: ordered steps, the facts each step reads and writes, and their dependencies.

A step may start only after the steps it ``requires``; so skipping a required
step, or swapping two dependent steps, is an error that can be seen by
comparing an answer's steps with the runbook. ``escalates_to`` names the team
a step hands the case to, so a wrong escalation target is visible too.

Fact names form one vocabulary shared by the simulator (case facts), the
CARGO builder (live contexts and candidate answers) and the trajectory builder
(tool arguments and results).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Facts a support case can carry, with a short human description.
CASE_FACTS: dict[str, str] = {
    "case_id": "support case identifier (CASE-10231)",
    "account_id": "customer account identifier (ACC-2041)",
    "account_name": "customer company name",
    "contact_name": "customer contact person",
    "contact_email": "customer contact email",
    "asset_serial": "serial number of the affected asset",
    "asset_model": "hardware model of the asset",
    "purchase_date": "date the asset was bought (YYYY-MM-DD)",
    "warranty_end": "date the warranty or entitlement ends (YYYY-MM-DD)",
    "entitlement": "entitlement status: active | expired",
    "contract_level": "support contract level: basic | next_business_day | four_hour",
    "case_status": "open | in_progress | pending_customer | resolved | closed",
    "priority": "P1 | P2 | P3 | P4",
    "opened_at": "when the case was opened (YYYY-MM-DD)",
    "diagnostic_code": "diagnostic code from the asset (BAT-0x41)",
    "firmware_version": "firmware version running on the asset",
    "target_firmware": "firmware version rolled back to",
    "backup_id": "configuration backup identifier",
    "dispatch_id": "parts or technician dispatch identifier (DSP-55012)",
    "visit_date": "scheduled on-site visit date (YYYY-MM-DD)",
    "rma_number": "return authorisation number (RMA-7781)",
    "license_key": "licence key being transferred",
    "target_account_id": "account receiving a transferred licence",
    "reset_token_id": "password-reset token identifier",
    "invoice_id": "invoice identifier (INV-30112)",
    "credit_amount": "credit amount in USD",
    "credit_id": "billing credit identifier",
    "approver": "actor id of the manager who approved",
    "log_bundle_id": "diagnostic log bundle identifier",
    "recovery_job_id": "data-recovery job identifier",
}


@dataclass(frozen=True, slots=True)
class Step:
    """One runbook step: what to do, what it reads and writes, what must come first."""

    step_id: str
    action: str
    reads: tuple[str, ...]
    writes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    escalates_to: str | None = None


@dataclass(frozen=True, slots=True)
class Procedure:
    """A runbook: a named, ordered list of steps applied to one support case."""

    procedure_id: str
    name: str
    category: str
    steps: tuple[Step, ...]
    #: 1 for the runbook as the run starts; a revision published mid-run (``REVISIONS``) counts on from there.
    revision: int = 1
    #: What the revision changed, as its wiki page says (empty for revision 1).
    change_note: str = ""

    def step(self, step_id: str) -> Step:
        """The step with this id."""
        for step in self.steps:
            if step.step_id == step_id:
                return step
        raise KeyError(step_id)

    @property
    def facts_read(self) -> tuple[str, ...]:
        """Every fact any step reads, in first-use order."""
        seen: dict[str, None] = {}
        for step in self.steps:
            for fact in step.reads:
                seen.setdefault(fact, None)
        return tuple(seen)

    @property
    def covers_entitled_units_only(self) -> bool:
        """True if the runbook verifies an entitlement: the work it does is for units under warranty only."""
        return "entitlement" in self.facts_written

    @property
    def facts_written(self) -> tuple[str, ...]:
        """Every fact any step writes, in step order."""
        seen: dict[str, None] = {}
        for step in self.steps:
            for fact in step.writes:
                seen.setdefault(fact, None)
        return tuple(seen)


def _s(step_id: str, action: str, reads=(), writes=(), requires=(), escalates_to=None) -> Step:
    return Step(step_id, action, tuple(reads), tuple(writes), tuple(requires), escalates_to)


PROCEDURES: tuple[Procedure, ...] = (
    Procedure("RB-BATTERY", "Warranty battery replacement", "battery", (
        _s("verify_entitlement", "verify the warranty entitlement of the asset", ["asset_serial", "warranty_end"], ["entitlement"]),
        _s("run_diagnostics", "run the battery diagnostics on the asset", ["asset_serial"], ["diagnostic_code"]),
        _s("create_dispatch", "create a battery replacement dispatch", ["entitlement", "diagnostic_code"], ["dispatch_id"], ["verify_entitlement", "run_diagnostics"]),
        _s("notify_customer", "email the customer the dispatch details", ["dispatch_id", "contact_email"], [], ["create_dispatch"]),
        _s("resolve_case", "resolve the case once the battery is installed", ["dispatch_id"], ["case_status"], ["notify_customer"]),
    )),
    Procedure("RB-FW-ROLLBACK", "Firmware rollback", "firmware", (
        _s("confirm_firmware", "confirm the firmware version running on the asset", ["asset_serial"], ["firmware_version"]),
        _s("check_known_issue", "match the diagnostic code against known firmware issues", ["firmware_version"], ["diagnostic_code"], ["confirm_firmware"]),
        _s("backup_config", "back up the asset configuration", ["asset_serial"], ["backup_id"]),
        _s("rollback_firmware", "roll the firmware back to the last good version", ["diagnostic_code", "backup_id"], ["target_firmware"], ["check_known_issue", "backup_config"]),
        _s("verify_boot", "verify the asset boots cleanly on the rolled-back firmware", ["target_firmware"], [], ["rollback_firmware"]),
        _s("resolve_case", "resolve the case after the customer confirms", ["target_firmware"], ["case_status"], ["verify_boot"]),
    )),
    Procedure("RB-ADV-EXCHANGE", "Advance exchange", "hardware_failure", (
        _s("verify_entitlement", "verify the entitlement covers advance exchange", ["asset_serial", "warranty_end", "contract_level"], ["entitlement"]),
        _s("confirm_failure", "confirm the hardware failure from diagnostics", ["asset_serial"], ["diagnostic_code"]),
        _s("create_exchange", "ship a replacement unit ahead of the return", ["entitlement", "diagnostic_code"], ["dispatch_id"], ["verify_entitlement", "confirm_failure"]),
        _s("issue_rma", "send the customer a return authorisation for the failed unit", ["dispatch_id", "contact_email"], ["rma_number"], ["create_exchange"]),
        _s("resolve_case", "resolve the case when the failed unit is returned", ["rma_number"], ["case_status"], ["issue_rma"]),
    )),
    Procedure("RB-LICENSE-TRANSFER", "Licence transfer", "licensing", (
        _s("verify_owner", "verify the requester owns the licence on the account", ["account_id", "contact_email", "license_key"]),
        _s("verify_target", "verify the receiving account exists and is in good standing", ["target_account_id"], [], ["verify_owner"]),
        _s("deactivate_license", "deactivate the licence on the current account", ["license_key", "account_id"], [], ["verify_owner", "verify_target"]),
        _s("activate_license", "activate the licence on the receiving account", ["license_key", "target_account_id"], [], ["deactivate_license"]),
        _s("notify_customer", "confirm the transfer to both account contacts", ["contact_email", "target_account_id"], [], ["activate_license"]),
        _s("resolve_case", "resolve the case", ["license_key"], ["case_status"], ["notify_customer"]),
    )),
    Procedure("RB-PASSWORD-RESET", "Password reset", "account_access", (
        _s("verify_identity", "verify the requester's identity against the account contact", ["contact_name", "contact_email", "account_id"]),
        _s("check_lockout", "check whether the account is locked out", ["account_id"], ["diagnostic_code"], ["verify_identity"]),
        _s("issue_reset", "issue a single-use password reset link", ["contact_email"], ["reset_token_id"], ["verify_identity", "check_lockout"]),
        _s("confirm_login", "confirm the customer can sign in", ["reset_token_id"], [], ["issue_reset"]),
        _s("resolve_case", "resolve the case", ["reset_token_id"], ["case_status"], ["confirm_login"]),
    )),
    Procedure("RB-ONSITE-DISPATCH", "On-site technician dispatch", "onsite", (
        _s("verify_entitlement", "verify the contract covers on-site service", ["asset_serial", "contract_level", "warranty_end"], ["entitlement"]),
        _s("remote_diagnostics", "run remote diagnostics before sending anyone", ["asset_serial"], ["diagnostic_code"]),
        _s("schedule_visit", "schedule a field technician visit", ["entitlement", "diagnostic_code"], ["dispatch_id", "visit_date"], ["verify_entitlement", "remote_diagnostics"]),
        _s("notify_customer", "email the customer the visit date", ["visit_date", "contact_email"], [], ["schedule_visit"]),
        _s("resolve_case", "resolve the case after the visit report is filed", ["dispatch_id"], ["case_status"], ["notify_customer"]),
    )),
    Procedure("RB-BILLING-CREDIT", "Billing credit", "billing", (
        _s("verify_invoice", "pull the disputed invoice", ["invoice_id", "account_id"]),
        _s("confirm_breach", "confirm the service-level breach behind the dispute", ["invoice_id"], ["diagnostic_code"], ["verify_invoice"]),
        _s("get_approval", "get the credit approved by a support manager", ["credit_amount"], ["approver"], ["confirm_breach"], escalates_to="support_manager"),
        _s("apply_credit", "apply the credit to the account", ["credit_amount", "approver"], ["credit_id"], ["get_approval"]),
        _s("notify_customer", "email the customer the credit note", ["credit_id", "contact_email"], [], ["apply_credit"]),
        _s("resolve_case", "resolve the case", ["credit_id"], ["case_status"], ["notify_customer"]),
    )),
    Procedure("RB-DATA-RECOVERY", "Data-recovery escalation", "data_loss", (
        _s("verify_entitlement", "verify the entitlement includes data recovery", ["asset_serial", "warranty_end"], ["entitlement"]),
        _s("collect_logs", "collect the diagnostic log bundle from the asset", ["asset_serial"], ["log_bundle_id", "diagnostic_code"]),
        _s("escalate_l2", "escalate to the level-2 data-recovery team", ["log_bundle_id", "diagnostic_code"], [], ["verify_entitlement", "collect_logs"], escalates_to="support_l2"),
        _s("create_recovery_job", "open a data-recovery job", ["log_bundle_id"], ["recovery_job_id"], ["escalate_l2"]),
        _s("notify_customer", "email the customer the recovery job reference", ["recovery_job_id", "contact_email"], [], ["create_recovery_job"]),
        _s("resolve_case", "resolve the case when the data is returned", ["recovery_job_id"], ["case_status"], ["notify_customer"]),
    )),
)

PROCEDURES_BY_ID: dict[str, Procedure] = {p.procedure_id: p for p in PROCEDURES}
PROCEDURES_BY_CATEGORY: dict[str, Procedure] = {p.category: p for p in PROCEDURES}


def _revise(procedure_id: str, note: str, steps: tuple[Step, ...]) -> Procedure:
    first = PROCEDURES_BY_ID[procedure_id]
    return Procedure(first.procedure_id, first.name, first.category, steps, 2, note)


_B = {s.step_id: s for s in PROCEDURES_BY_ID["RB-BATTERY"].steps}
_F = {s.step_id: s for s in PROCEDURES_BY_ID["RB-FW-ROLLBACK"].steps}
_X = {s.step_id: s for s in PROCEDURES_BY_ID["RB-ADV-EXCHANGE"].steps}
_C = {s.step_id: s for s in PROCEDURES_BY_ID["RB-BILLING-CREDIT"].steps}
#: Revisions published during a run: each really changes the steps (order, a new check, an approver), keeps
#: the facts each step reads and writes within the shared vocabulary, and still verifies entitlements where
#: revision 1 did. Cases opened after a revision's moment follow it; cases already open keep their revision.
REVISIONS: tuple[Procedure, ...] = (
    _revise("RB-BATTERY", "diagnostics now run before the entitlement check, and the check requires them", (
        _B["run_diagnostics"],
        _s("verify_entitlement", _B["verify_entitlement"].action, ["asset_serial", "warranty_end"], ["entitlement"],
           ["run_diagnostics"]),
        *(_B[k] for k in ("create_dispatch", "notify_customer", "resolve_case")),
    )),
    _revise("RB-FW-ROLLBACK", "the configuration is backed up first, before anyone touches the firmware", (
        _F["backup_config"],
        _s("confirm_firmware", _F["confirm_firmware"].action, ["asset_serial"], ["firmware_version"], ["backup_config"]),
        *(_F[k] for k in ("check_known_issue", "rollback_firmware", "verify_boot", "resolve_case")),
    )),
    _revise("RB-ADV-EXCHANGE", "a new step confirms the shipping contact before a replacement ships", (
        _X["verify_entitlement"], _X["confirm_failure"],
        _s("confirm_contact", "confirm the shipping contact with the customer", ["contact_name", "contact_email"], [],
           ["verify_entitlement"]),
        _s("create_exchange", _X["create_exchange"].action, ["entitlement", "diagnostic_code"], ["dispatch_id"],
           ["confirm_contact", "confirm_failure"]),
        *(_X[k] for k in ("issue_rma", "resolve_case")),
    )),
    _revise("RB-BILLING-CREDIT", "credits are now approved by the sales manager who owns the account", (
        *(_C[k] for k in ("verify_invoice", "confirm_breach")),
        _s("get_approval", "get the credit approved by the sales manager", ["credit_amount"], ["approver"],
           ["confirm_breach"], escalates_to="sales_manager"),
        *(_C[k] for k in ("apply_credit", "notify_customer", "resolve_case")),
    )),
)
#: Every version of every runbook, revision 1 first.
ALL_PROCEDURES: tuple[Procedure, ...] = PROCEDURES + REVISIONS
_BY_REVISION: dict[tuple[str, int], Procedure] = {(p.procedure_id, p.revision): p for p in ALL_PROCEDURES}


def procedure(procedure_id: str, revision: int = 1) -> Procedure:
    """The runbook with this id, as of ``revision``."""
    return _BY_REVISION[(procedure_id, revision)]


def has_revision(procedure_id: str, revision: int) -> bool:
    """True if the runbook has this revision."""
    return (procedure_id, revision) in _BY_REVISION
