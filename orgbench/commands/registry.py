"""Everything a user can name on the command line, read from the tables in code that define it.

``orgbench list`` prints these; ``judge`` checks a built-in name against
them. Nothing here is typed in twice: a judge, agent, condition, track or
format added to its own registry appears here too.
"""

from __future__ import annotations

import pkgutil
from typing import Any


def cargo_judges() -> list[str]:
    """The built-in CARGO judges (judges.backends.builtin.JUDGES) as specs."""
    from judges.backends.builtin import JUDGES

    return [f"builtin:{name}" for name in JUDGES]


def judge_backends() -> list[str]:
    """The backend modules under judges/backends (each a kind of SPEC: openai:MODEL, replay:PATH, stub, …)."""
    import judges.backends

    return sorted(m.name for m in pkgutil.iter_modules(judges.backends.__path__) if m.name not in ("base",)
                  and not m.name.startswith("_"))


def agents() -> list[str]:
    """The built-in GroundEval agents (judges.groundeval.agents.BUILTIN_AGENTS)."""
    from judges.groundeval.agents import BUILTIN_AGENTS

    return list(BUILTIN_AGENTS)


def task_agents() -> list[str]:
    """The built-in agents for task contracts (judges.groundeval.task_track.TASK_AGENTS)."""
    from judges.groundeval.task_track import TASK_AGENTS

    return list(TASK_AGENTS)


def conditions() -> dict[str, str]:
    """CARGO prompt conditions and rubric-swap cells, each with its rubric."""
    from judges.conditions import CONDITIONS, RUBRIC_SWAP, VARIANTS

    return {**{n: f"rubric {c.rubric}" for n, c in CONDITIONS.items()},
            **{n: f"variant, rubric {c.rubric} (name it in --conditions)" for n, c in VARIANTS.items()},
            **{n: f"rubric swap, rubric {c.rubric} (with --rubric-swap)" for n, c in RUBRIC_SWAP.items()}}


def tracks() -> dict[str, tuple[str, ...]]:
    """GroundEval tracks and the kinds of question in each."""
    from benchmark_builders.groundeval.contracts import KINDS, TRACKS

    return {track: tuple(KINDS.get(track, ())) for track in TRACKS}


def import_formats() -> dict[str, str]:
    """What can be read in from other tools, by command."""
    from benchmark_builders.trajectories.importers import FORMATS

    return {"build trajectories --import --format": ", ".join(FORMATS),
            "build groundeval --domain": "the public GroundEval format (events.jsonl, artifacts/, config.yaml)",
            "score groundeval --answers": "a run-agent folder, or JSONL answers with calls from any agent"}


def export_formats() -> dict[str, str]:
    """What the table and report commands write (the file kinds the results README describes)."""
    from benchmark_builders.export import FORMATS, SUITE_FORMATS
    from orgbench.report.readme import KIND

    return {"export --format (a world)": ", ".join(FORMATS),
            "export --format (a suite)": ", ".join(SUITE_FORMATS),
            "tables, reproduce": ", ".join(f"{kind} ({suffix})" for suffix, kind in KIND.items()),
            "report, view": "one self-contained HTML file (no network at view time)"}


def studies() -> list[str]:
    """The studies ``orgbench reproduce`` runs."""
    from orgbench.commands.reproduce import STUDIES

    return list(STUDIES)


def everything() -> dict[str, Any]:
    """Every list above, under its heading."""
    return {
        "CARGO judges (judge --judge)": cargo_judges() + ["openai:MODEL", "local:MODEL", "replay:PATH"],
        "assurance judges (assure dispatch/contrast/run --judge)": ["builtin:step", "stub[:LOG]", "openai:MODEL", "local:MODEL"],
        "judge backends (judges/backends)": judge_backends(),
        "GroundEval agents (run-agent --agent)": agents() + ["openai:MODEL", "local:MODEL"],
        "GroundEval task-contract agents (run-agent --agent on a task suite)": task_agents(),
        "CARGO conditions (judge --conditions)": conditions(),
        "GroundEval tracks and question kinds": {t: ", ".join(k) for t, k in tracks().items()},
        "studies (reproduce STUDY)": studies(),
        "import formats": import_formats(),
        "export formats": export_formats(),
    }
