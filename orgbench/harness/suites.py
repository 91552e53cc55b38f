"""Where an inspect task finds its suite: the folder given, or the default suite built once and cached.

The default suites are the ones ``orgbench reproduce`` builds (the same
stages, so the same bytes): CARGO from world seeds 0-9, GroundEval from the
default world of seed 0. They are cached under ``$ORGBENCH_CACHE`` (default
``$XDG_CACHE_HOME/orgbench``, else ``~/.cache/orgbench``) and rebuilt only
when the code that builds them changes.
"""

from __future__ import annotations

import os
from pathlib import Path

from orgbench.core.errors import InputError


def cache_dir() -> Path:
    """The folder default suites are cached in."""
    if os.environ.get("ORGBENCH_CACHE"):
        return Path(os.environ["ORGBENCH_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "orgbench"


def cargo_suite(suite: str | None) -> Path:
    """The CARGO suite folder ``suite`` names, or the default suite (built on first use)."""
    if suite:
        return _given(suite, "items.jsonl", "a CARGO suite (orgbench build cargo)")
    from orgbench.studies.cargo import _suite_stage
    from benchmark_builders.cargo.worlds import DEFAULT_SEEDS

    return _suite_stage(cache_dir() / "cargo", DEFAULT_SEEDS, False)


def groundeval_suite(suite: str | None) -> Path:
    """The GroundEval suite folder ``suite`` names, or the default suite of world seed 0 (built on first use)."""
    if suite:
        return _given(suite, "contracts.jsonl", "a GroundEval suite (orgbench build groundeval)")
    from orgbench.studies.groundeval import _suite_stage

    return _suite_stage(cache_dir() / "groundeval", 0, False)


def trajectory_suite(suite: str) -> Path:
    """The trajectory suite folder ``suite`` names."""
    return _given(suite, "trajectories.jsonl", "a trajectory suite (orgbench build trajectories)")


def _given(suite: str, marker: str, what: str) -> Path:
    path = Path(suite).expanduser().resolve()
    if not (path / marker).is_file():
        raise InputError(f"suite: {path / marker} not found; name {what}")
    return path
