"""Perturbations that turn a correct answer into one a judge should penalise.

- **Contradiction** (P2): one or more stated values are replaced by values of
  the same kind that the live context contradicts (a status, a date, an
  identifier, the entitlement). The answer stays consistent with itself: a
  reader of the answer alone cannot tell it is wrong (see
  :func:`self_inconsistencies`), only a comparison with the live context can.
- **Procedural corruption** (P4): a required step is skipped, two dependent
  steps are swapped, a step's action is replaced by a near miss (another
  runbook's step that opens the same way, with its own values), or an
  escalation goes to another team. Skips, swaps and escalations are taken
  from the runbook's other revisions (:func:`revision_corruptions`), so the
  corrupted step list is one a correct answer of that revision has: only the
  reference, of the case's own revision, tells them apart.

Each perturbation returns the new answer and a JSON-ready record of what it
changed, which goes to the truth file only.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import date, timedelta
from typing import Any, Mapping, Sequence

from benchmark_builders.cargo.answers import Answer, past_tense, team_phrase
from benchmark_builders.cargo.derived import DERIVED_KINDS
from simulator.case_facts import CREDIT_AMOUNTS, entitlement
from simulator.procedures import ALL_PROCEDURES, PROCEDURES, Procedure, Step
from orgbench.core.errors import OrgbenchError

#: Facts whose values are mutually exclusive words, and the words they can take.
ENUMERATED: dict[str, tuple[str, ...]] = {
    "entitlement": ("active", "expired"),
    "case_status": ("open", "in_progress", "pending_customer", "resolved", "closed"),
}
#: The statuses an answer may state: every runbook ends by resolving the case, so an answer that
#: states an open status contradicts its own last step.
CLOSING_STATUSES = ("resolved", "closed")
#: The one status change the live context alone decides: a case that shows "resolved" now was never
#: closed (closing comes after resolving). "closed" -> "resolved" is not a contradiction: the resolving
#: step did record "resolved" before the case was closed.
_STATUS_CONTRADICTION = {"resolved": "closed"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CORRUPTIONS: tuple[str, ...] = ("skip_step", "swap_steps", "wrong_action", "wrong_escalation")

#: The kinds of value a contradiction replaces, cycled over the P2 items. Status and entitlement are not
#: used: the one self-consistent status flip (resolved -> closed) is decided by the reference's own status,
#: and every live case with an entitlement is active, so "expired" with warranty work follows is wrong
#: from the candidate alone.
CONTRADICTIONS: tuple[str, ...] = ("identifier", "date")
#: Facts the question states too: a contradiction of one of them is visible from the question alone.
QUESTION_FACTS: tuple[str, ...] = ("case_id", "account_name", "account_id", "asset_serial")
#: Values of each fact elsewhere in the world, from which a contradicting value is drawn.
Pool = Mapping[str, Sequence[str]]
#: How a date or version fact sits against another fact of the same case across the world: fact -> (anchor fact,
#: the offsets seen: days for a date, patch versions on the same line for a version). See ``world_relations``.
Relations = Mapping[str, tuple[str, tuple[int, ...]]]
_VERSION_TEXT = re.compile(r"^\d+\.\d+\.\d+$")


def _offset(value: str, anchor: str) -> int | None:
    """Days from ``anchor`` to ``value`` (two dates), patch versions (two versions on one line), else None."""
    if _DATE.match(value) and _DATE.match(anchor):
        return (date.fromisoformat(value) - date.fromisoformat(anchor)).days
    if _VERSION_TEXT.match(value) and _VERSION_TEXT.match(anchor) and value.rsplit(".", 1)[0] == anchor.rsplit(".", 1)[0]:
        return int(value.rsplit(".", 1)[1]) - int(anchor.rsplit(".", 1)[1])
    return None


def _shifted(anchor: str, offset: int) -> str | None:
    if _DATE.match(anchor):
        return (date.fromisoformat(anchor) + timedelta(days=offset)).isoformat()
    line, _, patch = anchor.rpartition(".")
    return f"{line}.{int(patch) + offset}" if int(patch) + offset >= 0 else None


def world_relations(cases_facts: Sequence[Mapping[str, str]]) -> dict[str, tuple[str, tuple[int, ...]]]:
    """For each date or version fact, the other fact of the same case it is tied to most tightly across the world's
    cases (the anchor whose offsets take the fewest distinct values, at most 12), with those offsets.

    A warranty end sits a whole number of warranty years after the purchase day, a visit a few days after the
    opening, a rollback target a few patch versions below the running firmware: a value drawn as anchor + another
    seen offset is one a correct answer could state, and every arithmetic between the facts still holds.
    """
    offsets: dict[tuple[str, str], set[int]] = {}
    for facts in cases_facts:
        for name, value in facts.items():
            if not (_DATE.match(value) or _VERSION_TEXT.match(value)):
                continue
            for anchor, other in facts.items():
                if anchor != name:
                    found = _offset(value, other)
                    if found is not None:
                        offsets.setdefault((name, anchor), set()).add(found)
    out: dict[str, tuple[str, tuple[int, ...]]] = {}
    for (name, anchor), seen in sorted(offsets.items()):
        if len(seen) < 2 or len(seen) > 12:
            continue
        if name not in out or len(seen) < len(out[name][1]):
            out[name] = (anchor, tuple(sorted(seen)))
    return out


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


def contradictable_facts(answer: Answer, kind: str | None = None, pool: Pool | None = None) -> list[str]:
    """Facts of an answer whose value can be replaced by a contradicting one, of ``kind`` if given (sorted).

    With a world ``pool``, only facts the question does not state and that have another world value to take.
    """
    out = []
    for name, value in answer.values().items():
        found = value_kind(name, value)
        if found == "status" and value not in _STATUS_CONTRADICTION:
            continue
        if pool is not None and (name in QUESTION_FACTS or name in DERIVED_KINDS or found not in CONTRADICTIONS
                                 or not world_values(name, value, pool)):
            continue
        if found and (kind is None or found == kind):
            out.append(name)
    return sorted(out)


def _version(value: str) -> tuple[int, ...]:
    return tuple(int(part) for part in value.split("."))


def self_inconsistencies(stated: Mapping[str, str], live: Mapping[str, str]) -> list[str]:
    """How an answer stating ``stated`` gives itself away without the live context (empty if it does not).

    ``live`` supplies the case facts an answer does not state (the opening day). Checked: the status
    against the answer's own last step (resolving the case), the entitlement against the warranty end
    it states, a rolled-back firmware against the version it replaced, a visit against the opening day.
    """
    facts = {**live, **stated}
    out = []
    if "case_status" in stated and stated["case_status"] not in CLOSING_STATUSES:
        out.append(f"states status {stated['case_status']} after resolving the case")
    if "entitlement" in stated and "warranty_end" in facts and "opened_at" in facts:
        implied = entitlement(facts["warranty_end"], facts["opened_at"])
        if implied != stated["entitlement"]:
            out.append(f"entitlement {stated['entitlement']} with warranty end {facts['warranty_end']}")
    if "target_firmware" in stated and "firmware_version" in facts:
        if _version(stated["target_firmware"]) >= _version(facts["firmware_version"]):
            out.append(f"rolled back to {stated['target_firmware']} from {facts['firmware_version']}")
    if "visit_date" in stated and "opened_at" in facts and stated["visit_date"] < facts["opened_at"]:
        out.append(f"visit on {stated['visit_date']} before the case opened")
    return out


def _same_shape(value: str, new: str) -> bool:
    """No number gains a leading zero ("4.1.00", "ACC-0009"): the simulator never writes one."""
    return all(len(n) < 2 or n[0] != "0" or (len(o) > 1 and o[0] == "0")
               for o, n in zip(re.findall(r"\d+", value), re.findall(r"\d+", new)))


def _mutate_digits(value: str, rng: random.Random, taken: set[str]) -> str:
    # the "0" of a hexadecimal code ("BAT-0x42") is part of its shape, not of its value
    positions = [i for i, ch in enumerate(value) if ch.isdigit() and value[i + 1:i + 2] != "x"]
    for _ in range(100):
        chars = list(value)
        for i in rng.sample(positions, k=min(len(positions), rng.choice((1, 2)))):
            chars[i] = rng.choice([d for d in "0123456789" if d != chars[i]])
        new = "".join(chars)
        if new != value and new not in taken and _same_shape(value, new):
            return new
    raise ValueError(f"cannot mutate {value!r}")


def world_values(fact: str, value: str, pool: Pool) -> list[str]:
    """Other values of ``fact`` in the world with the same shape (an email: its domain; a code: its prefix;
    a firmware version: its major.minor line)."""
    def shape(text: str) -> str:
        if "@" in text:
            return text.partition("@")[2]
        if re.fullmatch(r"\d+\.\d+\.\d+", text):  # a firmware line: the same major.minor
            return text.rsplit(".", 1)[0]
        letters = re.match(r"^[A-Za-z]*-?(?:0x)?", text)
        prefix = letters.group(0) if letters else ""
        return prefix + re.sub(r"\d+", "9", text[len(prefix):])
    return sorted(v for v in set(pool.get(fact, ())) if v != value and shape(v) == shape(value))


def related_value(fact: str, value: str, facts: Mapping[str, str], relations: Relations, rng: random.Random,
                  taken: set[str]) -> str | None:
    """Another value of a date or version fact tied to an anchor (``world_relations``): the anchor's value plus
    another offset seen in the world; None when the fact has no anchor in ``facts`` or no offset is left."""
    if fact not in relations or relations[fact][0] not in facts:
        return None
    anchor, seen = relations[fact]
    current = _offset(value, facts[anchor])
    options = [new for new in (_shifted(facts[anchor], o) for o in seen if o != current)
               if new is not None and new != value and new not in taken and _same_shape(value, new)]
    return rng.choice(options) if options else None


def contradicting_value(fact: str, value: str, rng: random.Random, taken: set[str], pool: Pool | None = None,
                        relations: Relations | None = None, facts: Mapping[str, str] | None = None) -> str:
    """A value of the same kind as ``value`` that differs from it and from every value in ``taken``.

    A date or version tied to another fact of the case (``relations``, with the case's ``facts``) is that fact's
    value plus another offset the world shows, and nothing else (ValueError when none is left); with a world
    ``pool``, any other identifier or date is another value the same fact takes elsewhere in the world.
    """
    if relations is not None and facts is not None and fact in relations and relations[fact][0] in facts:
        new = related_value(fact, value, facts, relations, rng, taken)
        if new is None:
            raise ValueError(f"no other related value of {fact} for {value!r}")
        return new
    if pool is not None and value_kind(fact, value) in ("identifier", "date"):
        free = [v for v in world_values(fact, value, pool) if v not in taken and not any(v in t for t in taken)]
        if not free:
            raise ValueError(f"no other world value of {fact} for {value!r}")
        return rng.choice(free)
    if fact == "case_status":
        return _STATUS_CONTRADICTION[value]
    if fact in ENUMERATED:
        return rng.choice([v for v in ENUMERATED[fact] if v != value])
    if fact == "credit_amount":  # another amount the simulator grants, not an odd figure
        amounts = [str(a) for a in CREDIT_AMOUNTS if str(a) != value]
        # not inside another value either ("150" in "CASE-15031"): the new value must be absent from the context
        free = [a for a in amounts if not any(a in t for t in taken)]
        return rng.choice(free or [a for a in amounts if a not in taken])
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


def _warranty_end_for(new_entitlement: str, opened_at: str, rng: random.Random) -> str:
    """A warranty end that makes ``new_entitlement`` true on the opening day (3-90 days either side)."""
    days = rng.randint(3, 90)
    opened = date.fromisoformat(opened_at)
    return (opened + timedelta(days=days if new_entitlement == "active" else -days)).isoformat()


class NoContradiction(OrgbenchError):
    """No replacement value makes the answer contradict the live context while staying self-consistent."""


def contradict(answer: Answer, live_facts: Mapping[str, str], rng: random.Random,
               n_values: int = 1, kind: str = "identifier", pool: Pool | None = None,
               avoid: frozenset[str] = frozenset(), relations: Relations | None = None) -> tuple[Answer, dict[str, Any]]:
    """Replace ``n_values`` stated values with ones the live context contradicts, keeping the answer consistent.

    The first is of ``kind`` (an identifier when the answer states none of that kind), any further
    one of any kind but the entitlement. A changed entitlement takes the warranty end it is verified
    from along (moved to the other side of the opening day), so the pair still agrees; that pair is
    the item's two values. New values are drawn again until :func:`self_inconsistencies` finds nothing.
    With a world ``pool`` the new values are other world values of the same fact, never one in ``avoid``
    (the reference's values), and no fact the question states is changed; a date or version with an anchor in
    ``relations`` moves by another offset the world shows (``related_value``).
    """
    stated = answer.values()
    first = contradictable_facts(answer, kind, pool) or contradictable_facts(answer, "identifier", pool)
    if not first:   # a small world: no other value of any fact the answer states
        raise NoContradiction(f"no value of case {stated.get('case_id')} has another value in its world")
    for _ in range(30):
        fact = rng.choice(first)
        chosen = [fact]
        if fact == "entitlement" and "warranty_end" in stated:
            chosen.append("warranty_end")
        others = [f for f in contradictable_facts(answer, None, pool) if f not in chosen and f != "entitlement"]
        chosen += rng.sample(others, k=max(0, min(n_values - len(chosen), len(others))))
        for _ in range(30):
            try:
                trial, changes = _replace_values(answer, chosen, live_facts, rng, pool, avoid, relations)
            except ValueError:
                break  # no world value left for one of the chosen facts: choose again
            if not self_inconsistencies(trial.values(), live_facts):
                return trial, {"kind": "contradiction", "changes": changes}
    raise NoContradiction(f"no self-consistent contradiction in case {stated.get('case_id')}")


def _replace_values(answer: Answer, chosen: Sequence[str], live_facts: Mapping[str, str], rng: random.Random,
                    pool: Pool | None, avoid: frozenset[str],
                    relations: Relations | None = None) -> tuple[Answer, list[dict[str, str]]]:
    stated = answer.values()
    taken = set(live_facts.values()) | set(avoid)
    trial, changes = answer, []
    for name in chosen:
        original = stated[name]
        if name == "warranty_end" and "entitlement" in chosen:
            new = _warranty_end_for(trial.values()["entitlement"], live_facts["opened_at"], rng)
        else:
            new = contradicting_value(name, original, rng, taken, pool, relations, {**live_facts, **trial.values()})
        taken.add(new)
        trial = trial.with_value(name, new)
        changes.append({"field": name, "original": original, "new": new})
    return trial, changes


def other_revisions(procedure: Procedure, library: Sequence[Procedure] = ALL_PROCEDURES) -> list[Procedure]:
    """The runbook's other revisions in ``library``."""
    return [p for p in library if p.procedure_id == procedure.procedure_id and p.revision != procedure.revision]


def _breaks_order(order: Sequence[str], procedure: Procedure) -> bool:
    """True if a step comes before a step the runbook says it requires."""
    position = {step_id: i for i, step_id in enumerate(order)}
    return any(position.get(r, -1) > position[s.step_id] for s in procedure.steps if s.step_id in position
               for r in s.requires)


def revision_corruptions(procedure: Procedure, done: int | None = None,
                         library: Sequence[Procedure] = ALL_PROCEDURES) -> dict[str, list[dict[str, Any]]]:
    """Corruptions whose result is the step list of a correct answer of another revision of the runbook, so the
    candidate's surface is one correct answers have and only the reference (of the case's own revision) tells:

    - ``skip_step``: a step the runbook requires, left out where another revision has no such step;
    - ``swap_steps``: the steps in another revision's order, which puts a step before one it requires here;
    - ``wrong_escalation``: an escalating step handed to the team another revision's same step escalates to.

    ``done``: steps done of an open case (a reordering moves done steps only).
    """
    own = [s.step_id for s in procedure.steps]
    required = {r for s in procedure.steps for r in s.requires}
    done = len(own) if done is None else done
    out: dict[str, list[dict[str, Any]]] = {"skip_step": [], "swap_steps": [], "wrong_escalation": []}
    for other in other_revisions(procedure, library):
        theirs = [s.step_id for s in other.steps]
        missing = [step_id for step_id in own if step_id not in theirs]
        if len(missing) == 1 and missing[0] in required and [x for x in own if x != missing[0]] == theirs:
            out["skip_step"].append({"step": missing[0], "revision": other.revision})
        moved = [i for i, (a, b) in enumerate(zip(own, theirs)) if a != b]
        if sorted(theirs) == sorted(own) and moved and max(moved) < done and _breaks_order(theirs, procedure):
            out["swap_steps"].append({"order": theirs, "revision": other.revision})
        for step in procedure.steps:
            twin = next((s for s in other.steps if s.step_id == step.step_id), None)
            if step.escalates_to and twin is not None and twin.escalates_to not in (None, step.escalates_to):
                out["wrong_escalation"].append({"step": step.step_id, "action": twin.action,
                                                "original": team_phrase(step.escalates_to),
                                                "new": team_phrase(twin.escalates_to), "revision": other.revision})
    return out


def available_corruptions(procedure: Procedure, done: int | None = None,
                          library: Sequence[Procedure] = ALL_PROCEDURES) -> tuple[str, ...]:
    """The corruption kinds that apply to a runbook: a wrong action always (given a near miss, ``has_near_miss``),
    the others where another revision makes them look like a correct answer (``revision_corruptions``)."""
    found = revision_corruptions(procedure, done, library)
    return tuple(k for k in CORRUPTIONS if k == "wrong_action" or found.get(k))


def _skip(answer: Answer, option: dict[str, Any]) -> tuple[Answer, dict]:
    index = [s.step_id for s in answer.steps].index(option["step"])
    steps = answer.steps[:index] + answer.steps[index + 1:]
    done = sum(s.done for s in answer.steps[:index])
    extras = tuple((pos - 1 if pos > done and answer.steps[index].done else pos, text) for pos, text in answer.extras)
    return replace(answer, steps=steps, extras=extras), {"kind": "skip_step", "step": option["step"],
                                                         "as_in_revision": option["revision"]}


def _swap(answer: Answer, option: dict[str, Any]) -> tuple[Answer, dict]:
    by_id = {s.step_id: s for s in answer.steps}
    order = [s.step_id for s in answer.steps]
    moved = [a for a, b in zip(order, option["order"]) if a != b]
    return replace(answer, steps=tuple(by_id[i] for i in option["order"])), {
        "kind": "swap_steps", "steps": moved, "as_in_revision": option["revision"]}


def _head(action: str) -> tuple[str, ...]:
    return tuple(past_tense(action).split()[:2])


def near_miss_actions(procedure: Procedure, step_id: str, library: Sequence[Procedure] = PROCEDURES) -> list[Step]:
    """Steps of other runbooks of ``library`` that open like this step ("verified the ...") but do something else."""
    own = next(s for s in procedure.steps if s.step_id == step_id)
    actions = {s.action for s in procedure.steps}
    found = {s.action: s for p in library if p.procedure_id != procedure.procedure_id for s in p.steps
             if _head(s.action) == _head(own.action) and s.action not in actions and not s.action.startswith("resolve")}
    return [found[a] for a in sorted(found)]


def has_near_miss(procedure: Procedure, facts: Mapping[str, str], library: Sequence[Procedure] = PROCEDURES) -> bool:
    """Whether some step of the runbook has a near miss whose own values the case records."""
    return any(all(f in facts for f in (*s.reads, *s.writes))
               for step in procedure.steps[:-1] for s in near_miss_actions(procedure, step.step_id, library))


def _wrong_action(answer: Answer, procedure: Procedure, rng: random.Random,
                  live_facts: Mapping[str, str] | None = None,
                  library: Sequence[Procedure] = PROCEDURES) -> tuple[Answer, dict]:
    """A step replaced by a near miss: another runbook's step that opens the same way, with its own values
    taken from the live case where the case records them (else the replaced step's values)."""
    facts = live_facts or {}
    options = [(i, s) for i, step in enumerate(answer.steps[:-1]) for s in near_miss_actions(procedure, step.step_id, library)]
    own_values = [(i, s) for i, s in options if all(f in facts for f in (*s.reads, *s.writes))]
    index, foreign = rng.choice(own_values or options)
    step = answer.steps[index]
    if (index, foreign) in own_values:  # a derived value the step stated stays (it is the case's, not the step's)
        derived = tuple(pair for pair in step.outputs if pair[0] in DERIVED_KINDS)
        step = replace(step, inputs=tuple((f, facts[f]) for f in foreign.reads),
                       outputs=tuple((f, facts[f]) for f in foreign.writes) + derived if step.done else ())
    new_action = past_tense(foreign.action) if step.done else foreign.action  # a next step: as a runbook says it
    steps = answer.steps[:index] + (replace(step, action=new_action),) + answer.steps[index + 1:]
    return replace(answer, steps=steps), {"kind": "wrong_action", "step": step.step_id,
                                          "original": answer.steps[index].action, "new": new_action,
                                          "own_values": (index, foreign) in own_values,
                                          # graded: the same role in another runbook (a check of another
                                          # coverage), the subtlest near miss
                                          "same_role": foreign.step_id == step.step_id}


def _wrong_escalation(answer: Answer, option: dict[str, Any]) -> tuple[Answer, dict]:
    index = [s.step_id for s in answer.steps].index(option["step"])
    step = answer.steps[index]
    action = past_tense(option["action"]) if step.done else option["action"]
    steps = answer.steps[:index] + (replace(step, action=action),) + answer.steps[index + 1:]
    return replace(answer, steps=steps), {"kind": "wrong_escalation", "step": option["step"],
                                          "original": option["original"], "new": option["new"],
                                          "as_in_revision": option["revision"]}


_BY_REVISION = {"skip_step": _skip, "swap_steps": _swap, "wrong_escalation": _wrong_escalation}


def corrupt(answer: Answer, procedure: Procedure, kind: str, rng: random.Random,
            live_facts: Mapping[str, str] | None = None,
            library: Sequence[Procedure] = PROCEDURES, done: int | None = None,
            revisions: Sequence[Procedure] = ALL_PROCEDURES) -> tuple[Answer, dict[str, Any]]:
    """Apply one procedural corruption of ``kind`` to a correct answer (a wrong action from ``library``; the other
    kinds from the runbook's other revisions in ``revisions``, ``revision_corruptions``; ValueError if none
    applies)."""
    if kind == "wrong_action":
        return _wrong_action(answer, procedure, rng, live_facts, library)
    options = revision_corruptions(procedure, done, revisions)[kind]
    if not options:
        raise ValueError(f"no {kind} for {procedure.procedure_id} revision {procedure.revision}")
    return _BY_REVISION[kind](answer, rng.choice(options))
