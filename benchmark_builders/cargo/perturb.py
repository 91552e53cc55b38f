"""Perturbations that turn a correct answer into one a judge should penalise.

- **Contradiction** (P2): one or more stated values are replaced by values of
  the same kind that the live context contradicts (a status, a date, an
  identifier, the entitlement).
- **Procedural corruption** (P4): a required step is skipped, two dependent
  steps are swapped, a step's action is replaced by a wrong one, or an
  escalation goes to the wrong team.

Each perturbation returns the new answer and a JSON-ready record of what it
changed, which goes to the truth file only.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import date, timedelta
from typing import Any, Mapping

from benchmark_builders.cargo.answers import TEAM_PHRASES, Answer, past_tense
from simulator.procedures import PROCEDURES, Procedure

#: Facts whose values are mutually exclusive words, and the words they can take.
ENUMERATED: dict[str, tuple[str, ...]] = {
    "entitlement": ("active", "expired"),
    "case_status": ("open", "in_progress", "pending_customer", "resolved", "closed"),
}
#: Status values a completed case cannot have (a contradiction of "resolved" or "closed").
_OPEN_STATUSES = ("open", "in_progress", "pending_customer")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CORRUPTIONS: tuple[str, ...] = ("skip_step", "swap_steps", "wrong_action", "wrong_escalation")

#: Teams a step could wrongly be handed to, per correct target.
WRONG_TEAMS: dict[str, tuple[str, ...]] = {
    "support_l2": ("the level-1 support desk", "the billing team", "the field services team"),
    "support_manager": ("a sales representative", "the level-1 support desk", "the field services team"),
}


#: The kinds of value a contradiction replaces, cycled over the P2 items.
CONTRADICTIONS: tuple[str, ...] = ("identifier", "date", "status", "entitlement")


def value_kind(fact: str, value: str) -> str | None:
    """status | entitlement | date | identifier (ids, codes, versions, amounts, emails), or None."""
    if fact == "case_status":
        return "status"
    if fact == "entitlement":
        return "entitlement"
    if _DATE.match(value):
        return "date"
    if any(ch.isdigit() for ch in value) or "@" in value:
        return "identifier"
    return None


def contradictable_facts(answer: Answer, kind: str | None = None) -> list[str]:
    """Facts of an answer whose value can be replaced by a contradicting one, of ``kind`` if given (sorted)."""
    out = []
    for name, value in answer.values().items():
        found = value_kind(name, value)
        if found and (kind is None or found == kind):
            out.append(name)
    return sorted(out)


def _mutate_digits(value: str, rng: random.Random, taken: set[str]) -> str:
    positions = [i for i, ch in enumerate(value) if ch.isdigit()]
    for _ in range(100):
        chars = list(value)
        for i in rng.sample(positions, k=min(len(positions), rng.choice((1, 2)))):
            chars[i] = rng.choice([d for d in "0123456789" if d != chars[i]])
        new = "".join(chars)
        if new != value and new not in taken:
            return new
    raise ValueError(f"cannot mutate {value!r}")


def contradicting_value(fact: str, value: str, rng: random.Random, taken: set[str]) -> str:
    """A value of the same kind as ``value`` that differs from it and from every value in ``taken``."""
    if fact in ENUMERATED:
        choices = [v for v in ENUMERATED[fact] if v != value]
        if fact == "case_status":
            choices = [v for v in _OPEN_STATUSES if v != value]
        return rng.choice(choices)
    if _DATE.match(value):
        day = date.fromisoformat(value)
        while True:
            new = (day + timedelta(days=rng.choice((-1, 1)) * rng.randint(3, 90))).isoformat()
            if new not in taken:
                return new
    if "@" in value:
        local, _, domain = value.partition("@")
        while True:
            new = f"{local}{rng.randint(2, 9)}@{domain}" if rng.random() < 0.5 else f"{local[:1]}.{local}@{domain}"
            if new not in taken:
                return new
    return _mutate_digits(value, rng, taken)


def contradict(answer: Answer, live_facts: Mapping[str, str], rng: random.Random,
               n_values: int = 1, kind: str = "identifier") -> tuple[Answer, dict[str, Any]]:
    """Replace ``n_values`` stated values with ones the live context contradicts.

    The first is of ``kind`` (an identifier when the answer states none of that kind), any further
    one of any kind.
    """
    first = contradictable_facts(answer, kind) or contradictable_facts(answer, "identifier")
    fact = rng.choice(first)
    others = [f for f in contradictable_facts(answer) if f != fact]
    chosen = [fact] + rng.sample(others, k=min(n_values - 1, len(others)))
    taken = set(live_facts.values())
    changes = []
    for fact in chosen:
        original = answer.values()[fact]
        new = contradicting_value(fact, original, rng, taken)
        taken.add(new)
        answer = answer.with_value(fact, new)
        changes.append({"field": fact, "original": original, "new": new})
    return answer, {"kind": "contradiction", "changes": changes}


def available_corruptions(procedure: Procedure) -> tuple[str, ...]:
    """The corruption kinds that apply to a runbook (wrong escalation needs an escalating step)."""
    has_escalation = any(step.escalates_to for step in procedure.steps)
    return tuple(k for k in CORRUPTIONS if k != "wrong_escalation" or has_escalation)


def _skip(answer: Answer, procedure: Procedure, rng: random.Random) -> tuple[Answer, dict]:
    required = sorted({r for s in procedure.steps for r in s.requires})
    step_id = rng.choice(required)
    index = [s.step_id for s in answer.steps].index(step_id)
    steps = answer.steps[:index] + answer.steps[index + 1:]
    extras = tuple((pos - 1 if pos > index else pos, text) for pos, text in answer.extras)
    return replace(answer, steps=steps, extras=extras), {"kind": "skip_step", "step": step_id}


def _swap(answer: Answer, procedure: Procedure, rng: random.Random) -> tuple[Answer, dict]:
    order = [s.step_id for s in answer.steps]
    pairs = sorted((r, s.step_id) for s in procedure.steps for r in s.requires)
    first, second = rng.choice(pairs)
    i, j = order.index(first), order.index(second)
    steps = list(answer.steps)
    steps[i], steps[j] = steps[j], steps[i]
    return replace(answer, steps=tuple(steps)), {"kind": "swap_steps", "steps": [first, second]}


def _wrong_action(answer: Answer, procedure: Procedure, rng: random.Random) -> tuple[Answer, dict]:
    own = {s.action for s in procedure.steps}
    foreign = sorted(a for a in {s.action for p in PROCEDURES for s in p.steps}
                     if not any(a in o or o in a for o in own) and not a.startswith("resolve"))
    index = rng.randrange(len(answer.steps) - 1)  # never the closing step
    step = answer.steps[index]
    new_action = past_tense(rng.choice(foreign))
    steps = answer.steps[:index] + (replace(step, action=new_action),) + answer.steps[index + 1:]
    return replace(answer, steps=steps), {"kind": "wrong_action", "step": step.step_id,
                                          "original": step.action, "new": new_action}


def _wrong_escalation(answer: Answer, procedure: Procedure, rng: random.Random) -> tuple[Answer, dict]:
    escalating = [s for s in procedure.steps if s.escalates_to]
    target = rng.choice(escalating)
    index = [s.step_id for s in answer.steps].index(target.step_id)
    step = answer.steps[index]
    correct = TEAM_PHRASES[target.escalates_to]
    wrong = rng.choice(WRONG_TEAMS[target.escalates_to])
    steps = answer.steps[:index] + (replace(step, action=step.action.replace(correct, wrong)),) + answer.steps[index + 1:]
    return replace(answer, steps=steps), {"kind": "wrong_escalation", "step": target.step_id,
                                          "original": correct, "new": wrong}


_CORRUPTERS = {"skip_step": _skip, "swap_steps": _swap, "wrong_action": _wrong_action,
               "wrong_escalation": _wrong_escalation}


def corrupt(answer: Answer, procedure: Procedure, kind: str, rng: random.Random) -> tuple[Answer, dict[str, Any]]:
    """Apply one procedural corruption of ``kind`` to a correct answer."""
    return _CORRUPTERS[kind](answer, procedure, rng)
