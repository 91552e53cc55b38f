"""The GroundEval agents a run can name by a bare name: orgbench's built-in ones and the plugins'.

A model agent is a spec ``KIND:MODEL`` made by the backend registry
(``judges.backends.registry``); an agent named here is a procedure. orgbench's
own are ``judges.groundeval.agents.BUILTIN_AGENTS`` (contract agents) and
``TASK_AGENTS`` (task-contract agents, run by ``judges.groundeval.task_track``). A
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
from typing import Any

from orgbench.core.registry import Registry, accept_instance

ENTRY_POINT_GROUP = "orgbench.agents"

#: How an agent meets the corpus: through the gated runtime's tools, or from a context assembled up front.
MODES = ("tool", "context")
#: orgbench's own contract agents, whose procedures ``judges.groundeval.agents`` holds (follow: follow_agent.py).
BUILTIN_AGENTS = ("oracle", "leaky", "lazy", "proximity", "bm25", "follow", "zero-shot")
#: The task-contract agents ``judges.groundeval.task_track`` runs.
TASK_AGENTS = ("oracle", "skip-precondition", "wrong-field")


@dataclass(frozen=True)
class Agent:
    """One named agent: what it answers, whether it is a procedural baseline, and (a plugin's) its factory."""

    name: str
    suites: tuple[str, ...] = ("contracts",)    # "contracts" (GroundEval suites), "tasks" (task-contract suites)
    make: Any = None                            # a plugin's make(suite, world) -> procedure; None: orgbench's own
    builtin: bool = True                        # procedural: its rows are baselines, not a model's
    summary: str = ""


def _own() -> list[Agent]:
    return ([Agent(name, ("contracts", "tasks") if name in TASK_AGENTS else ("contracts",)) for name in BUILTIN_AGENTS]
            + [Agent(name, ("tasks",)) for name in TASK_AGENTS if name not in BUILTIN_AGENTS])


AGENTS: Registry[Agent] = Registry("agent", ENTRY_POINT_GROUP, _own, lambda a: a.name, accept_instance(Agent))


def agent_names(suites: str = "contracts") -> tuple[str, ...]:
    """The named agents that answer ``suites`` ("contracts" or "tasks"), built-in first."""
    return tuple(a.name for a in AGENTS.all() if suites in a.suites)


def builtin_agents() -> tuple[str, ...]:
    """orgbench's own contract agents (the ones ``reproduce groundeval`` runs)."""
    return BUILTIN_AGENTS
