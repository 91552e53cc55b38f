"""CARGO's perturbation families, one ``Family`` record each, and the registry that holds them.

orgbench's own are P1–P4 (``BUILTIN_FAMILIES``, with their definitions;
``records.FAMILY_TABLE`` adds the plugins'); a separate package adds one under the entry-point group
``orgbench.cargo_families`` (name = the family's code, value = ``module:attr``
of its ``Family``, whose ``perturb`` makes its candidates; docs/plugins.md).
Every list of families (the suite's sizes, the metrics, the tables' columns)
is read from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from orgbench.core.errors import InputError
from orgbench.core.registry import Registry, load_attr

ENTRY_POINT_GROUP = "orgbench.cargo_families"


@dataclass(frozen=True)
class Family:
    """One perturbation family: code, name, whether a judge should penalise it, default size, what it is.

    ``perturb`` (a plugin's family): ``module:attr`` of ``perturb(answer, reference, rng) -> (candidate,
    perturbation)``, where ``answer`` is the correct live answer (``answers.Answer``), ``reference`` the golden
    reference's text, and ``candidate`` an ``Answer`` or the candidate's text; orgbench's own families are made
    by the builder.
    """

    code: str
    name: str
    should_penalize: bool
    default_size: int
    definition: str
    perturb: str = ""
    builtin: bool = False

    def perturber(self) -> Callable[..., tuple[Any, Any]] | None:
        """The function ``perturb`` names (None for orgbench's own families)."""
        return load_attr(self.perturb, f"CARGO family {self.code} perturb") if self.perturb else None


#: What each family is (the report's definitions).
_DEFINED = {
    "P1": "the correct procedure applied to the live case: every entity value differs from the reference's. "
          "Should not be penalised (lower is better).",
    "P3": "a correct live answer worded differently, with extra claims the context neither supports nor "
          "contradicts. Should not be penalised. The paper does not define P3; this is orgbench's reconstruction.",
    "P2": "the live answer with values that contradict the live context (which kinds of value: the suite's "
          "plan). Should be penalised (higher is better).",
    "P4": "the live answer with its procedure corrupted (which corruptions: the suite's plan). Should be "
          "penalised.",
}
#: orgbench's own families in table order: code, name, penalise?, default size.
BUILTIN_FAMILIES: tuple[Family, ...] = tuple(Family(*row, _DEFINED[row[0]], builtin=True) for row in (
    ("P1", "entity transplant", False, 50),
    ("P3", "benign divergence", False, 96),
    ("P2", "contradiction", True, 50),
    ("P4", "procedural corruption", True, 50),
))


def _accept(name: str, value: Any) -> Family:
    if not isinstance(value, Family):
        raise InputError(f"entry point {name!r}: expected a Family registration, got {type(value).__name__}")
    if value.code != name:
        raise InputError(f"entry point {name!r}: its Family has code {value.code!r}")
    if not value.perturb:
        raise InputError(f"entry point {name!r}: a plugin's Family needs perturb (module:attr)")
    return value


def registry(own: Callable[[], Iterable[Family]]) -> Registry[Family]:
    """The families: ``own()`` first (in table order), then the entry-point group's, by code."""
    return Registry("CARGO family", ENTRY_POINT_GROUP, own, lambda f: f.code, _accept)


def family_table() -> tuple[Family, ...]:
    """Every family in table order (the order of every table and count): orgbench's own, then the plugins' by code."""
    return registry(lambda: BUILTIN_FAMILIES).all()
