"""Exports other tools read: a world as Slack export, mbox, .eml, Jira-style JSON, Parquet, GroundEval layout;
a world or any suite as a Hugging Face dataset folder (``hf``).

``export_world`` verifies the world against its manifest, writes one format
into a staged folder (renamed into place only when complete), adds
``EXPORT.json`` (format, counts, the world's manifest digest) and a
``MANIFEST.json`` with the SHA-256 of every file, so an export is checked the
way a world is. Everything is written in a fixed order from the world alone:
the same world gives byte-identical exports under any PYTHONHASHSEED.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from benchmark_builders.export.world_index import WorldIndex
from orgbench.core.storage import MANIFEST, read_json, sha256_file, staged_directory, write_json, write_manifest
from simulator.world import World

__all__ = ["EXPORT_FILE", "FORMATS", "SUITE_FORMATS", "export_hf", "export_world", "world_digests"]

EXPORT_FILE = "EXPORT.json"


def _writers() -> dict[str, Callable[[WorldIndex, Path, dict[str, str]], dict[str, int]]]:
    from benchmark_builders.export.groundeval import write_groundeval
    from benchmark_builders.export.mail import write_eml, write_mbox
    from benchmark_builders.export.parquet import write_parquet
    from benchmark_builders.export.slack import write_slack
    from benchmark_builders.export.tickets import write_jira

    return {
        "slack": lambda index, out, _: write_slack(index, out),
        "mbox": lambda index, out, _: write_mbox(index, out),
        "eml": lambda index, out, _: write_eml(index, out),
        "jira": lambda index, out, _: write_jira(index, out),
        "parquet": write_parquet,
        "groundeval": lambda index, out, _: write_groundeval(index, out),
    }


FORMATS: tuple[str, ...] = ("slack", "mbox", "eml", "jira", "parquet", "groundeval", "hf")
#: The formats that take a suite as well as a world.
SUITE_FORMATS: tuple[str, ...] = ("hf",)


def world_digests(world_dir: Path) -> dict[str, str]:
    """File → SHA-256 as the world's MANIFEST.json lists them."""
    manifest = read_json(Path(world_dir) / MANIFEST)
    return {name: entry["sha256"] for name, entry in sorted(manifest.get("files", {}).items())}


def export_world(world: World, world_dir: Path, fmt: str, out: Path) -> dict[str, Any]:
    """Write ``world`` (read from ``world_dir``) as ``fmt`` into ``out``; returns what EXPORT.json records."""
    if fmt == "hf":
        return export_hf(Path(world_dir), "world", out)
    digests = world_digests(world_dir)
    record: dict[str, Any] = {"format": fmt, "world_manifest_sha256": sha256_file(Path(world_dir) / MANIFEST),
                              "world_seed": world.seed}
    with staged_directory(Path(out)) as tmp:
        record["counts"] = _writers()[fmt](WorldIndex.of(world), tmp, digests)
        write_json(tmp / EXPORT_FILE, record)
        write_manifest(tmp, {"source_world": {"files": digests}})
    return record


def export_hf(source: Path, kind: str, out: Path, *, prompts: Any = None) -> dict[str, Any]:
    """Write ``source`` (a world, or a suite of ``kind``: cargo, groundeval, groundeval-tasks, trajectories) as a
    Hugging Face dataset folder into ``out`` (``benchmark_builders.export.hf``); returns what EXPORT.json records.

    The source is verified against its manifest first. ``prompts`` renders the CARGO ``prompts`` config.
    """
    from benchmark_builders.export.hf import write_hf
    from benchmark_builders.export.hf_card import render_card
    from orgbench.core.storage import require_sealed, write_text_atomic

    source = Path(source)
    if kind != "world":
        require_sealed(source, f"a {kind} suite")
    digests = world_digests(source)
    record: dict[str, Any] = {"format": "hf", "source_kind": kind,
                              "source_manifest_sha256": sha256_file(source / MANIFEST)}
    with staged_directory(Path(out)) as tmp:
        written = write_hf(source, kind, tmp, digests, prompts=prompts)
        record["counts"] = {c.spec.name: c.rows for c in written}
        write_text_atomic(tmp / "README.md", render_card(kind, written, record))
        write_json(tmp / EXPORT_FILE, record)
        write_manifest(tmp, {"source": {"files": digests}})
    return record
