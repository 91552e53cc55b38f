"""``orgbench export``: a world in a format other tools read (Slack, mbox, .eml, Jira JSON, Parquet, GroundEval),
or a world or suite as a Hugging Face dataset folder (hf)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import click

from orgbench.outdir import bound, holds, overwrite_option


def format_help() -> str:
    """The --format help: orgbench's own formats (read from their declarations), and where a plugin's are listed."""
    from benchmark_builders.export.formats import OWN

    return "; ".join(f"{f.name}: {f.summary}" + (f" (needs orgbench[{f.extra}])" if f.extra else "")
                     for f in OWN) + "; or a plugin's (orgbench list)."


class _FormatOption(click.Option):
    """``--format``, whose help is made when shown (``orgbench --help`` reads no export format's declaration)."""

    @property
    def help(self) -> str:
        return format_help()

    @help.setter
    def help(self, _value: str | None) -> None:
        pass


def cargo_prompts(items: list[dict[str, Any]]) -> Iterable[tuple[str, str, str, str]]:
    """(item_id, condition, system, user) for every condition and item: the messages ``orgbench judge`` sends."""
    from judges.conditions import ALL_CONDITIONS, render

    for cond in ALL_CONDITIONS.values():
        for item in items:
            system, user = render(cond, item, 0).messages
            yield item["item_id"], cond.name, system.text(), user.text()


def read_as_used(kind: str, source: Path) -> None:
    """Read a suite as the commands that use it read it (judge and tables; run-agent and score; assure), so a
    suite they would refuse (no items, an item twice, a line that is not a record, truth for other items) is not
    exported as a dataset that looks whole. A world is verified by its own loader; other kinds pass."""
    from orgbench.core.errors import InputError

    if kind == "cargo":
        from benchmark_builders.cargo.records import read_items
        from judges.cargo_scores import SuiteTruth

        inputs, truth, what = {i.item_id for i in read_items(source)}, set(SuiteTruth.load(source).families), "items"
    elif kind == "groundeval":
        from judges.groundeval.traces import load_suite, load_truth

        inputs, truth, what = {c.question_id for c in load_suite(source)[1]}, set(load_truth(source)), "questions"
        if not inputs:
            raise InputError(f"{source / 'contracts.jsonl'}: no contracts; nothing to export (nothing written)")
    elif kind == "trajectories":
        from benchmark_builders.trajectories.records import read_suite

        read_suite(source)
        return
    else:
        return
    if inputs != truth:
        odd = sorted(inputs ^ truth)[0]
        raise InputError(f"{source / 'truth.jsonl'}: holds truth for other {what} than the suite's inputs "
                         f"({odd!r} is in one only); the suite is not one build's")


@click.command("export")
@click.argument("world_dir", metavar="SOURCE", type=click.Path(path_type=Path))
@click.option("--format", "fmt", required=True, cls=_FormatOption)
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
    from benchmark_builders.export.formats import EXPORT_FORMATS, format_names
    from benchmark_builders.export.hf import source_kind
    from benchmark_builders.export.hf_configs import KINDS
    from orgbench.core.errors import InputError
    from orgbench.core.storage import sha256_file
    from simulator.world import load_world

    known = (*format_names("world"), *(f for f in format_names("suite") if f not in format_names("world")))
    if fmt not in known:
        raise InputError(f"--format: unknown export format {fmt!r} (known: {', '.join(known)})")
    found = holds(world_dir)
    registered = EXPORT_FORMATS.require(fmt, "--format")
    whole = registered.standalone or "suite" in registered.scopes      # write(source, kind, out) does it all
    if whole and found in KINDS and (found == "a world" or "suite" in registered.scopes):
        kind = source_kind(found, Path(world_dir))
        read_as_used(kind, Path(world_dir))
        inputs = {"format": fmt, "source": sha256_file(Path(world_dir) / "MANIFEST.json")}
        with bound(out, "an orgbench export", "export", inputs, overwrite=overwrite):
            record: dict[str, Any] = (export_hf(world_dir, kind, out, prompts=cargo_prompts if kind == "cargo" else None) if fmt == "hf"
                      else registered.writer()(Path(world_dir), kind, out))
        click.echo(f"wrote {out}: {fmt} export of {world_dir} ({', '.join(f'{n} {c:,}' for n, c in record['counts'].items())} rows)")
        return
    if found in KINDS and found != "a world":
        raise InputError(f"{world_dir}: holds {found}; --format {fmt} exports a world (a suite exports as "
                         f"--format {' or '.join(format_names('suite'))})")
    if fmt not in format_names("world"):
        raise InputError(f"--format: {fmt} exports a suite, not a world")
    world = load_world(world_dir, verify=True)
    inputs = {"format": fmt, "world": sha256_file(Path(world_dir) / "MANIFEST.json")}
    with bound(out, "an orgbench export", "export", inputs, overwrite=overwrite):
        record = export_world(world, world_dir, fmt, out)
    counts = ", ".join(f"{value:,} {name.replace('_', ' ')}" for name, value in record["counts"].items())
    click.echo(f"wrote {out}: {fmt} export of {world_dir} ({counts})")


def register(cli: click.Group) -> None:
    """Add ``export`` to the orgbench CLI."""
    cli.add_command(export_command)
