"""Trajectories of a domain pack's runbooks: the agent's tools are the runbook's steps.

A world of a pack other than the default has its own case kinds, so the agent
works a case through the steps of the case's runbook: ``lookup_case``, then one
tool per step (named by the step id; its arguments are the facts the step
reads, its result the facts it writes, as the world recorded them), then
``update_case`` to resolve. The error kinds are the default flow's
(``simulate.ERROR_KINDS``), made from the runbook: a read value mistyped, a
step of another runbook called instead, a step others require skipped (the
first step that requires it is labelled -1 until the skipped one is done), the
case closed before its last step, or a step's arguments as broken JSON.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from benchmark_builders.trajectories.records import StepLabels, Trajectory
from orgbench.core.storage import dumps
from simulator.procedures import Procedure, Step


def tools(procedure: Procedure) -> tuple[str, ...]:
    """The tools an agent working a case of ``procedure`` calls, in order (the closing step is ``update_case``)."""
    return ("lookup_case", *(s.step_id for s in work_steps(procedure)), "update_case")


def work_steps(procedure: Procedure) -> tuple[Step, ...]:
    """The runbook's steps an agent calls a tool for: all but a last step that only resolves the case."""
    last = procedure.steps[-1]
    return procedure.steps[:-1] if set(last.writes) <= {"case_status"} else procedure.steps


def case_facts_ready(procedure: Procedure, facts: Mapping[str, Any]) -> bool:
    """True if the world recorded every fact the runbook's steps read and write, and the case's contact."""
    needed = {f for s in procedure.steps for f in (*s.reads, *s.writes)} | {"contact_name", "account_name"}
    return all(facts.get(f) not in (None, "", []) for f in needed)


def _mistyped(value: str, rng: random.Random) -> str:
    digits = [i for i, ch in enumerate(value) if ch.isdigit()]
    if not digits:
        return value + "X"
    i = rng.choice(digits)
    return value[:i] + rng.choice([d for d in "0123456789" if d != value[i]]) + value[i + 1:]


def runbook_trajectory(case_id: str, procedure: Procedure, facts: Mapping[str, Any], company: str,
                       library: Sequence[Procedure], index: int, seed: int, error_rate: float, recorder: type
                       ) -> tuple[Trajectory, StepLabels]:
    """One agent working a case of ``procedure`` step by step; seeded by (seed, index)."""
    rng = random.Random(f"trajectory:{seed}:{index}")
    error = rng.choice(_ERRORS) if rng.random() < error_rate else None
    steps = work_steps(procedure)
    required = [s for s in steps if any(s.step_id in t.requires for t in steps)]
    if error == "skipped_verification" and not required:
        error = "premature_close"
    foreign = [s for p in library if p.procedure_id != procedure.procedure_id for s in p.steps
               if s.step_id not in {t.step_id for t in procedure.steps}]
    if error == "wrong_tool" and not foreign:
        error = "invalid_json"
    rec = recorder(rng)
    text = lambda options: rng.choice(options) if rng.random() < 0.3 else ""  # noqa: E731
    value = lambda fact: str(facts[fact]) if not isinstance(facts[fact], list) else ", ".join(map(str, facts[fact]))  # noqa: E731

    def call(step: Step) -> tuple[str, str, Any]:
        result = {f: value(f) for f in step.writes if f != "case_status"} or {"status": "done"}
        return step.step_id, dumps({f: value(f) for f in step.reads}), result

    rec.say("system", f"You are a customer-support agent for {company}. Work the customer's case with the tools "
                      f"{', '.join(tools(procedure))}, following the runbook \"{procedure.name}\": do a step only "
                      "after the steps it requires, and do not close a case before its last step is done.")
    symptom = rng.choice(procedure.symptoms) if procedure.symptoms else "we have a problem"
    rec.say("user", f"Hello, this is {facts['contact_name']} from {facts['account_name']}: {symptom}. "
                    f"I opened {case_id}. Can you help?")
    rec.act("assistant", [("lookup_case", dumps({"case_id": case_id}),
                           {"case_id": case_id, "account_id": value("account_id"), "status": "open",
                            "category": procedure.category})], 1, text(("Let me pull up your case.",)))
    with_reads = [i for i, s in enumerate(steps) if s.reads]
    at = rng.choice(with_reads) if error == "wrong_arguments" and with_reads else rng.randrange(len(steps))
    skipped = rng.choice(required) if error == "skipped_verification" else None
    waiting: Step | None = None                  # the skipped step, done once its dependent has gone wrong
    for i, step in enumerate(steps):
        if step is skipped:
            waiting = step
            continue
        if waiting is not None and waiting.step_id in step.requires:
            rec.act("assistant", [call(step)], -1, note="skipped_verification")
            rec.act("assistant", [call(waiting)], 1, text(("I skipped a required step; doing it now.",)),
                    note="correction")
            waiting = None
        if i == at and error == "wrong_arguments" and step.reads:
            fact = rng.choice(step.reads)
            wrong = _mistyped(value(fact), rng)
            arguments = dumps({f: wrong if f == fact else value(f) for f in step.reads})
            rec.act("assistant", [(step.step_id, arguments, {"error": f"{fact} {wrong} not found"})], -1,
                    note="wrong_arguments")
            rec.act("assistant", [call(step)], 1, text(("Sorry, I mistyped that; retrying.",)), note="correction")
            continue
        if i == at and error == "wrong_tool":
            other = rng.choice(foreign)
            rec.act("assistant", [(other.step_id, dumps({f: value(f) for f in other.reads if f in facts}),
                                   {"error": f"{other.step_id} does not apply to a {procedure.category} case"})],
                    -1, note="wrong_tool")
            rec.act("assistant", [call(step)], 1, text(("That was the wrong tool.",)), note="correction")
            continue
        if i == at and error == "invalid_json":
            name, arguments, result = call(step)
            broken = arguments[:-3] if rng.random() < 0.5 else dumps(arguments)
            rec.act("assistant", [(name, broken, {"error": "invalid arguments: expected a JSON object"})], -1,
                    note="invalid_json")
            rec.act("assistant", [(name, arguments, result)], 1, text(("The request was malformed.",)),
                    note="correction")
            continue
        if i == at and error == "premature_close":
            rec.act("assistant", [("update_case", dumps({"case_id": case_id, "status": "closed"}),
                                   {"case_id": case_id, "status": "closed"})], -1, note="premature_close")
            rec.say("user", "Why was my case closed? It is not sorted yet.")
            rec.act("assistant", [("update_case", dumps({"case_id": case_id, "status": "in_progress"}),
                                   {"case_id": case_id, "status": "in_progress"})], 1,
                    text(("Apologies, I closed the case too early.",)), note="correction")
        rec.act("assistant", [call(step)], 1, text(("Working on it.", "Next step.")))
    rec.act("assistant", [("update_case", dumps({"case_id": case_id, "status": "resolved"}),
                           {"case_id": case_id, "status": "resolved"})], 1)
    rec.say("assistant", f"Your case {case_id} is resolved.", 0)
    trajectory_id = f"T-{seed}-{index:04d}"
    return Trajectory(trajectory_id, case_id, tuple(rec.messages)), StepLabels(trajectory_id, rec.labels, rec.notes)


_ERRORS = ("wrong_arguments", "wrong_tool", "skipped_verification", "premature_close", "invalid_json")
