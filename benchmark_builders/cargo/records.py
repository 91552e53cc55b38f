"""The CARGO suite format: the family table, and the item and truth records the builder writes and judges read.

``items.jsonl`` holds what a judge may read (``CargoItem``); ``truth.jsonl``
what only scoring reads (``CargoTruth``). Each family is one row of
``FAMILY_TABLE`` (orgbench's own, then a plugin's: ``family.py``); every other list of families is
derived from it.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, Iterable, Mapping

from benchmark_builders.cargo.family import BUILTIN_FAMILIES, Family, family_table
from orgbench.core.errors import FormatError, InputError
from orgbench.core.jsonl import read_jsonl

__all__ = [
    "BUILTIN_FAMILIES", "DEFAULT_SIZES", "FAMILIES", "FAMILY_NAMES", "FAMILY_TABLE", "ITEM_FIELDS", "families_in", "SHOULD_PENALIZE", "CargoItem",
    "CargoTruth", "Family", "read_items",
]


#: Every family in table order (the order of every table and count): orgbench's own, then the plugins' by code.
FAMILY_TABLE: tuple[Family, ...] = family_table()
FAMILIES: tuple[str, ...] = tuple(f.code for f in FAMILY_TABLE)
SHOULD_PENALIZE: dict[str, bool] = {f.code: f.should_penalize for f in FAMILY_TABLE}
FAMILY_NAMES: dict[str, str] = {f.code: f.name for f in FAMILY_TABLE}
#: A default suite's sizes: orgbench's own families only, so that an installed plugin never changes what a default
#: build (or ``reproduce``) makes; a plugin's family joins a suite when its size is given (``--sizes P5=8``).
DEFAULT_SIZES: dict[str, int] = {f.code: f.default_size for f in BUILTIN_FAMILIES}


def families_in(present: Iterable[str]) -> tuple[str, ...]:
    """The families a suite's lists and tables show: orgbench's own, then each plugin family ``present``."""
    seen = set(present)
    return tuple(f.code for f in FAMILY_TABLE if f.builtin or f.code in seen)


class _Record:
    """A frozen record written as one JSON object, its fields as keys."""

    def to_json(self) -> dict[str, Any]:
        """The record as its JSON object."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class CargoItem(_Record):
    """What a judge reads of one item: the question, the live context, the reference and the candidate."""

    item_id: str
    question: str
    live_context: str
    reference: str
    candidate: str

    @classmethod
    def from_json(cls, row: Any, path: Path | str = "items.jsonl", line: int | None = None) -> "CargoItem":
        """An item from its items.jsonl object; FormatError naming the file, line and field if malformed."""
        if not isinstance(row, dict) or not isinstance(row.get("item_id"), str):
            raise FormatError(path, "field 'item_id' missing", line=line)
        missing = [name for name in ITEM_FIELDS if not isinstance(row.get(name), str)]
        if missing:
            raise FormatError(path, f"field {missing[0]!r} missing or not text", line=line)
        return cls(**{name: row[name] for name in ITEM_FIELDS})


ITEM_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(CargoItem))


@dataclass(frozen=True)
class CargoTruth(_Record):
    """What scoring reads of one item: its family, whether it should be penalised, and how it was made."""

    item_id: str
    family: str
    family_name: str
    should_penalize: bool
    style: str
    variant: str
    perturbation: Any
    procedure_id: str
    case_id: str
    reference_case_id: str
    reference_golden_id: str
    retrieval_top1_correct: bool
    world_seed: int
    variety: str | None = None
    #: closed | open_at_end | mid_case (``cases.SupportCase.state``).
    case_state: str = "closed"
    #: The step ids a correct answer gives as next steps (an open case's remaining runbook steps).
    next_steps: list | None = None
    #: The derived values the correct answer states: fact -> kind (count, days).
    derived: dict | None = None

    @classmethod
    def from_json(cls, row: Mapping[str, Any], path: Path | str = "truth.jsonl",
                  line: int | None = None) -> "CargoTruth":
        """A truth from its truth.jsonl object; FormatError naming the field if it is missing or unknown."""
        if not isinstance(row, Mapping):
            raise FormatError(path, "not a JSON object", line=line)
        missing = [f.name for f in fields(cls) if f.name not in row and f.default is MISSING]
        if missing:
            raise FormatError(path, f"field {missing[0]!r} missing", line=line)
        if row["family"] not in SHOULD_PENALIZE:
            raise FormatError(path, f"field 'family' is {row['family']!r}, not one of {', '.join(FAMILIES)}",
                              line=line)
        return cls(**{f.name: row[f.name] for f in fields(cls) if f.name in row})


def read_items(suite: Path, limit: int | None = None) -> list[CargoItem]:
    """The judged items of a suite (the first ``limit`` in file order); FormatError naming a bad line."""
    path = Path(suite) / "items.jsonl"
    items: list[CargoItem] = []
    lines: dict[str, int] = {}
    for number, row in read_jsonl(path).numbered():
        item = CargoItem.from_json(row, path, number)
        if item.item_id in lines:
            raise FormatError(path, f"item_id {item.item_id!r} repeats line {lines[item.item_id]}", line=number)
        lines[item.item_id] = number
        items.append(item)
    if not items:
        raise InputError(f"{path}: no items")
    return items[:limit] if limit else items
