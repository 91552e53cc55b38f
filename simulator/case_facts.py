"""Support-case facts: what a case knows when it opens, and the value each runbook step writes.

Values are realistic and distinct per case: dates as YYYY-MM-DD, identifiers
such as ``DSP-55012``, ``RMA-7781``, ``INV-30112``, diagnostic codes such as
``BAT-0x41``; entitlement is ``active`` exactly when the warranty ends on or
after the day the case was opened.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any, Callable, NamedTuple

from simulator.customers import Account, Asset, Contact
from simulator.ledger import Ledger
from simulator.procedures import Procedure, Step

#: Case facts that come from the asset when a procedure reads ``asset_serial``.
ASSET_FACTS = ("asset_serial", "asset_model", "purchase_date", "warranty_end")
BASE_FACTS = ("case_id", "account_id", "account_name", "contact_name", "contact_email", "contract_level",
              "case_status", "priority", "opened_at")
CREDIT_AMOUNTS = (150, 200, 250, 300, 450, 500, 750, 900, 1200, 1500, 2400)


def entitlement(warranty_end: str, opened_at: str) -> str:
    """``active`` if the warranty ends on or after the opening day, else ``expired``."""
    return "active" if date.fromisoformat(warranty_end) >= date.fromisoformat(opened_at) else "expired"


#: id(procedure) → (procedure, works on an asset, facts it reads but no step writes), computed once per runbook.
_NEEDS: dict[int, tuple[Procedure, bool, frozenset[str]]] = {}


def _needs(procedure: Procedure) -> tuple[Procedure, bool, frozenset[str]]:
    found = _NEEDS.get(id(procedure))
    if found is None or found[0] is not procedure:
        read = procedure.facts_read
        found = _NEEDS[id(procedure)] = (procedure, "asset_serial" in read,
                                         frozenset(read) - frozenset(procedure.facts_written))
    return found


def uses_asset(procedure: Procedure) -> bool:
    """True if the runbook works on a hardware asset."""
    return _needs(procedure)[1]


def initial_facts(case_id: str, procedure: Procedure, account: Account, contact: Contact, asset: Asset | None,
                  opened: date, priority: str, ledger: Ledger, rng: random.Random,
                  other_accounts: list[Account]) -> dict[str, Any]:
    """The facts a case carries when it opens: who, what asset, and the inputs its runbook needs."""
    facts: dict[str, Any] = {
        "case_id": case_id, "account_id": account.account_id, "account_name": account.name,
        "contact_name": contact.name, "contact_email": contact.email, "contract_level": account.contract_level,
        "case_status": "open", "priority": priority, "opened_at": opened.isoformat(),
    }
    if asset is not None:
        facts.update(asset_serial=asset.serial, asset_model=asset.model,
                     purchase_date=asset.purchase_date.isoformat(), warranty_end=asset.warranty_end.isoformat())
    needed = _needs(procedure)[2]
    if "license_key" in needed:
        facts["license_key"] = rng.choice(account.license_keys)
    if "target_account_id" in needed:
        facts["target_account_id"] = rng.choice(other_accounts).account_id
    if "invoice_id" in needed:
        facts["invoice_id"] = ledger.next_id("INV", 30101)
    if "credit_amount" in needed:
        facts["credit_amount"] = rng.choice(CREDIT_AMOUNTS)
    return facts


def _older_firmware(version: str, rng: random.Random) -> str:
    major, minor, patch = version.split(".")
    return f"{major}.{minor}.{max(1, int(patch) - rng.randint(1, 4))}"


class _Step(NamedTuple):
    """What a step's value makers may use."""

    procedure: Procedure
    facts: dict[str, Any]
    asset: Asset | None
    visit_day: date
    approver: str | None
    ledger: Ledger
    rng: random.Random


#: fact → how a step writes it (module-level, so a step builds no closures).
_MAKERS: dict[str, Callable[[_Step], Any]] = {
    "entitlement": lambda s: entitlement(s.facts["warranty_end"], s.facts["opened_at"]),
    "diagnostic_code": lambda s: s.rng.choice(s.procedure.diagnostics),
    "dispatch_id": lambda s: s.ledger.next_id("DSP", 55001),
    "visit_date": lambda s: s.visit_day.isoformat(),
    "rma_number": lambda s: s.ledger.next_id("RMA", 7701),
    "firmware_version": lambda s: s.asset.firmware_version if s.asset else "1.0.0",
    "target_firmware": lambda s: _older_firmware(s.facts.get("firmware_version", "1.0.9"), s.rng),
    "backup_id": lambda s: s.ledger.next_id("BKP", 9001),
    "reset_token_id": lambda s: f"RST-{s.rng.getrandbits(32):08x}",
    "credit_id": lambda s: s.ledger.next_id("CRD", 4001),
    "approver": lambda s: s.approver,
    "log_bundle_id": lambda s: s.ledger.next_id("LOG", 60001),
    "recovery_job_id": lambda s: s.ledger.next_id("RJ", 801),
    "case_status": lambda s: "resolved",
}


def step_writes(step: Step, procedure: Procedure, facts: dict[str, Any], asset: Asset | None, today: date,
                visit_day: date, approver: str | None, ledger: Ledger, rng: random.Random) -> dict[str, Any]:
    """The values ``step`` writes for this case, in the runbook's order of ``writes``."""
    if not step.writes:
        return {}
    state = _Step(procedure, facts, asset, visit_day, approver, ledger, rng)
    return {fact: _MAKERS[fact](state) if fact in _MAKERS else _pack_id(procedure, fact, ledger)
            for fact in step.writes}


def _pack_id(procedure: Procedure, fact: str, ledger: Ledger) -> str:
    """A fresh id for a fact the runbook's pack declares (``[runbooks.ids]``)."""
    for name, prefix, first in procedure.ids:
        if name == fact:
            return ledger.next_id(prefix, first)
    raise KeyError(fact)



def next_weekday(day: date, days_ahead: int) -> date:
    """A weekday at least ``days_ahead`` days after ``day``."""
    out = day + timedelta(days=days_ahead)
    while out.weekday() >= 5:
        out += timedelta(days=1)
    return out
