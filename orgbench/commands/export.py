"""``orgbench export``: a world in a format other tools read (Slack, mbox, .eml, Jira JSON, Parquet, GroundEval),
or a world or suite as a Hugging Face dataset folder (hf)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import click

from benchmark_builders.export import FORMATS
from orgbench.outdir import bound, holds, overwrite_option


def cargo_prompts(items: list[dict[str, Any]]) -> Iterable[tuple[str, str, str, str]]:
    """(item_id, condition, system, user) for every condition and item: the messages ``orgbench judge`` sends."""
    from judges.conditions import ALL_CONDITIONS, render

    for cond in ALL_CONDITIONS.values():
        for item in items:
            system, user = render(cond, item, 0).messages
            yield item["item_id"], cond.name, system.text(), user.text()


@click.command("export")
@click.argument("world_dir", metavar="SOURCE", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True,
              help="slack: Slack workspace export; mbox / eml: RFC 5322 email; jira: Jira-style issues.json; "
                   "parquet: one table per record file (needs orgbench[export]); groundeval: GroundEval domain "
                   "layout; hf: a Hugging Face dataset folder of a world or a CARGO, GroundEval or trajectory "
                   "suite (needs orgbench[export]).")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write (atomically); the same export may be rewritten, anything else is refused "
                   "(see --overwrite).")
@overwrite_option
def export_command(world_dir: Path, fmt: str, out: Path, overwrite: bool) -> None:
    """Export SOURCE (a world; with --format hf also a suite) as FORMAT into OUT (see docs/exports.md).

    The source is verified against its MANIFEST.json first. OUT gets the
    export, EXPORT.json (format, counts, the source's manifest digest) and a
    MANIFEST.json of every file; the same source gives the same bytes.
    """
    from benchmark_builders.export import export_hf, export_world
    from benchmark_builders.export.hf import source_kind
    from benchmark_builders.export.hf_configs import KINDS
    from orgbench.core.errors import InputError
    from orgbench.core.storage import sha256_file
    from simulator.world import load_world

    found = holds(world_dir)
    if fmt == "hf" and found in KINDS:
        kind = source_kind(found, Path(world_dir))
        inputs = {"format": fmt, "source": sha256_file(Path(world_dir) / "MANIFEST.json")}
        with bound(out, "an orgbench export", "export", inputs, overwrite=overwrite):
            record = export_hf(world_dir, kind, out, prompts=cargo_prompts if kind == "cargo" else None)
        click.echo(f"wrote {out}: hf export of {world_dir} ({', '.join(f'{n} {c:,}' for n, c in record['counts'].items())} rows)")
        return
    if found in KINDS and found != "a world":
        raise InputError(f"{world_dir}: holds {found}; --format {fmt} exports a world (a suite exports as --format hf)")
    world = load_world(world_dir, verify=True)
    inputs = {"format": fmt, "world": sha256_file(Path(world_dir) / "MANIFEST.json")}
    with bound(out, "an orgbench export", "export", inputs, overwrite=overwrite):
        record = export_world(world, world_dir, fmt, out)
    counts = ", ".join(f"{value:,} {name.replace('_', ' ')}" for name, value in record["counts"].items())
    click.echo(f"wrote {out}: {fmt} export of {world_dir} ({counts})")


def register(cli: click.Group) -> None:
    """Add ``export`` to the orgbench CLI."""
    cli.add_command(export_command)
