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
from typing import TYPE_CHECKING, Any, Callable

from benchmark_builders.export.formats import OWN
from orgbench.core.errors import InputError
from orgbench.core.storage import MANIFEST, read_json, sha256_file, staged_directory, write_json, write_manifest

if TYPE_CHECKING:
    from benchmark_builders.export.world_index import WorldIndex
    from simulator.world import World

__all__ = ["EXPORT_FILE", "FORMATS", "SUITE_FORMATS", "export_hf", "export_world", "world_digests"]

EXPORT_FILE = "EXPORT.json"


def _writers() -> dict[str, Callable[[WorldIndex, Path, dict[str, str]], dict[str, int]]]:
    """Every registered world format's writer (benchmark_builders.export.formats), taking the digests or not."""
    from benchmark_builders.export.formats import EXPORT_FORMATS

    def call(fmt: Any) -> Callable[[WorldIndex, Path, dict[str, str]], dict[str, int]]:
        return lambda index, out, digests: (fmt.writer()(index, out, digests) if fmt.digests
                                            else fmt.writer()(index, out))

    return {fmt.name: call(fmt) for fmt in EXPORT_FORMATS.all() if "world" in fmt.scopes and not fmt.standalone}


#: orgbench's own world formats (``formats.format_names("world")`` adds the plugins').
FORMATS: tuple[str, ...] = tuple(f.name for f in OWN if "world" in f.scopes)
#: orgbench's own formats that take a suite as well as a world.
SUITE_FORMATS: tuple[str, ...] = tuple(f.name for f in OWN if "suite" in f.scopes)


def world_digests(world_dir: Path) -> dict[str, str]:
    """File → SHA-256 as the world's MANIFEST.json lists them."""
    manifest = read_json(Path(world_dir) / MANIFEST)
    return {name: entry["sha256"] for name, entry in sorted(manifest.get("files", {}).items())}


def export_world(world: World, world_dir: Path, fmt: str, out: Path) -> dict[str, Any]:
    """Write ``world`` (read from ``world_dir``) as ``fmt`` into ``out``; returns what EXPORT.json records."""
    from benchmark_builders.export.formats import EXPORT_FORMATS

    registered = EXPORT_FORMATS.get(fmt)
    if registered is not None and registered.standalone and "world" in registered.scopes:
        return registered.writer()(Path(world_dir), "world", out)
    digests = world_digests(world_dir)
    record: dict[str, Any] = {"format": fmt, "world_manifest_sha256": sha256_file(Path(world_dir) / MANIFEST),
                              "world_seed": world.seed}
    writers = _writers()
    if fmt not in writers:
        raise InputError(f"--format: unknown world export format {fmt!r} (known: {', '.join(writers)})")
    with staged_directory(Path(out)) as tmp:
        from benchmark_builders.export.world_index import WorldIndex   # numpy: only when a world is exported

        record["counts"] = writers[fmt](WorldIndex.of(world), tmp, digests)
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
