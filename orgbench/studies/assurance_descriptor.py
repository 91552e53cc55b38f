"""Judge-input assurance as ``orgbench reproduce`` and ``list`` see it (the study: ``orgbench.studies.assurance``)."""

from __future__ import annotations

from orgbench.studies.descriptor import Study

STUDY = Study(
    name="assurance",
    title="judge-input assurance",
    reproduce="orgbench.studies.assurance:reproduce",
    serves="judge",
    builtin="orgbench.studies.assurance_descriptor:BUILTIN_JUDGES",
    parts_name="controls",
    parts="judges.assurance.pipeline:CONTROLS",
    suites=("trajectories",),
)

#: The contrast's built-in judge (the fault study always uses the recording stub).
BUILTIN_JUDGES = ("builtin:step",)
