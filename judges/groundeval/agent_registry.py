"""The GroundEval agents a run can name by a bare name: orgbench's built-in ones and the plugins'.

A model agent is a spec ``KIND:MODEL`` made by the backend registry
(``judges.backends.registry``); an agent named here is a procedure. orgbench's
own are the records of ``OWN_AGENTS``, each named once there: the contract agents (their procedures made by
the factory each names) and the task-contract agents (run by ``judges.groundeval.task_track``). A
separate package adds one under the entry-point group ``orgbench.agents``
(name = the agent's name, value = ``module:attr`` of its ``Agent``) whose
``make(suite, world)`` returns the procedure that answers one contract:
``procedure(contract, runtime, context) -> answer``, with ``runtime`` the
gated runtime in tool mode and ``context`` the assembled context in context
mode (the other is None), as the built-in ones do. An agent registered for
task suites (``suites=("tasks",)``) gets ``make(suite, None)`` and answers
``procedure(contract, runtime, context)`` with the contract line (a dict), a
``TaskRuntime`` and a ``TaskContext``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from orgbench.core.errors import InputError
from orgbench.core.registry import Registry, accept_instance, load_attr

ENTRY_POINT_GROUP = "orgbench.agents"

#: How an agent meets the corpus: through the gated runtime's tools, or from a context assembled up front.
MODES = ("tool", "context")


@dataclass(frozen=True)
class Agent:
    """One named agent: what it answers, whether it is a procedural baseline, and its factory for contracts."""

    name: str
    suites: tuple[str, ...] = ("contracts",)    # "contracts" (GroundEval suites), "tasks" (task-contract suites)
    make: Any = None                            # make(suite, world) -> procedure, or its "module:attr" (orgbench's);
                                                # None: a task-contract agent task_track runs itself
    builtin: bool = True                        # procedural: its rows are baselines, not a model's
    summary: str = ""

    def procedure(self, suite: Path, world: Any) -> Callable[..., dict[str, Any]]:
        """Its ``procedure(contract, runtime, context) -> answer`` for ``suite`` (``world``: the suite's corpus)."""
        if self.make is None:
            raise InputError(f"--agent: {self.name!r} does not answer contracts (it runs task contracts)")
        make = load_attr(self.make, f"agent {self.name!r}") if isinstance(self.make, str) else self.make
        return make(suite, world)


_AGENTS = "judges.groundeval.agents"
#: orgbench's own agents, each named once here: the contract agents in the order ``reproduce groundeval`` runs
#: them (each with the factory of its procedure), then the task-contract agents.
OWN_AGENTS: tuple[Agent, ...] = (
    Agent("oracle", ("contracts", "tasks"), f"{_AGENTS}:oracle_for"),
    Agent("leaky", make=f"{_AGENTS}:leaky_for"),
    Agent("lazy", make=f"{_AGENTS}:lazy_for"),
    Agent("proximity", make=f"{_AGENTS}:proximity_for"),
    Agent("bm25", make=f"{_AGENTS}:bm25_for"),
    Agent("follow", make="judges.groundeval.follow_agent:follow_for"),
    Agent("zero-shot", make=f"{_AGENTS}:zero_shot_for"),
    Agent("skip-precondition", ("tasks",)),
    Agent("wrong-field", ("tasks",)),
)
#: orgbench's own contract agents (the ones ``reproduce groundeval`` runs).
BUILTIN_AGENTS: tuple[str, ...] = tuple(a.name for a in OWN_AGENTS if "contracts" in a.suites)
#: The task-contract agents ``judges.groundeval.task_track`` runs.
TASK_AGENTS: tuple[str, ...] = tuple(a.name for a in OWN_AGENTS if "tasks" in a.suites)


def _own() -> tuple[Agent, ...]:
    return OWN_AGENTS


AGENTS: Registry[Agent] = Registry("agent", ENTRY_POINT_GROUP, _own, lambda a: a.name, accept_instance(Agent))


def agent_names(suites: str = "contracts") -> tuple[str, ...]:
    """The named agents that answer ``suites`` ("contracts" or "tasks"), built-in first."""
    return tuple(a.name for a in AGENTS.all() if suites in a.suites)
