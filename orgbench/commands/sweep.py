"""``orgbench sweep SWEEP.toml``: run a grid of worlds, suites, agents and judges as cached stages."""

from __future__ import annotations

import os
from pathlib import Path

import click


def _refuse_unused_ray_options(executor: str, address: str | None) -> None:
    """Refuse (InputError) --workers or --address typed where no Ray is started: --executor serial; and --workers
    with a cluster to join (--address or $RAY_ADDRESS), whose size is its own."""
    from orgbench.commands.options import typed_options
    from orgbench.core.errors import InputError

    option = next(iter(typed_options("workers", "address").values()), None)
    if option and executor == "serial":
        raise InputError(f"{option}: --executor serial runs the stages in this process, with no Ray; drop {option} "
                         "or --executor serial")
    if address and typed_options("workers"):
        raise InputError(f"--workers: sizes the local Ray orgbench starts, and the stages go to the cluster at "
                         f"{address} (--address or $RAY_ADDRESS) instead; drop --workers or the address")


def register(cli: click.Group) -> None:
    """Add ``sweep`` to the CLI."""

    @cli.command()
    @click.argument("sweep_file", type=click.Path(path_type=Path, dir_okay=False))
    @click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("sweep-results"),
                  show_default=True, help="Where the combined table (CSV, Parquet) and report are written.")
    @click.option("--work-dir", type=click.Path(path_type=Path, file_okay=False), default=Path("build/sweep"),
                  show_default=True, help="Cache of worlds, suites, runs and scores; reused when inputs match.")
    @click.option("--executor", type=click.Choice(("ray", "serial")), default="ray", show_default=True,
                  help="ray: stages as Ray tasks; serial: one after another in this process.")
    @click.option("--workers", type=click.IntRange(1), default=2, show_default=True,
                  help="CPUs of the local Ray that orgbench starts (refused with --address or $RAY_ADDRESS, and "
                       "with --executor serial).")
    @click.option("--address", default=None, help="An existing Ray cluster (ray://HOST:PORT; default: $RAY_ADDRESS).")
    @click.option("--fresh", is_flag=True, help="Redo every stage instead of reusing finished ones.")
    def sweep(sweep_file: Path, out: Path, work_dir: Path, executor: str, workers: int, address: str | None,
              fresh: bool) -> None:
        """Expand SWEEP_FILE into world → suite → run → tables stages and run them (see docs/sweeps.md).

        Each stage is a directory keyed by its inputs and code, written
        atomically: a rerun, or a run after an interruption, redoes only the
        stages that had not finished.
        """
        from orgbench.commands.options import check_out_dir
        from orgbench.commands.preflight import check_endpoint
        from orgbench.sweep import run_sweep
        from orgbench.sweep.spec import load_sweep

        address = address or os.environ.get("RAY_ADDRESS") or None
        _refuse_unused_ray_options(executor, address)
        check_out_dir(work_dir, option="--work-dir", into=True)
        check_out_dir(out, ("MANIFEST.json", "table.csv", "report.md"), "the output of orgbench sweep")
        grid = load_sweep(sweep_file)           # every model endpoint is checked before a world is built
        models = [("groundeval", grid.groundeval.base_url, grid.groundeval.agents)] if grid.groundeval else []
        models += [("cargo", grid.cargo.base_url, grid.cargo.judges)] if grid.cargo else []
        for study, base_url, specs in models:
            for spec in specs:
                check_endpoint(spec, base_url, option=f"{sweep_file}: {study}.base_url")
        result = run_sweep(sweep_file, out, work_dir, executor=executor, workers=workers,
                           address=address, fresh=fresh, echo=click.echo)
        budget = "".join(f"; at most {n} requests at once to {url}" for url, n in result.peaks)
        click.echo(f"sweep: {len(result.built)} stages built, {len(result.reused)} reused ({result.executor})"
                   f"{budget}; table: {out / 'table.csv'}, report: {out / 'report.md'}")
