"""The truth sidecar of a world: statements people made that are stale, wrong or in conflict with the record.

People repeat an out-of-date status, guess a cause wrongly, or keep a page
that contradicts the current one. Those statements live in artifacts like any
other (their ``facts`` say what the text says); which of them are untrue is
recorded only here, in ``claims.jsonl``, one ``Claim`` per labelled field of
an artifact version. The gated runtime and the judges' packets never read
this file; builders may use it to avoid (or seek out) such statements, never
as a source of truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

#: stale: once true, no longer; wrong: never true (a bad guess, a misfiled page); conflict: contradicts a
#: current record of the same thing (a leftover copy of a page).
CLAIM_KINDS: tuple[str, ...] = ("stale", "wrong", "conflict")


@dataclass(frozen=True, slots=True)
class Claim:
    """One labelled statement: what version ``ref`` says in ``field``, and what the engine knows instead."""

    ref: str
    field: str
    value: Any
    true_value: Any
    kind: str
    #: The record that holds the truth (``ARTIFACT-ID`` of the case, incident or runbook page).
    source: str

    def __post_init__(self) -> None:
        if self.kind not in CLAIM_KINDS:
            raise ValueError(f"claim kind {self.kind!r} is not one of {', '.join(CLAIM_KINDS)}")
        if self.value == self.true_value:
            raise ValueError(f"claim on {self.ref} {self.field}: value equals the true value")

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "field": self.field, "value": self.value, "true_value": self.true_value,
                "kind": self.kind, "source": self.source}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Claim":
        return Claim(ref=obj["ref"], field=obj["field"], value=obj["value"], true_value=obj["true_value"],
                     kind=obj["kind"], source=obj["source"])


def labelled_fields(claims: tuple[Claim, ...] | list[Claim]) -> frozenset[tuple[str, str]]:
    """(artifact ref, field) of every labelled statement: what a builder must not take as truth."""
    return frozenset((c.ref, c.field) for c in claims)
