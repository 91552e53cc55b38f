"""``orgbench compare RUN…``: judges side by side — DI with CIs, κ / α, paired ΔDI, parse rate, tokens, cost."""

from __future__ import annotations

from pathlib import Path

import click


def register(cli: click.Group) -> None:
    """Add ``compare`` to the CLI."""

    @cli.command("compare")
    @click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True, path_type=Path))
    @click.option("--suite", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
                  help="The suite the runs judged (default: the one the first run's run.json names).")
    @click.option("--prices", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
                  help="TOML price table: [\"JUDGE\"] prompt_per_million = …, completion_per_million = … "
                       "(no prices are built in).")
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="Also write compare.md and compare.json here.")
    @click.option("--resamples", type=click.IntRange(1), default=10_000, show_default=True)
    def compare(runs: tuple[Path, ...], suite: Path | None, prices: Path | None, out: Path | None,
                resamples: int) -> None:
        """Compare CARGO judge runs of one suite (one run per judge; its seeds inside it)."""
        from judges.comparison import compare_runs, comparison_markdown, load_prices
        from orgbench.commands.options import check_out_dir
        from orgbench.core.storage import dumps_pretty, write_text_atomic

        if out is not None:
            check_out_dir(out, into=True)
        result = compare_runs(list(runs), suite_dir=suite, prices=load_prices(prices), resamples=resamples)
        text = comparison_markdown(result)
        if out is not None:
            write_text_atomic(out / "compare.json", dumps_pretty(result))
            write_text_atomic(out / "compare.md", "# Judge comparison\n\n" + text)
        click.echo(text, nl=False)
