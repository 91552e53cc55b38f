"""``orgbench compare RUN…``: CARGO judge runs or assurance contrast runs side by side, or two GroundEval agent runs.

The kind of run is read from each directory: a CARGO judge run holds
``judgments.jsonl``, a GroundEval agent run ``answers.jsonl`` (and
``traces.jsonl``), a contrast run ``contrast.json`` and ``flags.csv``. Runs of
different kinds or suites are refused.
"""

from __future__ import annotations

from pathlib import Path

import click


def run_kind(run: Path) -> str:
    """``cargo``, ``groundeval`` or ``assurance``, from what the run directory holds (InputError if none)."""
    from judges.assurance.contrast_compare import is_contrast_run
    from judges.judgments import JUDGMENTS
    from orgbench.core.errors import InputError

    from orgbench.harness.inspect_log import is_inspect_log

    if (run / JUDGMENTS).is_file() or is_inspect_log(run):
        return "cargo"
    if (run / "answers.jsonl").is_file():
        return "groundeval"
    if is_contrast_run(run):
        return "assurance"
    raise InputError(f"{run}: not a CARGO judge run ({JUDGMENTS}), a GroundEval agent run (answers.jsonl) or a "
                     "contrast run (contrast.json and flags.csv), nor an inspect log of orgbench/cargo_bench")


def _kind_of(runs: tuple[Path, ...]) -> str:
    from orgbench.core.errors import InputError

    kinds = [run_kind(run) for run in runs]
    for run, kind in zip(runs[1:], kinds[1:]):
        if kind != kinds[0]:
            raise InputError(f"{run}: a {kind} run, but {runs[0]} is a {kinds[0]} run; compare runs of one kind")
    if kinds[0] == "groundeval" and len(runs) != 2:
        raise InputError(f"compare: GroundEval agent runs are compared two at a time (RUN_A RUN_B), got {len(runs)}")
    return kinds[0]


def register(cli: click.Group) -> None:
    """Add ``compare`` to the CLI."""

    @cli.command("compare")
    @click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
    @click.option("--suite", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
                  help="The suite the runs judged or answered (default: the one the first run's run.json names).")
    @click.option("--prices", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
                  help="CARGO: TOML price table: [\"JUDGE\"] prompt_per_million = …, completion_per_million = … "
                       "(no prices are built in).")
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="Also write compare.md and compare.json here.")
    @click.option("--label", "labels", multiple=True, metavar="NAME",
                  help="CARGO: name each run (give one per run, in order), so runs of one judge spec (another "
                       "temperature, prompt or seed set) are compared side by side.")
    @click.option("--resamples", type=click.IntRange(1), default=10_000, show_default=True,
                  help="Bootstrap resamples for the CIs.")
    @click.option("--fail-on-regression", "tolerance", type=click.FloatRange(0), default=None, metavar="DELTA",
                  help="GroundEval: exit 1 when mean S_adj of RUN_B is below RUN_A's by more than DELTA (0: any drop).")
    def compare(runs: tuple[Path, ...], suite: Path | None, prices: Path | None, out: Path | None,
                labels: tuple[str, ...], resamples: int, tolerance: float | None) -> None:
        """Compare RUNS: CARGO judge runs of one suite or contrast runs of one cohort (one run per judge), or two
        GroundEval agent runs RUN_A RUN_B. A CARGO run may be an inspect_ai log of orgbench/cargo_bench (the
        logs of one model are one run)."""
        from orgbench.commands.options import check_out_dir
        from orgbench.core.errors import InputError
        from orgbench.core.storage import dumps_pretty, write_text_atomic

        if out is not None:
            check_out_dir(out, into=True)
        kind = _kind_of(runs)
        if labels and kind != "cargo":
            raise InputError(f"--label: names CARGO judge runs, not {kind} runs")
        if kind != "groundeval" and tolerance is not None:
            raise InputError(f"--fail-on-regression: applies to GroundEval agent runs (S_adj), not {kind} runs")
        if kind == "assurance":
            from judges.assurance.contrast_compare import compare_contrast_runs, contrast_comparison_markdown

            if prices is not None or suite is not None:
                raise InputError("--prices/--suite: contrast runs carry their own packets and record no token table")
            result = compare_contrast_runs(list(runs), resamples=resamples)
            text, title = contrast_comparison_markdown(result), "# Contrast comparison"
        elif kind == "groundeval":
            from judges.groundeval.comparison import agent_comparison_markdown, compare_agent_runs, regression

            if prices is not None:
                raise InputError("--prices: only CARGO judge runs are priced; agent runs record no token table")
            result = compare_agent_runs(runs[0], runs[1], suite_dir=suite, resamples=resamples)
            text, title = agent_comparison_markdown(result), "# Agent comparison"
        else:
            from judges.comparison import compare_runs, comparison_markdown, load_prices
            from orgbench.harness.inspect_log import inspect_runs, run_dirs

            with inspect_runs(runs) as run_of:
                dirs = run_dirs(runs, run_of)
                result = compare_runs(dirs, suite_dir=suite, prices=load_prices(prices), resamples=resamples,
                                      labels=list(labels) if labels else None)
            given = {str(run_of[run]): run for run in reversed(runs)}     # a log's run: named by its first log
            for entry in result["judges"].values():
                entry["run"] = str(given.get(entry["run"], entry["run"]))
            text, title = comparison_markdown(result), "# Judge comparison"
        if out is not None:
            write_text_atomic(out / "compare.json", dumps_pretty(result))
            write_text_atomic(out / "compare.md", f"{title}\n\n{text}")
        click.echo(text, nl=False)
        failed = regression(result, tolerance) if kind == "groundeval" and tolerance is not None else None
        if failed is not None:
            click.echo(failed, err=True)
            raise SystemExit(1)
