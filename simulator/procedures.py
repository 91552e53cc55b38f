"""The default pack's runbooks (``simulator/packs/hardware.toml``), for code that reads a default world.

What a runbook is (``Step``, ``Procedure``, ``Runbooks`` and the fact vocabulary) is ``simulator.runbook``;
its names are re-exported here for the code that reads both.
"""

from __future__ import annotations

from simulator.packs import default_pack as _default_pack
from simulator.runbook import (
    CASE_FACTS as CASE_FACTS, OPENING_FACTS as OPENING_FACTS, WRITABLE_FACTS as WRITABLE_FACTS,
    Procedure as Procedure, Runbooks as Runbooks, Step as Step,
)

#: The default pack's runbooks (simulator/packs/hardware.toml), for code that reads a default world.
PROCEDURES: tuple[Procedure, ...] = _default_pack().procedures
PROCEDURES_BY_ID: dict[str, Procedure] = {p.procedure_id: p for p in PROCEDURES}
PROCEDURES_BY_CATEGORY: dict[str, Procedure] = {p.category: p for p in PROCEDURES}


#: Revisions published during a run (the default pack's ``[[runbooks.revisions]]``): each really changes the
#: steps (order, a new check, an approver), keeps the facts each step reads and writes within the shared
#: vocabulary, and still verifies entitlements where revision 1 did. Cases opened after a revision's moment
#: follow it; cases already open keep their revision.
REVISIONS: tuple[Procedure, ...] = _default_pack().revisions
#: Every version of every runbook, revision 1 first.
ALL_PROCEDURES: tuple[Procedure, ...] = PROCEDURES + REVISIONS
_BY_REVISION: dict[tuple[str, int], Procedure] = {(p.procedure_id, p.revision): p for p in ALL_PROCEDURES}


def procedure(procedure_id: str, revision: int = 1) -> Procedure:
    """The runbook with this id, as of ``revision``."""
    return _BY_REVISION[(procedure_id, revision)]


def has_revision(procedure_id: str, revision: int) -> bool:
    """True if the runbook has this revision."""
    return (procedure_id, revision) in _BY_REVISION


#: The default pack's runbooks.
DEFAULT_RUNBOOKS: Runbooks = _default_pack().runbooks
