"""CARGO-Bench commands: ``build cargo``, ``judge`` and ``tables cargo``.

Heavy imports (numpy, jinja2, the simulator, aiohttp, matplotlib) happen
inside the commands so that ``orgbench --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from orgbench.commands.local_options import structured_mode, structured_options
from orgbench.commands.options import check_cache_file, check_out_dir, parse_seeds, subgroup, typed_options
from orgbench.outdir import bind, bound, file_digest, guard, holds, overwrite_option, removed_on_failure


def parse_sizes(text: str) -> dict[str, int]:
    """Family sizes from "P1=50,P2=20": orgbench's own families at their defaults unless named; a plugin's
    family only when named."""
    from benchmark_builders.cargo.records import DEFAULT_SIZES, FAMILIES
    from orgbench.core.errors import InputError

    sizes = dict(DEFAULT_SIZES)
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if name not in FAMILIES or not value.isdigit():
            raise InputError(f"--sizes: expected FAMILY=COUNT for {', '.join(FAMILIES)}, got {part!r}")
        sizes[name] = int(value)
    return sizes


@click.command("cargo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Suite directory to write.")
@click.option("--seeds", default="0-9", show_default=True, help="World seeds, e.g. 0-9 or 0,1,2.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Simulator TOML config for the worlds (default: the built-in one at CARGO's size).")
@click.option("--world", "worlds", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="Use this world directory instead of simulating (repeatable; --seeds, --config, --people and "
                   "--days, which only shape simulated worlds, are then refused).")
@click.option("--people", type=int, default=None, help="People per simulated world (default 30).")
@click.option("--days", type=int, default=None, help="Days per simulated world (default 45).")
@click.option("--sizes", default="", help="Family sizes FAMILY=COUNT,... (e.g. P2=20); orgbench's own families not "
                                           "named keep their default size, a plugin's family is built only when "
                                           "named (the families and defaults: orgbench list).")
@click.option("--golden-per-procedure", type=click.IntRange(1), default=2, show_default=True,
              help="Golden references per in-scope runbook and world.")
@click.option("--suite-seed", type=int, default=0, show_default=True, help="Seed of the builder's own draws.")
@click.option("--pack", default=None, help="Domain pack (docs/packs.md): with --world, the pack file the worlds were "
                                           "made from (checked by digest; a built-in pack is found by name); "
                                           "when simulating, the pack to simulate (overrides the config's).")
@overwrite_option
def build_cargo(out: Path, seeds: str, config_path: Path | None, worlds: tuple[Path, ...], people: int | None,
                days: int | None, sizes: str, golden_per_procedure: int, suite_seed: int, pack: str | None,
                overwrite: bool) -> None:
    """Build a CARGO-Bench suite: items, truth, golden set, gating set, manifest."""
    from benchmark_builders.cargo import SuiteConfig, suite_from_world_objects, write_suite
    from benchmark_builders.cargo.worlds import load_worlds, pack_runbooks, shortfall
    from orgbench.core.errors import InputError

    option = next(iter(typed_options("seeds", "config_path", "people", "days").values()), None)
    if option and worlds:
        raise InputError(f"{option}: shapes only the worlds build cargo simulates, and --world gives them instead; "
                         f"drop {option} or --world")
    config = SuiteConfig(sizes=parse_sizes(sizes), golden_per_procedure=golden_per_procedure, seed=suite_seed)
    check_out_dir(out, ("items.jsonl", "MANIFEST.json"), "a CARGO suite")
    inputs = {"sizes": config.sizes, "golden_per_procedure": golden_per_procedure, "suite_seed": suite_seed,
              "config": file_digest(config_path), "people": people, "days": days,
              "worlds": [file_digest(Path(w) / "MANIFEST.json") for w in worlds] if worlds else list(parse_seeds(seeds)),
              **({"pack": file_digest(Path(pack)) if pack.endswith(".toml") else pack} if pack else {})}
    with bound(out, "a CARGO suite", "build cargo", inputs, overwrite=overwrite):
        if worlds:
            loaded = load_worlds(worlds)
        else:
            loaded = _simulate_with_progress(parse_seeds(seeds), config_path, people, days, pack)
        runbooks = pack_runbooks(loaded, pack, config_path if not worlds else None)
        suite = suite_from_world_objects(loaded, config, runbooks)
        if not suite.items:
            raise InputError(f"worlds: {shortfall(suite.meta) or 'no items could be built'}; "
                             "simulate more days or people")
        write_suite(suite, out)
    short = shortfall(suite.meta)
    if short:
        click.echo(f"note: {short}", err=True)
    counts = suite.meta["counts"]
    click.echo(f"wrote {out}: {suite.meta['items']} items ({', '.join(f'{k} {v}' for k, v in counts.items())}), "
               f"{suite.meta['gating_items']} gating questions, {suite.meta['golden']} golden references "
               f"from {len(loaded)} worlds")


def _simulate_with_progress(seeds: tuple[int, ...], config_path: Path | None, people: int | None,
                            days: int | None, pack: str | None = None) -> list:
    """Simulate one world per seed, a stage line on stderr as each finishes (and a bar on a terminal)."""
    import time

    from benchmark_builders.cargo.worlds import simulate_worlds
    from orgbench.commands.progress import Stages, track

    stages, loaded = Stages(), []
    for seed in track(seeds, len(seeds), "simulating worlds"):
        started = time.perf_counter()
        loaded.extend(simulate_worlds((seed,), config_path, people=people, days=days, pack=pack))
        stages.done(f"world seed {seed}", time.perf_counter() - started)
    return loaded


@click.command("judge")
@click.option("--suite", type=click.Path(file_okay=False, exists=True, path_type=Path), required=True,
              help="A CARGO suite directory (from `orgbench build cargo`).")
@click.option("--judge", "spec", required=True,
              help="openai:MODEL, local:MODEL (smollm2, gemma3-270m, PATH.gguf), builtin:NAME (literal, grounded, "
                   "token-f1, noref; `orgbench list` shows them all), replay:PATH. builtin:step and stub judge "
                   "assurance packets (orgbench assure), not CARGO.")
@click.option("--conditions", default="all", show_default=True,
              help="Comma-separated: noref, direct, direct+ctx, cargo, cargo+auth, cargo-ctx, cargo-exemplar, cargo-unv "
                   "(\"all\": these eight), or the variant cargo+kinds (names the four corruption kinds).")
@click.option("--rubric-swap", is_flag=True, help="Also run the rubric-swap control (prompt × rubric).")
@click.option("--seeds", default="0", show_default=True, help="Judge seeds, e.g. 0,1,2.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Run directory. Resumable with the same suite and settings; anything else is refused.")
@click.option("--concurrency", type=click.IntRange(1), default=16, show_default=True,
              help="Requests in flight at once (local:MODEL: at most --slots).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Judge only the first N items (in id order).")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True, help="Environment variable with the key.")
@click.option("--temperature", type=click.FloatRange(0), default=0.0, show_default=True,
              help="Sampling temperature of every request.")
@click.option("--max-tokens", type=click.IntRange(1), default=None,
              help="Token limit of every answer (default: none sent to openai:MODEL; 512 for local:MODEL).")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0, show_default=True, help="Per-request timeout in seconds.")
@click.option("--max-retries", type=click.IntRange(0), default=5, show_default=True,
              help="Retries of a request that timed out or got 408, 429 or 5xx, before it counts as an error.")
@click.option("--extra", multiple=True, metavar="KEY=VALUE",
              help="Extra request parameter passed through (repeatable), e.g. reasoning_effort=high.")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Response cache file, shareable between runs (default: OUT/cache.sqlite).")
@click.option("--dry-run", is_flag=True, help="Write the rendered requests to OUT/requests.jsonl and stop.")
@overwrite_option
@structured_options
def judge_command(suite: Path, spec: str, conditions: str, rubric_swap: bool, seeds: str, out: Path,
                  concurrency: int, limit: int | None, base_url: str | None, api_key_env: str,
                  temperature: float, max_tokens: int | None, timeout: float, max_retries: int,
                  extra: tuple[str, ...], cache: Path | None, dry_run: bool, overwrite: bool, structured: str | None,
                  slots: int) -> None:
    """Judge a CARGO suite under prompt conditions; writes OUT/judgments.jsonl and OUT/run.json.

    OUT/run.json records the suite (its digest and path) and every setting
    that changes an answer: judge, model, base URL, conditions, seeds,
    temperature, max tokens, extra parameters. Run the same command again to
    resume an interrupted run; a resume with another suite or any of those
    settings different is refused (exit 2). --concurrency, --limit,
    --timeout, --max-retries, --cache and --api-key-env may change between
    resumes. A builtin: judge sends no request: --base-url, --api-key-env,
    --temperature, --max-tokens, --timeout, --max-retries and --extra are
    refused with it (and --structured and --slots), --base-url and
    --api-key-env with local:MODEL (which starts its own server), --slots
    with any judge but local:MODEL.
    """
    import shutil

    from benchmark_builders.cargo.records import read_items
    from judges.backends import EndpointConfig, parse_extra
    from judges.cargo_run import every_request_failed, make_jobs, run_cargo_jobs
    from judges.conditions import parse_conditions
    from orgbench.commands.preflight import check_endpoint, refuse_request_options
    from orgbench.commands.progress import Totals

    extra_params = parse_extra(extra)
    chosen = parse_conditions(conditions, rubric_swap=rubric_swap)
    judge_seeds = parse_seeds(seeds)
    check_judge_spec(spec)
    refuse_request_options((spec,))
    guard(out, "a CARGO dry run" if dry_run else "a CARGO judge run", overwrite=overwrite)
    check_out_dir(out, into=True)
    check_cache_file(cache)
    items = read_items(suite, limit)
    jobs = make_jobs(items, chosen, judge_seeds, temperature=temperature, max_tokens=max_tokens)
    if dry_run:
        _write_requests(out, jobs)
        return
    check_endpoint(spec, base_url)
    if overwrite and holds(out):
        shutil.rmtree(out)
    totals = Totals()
    with removed_on_failure(out):
        endpoint = EndpointConfig(base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                                  max_retries=max_retries, concurrency=concurrency, extra=extra_params)
        summary = run_cargo_jobs(jobs, spec, out, suite=suite, conditions=[c.name for c in chosen], seeds=judge_seeds,
                                 endpoint=endpoint, temperature=temperature, max_tokens=max_tokens, cache_path=cache,
                                 progress=True, totals=totals, structured=structured_mode(spec, structured),
                                 slots=slots)
        if summary.judgments and summary.errors == summary.judgments:
            every_request_failed(Path(out))
    click.echo(_run_line(out, summary))
    click.echo(totals.line())


def _run_line(out: Path, summary) -> str:
    """The line a finished judge run prints: its judgments by outcome, requested and already done."""
    return (f"{out}: {summary.judgments} judgments ({summary.penalized} penalised, {summary.passed} passed, "
            f"{summary.cannot_decide} cannot_decide, {summary.unparsed} unparsed, {summary.errors} errors); "
            f"{summary.requested} requested, {summary.already_done} already done")


def _write_requests(out: Path, jobs: list) -> None:
    """A dry run: write the rendered requests to OUT/requests.jsonl and say so; nothing is sent."""
    from judges.runner import job_to_json
    from orgbench.core.storage import write_jsonl

    count = write_jsonl(Path(out) / "requests.jsonl", (job_to_json(job) for job in jobs))
    click.echo(f"wrote {Path(out) / 'requests.jsonl'}: {count} rendered requests (nothing sent)")


def check_judge_spec(spec: str) -> None:
    """Refuse a CARGO judge spec naming no judge, in the user's terms (the choices, and the nearest one)."""
    import difflib

    from orgbench.commands.registry import cargo_judges
    from orgbench.core.errors import InputError

    kind, _, name = spec.partition(":")
    if kind != "builtin":
        return
    choices = cargo_judges()
    if spec not in choices:
        near = difflib.get_close_matches(spec, choices, n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise InputError(f"--judge {spec}: no built-in CARGO judge is called {name!r}; {hint}"
                         f"choose one of {', '.join(choices)} (or openai:MODEL)")


@click.command("cargo")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory for the tables; one holding anything else is refused (see --overwrite).")
@click.option("--suite", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="The suite the runs judged (default: the path in the first run's run.json). It must be the "
                   "suite every run's run.json records (same digest), or the command is refused.")
@click.option("--resamples", type=click.IntRange(1), default=10_000, show_default=True, help="Bootstrap resamples for the CIs.")
@overwrite_option
def tables_cargo(runs: tuple[Path, ...], out: Path, suite: Path | None, resamples: int, overwrite: bool) -> None:
    """Write Tables 1–3 (Markdown, CSV, LaTeX) and the risk–coverage figure from RUN directories.

    A RUN may also be an inspect_ai eval log (.eval or .json) of orgbench/cargo_bench: the logs of one model
    are read as one run (judge inspect:MODEL). The suite is the one the runs' run.json (or the logs) record;
    every run must have judged that same suite (same digest), and a judgment of an item that is not in the
    suite's truth is an error.
    """
    from orgbench.harness.inspect_log import inspect_runs, is_inspect_log, run_dirs
    from orgbench.report.cargo_tables import write_tables
    from orgbench.core.errors import InputError
    from orgbench.core.storage import sha256_file, staged_directory

    for run in runs:
        found = "an inspect log" if is_inspect_log(run) else holds(run)
        if found not in ("a CARGO judge run", "an inspect log"):
            hint = (" (score it with `orgbench score groundeval`, then `orgbench tables groundeval`)"
                    if found == "a GroundEval agent run" else "")
            raise InputError(f"{run}: holds {found or 'nothing'}, not a CARGO judge run (the folder `orgbench "
                             f"judge` writes) or an inspect log of orgbench/cargo_bench{hint}")
    inputs = {"runs": [{"inspect_log": sha256_file(run)} if is_inspect_log(run) else
                       {name: sha256_file(run / name) for name in ("run.json", "judgments.jsonl")
                        if (run / name).is_file()} for run in runs],
              "suite": str(suite) if suite else None, "resamples": resamples}
    guard(out, "CARGO tables", inputs, overwrite=overwrite)
    check_out_dir(out, into=True)
    with inspect_runs(runs) as run_of, staged_directory(out) as tmp:
        written = write_tables(run_dirs(runs, run_of), suite, tmp, resamples=resamples)
        bind(tmp, "tables cargo", inputs)
    click.echo(f"wrote {len(written)} files to {out}")


def register(cli: click.Group) -> None:
    """Add ``build cargo``, ``judge`` and ``tables cargo`` to the CLI."""
    subgroup(cli, "build").add_command(build_cargo)
    subgroup(cli, "tables").add_command(tables_cargo)
    cli.add_command(judge_command)
