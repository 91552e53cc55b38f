"""GroundEval as ``orgbench reproduce`` and ``list`` see it (the study itself: ``orgbench.studies.groundeval``)."""

from __future__ import annotations

from pathlib import Path

from orgbench.studies.descriptor import Study, read_json_or_none

STUDY = Study(
    name="groundeval",
    title="GroundEval",
    reproduce="orgbench.studies.groundeval:reproduce",
    serves="agent",
    builtin="judges.groundeval.agent_registry:BUILTIN_AGENTS",
    parts_name="tracks",
    parts="benchmark_builders.groundeval.tracks:track_kinds",
    conditions="judges.groundeval.agent_registry:MODES",
    suites=("groundeval",),
    exports=("groundeval",),
    heading="GroundEval: answers reached through permitted evidence",
    intro="Deterministic scores per agent, mode and track: S_answer, S_traj, S_adj and the share of tool "
          "calls that broke a gate.",
    note="GroundEval: agents scored by the deterministic scorer, in tool and context mode, per track.",
    tables_kind="GroundEval tables", rows_from="GroundEval tables", rows_are="agents",
    present="orgbench.studies.groundeval_descriptor:agents_present",
    comparison="orgbench.report.readme:groundeval_comparison",
)


def agents_present(folder: Path) -> list[str] | None:
    """The agents ``summary.json`` holds scores of (None when it is absent or unreadable)."""
    summary = read_json_or_none(folder / "summary.json")
    if isinstance(summary, dict) and isinstance(summary.get("agents"), dict):
        return list(summary["agents"])
    return None
