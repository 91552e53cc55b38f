"""Support cases as CARGO sees them: the facts a world recorded for each case, closed or open.

A world's ticket artifacts carry the case facts (the CASE_FACTS vocabulary,
plus ``procedure_id`` and ``steps_completed``) in every version; the last
version holds the case as it was finally recorded. A closed case is usable by
CARGO when every step of its runbook was completed and every fact the runbook
reads or writes was recorded, so that a correct answer can be written from its
facts alone. An open case is a version with some steps done (still open at the
world's end, or a closed case as of half-way): usable when the facts of its
done steps were recorded; its correct answer gives the remaining steps as next
steps. Every case carries its account's earlier cases (a derived count).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from simulator.packs import world_pack
from simulator.procedures import DEFAULT_RUNBOOKS, Procedure, Runbooks

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
    #: closed (every step done) | open_at_end (still open when the world ends) | mid_case (as of a moment
    #: between two steps of a case that went on to close).
    state: str = "closed"
    #: Steps done as of the snapshot (None: all of them).
    done: int | None = None
    #: The account's earlier cases as (case id, opened on), oldest first; None when not known.
    history: tuple[tuple[str, str], ...] | None = None
    #: The runbooks of the pack the case's world was made from.
    runbooks: Runbooks = field(default=DEFAULT_RUNBOOKS, compare=False, repr=False)

    @property
    def procedure(self) -> Procedure:
        """The runbook, as of the revision this case was handled with."""
        return self.runbooks.procedure(self.procedure_id, self.revision)

    @property
    def is_open(self) -> bool:
        """True if steps of the runbook are still to do."""
        return self.done is not None and self.done < len(self.procedure.steps)

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


def _runbook(facts: Mapping[str, Any], runbooks: Runbooks) -> Procedure | None:
    """The runbook and revision a ticket's facts name, or None if there is no such one."""
    procedure_id, revision = facts.get("procedure_id"), facts.get("procedure_revision", 1)
    if not isinstance(procedure_id, str) or not isinstance(revision, int) \
            or not runbooks.has_revision(procedure_id, revision):
        return None
    return runbooks.procedure(procedure_id, revision)


def _values(facts: Mapping[str, Any], runbooks: Runbooks) -> dict[str, str]:
    return {name: fact_text(facts[name]) for name in runbooks.facts if name in facts and facts[name] not in (None, "", [])}


def case_from_facts(world_seed: int, facts: Mapping[str, Any], runbooks: Runbooks = DEFAULT_RUNBOOKS) -> SupportCase | None:
    """A SupportCase from one ticket's final facts, or None if it is not complete enough for CARGO."""
    runbook = _runbook(facts, runbooks)
    if runbook is None:
        return None
    procedure_id, revision = runbook.procedure_id, runbook.revision
    completed = facts.get("steps_completed")
    step_ids = [s.step_id for s in runbook.steps]
    if completed is not None and list(completed)[: len(step_ids)] != step_ids:
        return None
    values = _values(facts, runbooks)
    if any(name not in values for name in required_facts(runbook)):
        return None
    return SupportCase(world_seed, values["case_id"], procedure_id, values, revision, runbooks=runbooks)


def open_case_from_facts(world_seed: int, facts: Mapping[str, Any], state: str,
                         runbooks: Runbooks = DEFAULT_RUNBOOKS) -> SupportCase | None:
    """A SupportCase as of a snapshot with some steps done and some to do (``state``), or None if unusable.

    Usable when at least one step is done, the done steps are the runbook's first ones, and every fact the
    header and the done steps name was recorded by then.
    """
    runbook = _runbook(facts, runbooks)
    if runbook is None:
        return None
    procedure_id, revision = runbook.procedure_id, runbook.revision
    done = list(facts.get("steps_completed") or [])
    if not 0 < len(done) < len(runbook.steps) or done != [s.step_id for s in runbook.steps[:len(done)]]:
        return None
    values = _values(facts, runbooks)
    needed = {*HEADER_FACTS, *(f for s in runbook.steps[:len(done)] for f in (*s.reads, *s.writes))}
    if any(name not in values for name in needed):
        return None
    return SupportCase(world_seed, values["case_id"], procedure_id, values, revision, state, len(done),
                       runbooks=runbooks)


def _ticket_versions(world) -> dict[str, list]:
    """Each ticket's versions, oldest first, by artifact id."""
    versions: dict[str, list] = {}
    for version in world.artifacts:
        if "procedure_id" in version.facts and "case_id" in version.facts:
            versions.setdefault(version.artifact_id, []).append(version)
    return {k: sorted(v, key=lambda x: x.version) for k, v in versions.items()}


def _mid_case(world_seed: int, versions: list, runbooks: Runbooks) -> SupportCase | None:
    """A closed ticket as of the last moment it had half of its runbook's steps done (at least one)."""
    final = case_from_facts(world_seed, versions[-1].facts, runbooks)
    if final is None:
        return None
    half = max(1, len(final.procedure.steps) // 2)
    at_half = [v for v in versions if len(v.facts.get("steps_completed") or []) == half]
    return open_case_from_facts(world_seed, at_half[-1].facts, "mid_case", runbooks) if at_half else None


def cases_from_world(world, runbooks: Runbooks | None = None) -> list[SupportCase]:
    """Every support case of a world CARGO can use, sorted by case id and state: each completed case, each
    case still open when the world ends, and each completed case as of half-way through (``mid_case``);
    every one carries its account's earlier cases (``history``). ``runbooks``: those of the world's pack
    (default: the pack world.json names, ``simulator.packs.world_pack``)."""
    runbooks = runbooks or world_pack(dict(world.meta)).runbooks
    tickets = _ticket_versions(world)
    cases: list[SupportCase | None] = []
    for artifact_id in sorted(tickets):
        versions = tickets[artifact_id]
        closed = case_from_facts(world.seed, versions[-1].facts, runbooks)
        if closed is not None:
            cases.append(closed)
            cases.append(_mid_case(world.seed, versions, runbooks))
        else:
            cases.append(open_case_from_facts(world.seed, versions[-1].facts, "open_at_end", runbooks))
    opened = [(v[0].facts["case_id"], str(v[0].facts.get("account_id")), str(v[0].facts.get("opened_at", "")))
              for v in tickets.values()]
    return sorted((with_history(c, opened) for c in cases if c is not None), key=lambda c: (c.case_id, c.state))


def with_history(case: SupportCase, opened: Iterable[tuple[str, str, str]]) -> SupportCase:
    """The case with its account's earlier cases, from (case id, account id, opened on) of every case of its world
    (case ids count up as cases open, so earlier means a smaller number)."""
    number = int(case.case_id.rsplit("-", 1)[1])
    earlier = sorted((int(cid.rsplit("-", 1)[1]), cid, day) for cid, account, day in opened
                     if account == case.facts["account_id"] and int(cid.rsplit("-", 1)[1]) < number)
    return replace(case, history=tuple((cid, day) for _, cid, day in earlier))


def shown_history(case: SupportCase) -> frozenset[str]:
    """The values the live context shows of the account's earlier cases (their ids and opening days)."""
    return frozenset(value for pair in case.history or () for value in pair)


def cases_by_procedure(cases: Iterable[SupportCase]) -> dict[str, list[SupportCase]]:
    """Cases grouped by runbook and revision (``SupportCase.runbook``; each list in case-id order)."""
    groups: dict[str, list[SupportCase]] = {}
    for case in sorted(cases, key=lambda c: c.case_id):
        groups.setdefault(case.runbook, []).append(case)
    return groups
