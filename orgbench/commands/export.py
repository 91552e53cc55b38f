"""``orgbench export``: a world in a format other tools read (Slack, mbox, .eml, Jira JSON, Parquet, GroundEval)."""

from __future__ import annotations

from pathlib import Path

import click

from orgbench.outdir import bound, overwrite_option

FORMATS = ("slack", "mbox", "eml", "jira", "parquet", "groundeval")


@click.command("export")
@click.argument("world_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True,
              help="slack: Slack workspace export; mbox / eml: RFC 5322 email; jira: Jira-style issues.json; "
                   "parquet: one table per record file (needs orgbench[export]); groundeval: GroundEval domain layout.")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write (atomically); the same export may be rewritten, anything else is refused "
                   "(see --overwrite).")
@overwrite_option
def export_command(world_dir: Path, fmt: str, out: Path, overwrite: bool) -> None:
    """Export the world in WORLD_DIR as FORMAT into OUT (see docs/exports.md).

    The world is verified against its MANIFEST.json first. OUT gets the
    export, EXPORT.json (format, counts, the world's manifest digest) and a
    MANIFEST.json of every file; the same world gives the same bytes.
    """
    from benchmark_builders.export import export_world
    from orgbench.core.storage import sha256_file
    from simulator.world import load_world

    world = load_world(world_dir, verify=True)
    inputs = {"format": fmt, "world": sha256_file(Path(world_dir) / "MANIFEST.json")}
    with bound(out, "an orgbench export", "export", inputs, overwrite=overwrite):
        record = export_world(world, world_dir, fmt, out)
    counts = ", ".join(f"{value:,} {name.replace('_', ' ')}" for name, value in record["counts"].items())
    click.echo(f"wrote {out}: {fmt} export of {world_dir} ({counts})")


def register(cli: click.Group) -> None:
    """Add ``export`` to the orgbench CLI."""
    cli.add_command(export_command)
