"""One small world (default pack) and the raw rows of its files, shared by the export tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.config import load_config
from simulator.simulate import simulate_to


@pytest.fixture(scope="session")
def world_dir(tmp_path_factory) -> Path:
    """A 10-day world of 24 people with incidents and escalations."""
    path = tmp_path_factory.mktemp("export") / "world"
    config = tmp_path_factory.mktemp("export-config") / "small.toml"
    config.write_text("seed = 5\ndays = 10\npeople = 24\n[workload]\nincident_rate = 0.4\n", encoding="utf-8")
    simulate_to(load_config(config), path)
    return path


def _raw_rows(world_dir: Path, name: str) -> list[dict]:
    """The rows of one world file, read with json alone (not through orgbench's records)."""
    return [json.loads(line) for line in (world_dir / name).read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="session")
def raw_artifacts(world_dir) -> list[dict]:
    return _raw_rows(world_dir, "artifacts.jsonl")


@pytest.fixture(scope="session")
def raw_rows(world_dir):
    """``raw_rows(name)`` → the rows of a world file, read with json alone."""
    return lambda name: _raw_rows(world_dir, name)


@pytest.fixture(scope="session")
def latest_versions(raw_artifacts) -> dict[str, dict]:
    """Artifact id → its latest version's row (from the raw rows)."""
    out: dict[str, dict] = {}
    for row in raw_artifacts:
        if row["artifact_id"] not in out or row["version"] > out[row["artifact_id"]]["version"]:
            out[row["artifact_id"]] = row
    return out


@pytest.fixture(scope="session")
def exported(world_dir, tmp_path_factory):
    """``exported(fmt)`` → the directory of that export of the small world (made once per format)."""
    from benchmark_builders.export import export_world
    from simulator.world import load_world

    made: dict[str, Path] = {}
    world = load_world(world_dir)

    def get(fmt: str) -> Path:
        if fmt not in made:
            made[fmt] = tmp_path_factory.mktemp(f"export-{fmt}") / fmt
            export_world(world, world_dir, fmt, made[fmt])
        return made[fmt]

    return get
