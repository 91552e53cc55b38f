"""``orgbench build trajectories`` and ``orgbench assure …``: trajectories, the checked pipeline, the studies.

Stage commands exit 0 on success, 1 when a check failed (the step record says
which requirement and why), 3 when the stage refused to start or to hand
anything on, 4 when it found tampering -- the workspace is not what the
signed chain (checked against the trusted key) or the source vouches for,
the check named -- and 2 on bad input.
"""

from __future__ import annotations

from pathlib import Path

import click

from orgbench.commands.options import subgroup

STAGE_NAMES = ("build", "check", "stage", "emit", "dispatch")


def _import_trajectories(import_file: Path, fmt: str, out: Path, on_error: str, labels: Path | None = None) -> str:
    """Import a JSONL file into a suite: a rejected record stops it (``stop``) or is left out and listed (``skip``)."""
    from benchmark_builders.trajectories.importers import import_file as run_import
    from benchmark_builders.trajectories.records import write_suite
    from orgbench.core.errors import InputError

    result = run_import(import_file, fmt, labels)
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
                  on_error: str = "stop", overwrite: bool = False, labels: Path | None = None,
                  pack: str | None = None) -> str:
    from orgbench.commands.options import check_out_dir
    from orgbench.outdir import bound, file_digest

    check_out_dir(out, ("trajectories.jsonl", "MANIFEST.json"), "a trajectory suite")
    inputs = {"world": file_digest(Path(world) / "MANIFEST.json") if world else None,
              "import": file_digest(import_file), "labels": file_digest(labels), "format": fmt, "n": n, "seed": seed,
              **({"pack": file_digest(Path(pack)) if pack.endswith(".toml") else pack} if pack else {})}
    with bound(out, "a trajectory suite", "build trajectories", inputs, overwrite=overwrite):
        return _write_trajectories(world, import_file, fmt, out, n, seed, on_error, labels, pack)


def _write_trajectories(world: Path | None, import_file: Path | None, fmt: str, out: Path, n: int, seed: int | None,
                        on_error: str, labels: Path | None, pack: str | None = None) -> str:
    from benchmark_builders.trajectories.records import write_suite
    from orgbench.core.errors import InputError

    if import_file is not None:
        return _import_trajectories(import_file, fmt, out, on_error, labels)
    if on_error != "stop":
        raise InputError("--on-error: applies to --import only")
    if world is None:
        raise InputError("build trajectories: give --world DIR (or --import FILE)")
    from benchmark_builders.trajectories.simulate import cases_from_world, simulate_trajectories
    from simulator.packs import world_pack
    from simulator.world import load_world

    loaded = load_world(world)
    domain = world_pack(dict(loaded.meta), pack)
    cases = cases_from_world(loaded, domain)
    if not cases:
        raise InputError(f"{world}: the world has no asset support cases under active entitlement" if domain.is_default
                         else f"{world}: the world has no closed support case with every fact of its runbook recorded "
                              "(simulate more days or people)")
    seed = loaded.seed if seed is None else seed
    trajectories, step_labels = simulate_trajectories(cases, n, seed)
    write_suite(out, trajectories, step_labels, {"built_by": "orgbench build trajectories",
                                                 "world_seed": loaded.seed, "seed": seed, "cases": len(cases)})
    errors = sum(any(v == -1 for v in l.labels.values()) for l in step_labels)
    return f"{len(trajectories)} trajectories ({errors} with a constructed error) from {len(cases)} cases -> {out}"


def pipeline_options(judge_note: str = ""):
    """The options every pipeline command takes (``assure STAGE`` and ``assure run``): source, work, controls,
    draws, judge, base URL and the in-toto signing key."""
    def decorate(command):
        for option in reversed((
            click.option("--source", required=True, type=click.Path(path_type=Path), help="Trajectory suite directory."),
            click.option("--work", required=True, type=click.Path(path_type=Path), help="Pipeline workspace."),
            click.option("--controls", default="P3", show_default=True, help="P0 | P1 | P2 | P3 (cumulative)."),
            click.option("--draws", default=2, show_default=True, type=click.IntRange(1),
                         help="Judgements per packet."),
            click.option("--judge", default="stub", show_default=True,
                         help=f"{judge_note}stub[:LOG], builtin:step, openai:MODEL, local:MODEL."),
            click.option("--base-url", default=None, help=f"{judge_note}OpenAI-compatible endpoint for openai:MODEL."),
            click.option("--key", "key_file", default=None, type=click.Path(path_type=Path),
                         help="PEM private key (from `assure keygen`, kept outside the workspace) that signs the "
                              "in-toto links and layout and that dispatch checks them against (default: an "
                              "ephemeral key generated at build and kept in the workspace: guarantees against "
                              "accidents only)."),
            click.option("--key-fingerprint", "pinned", default=None,
                         help="The fingerprint (64 hex digits, printed by `assure keygen`) the chain's key must "
                              "have; a workspace key without it is tampering (exit 4)."),
        )):
            command = option(command)
        return command
    return decorate


def stage_key(ctx: click.Context, work: Path, step: str, key_file: Path | None, pinned: str | None):
    """The chain's key for ``step`` (``intoto.chain_key``); a pinned fingerprint the workspace key lacks exits 4."""
    from judges.assurance.intoto import chain_key
    from judges.assurance.trust import ChainTampered

    try:
        return chain_key(work, step, key_file, pinned)
    except ChainTampered as tampered:
        click.echo(f"{step}: tampered ({tampered.check}): {tampered.reason}", err=True)
        ctx.exit(4)


def run_stage_step(ctx: click.Context, cfg, step: str, backend) -> None:
    """Run one pipeline stage; print its ok line, or stop the command (exit 4 tampering found, 3 refused, 1 a
    check failed). Every line says what the chain's key guarantees."""
    import time

    from judges.assurance.pipeline import TAMPER_CHECKS, StageRefused, run_step

    started = time.perf_counter()
    note = cfg.key.trust.note if cfg.key is not None else "unsigned"
    try:
        result = run_step(cfg, step, backend)
    except StageRefused as refused:
        tampered = refused.requirement in TAMPER_CHECKS
        click.echo(f"{step}: {'tampered' if tampered else 'refused'} ({refused.requirement}): {refused.reason}\n"
                   f"  [{note}]", err=True)
        ctx.exit(4 if tampered else 3)
    if result.return_code:
        click.echo(f"{result.summary()}\n  [{note}]", err=True)
        ctx.exit(1)
    click.echo(f"{step}: ok ({time.perf_counter() - started:.1f} s, record {cfg.work}/records/{step}.record.json) "
               f"[{note}]")


@click.command("trajectories")
@click.option("--world", type=click.Path(path_type=Path), help="World directory to take support cases from.")
@click.option("--import", "import_file", type=click.Path(path_type=Path),
              help="Import recorded trajectories instead (JSONL, or a tau2 results.json with --format tau2).")
@click.option("--format", "fmt", type=click.Choice(["apb", "openai", "tau2"]), default="apb", show_default=True,
              help="Import format: AgentProcessBench-style or plain OpenAI-chat JSONL, or tau2-style messages.")
@click.option("--on-error", type=click.Choice(["stop", "skip"]), default="stop", show_default=True,
              help="With --import, a record with any problem: stop lists every problem and writes nothing "
                   "(exit 2); skip leaves each such record out whole, lists it with its problems in "
                   "SUITE/suite.json (import.skipped) and says so on stderr (exit 2 only if none is left).")
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Suite directory to write.")
@click.option("--n", default=60, show_default=True, type=click.IntRange(1), help="Trajectories to simulate.")
@click.option("--seed", type=int, default=None, help="Trajectory seed (default: the world's seed).")
@click.option("--overwrite", is_flag=True, help="Replace what --out holds even if it is another suite.")
@click.option("--labels", "labels_file", type=click.Path(path_type=Path), default=None,
              help="Step labels stored apart (AgentProcessBench data/AnswerOnly/*_final.jsonl), joined on "
                   "record_id = data_source:query_index:sample_index.")
@click.option("--pack", default=None, help="The pack file a --world of a pack file was made from (docs/packs.md; "
                                           "checked by digest; a built-in pack is found by name).")
def build_trajectories(world, import_file, fmt, on_error, out, n, seed, overwrite, labels_file, pack):
    """Simulate support-agent trajectories with step labels (or import recorded ones)."""
    click.echo(_trajectories(world, import_file, fmt, out, n, seed, on_error, overwrite, labels_file, pack))

@click.group("assure")
def assure() -> None:
    """Judge-input assurance: build, check, stage, emit, dispatch packets; the fault and contrast studies."""

def _stage_command(step: str):
    @pipeline_options("dispatch only: ")
    @click.pass_context
    def command(ctx, source, work, controls, draws, judge, base_url, key_file, pinned):
        from judges.assurance.pipeline import Controls, PipelineConfig
        from judges.backends import make_backend
        from orgbench.commands.options import check_out_dir

        check_out_dir(work, option="--work", into=True)
        if step == "dispatch":
            from orgbench.commands.preflight import check_endpoint, refuse_request_options

            refuse_request_options((judge,))
            check_endpoint(judge, base_url)
        cfg = PipelineConfig(source, work, Controls.parse(controls), draws=draws,
                             key=stage_key(ctx, work, step, key_file, pinned))
        backend = make_backend(judge, base_url=base_url) if step == "dispatch" else None
        run_stage_step(ctx, cfg, step, backend)

    command.__doc__ = {"build": "Render packets, check them inline, record exact-byte hashes.",
                       "check": "Disk check: reread source records and packets, verify every requirement.",
                       "stage": "Copy exactly the expected packets for the judge, verifying their bytes.",
                       "emit": "Write one dispatch script per staged packet.",
                       "dispatch": "Verify each packet's bytes and hand that same buffer to the judge."}[step]
    return assure.command(step)(command)

@assure.command("faults")
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Where to write the table and CSV.")
def faults(out):
    """The 19 fault cases + CRLF + 2 controls under P0..P3 with the recording stub."""
    from orgbench.commands.options import check_out_dir
    from orgbench.report.assurance_outputs import run_faults

    check_out_dir(out, into=True)

    click.echo(run_faults(out)[0])

@assure.command("contrast")
@click.option("--source", required=True, type=click.Path(path_type=Path), help="Trajectory suite directory.")
@click.option("--out", required=True, type=click.Path(path_type=Path), help="Where to write the contrast.")
@click.option("--judge", default="builtin:step", show_default=True, help="builtin:step, openai:MODEL, local:MODEL, stub.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
@click.option("--draws", default=2, show_default=True, type=click.IntRange(1), help="Judgements per packet.")
@click.option("--work", default=None, type=click.Path(path_type=Path),
              help="Keep the contrast's pipeline workspace here (default: a temporary one).")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="Judge only the first N trajectories of the cohort (eight packets each).")
@click.pass_context
def contrast(ctx, source, out, judge, base_url, draws, work, limit):
    """Later-context contrast G on original vs restored packets (through the checked pipeline, P3)."""
    from judges.assurance.contrast import ContrastStopped
    from judges.backends import make_backend
    from orgbench.commands.options import check_out_dir
    from orgbench.commands.preflight import check_endpoint, refuse_request_options
    from orgbench.report.assurance_outputs import run_contrast

    refuse_request_options((judge,))
    check_out_dir(out, into=True)
    check_endpoint(judge, base_url)
    try:
        click.echo(run_contrast(source, out, make_backend(judge, base_url=base_url), draws, work=work, limit=limit)[0])
    except ContrastStopped as stopped:
        click.echo(str(stopped), err=True)
        ctx.exit(1)


def register(cli: click.Group) -> None:
    """Add ``build trajectories`` and the ``assure`` group (its stages, verify, faults, contrast) to the CLI."""
    subgroup(cli, "build").add_command(build_trajectories)
    for name in STAGE_NAMES:
        _stage_command(name)
    register_verify(assure)
    register_keygen(assure)
    cli.add_command(assure)


def register_keygen(assure: click.Group) -> None:
    """Add ``assure keygen --out KEYFILE``: a signing key to keep outside every workspace."""

    @assure.command("keygen")
    @click.option("--out", required=True, type=click.Path(path_type=Path),
                  help="Where to write the private key (PEM, mode 0600); the public key goes to OUT.pub.")
    def keygen(out):
        """Make an ed25519 signing key for the in-toto chain; print its fingerprint (pin it with
        --key-fingerprint)."""
        from judges.assurance.trust import keygen as make_key

        fingerprint = make_key(out)
        click.echo(f"{fingerprint}\nkey written to {out} (public key {out}.pub); keep it outside every workspace "
                   f"and pass --key {out} (or pin --key-fingerprint {fingerprint})")


def register_verify(assure: click.Group) -> None:
    """Add ``assure verify WORK``: re-audit a whole chain (records, bytes, in-toto) for CI, with JUnit XML."""

    @assure.command("verify")
    @click.argument("work", type=click.Path(path_type=Path))
    @click.option("--source", default=None, type=click.Path(path_type=Path),
                  help="The suite the chain was built from: also check its files still hash as recorded.")
    @click.option("--junit", "junit", default=None, type=click.Path(path_type=Path),
                  help="Write the checks as JUnit XML to this file.")
    @click.option("--key", "key_file", default=None, type=click.Path(path_type=Path),
                  help="The chain's key (public or private PEM), kept outside the workspace: the only key trusted. "
                       "Without it (or --key-fingerprint) the workspace's own root.pub is used: accidents only.")
    @click.option("--key-fingerprint", "pinned", default=None,
                  help="Trust the workspace's root.pub only if it has this fingerprint (64 hex digits).")
    @click.pass_context
    def verify(ctx, work, source, junit, key_file, pinned):
        """Re-audit the pipeline workspace WORK: every record, every listed file's bytes, the in-toto chain (its
        inspection compares every file on disk with the signed links). Exit 0 all pass, 1 a check failed, 4 tampering
        found (a signed check failed), 2 bad input."""
        from judges.assurance.chain_audit import SIGNED_CHECKS, audit_chain, junit_xml
        from judges.assurance.trust import ChainTampered, verifying_trust
        from orgbench.commands.options import check_out_dir
        from orgbench.core.storage import write_text_atomic

        if not (Path(work) / "records").is_dir():
            from orgbench.core.errors import InputError
            raise InputError(f"{work}: no records/ folder (not a pipeline workspace)")
        try:
            trust = verifying_trust(work, key_file, pinned)
        except ChainTampered as tampered:
            click.echo(f"FAIL in-toto/root.pub {tampered.check}: {tampered.reason}", err=True)
            click.echo(f"verify: tampered ({tampered.check}), the first on in-toto/root.pub", err=True)
            ctx.exit(4)
        cases = audit_chain(work, trust, source)
        if junit is not None:
            check_out_dir(junit.parent, option="--junit", into=True)
            write_text_atomic(junit, junit_xml(cases))
        failed = [c for c in cases if c.problem]
        for case in failed:
            click.echo(f"FAIL {case.link} {case.check}: {case.problem}", err=True)
        if failed:
            signed = [c for c in failed if c.check in SIGNED_CHECKS]
            click.echo(f"verify: {len(failed)} of {len(cases)} checks failed, the first on {failed[0].link}"
                       f"{f' (tampered: {signed[0].check})' if signed else ''}\n  [{trust.note}]", err=True)
            ctx.exit(4 if signed else 1)
        click.echo(f"verify: {len(cases)} checks passed ({work}) [{trust.note}]")
