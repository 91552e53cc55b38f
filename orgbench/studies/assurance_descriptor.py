"""Judge-input assurance as ``orgbench reproduce`` and ``list`` see it (the study: ``orgbench.studies.assurance``)."""

from __future__ import annotations

from pathlib import Path

from orgbench.studies.descriptor import Study, read_json_or_none

STUDY = Study(
    name="assurance",
    title="judge-input assurance",
    reproduce="orgbench.studies.assurance:reproduce",
    serves="judge",
    builtin="orgbench.studies.assurance_descriptor:BUILTIN_JUDGES",
    parts_name="controls",
    parts="judges.assurance.pipeline:CONTROLS",
    suites=("trajectories",),
    heading="Judge-input assurance: what reached the judge",
    intro="Each constructed fault under controls P0–P3: did an altered or stale byte reach the judge, "
          "and which stage and check stopped it; then the later-context contrast G.",
    note="Judge-input assurance (Xia et al.): the constructed fault cases under controls P0–P3, and the "
         "later-context contrast on original (calls omitted) and restored packets.",
    tables_kind="assurance tables", rows_from="later-context contrast", rows_are="judge",
    present="orgbench.studies.assurance_descriptor:judge_present",
    comparison="orgbench.report.readme:assurance_comparison",
)


def judge_present(folder: Path) -> list[str] | None:
    """The contrast's judge, from ``contrast.json`` (None when it is absent, unreadable or names none)."""
    contrast = read_json_or_none(folder / "contrast.json")
    if isinstance(contrast, dict) and contrast.get("judge"):
        return [str(contrast["judge"])]
    return None

#: The contrast's built-in judge (the fault study always uses the recording stub).
BUILTIN_JUDGES = ("builtin:step",)
