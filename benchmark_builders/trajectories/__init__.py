"""Agent trajectories with step labels: simulated from worlds, or imported from recorded sets."""

from benchmark_builders.trajectories.records import (ChatMessage, StepLabels, ToolCall, Trajectory, read_suite,
                                                     write_suite)

__all__ = ["ChatMessage", "StepLabels", "ToolCall", "Trajectory", "read_suite", "write_suite"]
