"""Derived values: counts and day spans a correct answer computes from the live context's raw facts.

The live context states the raw facts (the account's earlier cases with their opening days; the asset's
purchase day and the case's opening day), never the derived value itself; a correct answer states the value
computed from them, and a P2 contradiction of a derived value states a wrong but plausible computation of it
(a fencepost error, the case itself counted among the earlier ones). Counts are written in words, day spans
with their unit, as a support note states them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from typing import Any

from benchmark_builders.cargo.cases import SupportCase
from simulator.procedures import Procedure

#: Each derived fact and the kind of value it is (the report's per-kind breakdown).
DERIVED_KINDS: dict[str, str] = {"earlier_cases": "count", "asset_age_days": "days"}


#: Counts as a support note writes them (in words up to twenty).
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")


def derived_text(kind: str, number: int) -> str:
    """A derived value as an answer states it: "two earlier cases on the account", "812 days"."""
    if kind == "days":
        return f"{number} day{'' if number == 1 else 's'}"
    count = _WORDS[number] if 0 <= number < len(_WORDS) else str(number)
    return f"{count} earlier case{'' if number == 1 else 's'} on the account"


@dataclass(frozen=True, slots=True)
class Derived:
    """One derived value of a case: the fact, its kind, the correct number and the runbook step that states it."""

    fact: str       # earlier_cases | asset_age_days (answers.FACT_LABELS)
    kind: str       # count | days
    number: int     # the correct computation
    step_id: str    # the runbook step whose report states it

    @property
    def value(self) -> str:
        """The value as the answer states it."""
        return derived_text(self.kind, self.number)


def derived_values(case: SupportCase, procedure: Procedure | None = None) -> tuple[Derived, ...]:
    """The values a correct answer for ``case`` computes: the number of the account's earlier cases (stated with
    the first step) and the asset's age in days when the case opened (stated with the entitlement check)."""
    steps = (procedure or case.procedure).steps
    out = []
    if case.history is not None:
        out.append(Derived("earlier_cases", "count", len(case.history), steps[0].step_id))
    check = next((s for s in steps if "entitlement" in s.writes), None)
    if check is not None and "purchase_date" in case.facts and "opened_at" in case.facts:
        age = date.fromisoformat(case.facts["opened_at"]) - date.fromisoformat(case.facts["purchase_date"])
        out.append(Derived("asset_age_days", "days", age.days, check.step_id))
    return tuple(out)


def wrong_computations(derived: Derived) -> list[tuple[int, str]]:
    """Plausible wrong computations of a derived value: (wrong number, the error made)."""
    n = derived.number
    if derived.kind == "count":
        return [(n + 1, "counted this case among the earlier ones")] + (
            [(n - 1, "left out the oldest earlier case")] if n > 0 else [])
    return [(n + 1, "counted both the purchase day and the opening day"),
            (n - 1, "stopped a day before the opening day")]


def contradict_derived(answer: Any, derived: tuple[Derived, ...], rng: random.Random) -> tuple[Any, dict] | None:
    """The answer with one derived value it states replaced by a wrong computation, and the perturbation record;
    None when the answer states no derived value."""
    stated = answer.values()
    options = [d for d in derived if d.fact in stated]
    if not options:
        return None
    chosen = rng.choice(options)
    number, error = rng.choice(wrong_computations(chosen))
    new = derived_text(chosen.kind, number)
    change = {"field": chosen.fact, "original": chosen.value, "new": new, "derived": chosen.kind, "error": error,
              "computed": chosen.number, "stated": number}
    return answer.with_value(chosen.fact, new), {"kind": "contradiction", "changes": [change]}
