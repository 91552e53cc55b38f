"""CARGO-Bench as ``orgbench reproduce`` and ``list`` see it (the study itself: ``orgbench.studies.cargo``)."""

from __future__ import annotations

from orgbench.studies.descriptor import Study

STUDY = Study(
    name="cargo",
    title="CARGO-Bench",
    reproduce="orgbench.studies.cargo:reproduce",
    serves="judge",
    builtin="orgbench.studies.cargo_descriptor:builtin_judges",
    parts_name="families",
    parts="benchmark_builders.cargo.records:FAMILIES",
    conditions="orgbench.studies.cargo:RUN_CONDITIONS",
    suites=("cargo",),
)


def builtin_judges() -> tuple[str, ...]:
    """The built-in CARGO judges, as specs: every built-in backend serving CARGO, by its names (builtin:literal, …)."""
    from judges.backends.registry import BACKENDS

    return tuple(spec for backend in BACKENDS.all() if backend.builtin and backend.serves("cargo", "judge")
                 for spec in backend.specs())
