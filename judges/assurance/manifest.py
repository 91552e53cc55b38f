"""Exact-byte hashes and step records: what each pipeline stage read, wrote and returned.

Hashes are SHA-256 of the exact bytes -- no newline or encoding
normalisation, so a CRLF change is a change. A step record has the in-toto
link shape (unsigned): ``{step, command, materials {path: sha256}, products
{path: sha256}, return_code}``, plus the controls in force, the first
failed requirement with its reason, and every failure found. A stage writes a record with no return
code when it starts, so an interrupted stage never looks finished.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, write_json

Hasher = Callable[[bytes], str]
RECORDS_DIR = "records"


def exact_sha256(data: bytes) -> str:
    """SHA-256 of the exact bytes."""
    return hashlib.sha256(data).hexdigest()


def normalised_sha256(data: bytes) -> str:
    """A deliberately weakened hash of text with CRLF folded to LF (the paper's defect; tests only)."""
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One stage's link record: materials read, products written, return code and why it failed."""

    step: str
    command: str
    materials: Mapping[str, str] = field(default_factory=dict)
    products: Mapping[str, str] = field(default_factory=dict)
    return_code: int | None = None
    controls: str = "P3"
    requirement: str = ""
    reason: str = ""
    failures: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The record as JSON (paths sorted; every failure, in the order found)."""
        return {"step": self.step, "command": self.command,
                "materials": {k: self.materials[k] for k in sorted(self.materials)},
                "products": {k: self.products[k] for k in sorted(self.products)},
                "return_code": self.return_code, "controls": self.controls,
                "requirement": self.requirement, "reason": self.reason,
                "failures": [{"requirement": r, "detail": d} for r, d in self.failures]}

    @staticmethod
    def from_json(obj: Any, where: str) -> "StepRecord":
        """Parse a record, naming ``where`` on a malformed one."""
        if not isinstance(obj, dict):
            raise InputError(f"{where}: not a JSON object (a stage record)")
        try:
            failures = tuple((str(f["requirement"]), str(f["detail"])) for f in obj.get("failures") or ())
            return StepRecord(obj["step"], obj["command"], dict(obj["materials"]), dict(obj["products"]),
                              obj["return_code"], obj.get("controls", ""), obj.get("requirement", ""),
                              obj.get("reason", ""), failures)
        except (KeyError, TypeError) as exc:
            raise InputError(f"{where}: bad or missing field {exc}") from None


def record_path(work: Path, step: str) -> Path:
    """Where a stage's record lives."""
    return Path(work) / RECORDS_DIR / f"{step}.record.json"


def write_record(work: Path, record: StepRecord) -> None:
    """Write a stage's record atomically."""
    write_json(record_path(work, record.step), record.to_json())


def read_record(work: Path, step: str) -> StepRecord | None:
    """A stage's record, or None if it never ran."""
    path = record_path(work, step)
    if not path.is_file():
        return None
    return StepRecord.from_json(read_json(path), str(path))
