"""Answers as structures: the steps a handler reports, the values each step states, any extra detail.

A correct answer applies a case's runbook to that case's own facts. Candidates
for every family start from this structure, so a perturbed candidate differs
from the correct one only in what its perturbation changed; wording is applied
later, by :mod:`benchmark_builders.cargo.wording`, from the same variants for
every family.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from benchmark_builders.cargo.cases import HEADER_FACTS, SupportCase
from benchmark_builders.cargo.derived import Derived, derived_values
from simulator.procedures import Procedure, Step

#: How each fact is named when an answer or a live context states it.
FACT_LABELS: dict[str, str] = {
    "case_id": "case", "account_id": "account", "account_name": "customer",
    "contact_name": "contact name", "contact_email": "contact email",
    "asset_serial": "asset serial", "asset_model": "asset model",
    "purchase_date": "purchase date", "warranty_end": "warranty end",
    "entitlement": "entitlement", "contract_level": "contract level",
    "case_status": "status", "priority": "priority", "opened_at": "opened on",
    "diagnostic_code": "diagnostic code", "firmware_version": "firmware version",
    "target_firmware": "target firmware", "backup_id": "backup",
    "dispatch_id": "dispatch", "visit_date": "visit date", "rma_number": "RMA",
    "license_key": "licence key", "target_account_id": "receiving account",
    "reset_token_id": "reset token", "invoice_id": "invoice",
    "credit_amount": "credit amount USD", "credit_id": "credit",
    "approver": "approver", "log_bundle_id": "log bundle",
    "recovery_job_id": "recovery job",
    "earlier_cases": "", "asset_age_days": "asset age at opening",   # a count states its own noun
}

#: The team phrase each escalation target appears as inside its step's action.
TEAM_PHRASES: dict[str, str] = {
    "support_l2": "the level-2 data-recovery team",
    "support_manager": "a support manager",
    "sales_manager": "the sales manager",
}



def fact_label(fact: str) -> str:
    """How an answer names a fact: ``FACT_LABELS``, or for a pack's own id fact its name in words
    (``chargeback_id`` -> "chargeback")."""
    return FACT_LABELS[fact] if fact in FACT_LABELS else fact.removesuffix("_id").replace("_", " ")


def team_phrase(team: str) -> str:
    """How an escalation target appears inside its step's action (``TEAM_PHRASES``, else its name in words)."""
    return TEAM_PHRASES[team] if team in TEAM_PHRASES else team.replace("_", " ")


_IRREGULAR_PAST = {"run": "ran", "send": "sent", "get": "got", "ship": "shipped", "back": "backed",
                   "email": "emailed", "pull": "pulled", "roll": "rolled"}


def past_tense(action: str) -> str:
    """The runbook action in the past tense, as a handler reports it ("verify X" -> "verified X")."""
    verb, _, rest = action.partition(" ")
    if verb in _IRREGULAR_PAST:
        past = _IRREGULAR_PAST[verb]
    elif verb.endswith("e"):
        past = verb + "d"
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        past = verb[:-1] + "ied"
    else:
        past = verb + "ed"
    return f"{past} {rest}".strip()


@dataclass(frozen=True, slots=True)
class AnswerStep:
    """One reported step: what was done, the values it used and the values it produced."""

    step_id: str
    action: str                              # past tense, as written in the answer
    inputs: tuple[tuple[str, str], ...]      # (fact, value) the step used
    outputs: tuple[tuple[str, str], ...]     # (fact, value) the step produced
    done: bool = True                        # False: a next step of an open case (action as the runbook says it)


@dataclass(frozen=True, slots=True)
class Answer:
    """A handler's account of one case: header facts, ordered steps, and extra detail sentences.

    ``extras`` pairs each extra sentence with the number of steps it follows.
    """

    header: tuple[tuple[str, str], ...]
    steps: tuple[AnswerStep, ...]
    extras: tuple[tuple[int, str], ...] = ()

    def values(self) -> dict[str, str]:
        """Every (fact, value) the answer states (the last mention wins; they agree unless perturbed)."""
        out = dict(self.header)
        for step in self.steps:
            out.update(step.inputs)
            out.update(step.outputs)
        return out

    def with_value(self, fact: str, new: str) -> "Answer":
        """The same answer with every mention of ``fact`` stating ``new``."""
        def swap(pairs):
            return tuple((name, new if name == fact else value) for name, value in pairs)
        steps = tuple(replace(s, inputs=swap(s.inputs), outputs=swap(s.outputs)) for s in self.steps)
        return replace(self, header=swap(self.header), steps=steps)


def _step_answer(step: Step, case: SupportCase, done: bool, derived: tuple[Derived, ...]) -> AnswerStep:
    if not done:  # a next step: the values it will use that are known now, nothing produced yet
        return AnswerStep(step.step_id, step.action, tuple((n, case.facts[n]) for n in step.reads if n in case.facts),
                          (), done=False)
    inputs = tuple((name, case.facts[name]) for name in step.reads)
    outputs = tuple((name, case.facts[name]) for name in step.writes)
    outputs += tuple((d.fact, d.value) for d in derived if d.step_id == step.step_id)
    return AnswerStep(step.step_id, past_tense(step.action), inputs, outputs)


def correct_answer(case: SupportCase, procedure: Procedure | None = None) -> Answer:
    """The correct answer for a case: its runbook applied to its own facts, step by step (with the values derived
    from them); for an open case the steps done so far, then the next steps from where it stands."""
    procedure = procedure or case.procedure
    done = len(procedure.steps) if case.done is None else case.done
    derived = derived_values(case, procedure)
    header = tuple((name, case.facts[name]) for name in HEADER_FACTS)
    return Answer(header, tuple(_step_answer(step, case, i < done, derived) for i, step in enumerate(procedure.steps)))
