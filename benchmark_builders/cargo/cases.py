"""Support cases as CARGO sees them: the facts a world recorded for each completed case.

A world's ticket artifacts carry the case facts (the CASE_FACTS vocabulary,
plus ``procedure_id`` and ``steps_completed``) in every version; the last
version holds the case as it was finally recorded. A case is usable by CARGO
when every step of its runbook was completed and every fact the runbook reads
or writes was recorded, so that a correct answer can be written from its facts
alone and every value in that answer appears in its live context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from simulator.packs import require_default_pack
from simulator.procedures import CASE_FACTS, PROCEDURES_BY_ID, Procedure, has_revision, procedure

#: Facts shown in the opening line of an answer (who the case is about).
HEADER_FACTS: tuple[str, ...] = ("case_id", "account_name", "account_id")


@dataclass(frozen=True, slots=True)
class SupportCase:
    """One completed support case: its world, id, runbook and recorded facts (values as text)."""

    world_seed: int
    case_id: str
    procedure_id: str
    facts: Mapping[str, str]
    #: The runbook revision in force when the case opened (the steps it followed).
    revision: int = 1

    @property
    def procedure(self) -> Procedure:
        """The runbook, as of the revision this case was handled with."""
        return procedure(self.procedure_id, self.revision)

    @property
    def runbook(self) -> str:
        """The runbook and revision as one key (``runbook_key``)."""
        return runbook_key(self.procedure_id, self.revision)


def runbook_key(procedure_id: str, revision: int) -> str:
    """A runbook and revision as one key: ``RB-BATTERY`` for revision 1, ``RB-BATTERY@2`` after."""
    return procedure_id if revision == 1 else f"{procedure_id}@{revision}"


def fact_text(value: Any) -> str:
    """A fact value as the text an agent would see (numbers as written, lists comma-joined)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fact_text(v) for v in value)
    return str(value)


def required_facts(procedure: Procedure) -> tuple[str, ...]:
    """Every fact a correct answer for this runbook states: header facts, then reads and writes."""
    seen: dict[str, None] = {name: None for name in HEADER_FACTS}
    for step in procedure.steps:
        for name in (*step.reads, *step.writes):
            seen.setdefault(name, None)
    return tuple(seen)


def case_from_facts(world_seed: int, facts: Mapping[str, Any]) -> SupportCase | None:
    """A SupportCase from one ticket's final facts, or None if it is not complete enough for CARGO."""
    procedure_id = facts.get("procedure_id")
    revision = facts.get("procedure_revision", 1)
    if procedure_id not in PROCEDURES_BY_ID or not isinstance(revision, int) or not has_revision(procedure_id, revision):
        return None
    runbook = procedure(procedure_id, revision)
    completed = facts.get("steps_completed")
    step_ids = [s.step_id for s in runbook.steps]
    if completed is not None and list(completed)[: len(step_ids)] != step_ids:
        return None
    values = {name: fact_text(facts[name]) for name in CASE_FACTS
              if name in facts and facts[name] not in (None, "", [])}
    if any(name not in values for name in required_facts(runbook)):
        return None
    return SupportCase(world_seed, values["case_id"], procedure_id, values, revision)


def cases_from_world(world) -> list[SupportCase]:
    """Every completed support case of a world, sorted by case id."""
    require_default_pack(dict(world.meta), "the CARGO builder")
    latest: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for version in world.artifacts:
        facts = version.facts
        if "procedure_id" not in facts or "case_id" not in facts:
            continue
        current = latest.get(version.artifact_id)
        if current is None or version.version >= current[0]:
            latest[version.artifact_id] = (version.version, facts)
    cases = []
    for artifact_id in sorted(latest):
        case = case_from_facts(world.seed, latest[artifact_id][1])
        if case is not None:
            cases.append(case)
    return sorted(cases, key=lambda c: c.case_id)


def cases_by_procedure(cases: Iterable[SupportCase]) -> dict[str, list[SupportCase]]:
    """Cases grouped by runbook and revision (``SupportCase.runbook``; each list in case-id order)."""
    groups: dict[str, list[SupportCase]] = {}
    for case in sorted(cases, key=lambda c: c.case_id):
        groups.setdefault(case.runbook, []).append(case)
    return groups
