"""What each study needs of a domain pack, and which of it a pack lacks (``orgbench pack check``).

A pack that parses simulates; each study then needs more of it. A need is
either ``required`` (without it the study builds nothing from the pack's
worlds) or a gap that shrinks what the study can make (a kind of item or of
error it cannot construct). Each finding names the pack field to add.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmark_builders.cargo.perturb import near_miss_actions, revision_corruptions
from simulator.packs import Pack


@dataclass(frozen=True)
class Need:
    """One thing a study needs that the pack lacks: the study, the pack field to add, why, and whether the study
    builds nothing without it."""

    study: str
    field: str
    why: str
    required: bool = False

    def line(self) -> str:
        """The finding as one line."""
        return f"{self.study}: {self.field}: {self.why}{' (required)' if self.required else ''}"


def cargo_needs(pack: Pack) -> list[Need]:
    """What a CARGO suite needs: two runbooks in scope, gating runbooks, and the P4 corruptions' sources."""
    runbooks = pack.runbooks
    in_scope = [p for p in runbooks.procedures if p.procedure_id not in runbooks.out_of_scope]
    out: list[Need] = []
    if len(in_scope) < 2:
        out.append(Need("cargo", "runbooks", f"{len(in_scope)} runbook(s) in scope; a suite needs two (leave "
                                             "more runbooks without out_of_scope = true)", True))
    if not runbooks.out_of_scope:
        out.append(Need("cargo", "runbooks[].out_of_scope", "no runbook is out of scope: the suite has no gating "
                                                             "questions"))
    by_revision = {kind for p in runbooks.all for kind, found in revision_corruptions(p, None, runbooks.all).items()
                   if found}
    if not runbooks.revisions:
        out.append(Need("cargo", "runbooks[].revisions", "no runbook has a revision: P4 has no skipped, swapped or "
                                                          "wrongly escalated steps"))
    else:
        for kind, field in (("skip_step", "a revision without one required step"),
                            ("swap_steps", "a revision with two steps in another order"),
                            ("wrong_escalation", "a revision escalating a step to another team")):
            if kind not in by_revision:
                out.append(Need("cargo", "runbooks[].revisions", f"no {kind.replace('_', ' ')} (add {field})"))
    near = any(near_miss_actions(p, s.step_id, in_scope) for p in in_scope for s in p.steps[:-1])
    if not near:
        out.append(Need("cargo", "runbooks[].steps[].action", "no step of one runbook opens with the same two words "
                                                               "as a step of another: P4 has no wrong actions",
                        required=not by_revision))
    return out


def trajectory_needs(pack: Pack) -> list[Need]:
    """What the trajectory builder needs to construct every error kind from the runbooks."""
    steps = [s for p in pack.procedures for s in p.steps]
    out: list[Need] = []
    if not any(s.requires for s in steps):
        out.append(Need("trajectories", "runbooks[].steps[].requires", "no step requires another: no skipped-step "
                                                                        "errors"))
    if not any(s.reads for s in steps):
        out.append(Need("trajectories", "runbooks[].steps[].reads", "no step reads a fact: no wrong-argument errors",
                        True))
    if len(pack.procedures) < 2:
        out.append(Need("trajectories", "runbooks", "one runbook: no wrong-tool errors (another runbook's step)"))
    return out


def groundeval_needs(pack: Pack) -> list[Need]:
    """What GroundEval's tracks need beyond a pack that simulates."""
    if not pack.service_categories:
        return [Need("groundeval", "engineering.service_categories", "no service opens customer cases when it "
                                                                      "fails: incidents reach no customer")]
    return []


def pack_needs(pack: Pack) -> list[Need]:
    """Every need of every study the pack lacks, study by study."""
    return [*cargo_needs(pack), *trajectory_needs(pack), *groundeval_needs(pack)]
