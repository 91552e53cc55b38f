"""``orgbench simulate`` and ``orgbench inspect``: write a world, and read one back as a summary.

Heavy imports (simpy, faker, networkx, jinja2) happen inside the commands so
that ``orgbench --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from orgbench.outdir import bound, digest_of, overwrite_option


def _builtin_pack_names() -> list[str]:
    """The built-in packs, as simulator/packs holds them (listed, not imported: --help stays fast)."""
    return sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "simulator" / "packs").glob("*.toml"))


def _progress_bar(days: int):
    """A rich progress bar on a terminal, or nothing when output is redirected."""
    if not sys.stderr.isatty():
        return None, None
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("simulating"), BarColumn(), TextColumn("day {task.completed:.0f}/{task.total:.0f}"),
                   TimeElapsedColumn(), transient=True)
    task = bar.add_task("simulate", total=days)
    return bar, lambda done, total: bar.update(task, completed=done)


def _check_out(out: Path) -> None:
    """Refuse to replace anything at OUT that is not an empty directory or an earlier world."""
    from orgbench.commands.options import check_out_dir

    check_out_dir(out, ("world.json", "MANIFEST.json"), "a world written by orgbench")


def _refuse_unused_prose_options(prose: str) -> None:
    """Refuse what --prose leaves unused: --prose-concurrency or --prose-timeout typed with grammar (open_rewrite
    refuses the options that default to nothing), --base-url with a spec not reached at it (llm:local:…)."""
    from orgbench.commands.options import typed_options
    from orgbench.commands.preflight import refuse_request_options
    from orgbench.core.errors import InputError
    from orgbench.prose.rewrite import parse_prose

    spec = parse_prose(prose)
    if spec is not None:
        refuse_request_options((spec,))
        return
    option = next(iter(typed_options("prose_concurrency", "prose_timeout").values()), None)
    if option:
        raise InputError(f"{option}: needs --prose llm:SPEC")


@click.command("simulate")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="World directory to write (atomically); the same world may be rewritten, another is refused "
                   "(see --overwrite).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML config laid over the embedded default (orgbench/defaults/world.toml).")
@click.option("--seed", type=int, default=None, help="Override the config's seed.")
@click.option("--days", type=int, default=None, help="Override the number of simulated days.")
@click.option("--people", type=int, default=None, help="Override the headcount at the start.")
@click.option("--pack", default=None, help="Override the config's domain pack: a built-in name "
                                           f"({', '.join(_builtin_pack_names())}) or a .toml pack file (docs/packs.md).")
@click.option("--prose", default="grammar", show_default=True,
              help="grammar, or llm:SPEC (a judge spec: llm:local:smollm2, llm:openai:MODEL with --base-url) to "
                   "have a model rewrite artifact bodies, each kept only if its facts stay and no id is invented "
                   "(docs/world.md, \"Prose by a model\"). Meant for small worlds.")
@click.option("--base-url", default=None, help="With --prose llm:openai:MODEL: the endpoint's /v1 URL.")
@click.option("--prose-cache", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where rewrites are cached by content (default: OUT.prose_cache beside the world).")
@click.option("--prose-kinds", default=None,
              help="Artifact kinds to rewrite, comma-separated, or all (default: the free-prose kinds).")
@click.option("--prose-limit", type=click.IntRange(0), default=None,
              help="Rewrite at most the first N chosen versions (in the world's order); the rest keep the grammar.")
@click.option("--prose-concurrency", type=click.IntRange(1), default=4, show_default=True,
              help="Rewrite requests in flight (for llm:local:…, the server's slots).")
@click.option("--prose-timeout", type=float, default=60.0, show_default=True, help="Seconds per rewrite request.")
@overwrite_option
def simulate_command(out: Path, config_path: Path | None, seed: int | None, days: int | None,
                     people: int | None, pack: str | None, prose: str, base_url: str | None,
                     prose_cache: Path | None, prose_kinds: str | None, prose_limit: int | None,
                     prose_concurrency: int, prose_timeout: float, overwrite: bool) -> None:
    """Simulate an organisation and write its world to OUT.

    The world holds people, events, versioned artifacts, the access policy and
    the collaboration graph (see docs/world.md). The same config and seed give
    byte-identical files. OUT is written atomically; the same world there is
    rewritten, another world or anything else is left alone and the command
    stops (unless --overwrite). With --prose llm:SPEC a model rewrites the
    bodies (facts, ids and access unchanged), cached by content so that the
    same command gives the same bytes again, also with the server stopped.
    """
    import time

    from orgbench.prose import open_rewrite

    from simulator.config import load_config
    from simulator.simulate import simulate_to

    from dataclasses import asdict

    _refuse_unused_prose_options(prose)
    config = load_config(config_path, seed=seed, days=days, people=people, pack=pack)
    _check_out(out)
    rewrite = open_rewrite(out, prose, base_url=base_url, cache_dir=prose_cache, kinds=prose_kinds,
                           limit=prose_limit, concurrency=prose_concurrency, timeout=prose_timeout)
    inputs: dict[str, Any] = {"config": digest_of(asdict(config))}
    if rewrite is not None:
        inputs["prose"] = rewrite.binding()
    bar, progress = _progress_bar(config.days)
    started = time.perf_counter()
    try:
        with bound(out, "a world", "simulate", inputs, overwrite=overwrite):
            if bar is not None:
                with bar:
                    meta = simulate_to(config, out, progress, rewrite=rewrite)
            else:
                meta = simulate_to(config, out, rewrite=rewrite)
    finally:
        if rewrite is not None:
            rewrite.close()
    seconds = time.perf_counter() - started
    counts = meta["counts"]
    click.echo(f"wrote {out}: {counts['actors']} people, {counts['events']:,} events, "
               f"{counts['artifact_versions']:,} artifact versions ({counts['artifacts']:,} artifacts), "
               f"{meta['start'][:10]} to {meta['end'][:10]}, seed {config.seed}, {seconds:.1f} s")
    if rewrite is not None:
        click.echo(rewrite.summary())


@click.command("inspect")
@click.argument("world_dir", type=click.Path(path_type=Path))
@click.option("--samples", type=click.IntRange(0), default=3, show_default=True, help="Sample artifacts to show.")
@click.option("--realism", is_flag=True, help="Print how varied the prose is (repeats, vocabulary, skeletons).")
@click.option("--against", type=click.Path(path_type=Path), default=None,
              help="With --realism: a world of another seed, measured for overlap with WORLD_DIR.")
def inspect_command(world_dir: Path, samples: int, realism: bool, against: Path | None) -> None:
    """Summarise the world in WORLD_DIR after verifying its MANIFEST.json.

    A world whose files were edited after it was written fails with a line
    naming the file (exit code 2). With --realism, print the prose figures
    instead (docs/world.md, "Realism").
    """
    from simulator.inspection import summarise
    from simulator.world import load_world

    world = load_world(world_dir, verify=True)
    if not realism:
        if against is not None:
            raise click.UsageError("--against needs --realism")
        click.echo(summarise(world, world_dir, samples=samples))
        return
    from simulator.realism import measure, report

    second = load_world(against, verify=True) if against is not None else None
    click.echo(report(measure(world, second), str(world_dir)))


def register(cli: click.Group) -> None:
    """Add ``simulate`` and ``inspect`` to the orgbench CLI."""
    cli.add_command(simulate_command)
    cli.add_command(inspect_command)
