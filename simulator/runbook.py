"""What a runbook is: ordered steps, the facts each step reads and writes, and their dependencies.

A step may start only after the steps it ``requires``; so skipping a required
step, or swapping two dependent steps, is an error that can be seen by
comparing an answer's steps with the runbook. ``escalates_to`` names the team
a step hands the case to, so a wrong escalation target is visible too.

Fact names form one vocabulary shared by the simulator (case facts), the
CARGO builder (live contexts and candidate answers) and the trajectory builder
(tool arguments and results). The runbooks themselves come from a domain pack
(``simulator.packs``); ``simulator.procedures`` holds the default pack's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

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
    #: The runbook's wiki page lives in the restricted wiki space.
    restricted: bool = False
    #: Diagnostic codes a step writing ``diagnostic_code`` draws from.
    diagnostics: tuple[str, ...] = ()
    #: Facts (beyond the engine's own) a step writes as a fresh readable id: (fact, prefix, first number).
    ids: tuple[tuple[str, str, int], ...] = ()
    #: How customers describe the problem when they open a case of this runbook.
    symptoms: tuple[str, ...] = ()

    def step(self, step_id: str) -> Step:
        """The step with this id."""
        for step in self.steps:
            if step.step_id == step_id:
                return step
        raise KeyError(step_id)

    @property
    def facts_read(self) -> tuple[str, ...]:
        """Every fact any step reads, in first-use order."""
        return tuple(dict.fromkeys(fact for step in self.steps for fact in step.reads))

    @property
    def covers_entitled_units_only(self) -> bool:
        """True if the runbook verifies an entitlement: the work it does is for units under warranty only."""
        return "entitlement" in self.facts_written

    @property
    def facts_written(self) -> tuple[str, ...]:
        """Every fact any step writes, in step order."""
        return tuple(dict.fromkeys(fact for step in self.steps for fact in step.writes))


#: Facts a case may carry when it opens, before any step writes (``simulator.case_facts.initial_facts``).
OPENING_FACTS: tuple[str, ...] = (
    "case_id", "account_id", "account_name", "contact_name", "contact_email", "contract_level", "case_status",
    "priority", "opened_at", "asset_serial", "asset_model", "purchase_date", "warranty_end", "license_key",
    "target_account_id", "invoice_id", "credit_amount",
)
#: Facts the engine can write in a step (``simulator.case_facts``); a pack's runbook adds id facts of its own.
WRITABLE_FACTS: tuple[str, ...] = (
    "entitlement", "diagnostic_code", "dispatch_id", "visit_date", "rma_number", "firmware_version",
    "target_firmware", "backup_id", "reset_token_id", "credit_id", "approver", "log_bundle_id", "recovery_job_id",
    "case_status",
)


@dataclass(frozen=True)
class Runbooks:
    """One pack's runbooks as the builders read them: revision 1 of each, the revisions published mid-run, and the
    case facts they name (the engine's ``CASE_FACTS`` and the runbooks' own id facts, in that order)."""

    procedures: tuple[Procedure, ...]
    revisions: tuple[Procedure, ...] = ()
    #: The pack's name (``hardware`` for the default pack).
    pack: str = "hardware"
    #: Runbooks a CARGO suite keeps out of its golden set: questions about them are its gating questions.
    out_of_scope: tuple[str, ...] = ()

    @property
    def all(self) -> tuple[Procedure, ...]:
        """Every version of every runbook, revision 1 first."""
        return self.procedures + self.revisions

    @property
    def by_id(self) -> dict[str, Procedure]:
        """Runbook id -> revision 1."""
        return {p.procedure_id: p for p in self.procedures}

    @property
    def by_category(self) -> dict[str, Procedure]:
        """Case category -> revision 1."""
        return {p.category: p for p in self.procedures}

    @property
    def facts(self) -> tuple[str, ...]:
        """Every fact a case of these runbooks may carry: CASE_FACTS, then each runbook's id facts."""
        own = (fact for p in self.all for fact, _, _ in p.ids)
        return tuple(dict.fromkeys((*CASE_FACTS, *own)))

    def procedure(self, procedure_id: str, revision: int = 1) -> Procedure:
        """The runbook with this id, as of ``revision`` (KeyError if there is none)."""
        for p in self.all:
            if (p.procedure_id, p.revision) == (procedure_id, revision):
                return p
        raise KeyError((procedure_id, revision))

    def has_revision(self, procedure_id: str, revision: int) -> bool:
        """True if the runbook has this revision."""
        return any((p.procedure_id, p.revision) == (procedure_id, revision) for p in self.all)

    def ids(self, procedure_ids: Iterable[str]) -> list[str]:
        """Runbook ids in the pack's order."""
        order = [p.procedure_id for p in self.procedures]
        return sorted(procedure_ids, key=order.index)
