"""GroundEval as ``orgbench reproduce`` and ``list`` see it (the study itself: ``orgbench.studies.groundeval``)."""

from __future__ import annotations

from orgbench.studies.descriptor import Study

STUDY = Study(
    name="groundeval",
    title="GroundEval",
    reproduce="orgbench.studies.groundeval:reproduce",
    serves="agent",
    builtin="judges.groundeval.agents:BUILTIN_AGENTS",
    parts_name="tracks",
    parts="benchmark_builders.groundeval.tracks:track_kinds",
    conditions="judges.groundeval.agent_registry:MODES",
    suites=("groundeval",),
    exports=("groundeval",),
)
