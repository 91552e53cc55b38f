"""Everything a user can name on the command line, read from the registries and the tables in code that define it.

``orgbench list`` prints these. Nothing here is typed in twice: a backend,
agent, export format or study registered (by orgbench or by a plugin, see
docs/plugins.md) appears here, and a judge, condition or track added to its
own table does too.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any


def _study(name: str):
    from orgbench.studies.descriptor import study

    return study(name)


def _package_file(package: str, *parts: str) -> Path:
    """A module's file inside a top-level package, found without importing the module (or its package's
    ``__init__``): ``orgbench list`` reads a few tables from source rather than importing what defines them."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    return Path(list(spec.submodule_search_locations)[0]).joinpath(*parts)


def cargo_judges() -> list[str]:
    """The specs a CARGO judge can be: the built-in judges, then every other backend serving CARGO."""
    cargo = _study("cargo")
    return [*cargo.builtin_names(), *cargo.spec_forms()]


def assurance_judges() -> list[str]:
    """The specs the assurance contrast's judge can be: the built-in ones, then every other backend serving it."""
    from judges.backends.registry import BACKENDS

    builtin = [spec for b in BACKENDS.all() if b.builtin and b.serves("assurance", "judge") for spec in b.specs()]
    return [*builtin, *_study("assurance").spec_forms()]


def judge_backends() -> dict[str, str]:
    """Every registered backend (orgbench's and the plugins'), by spec kind: roles, studies and what it is."""
    from judges.backends.registry import BACKENDS
    from orgbench.studies.descriptor import STUDIES

    found: dict[str, list[str]] = {}
    for b in BACKENDS.all():
        where = ", ".join(s.name for s in STUDIES.all() if b.serves(s.name, s.serves)) or "no study"
        found.setdefault(b.kind, []).append(f"{' and '.join(b.roles)} ({where}{'; built-in' if b.builtin else ''})"
                                            + (f": {b.summary}" if b.summary else ""))
    return {kind: "; ".join(parts) for kind, parts in found.items()}


def agents() -> list[str]:
    """The GroundEval agents: every named one for contracts (built-in, then plugins'), then every agent backend."""
    from judges.groundeval.agent_registry import agent_names

    return [*agent_names("contracts"), *_study("groundeval").spec_forms()]


def task_agents() -> list[str]:
    """The named agents for task contracts."""
    from judges.groundeval.agent_registry import agent_names

    return list(agent_names("tasks"))


def conditions() -> dict[str, str]:
    """CARGO prompt conditions and rubric-swap cells, each with its rubric."""
    from judges.conditions import CONDITIONS, RUBRIC_SWAP, VARIANTS

    return {**{n: f"rubric {c.rubric}" for n, c in CONDITIONS.items()},
            **{n: f"variant, rubric {c.rubric} (name it in --conditions)" for n, c in VARIANTS.items()},
            **{n: f"rubric swap, rubric {c.rubric} (with --rubric-swap)" for n, c in RUBRIC_SWAP.items()}}


def tracks() -> dict[str, tuple[str, ...]]:
    """GroundEval tracks and the kinds of question in each (the study's parts)."""
    return {track: tuple(kinds) for track, kinds in _study("groundeval").part_list().items()}


def cargo_families() -> dict[str, str]:
    """CARGO's perturbation families (orgbench's and the plugins'), each with its name, verdict and default size."""
    from benchmark_builders.cargo.family import family_table

    return {f.code: f"{f.name}; {'penalise' if f.should_penalize else 'do not penalise'}; default size {f.default_size}"
            for f in family_table()}


def import_formats() -> dict[str, str]:
    """What can be read in from other tools, by command."""
    from orgbench.core.registry import declared_literal

    formats = declared_literal(_package_file("benchmark_builders", "trajectories", "importers.py"), "FORMATS")
    return {"build trajectories --import --format": ", ".join(formats),
            "build groundeval --domain": "the public GroundEval format (events.jsonl, artifacts/, config.yaml)",
            "score groundeval --answers": "a run-agent folder, or JSONL answers with calls from any agent"}


def export_formats() -> dict[str, str]:
    """What ``export`` writes from a world or a suite (every registered format), and what tables and reports are."""
    from benchmark_builders.export.formats import EXPORT_FORMATS
    from orgbench.core.registry import declared_literal

    kinds = declared_literal(_package_file("orgbench", "report", "readme.py"), "KIND")  # not imported: no jinja2

    formats = {f"export --format {f.name} ({' or '.join(f.scopes)})": f.summary + (f" (needs orgbench[{f.extra}])" if f.extra else "")
               for f in EXPORT_FORMATS.all()}
    return {**formats,
            "tables, reproduce": ", ".join(f"{kind} ({suffix})" for suffix, kind in kinds.items()),
            "report, view": "one self-contained HTML file (no network at view time)"}


def studies() -> dict[str, str]:
    """The studies ``orgbench reproduce`` runs, each with what ``--judge`` becomes in it."""
    from orgbench.studies.descriptor import STUDIES

    return {s.name: f"{s.title}; --judge is its {s.serves}; by {s.parts_name}" if s.parts_name else s.title
            for s in STUDIES.all()}


def everything() -> dict[str, Any]:
    """Every list above, under its heading."""
    return {
        "CARGO judges (judge --judge)": cargo_judges(),
        "assurance judges (assure dispatch/contrast/run --judge)": assurance_judges(),
        "judge and agent backends (SPEC kinds)": judge_backends(),
        "GroundEval agents (run-agent --agent)": agents(),
        "GroundEval task-contract agents (run-agent --agent on a task suite)": task_agents(),
        "CARGO conditions (judge --conditions)": conditions(),
        "CARGO families (build cargo --sizes)": cargo_families(),
        "GroundEval tracks and question kinds": {t: ", ".join(k) for t, k in tracks().items()},
        "studies (reproduce STUDY)": studies(),
        "import formats": import_formats(),
        "export formats": export_formats(),
    }
