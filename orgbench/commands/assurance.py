"""``orgbench build trajectories`` and ``orgbench assure …``: trajectories, the checked pipeline, the studies.

Stage commands exit 0 on success, 1 when a check failed (the step record says
which requirement and why), 3 when the stage refused to start or to hand
anything on, and 2 on bad input.
"""

from __future__ import annotations

from pathlib import Path

import click

STAGE_NAMES = ("build", "check", "stage", "emit", "dispatch")


def make_judge(spec: str, base_url: str | None):
    """``builtin:step`` (the packet-reading step judge), ``stub[:LOG]``, or any registry spec (openai:MODEL …)."""
    if spec == "builtin:step":
        from judges.assurance.step_judge import PacketStepJudge

        return PacketStepJudge()
    from judges.backends import make_backend

    return make_backend(spec, base_url=base_url) if base_url else make_backend(spec)


def _import_trajectories(import_file: Path, fmt: str, out: Path, on_error: str) -> str:
    """Import a JSONL file into a suite: a rejected record stops it (``stop``) or is left out and listed (``skip``)."""
    from benchmark_builders.trajectories.importers import import_file as run_import
    from benchmark_builders.trajectories.records import write_suite
    from simulator.errors import InputError

    result = run_import(import_file, fmt)
    rejected = result.rejected
    if rejected and on_error == "stop":
        for line in result.problems:
            click.echo(f"problem: {line}", err=True)
        raise InputError(f"{import_file}: {len(result.problems)} problem(s) in {len(rejected)} of "
                         f"{result.records_read} record(s), the first at line {rejected[0].line} (listed above); "
                         f"nothing written (--on-error skip leaves such records out)")
    if not result.trajectories:
        raise InputError(f"{import_file}: every one of the {result.records_read} record(s) has a problem, "
                         f"the first: {result.problems[0]}; nothing written")
    write_suite(out, result.trajectories, result.labels, {"built_by": "orgbench build trajectories",
                                                          "import": result.to_json(), "format": fmt})
    if rejected:
        lines = ", ".join(str(record.line) for record in rejected[:10])
        more = f" and {len(rejected) - 10} more" if len(rejected) > 10 else ""
        click.echo(f"imported {len(result.trajectories)} of {result.records_read} records from {import_file}; "
                   f"skipped {len(rejected)} (lines {lines}{more}): see {Path(out) / 'suite.json'}", err=True)
    return f"{len(result.trajectories)} trajectories imported to {out}"


def _trajectories(world: Path | None, import_file: Path | None, fmt: str, out: Path, n: int, seed: int | None,
                  on_error: str = "stop") -> str:
    from benchmark_builders.trajectories.records import write_suite
    from orgbench.commands.options import check_out_dir
    from simulator.errors import InputError

    check_out_dir(out, ("trajectories.jsonl", "MANIFEST.json"), "a trajectory suite")
    if import_file is not None:
        return _import_trajectories(import_file, fmt, out, on_error)
    if on_error != "stop":
        raise InputError("--on-error: applies to --import only")
    if world is None:
        raise InputError("build trajectories: give --world DIR (or --import FILE)")
    from benchmark_builders.trajectories.simulate import cases_from_world, simulate_trajectories
    from simulator.world import load_world

    loaded = load_world(world)
    cases = cases_from_world(loaded)
    if not cases:
        raise InputError(f"{world}: the world has no asset support cases under active entitlement")
    seed = loaded.seed if seed is None else seed
    trajectories, labels = simulate_trajectories(cases, n, seed)
    write_suite(out, trajectories, labels, {"built_by": "orgbench build trajectories", "world_seed": loaded.seed,
                                            "seed": seed, "cases": len(cases)})
    errors = sum(any(v == -1 for v in l.labels.values()) for l in labels)
    return f"{len(trajectories)} trajectories ({errors} with a constructed error) from {len(cases)} cases -> {out}"


def register(cli: click.Group) -> None:
    """Add ``build trajectories`` and the ``assure`` group to the CLI."""
    build_group = cli.commands["build"]

    @build_group.command("trajectories")
    @click.option("--world", type=click.Path(path_type=Path), help="World directory to take support cases from.")
    @click.option("--import", "import_file", type=click.Path(path_type=Path),
                  help="Import recorded trajectories instead (JSONL).")
    @click.option("--format", "fmt", type=click.Choice(["apb", "openai", "tau2"]), default="apb", show_default=True,
                  help="Import format: AgentProcessBench-style or plain OpenAI-chat JSONL, or tau2-style messages.")
    @click.option("--on-error", type=click.Choice(["stop", "skip"]), default="stop", show_default=True,
                  help="With --import, a record with any problem: stop lists every problem and writes nothing "
                       "(exit 2); skip leaves each such record out whole, lists it with its problems in "
                       "SUITE/suite.json (import.skipped) and says so on stderr (exit 2 only if none is left).")
    @click.option("--out", required=True, type=click.Path(path_type=Path), help="Suite directory to write.")
    @click.option("--n", default=60, show_default=True, type=click.IntRange(1), help="Trajectories to simulate.")
    @click.option("--seed", type=int, default=None, help="Trajectory seed (default: the world's seed).")
    def build_trajectories(world, import_file, fmt, on_error, out, n, seed):
        """Simulate support-agent trajectories with step labels (or import recorded ones)."""
        click.echo(_trajectories(world, import_file, fmt, out, n, seed, on_error))

    @cli.group()
    def assure() -> None:
        """Judge-input assurance: build, check, stage, emit, dispatch packets; the fault and contrast studies."""

    def _stage_command(step: str):
        @click.option("--source", required=True, type=click.Path(path_type=Path), help="Trajectory suite directory.")
        @click.option("--work", required=True, type=click.Path(path_type=Path), help="Pipeline workspace.")
        @click.option("--controls", default="P3", show_default=True, help="P0 | P1 | P2 | P3 (cumulative).")
        @click.option("--draws", default=2, show_default=True, type=click.IntRange(1), help="Judgements per packet.")
        @click.option("--judge", default="stub", show_default=True,
                      help="dispatch only: stub[:LOG], builtin:step, openai:MODEL.")
        @click.option("--base-url", default=None, help="dispatch only: OpenAI-compatible endpoint.")
        @click.pass_context
        def command(ctx, source, work, controls, draws, judge, base_url):
            from judges.assurance.pipeline import Controls, PipelineConfig, StageRefused, run_step
            from orgbench.commands.options import check_out_dir

            check_out_dir(work, option="--work", into=True)
            cfg = PipelineConfig(source, work, Controls.parse(controls), draws=draws)
            backend = make_judge(judge, base_url) if step == "dispatch" else None
            try:
                result = run_step(cfg, step, backend)
            except StageRefused as refused:
                click.echo(f"{step}: refused ({refused.requirement}): {refused.reason}", err=True)
                ctx.exit(3)
            if result.return_code:
                click.echo(result.summary(), err=True)
                ctx.exit(1)
            click.echo(f"{step}: ok (record {work}/records/{step}.link.json)")

        command.__doc__ = {"build": "Render packets, check them inline, record exact-byte hashes.",
                           "check": "Disk check: reread source records and packets, verify every requirement.",
                           "stage": "Copy exactly the expected packets for the judge, verifying their bytes.",
                           "emit": "Write one dispatch script per staged packet.",
                           "dispatch": "Verify each packet's bytes and hand that same buffer to the judge."}[step]
        return assure.command(step)(command)

    for name in STAGE_NAMES:
        _stage_command(name)

    @assure.command("faults")
    @click.option("--out", required=True, type=click.Path(path_type=Path), help="Where to write the table and CSV.")
    def faults(out):
        """The 19 fault cases + CRLF + 2 controls under P0..P3 with the recording stub."""
        from orgbench.commands.options import check_out_dir

        check_out_dir(out, into=True)
        click.echo(write_faults(out))

    @assure.command("contrast")
    @click.option("--source", required=True, type=click.Path(path_type=Path), help="Trajectory suite directory.")
    @click.option("--out", required=True, type=click.Path(path_type=Path), help="Where to write the contrast.")
    @click.option("--judge", default="builtin:step", show_default=True, help="builtin:step, openai:MODEL, local:MODEL, stub.")
    @click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
    @click.option("--draws", default=2, show_default=True, type=click.IntRange(1))
    @click.option("--limit", type=click.IntRange(1), default=None,
                  help="Judge only the first N trajectories of the cohort (eight packets each).")
    def contrast(source, out, judge, base_url, draws, limit):
        """Later-context contrast G on original vs restored packets, with a cluster bootstrap."""
        from orgbench.commands.options import check_out_dir

        check_out_dir(out, into=True)
        click.echo(write_contrast(source, out, make_judge(judge, base_url), draws, limit=limit))


def run_faults(out: Path) -> tuple[str, list]:
    """Run the fault study, write faults.md, .csv and .tex under ``out``; return the summary and the outcomes."""
    import os
    import tempfile

    from judges.assurance.fault_report import faults_csv, faults_latex, faults_table
    from judges.assurance.faults import run_study
    from simulator.storage import write_text_atomic

    # throwaway workspaces: a memory-backed folder when there is one (the runs fsync every step record)
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="orgbench-faults-", dir=shm) as tmp:
        outcomes = run_study(Path(tmp))
    write_text_atomic(Path(out) / "faults.csv", faults_csv(outcomes))
    table = faults_table(outcomes)
    write_text_atomic(Path(out) / "faults.md", "# Fault study: 19 cases, CRLF and two controls under P0-P3\n\n" + table)
    write_text_atomic(Path(out) / "faults.tex", faults_latex(outcomes))
    return table.split("\n\n")[-1].strip(), outcomes


def write_faults(out: Path) -> str:
    """Run the fault study and write faults.md, .csv and .tex atomically under ``out``."""
    return run_faults(out)[0]


def run_contrast(source: Path, out: Path, backend, draws: int, *, per_packet_csv: bool = True,
                 limit: int | None = None) -> tuple[str, list]:
    """Judge the cohort's eight packets per trajectory (the first ``limit`` trajectories); write contrast.*."""
    from benchmark_builders.trajectories.records import read_suite
    from judges.assurance.contrast import (
        cohort, contrast_csv, contrast_latex, contrast_summary, contrast_table, flags_csv, judge_cohort,
    )
    from simulator.errors import InputError
    from simulator.storage import dumps_pretty, write_text_atomic

    trajectories, labels = read_suite(source)
    if not trajectories:
        raise InputError(f"{Path(source) / 'trajectories.jsonl'}: no trajectories")
    if limit:
        keep = {trajectory.trajectory_id for trajectory, _ in cohort(trajectories, labels)[:limit]}
        trajectories = [t for t in trajectories if t.trajectory_id in keep]
    judged = judge_cohort(trajectories, labels, backend, draws=draws)
    summary = contrast_summary(judged)
    judge = getattr(backend, "name", "unknown")
    summary["judge"] = judge
    summary["draws"] = draws
    write_text_atomic(Path(out) / "contrast.json", dumps_pretty(summary))
    write_text_atomic(Path(out) / "contrast.md", "# Later-context contrast\n\n" + contrast_table(summary))
    write_text_atomic(Path(out) / "contrast.csv", contrast_csv(summary, judge))
    write_text_atomic(Path(out) / "contrast.tex", contrast_latex(summary, judge))
    if per_packet_csv:
        write_text_atomic(Path(out) / "flags.csv", flags_csv(judged))
    g = summary["G"]
    return f"G original {g['original']}, restored {g['restored']}, reduction {g['reduction']} -> {out}", judged


def write_contrast(source: Path, out: Path, backend, draws: int, *, limit: int | None = None) -> str:
    """Judge the cohort and write the contrast files under ``out``; return a summary line."""
    return run_contrast(source, out, backend, draws, limit=limit)[0]
