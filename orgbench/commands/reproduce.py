"""``orgbench reproduce`` and ``orgbench report``: every study's tables and figures, one command.

Each study runs its stages (worlds, suites, runs) as cached directories under
``--work-dir``; a second run with the same inputs reuses them. Each study's
results directory is written under a temporary name and renamed into place,
so an interrupted run never leaves a partial table that looks finished. After
any study, ``README.md`` and ``index.html`` are rewritten (atomically) from
the complete study folders the output directory holds.
"""

from __future__ import annotations

import time
from pathlib import Path

import click


RESULTS = "results (orgbench reproduce)"


def default_out(judges: tuple[str, ...]) -> Path:
    """``results`` for the built-in judges; a model run's folder is named after its models (never results/)."""
    from orgbench.studies.models import slug

    return Path("results-" + "+".join(slug(j) for j in judges)) if judges else Path("results")


def judges_held(out: Path) -> tuple[str, ...] | None:
    """The judges whose results ``out`` holds (``()``: the built-in ones), None if it holds no results."""
    from orgbench.core.storage import read_json
    from orgbench.outdir import _binding, holds

    if holds(out) != RESULTS:
        return None
    binding = _binding(out) or {}
    inputs = binding.get("inputs") if binding.get("command") == "reproduce" else None
    if isinstance(inputs, dict) and isinstance(inputs.get("judges"), list):
        return tuple(str(j) for j in inputs["judges"])
    compared = Path(out) / "groundeval" / "compare.json"        # a model comparison written before the binding
    if compared.is_file():
        agents = read_json(compared).get("agents")
        return tuple(sorted(agents)) if isinstance(agents, dict) else ()
    return ()


def _names(judges: tuple[str, ...]) -> str:
    return ", ".join(judges) if judges else "the built-in judges"


def judges_to_run(out: Path, asked: tuple[str, ...], *, add: bool, overwrite: bool) -> tuple[str, ...]:
    """The judges to run into ``out``: refuse a folder holding other judges' results unless --add or --overwrite, and
    the built-in judges' results (results/) to any model, whatever the flags."""
    from orgbench.core.errors import InputError

    if add and overwrite:
        raise InputError("--add and --overwrite: choose one (--add keeps the results --out holds, --overwrite "
                         "replaces them)")
    from judges.backends.registry import is_builtin

    held = judges_held(out)
    if held == () and any(not is_builtin(spec) for spec in asked):
        raise InputError(f"--out {out}: holds the results of the built-in judges (results/ as committed); a model "
                         f"run never writes there, --overwrite or not: leave --out out (the folder is then named "
                         f"after the models, {default_out(asked)}) or choose another directory")
    if held is None or set(held) == set(asked) or overwrite:
        if add and held is None:
            raise InputError(f"--add: --out {out} holds no results to add to; leave --add out")
        return asked
    if add:
        if not held or not asked:
            raise InputError(f"--add: --out {out} holds the results of {_names(held)}; --add merges model runs "
                             f"only into a folder of model runs (choose another --out)")
        return held + tuple(j for j in asked if j not in held)
    raise InputError(f"--out {out}: holds the results of {_names(held)}, not of {_names(asked)}; choose another "
                     f"directory, add --add to merge these into it (keeping its runs) or --overwrite to replace it")


def record_judges(out: Path, judges: tuple[str, ...], quick: bool) -> None:
    """Record which judges' results ``out`` holds (none for the built-in ones: results/ stays as committed)."""
    from orgbench.outdir import BINDING, bind

    if judges:
        bind(out, "reproduce", {"judges": list(judges), "quick": quick})
    else:
        (Path(out) / BINDING).unlink(missing_ok=True)


def chosen_studies(study: str, judge: str | None) -> list:
    """The studies ``reproduce STUDY`` runs (their descriptors); InputError when ``judge`` cannot serve one of them."""
    from orgbench.studies.descriptor import STUDIES, study as named

    chosen = list(STUDIES.all()) if study == "all" else [named(study)]
    for one in chosen:
        if judge:
            one.check(judge)
    return chosen


def run_study(descriptor, out: Path, options, echo) -> str:
    """Run one study into ``out`` (its folder renamed into place when finished); echo and return its line."""
    from orgbench.core.registry import load_attr
    from orgbench.core.storage import staged_directory

    name = descriptor.name
    echo(f"{name}: running")
    started = time.perf_counter()
    with staged_directory(out / descriptor.where) as tmp:
        load_attr(descriptor.reproduce, f"study {name}")(tmp, options)
    line = f"{name}: {out / descriptor.where} ({time.perf_counter() - started:.1f} s)"
    echo(line)
    return line


def run_reproduce(study: str, out: Path, options, echo=lambda line: None, jobs: int = 1) -> list[str]:
    """Run one study or all of them (in ``jobs`` processes at once, ``parallel_studies``); ``echo`` each stage and
    study line as it finishes; return the study lines in the studies' order."""
    from orgbench.outdir import removed_on_failure
    from orgbench.commands.progress import Stages

    chosen = chosen_studies(study, options.judge)
    with removed_on_failure(out), Stages(lambda line: echo(line)):
        if jobs > 1 and len(chosen) > 1:
            from orgbench.commands.parallel_studies import run_in_parallel

            lines = run_in_parallel(run_study, chosen, out, options, jobs, echo)
        else:
            lines = [run_study(descriptor, out, options, echo) for descriptor in chosen]
        from orgbench.report import write_report, write_results_readme

        # every study folder present is complete (each is renamed into place when finished), so the README
        # and the report describe exactly what the output directory holds, whichever study just ran
        write_results_readme(out)
        write_report(out, out / "index.html")
    lines.append(f"report: {out / 'index.html'}")
    echo(lines[-1])
    return lines


def _reproduce(study: str, out: Path, work_dir: Path, judges: tuple[str, ...], quick: bool, base_url: str | None,
               seeds: str | None, fresh: bool, overwrite: bool, totals, jobs: int = 1) -> None:
    """Reproduce ``study`` into ``out`` with ``judges`` (none: the built-in ones); see ``reproduce``."""
    from orgbench.commands.options import check_out_dir, parse_seeds
    from orgbench.outdir import guard
    from orgbench.commands.preflight import check_endpoint
    from orgbench.studies import ReproduceOptions

    compared = quick or len(judges) > 1
    if compared and seeds:
        from orgbench.core.errors import InputError

        raise InputError("--seeds: comparing judges uses each study's default worlds; leave --seeds out")
    judge = judges[0] if judges else None
    for spec in judges or (None,):                  # before anything is written: one line, exit 2
        chosen_studies("all" if compared else study, spec)
    guard(out, RESULTS, overwrite=overwrite)
    check_out_dir(out, into=True)
    check_out_dir(work_dir, option="--work-dir", into=True)
    options = ReproduceOptions(work_dir=work_dir, judge=judge, base_url=base_url,
                               seeds=parse_seeds(seeds) if seeds else None, fresh=fresh,
                               extra={"totals": totals})
    for spec in judges:
        check_endpoint(spec, base_url)
    if compared:
        from orgbench.studies.models_outputs import reproduce_models

        reproduce_models(study, judges, out, options, quick=quick, echo=click.echo)
        click.echo(totals.wall())
        return
    from orgbench.commands.parallel_studies import usable_cores

    run_reproduce(study, out, options, echo=click.echo, jobs=min(jobs, usable_cores()))   # never more than the cores
    from judges.backends.registry import is_builtin

    llm = bool(judge and not is_builtin(judge) and study in ("all", "cargo"))
    click.echo(totals.line() + " (the CARGO judge's requests)" if llm else totals.wall())


def register(cli: click.Group) -> None:
    """Add ``reproduce`` and ``report`` to the CLI."""

    @cli.command()
    @click.argument("study", default="all")
    @click.option("--out", type=click.Path(path_type=Path), default=None,
                  help="Where tables, figures and the report are written  [default: results with the built-in "
                       "judges; with --judge, results-JUDGE[+JUDGE...], named after them]")
    @click.option("--work-dir", type=click.Path(path_type=Path), default=Path("build"), show_default=True,
                  help="Cache of worlds, suites and runs; reused when inputs match.")
    @click.option("--judge", "judges", multiple=True,
                  help="Judge/agent SPEC (e.g. openai:MODEL, local:smollm2); default: built-in, offline. Given twice "
                       "or more (or with --quick): every judge through every study, compared (docs/judges.md).")
    @click.option("--quick", is_flag=True, help="With --judge: the documented subset of every study (about an hour "
                                                "per small local model on two cores).")
    @click.option("--base-url", default=None, help="OpenAI-compatible endpoint for --judge openai:MODEL.")
    @click.option("--seeds", default=None, help="World seeds, e.g. 0-9 or 0,1,2 (default: each study's own).")
    @click.option("--fresh", is_flag=True, help="Redo every stage instead of reusing cached ones.")
    @click.option("--add", is_flag=True, help="--out holds other models' results: add these judges to them (their "
                                              "runs are kept, read again from --work-dir).")
    @click.option("--overwrite", is_flag=True, help="Replace what --out holds even if other judges made it.")
    @click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                  help="Studies run at once, each in its own process, never more than the cores this process may use "
                       "(1: one after another; the output is the "
                       "same bytes either way; Ctrl-C or SIGTERM stops every study's process as it stops a serial "
                       "run: half-built folders removed, finished stages kept).")
    def reproduce(study: str, out: Path | None, work_dir: Path, judges: tuple[str, ...], quick: bool,
                  base_url: str | None, seeds: str | None, fresh: bool, add: bool, overwrite: bool,
                  jobs: int) -> None:
        """Build the default worlds and suites, run every study, write every table and figure.

        STUDY is all (default) or one study: cargo, groundeval, assurance (or a
        plugin's; orgbench list). With no --judge, the built-in judges and
        agents run offline (no network, no key). A --judge that cannot serve
        a chosen study (a judge-only spec in groundeval) is refused.
        """
        from orgbench.commands.preflight import refuse_request_options
        from orgbench.commands.progress import Totals
        from orgbench.outdir import one_writer

        refuse_request_options(judges)
        totals = Totals()
        out = out or default_out(judges)
        with one_writer([("--out", out)], "orgbench reproduce"):
            judges = judges_to_run(out, judges, add=add, overwrite=overwrite)
            _reproduce(study, out, work_dir, judges, quick, base_url, seeds, fresh, overwrite, totals, jobs)
            record_judges(out, judges, quick)

    @cli.command()
    @click.option("--results", "results_dir", type=click.Path(path_type=Path, file_okay=False), default=Path("results"),
                  show_default=True, help="A results directory written by orgbench reproduce.")
    @click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None,
                  help="Where to write the HTML (default: RESULTS/index.html).")
    def report(results_dir: Path, out: Path | None) -> None:
        """Write a static, self-contained index.html of every study's results (no network at view time)."""
        from orgbench.report import write_report

        from orgbench.commands.options import check_out_dir

        target = out or results_dir / "index.html"
        check_out_dir(target.parent, option="--out")
        write_report(results_dir, target)
        click.echo(f"report: {target}")
