"""Target steps: which step of a trajectory a packet asks the judge about.

The error target is the earliest tool-calling step that starts a run of -1
labels; the comparison target is the closest earlier +1 tool-calling step.
Labels select targets here and nowhere else; they never enter a packet.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmark_builders.trajectories.records import StepLabels, Trajectory

TARGET_KINDS = ("error", "comparison")


@dataclass(frozen=True, slots=True)
class Targets:
    """The two targets of one trajectory, as message indices."""

    trajectory_id: str
    error: int
    comparison: int


def select_targets(trajectory: Trajectory, labels: StepLabels) -> Targets | None:
    """The error and comparison targets of a trajectory, or None if it lacks either."""
    calling = [i for i, m in enumerate(trajectory.messages) if m.role == "assistant" and m.tool_calls]
    labelled = sorted(labels.labels)
    error = None
    for i in calling:
        if labels.labels.get(i) != -1:
            continue
        earlier = [j for j in labelled if j < i]
        if not earlier or labels.labels[earlier[-1]] != -1:
            error = i
            break
    if error is None:
        return None
    comparison = next((j for j in reversed(calling) if j < error and labels.labels.get(j) == 1), None)
    if comparison is None:
        return None
    return Targets(trajectory.trajectory_id, error, comparison)
