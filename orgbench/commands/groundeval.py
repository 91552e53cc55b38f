"""GroundEval commands: ``build groundeval``, ``run-agent``, ``score groundeval`` and ``serve-mcp``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from judges.groundeval.agent_registry import MODES
from orgbench.commands.options import subgroup
from orgbench.outdir import bind, bound, guard, overwrite_option


def _digest(path: Path) -> str | None:
    """SHA-256 of a file, or None when it is missing (the command that reads it names it)."""
    from orgbench.core.storage import sha256_file

    return sha256_file(path) if Path(path).is_file() else None


def _agent_header(suite: Path, spec: str, mode: str, budget: int, base_url: str | None) -> dict:
    """What a run-agent run.json binds: the suite's contracts, the agent, the mode, its budget and endpoint."""
    from judges.backends.registry import takes_base_url

    return {"suite_contracts_sha256": _digest(Path(suite) / "contracts.jsonl"), "agent": spec, "mode": mode,
            "context_budget": budget if mode == "context" else None,
            "base_url": base_url if takes_base_url(spec) else None}


@click.command("groundeval")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Suite directory to write.")
@click.option("--world", "world_dir", type=click.Path(path_type=Path), default=None, help="A world directory (orgbench simulate).")
@click.option("--domain", "domain_dir", type=click.Path(path_type=Path), default=None,
              help="A domain in the public GroundEval format (events.jsonl, artifacts/, config.yaml).")
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help="TOML with [groundeval]: seed, per-track count/ratios/hard share, rules.")
@click.option("--seed", type=int, default=None, help="Override the selection seed.")
@click.option("--allow-unknown-keys", is_flag=True,
              help="A domain config key orgbench does not know or support: one warning line each, not an error.")
@click.option("--drop-unresolved-rules", is_flag=True,
              help="A rule whose join path resolves for no event: left out with a warning line, not an error.")
@overwrite_option
def build_groundeval(out: Path, world_dir: Path | None, domain_dir: Path | None, config_path: Path | None,
                     seed: int | None, allow_unknown_keys: bool, drop_unresolved_rules: bool,
                     overwrite: bool) -> None:
    """Write GroundEval contracts, truth and corpus from a world or a GroundEval-format domain."""
    from benchmark_builders.groundeval.build import build_suite
    from orgbench.commands.options import check_out_dir
    from orgbench.core.errors import InputError
    from orgbench.core.storage import verify_if_sealed

    if (world_dir is None) == (domain_dir is None):
        raise InputError("build groundeval: give exactly one of --world DIR or --domain DIR")
    if domain_dir is not None:       # an orgbench export (groundeval, groundeval-tasks) edited, cut or mixed since
        verify_if_sealed(domain_dir, "; export it again, or delete its MANIFEST.json to read the folder as a "
                                     "domain of your own")
    check_out_dir(out, ("contracts.jsonl", "MANIFEST.json"), "a GroundEval suite")
    from benchmark_builders.groundeval.task_domain import build_task_suite, is_task_domain

    inputs = {"world": _digest(Path(world_dir) / "MANIFEST.json") if world_dir else None,
              "domain": str(Path(domain_dir).resolve()) if domain_dir else None, "config": _digest(config_path)
              if config_path else None, "seed": seed, "allow_unknown_keys": allow_unknown_keys,
              "drop_unresolved_rules": drop_unresolved_rules}
    with bound(out, "a GroundEval suite", "build groundeval", inputs, overwrite=overwrite):
        if domain_dir is not None and is_task_domain(domain_dir):        # upstream's task-contract format
            warn = (lambda line: click.echo(line, err=True)) if allow_unknown_keys else None
            built = build_task_suite(out, domain_dir, warn, note=lambda line: click.echo(line, err=True))
            click.echo(f"{out}: {built} task contracts")
            return
        overrides: dict[str, Any] = {} if seed is None else {"seed": seed}
        counts = build_suite(out, world_dir=world_dir, domain_dir=domain_dir, config_path=config_path,
                             allow_unknown_keys=allow_unknown_keys, drop_unresolved_rules=drop_unresolved_rules,
                             **overrides)
    click.echo(f"{out}: " + ", ".join(f"{n} {t}" for t, n in counts.items()) + f" ({sum(counts.values())} questions)")


def _refuse_unused_agent_options(spec: str, mode: str) -> None:
    """Refuse (InputError) an option typed that this run would not use: --budget in tool mode; --concurrency,
    --max-turns and --cache with a named agent (no KIND:), which calls no model and answers one question at a time."""
    from orgbench.commands.options import typed_options
    from orgbench.core.errors import InputError

    if mode == "tool" and typed_options("budget"):
        raise InputError("--budget: sizes the context of --mode context, and this run is in tool mode; drop --budget "
                         "or add --mode context")
    option = next(iter(typed_options("concurrency", "max_turns", "cache").values()), None)
    if option and ":" not in spec:
        raise InputError(f"{option}: {spec} is a named agent that calls no model; drop {option}, or use it with "
                         "openai:MODEL or local:MODEL")


@click.command("run-agent")
@click.option("--suite", type=click.Path(path_type=Path), required=True,
              help="GroundEval suite directory (from `orgbench build groundeval`).")
@click.option("--agent", "spec", required=True,
              help="A named agent (built-in or a plugin's; `orgbench list` names them), openai:MODEL or local:MODEL "
                   "(smollm2, gemma3-270m, PATH.gguf), replay:RUN_OR_CACHE (recorded turns, no model) or "
                   "stub:[LOG.jsonl] (a fixed search-then-submit policy, no model)")
@click.option("--mode", type=click.Choice(MODES), default="tool", show_default=True,
              help="tool: the agent searches and fetches through the gated tools; context: each question comes "
                   "with a context built for it (see --budget) and the agent cites from it.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Run directory to write; one holding another run is refused (see --overwrite).")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
@click.option("--budget", type=click.IntRange(1), default=24_000, show_default=True, help="Context-mode size budget (characters; refused in tool mode).")
@click.option("--concurrency", type=click.IntRange(1), default=8, show_default=True, help="Questions in flight (openai:MODEL).")
@click.option("--max-turns", type=click.IntRange(1), default=12, show_default=True, help="Tool-calling turns per question.")
@click.option("--latency/--no-latency", default=True, show_default=True,
              help="Record each call's latency in the trace (off: byte-identical reruns).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Answer only the first N contracts.")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Response cache file for a model agent's turns, shareable between runs and with `orgbench judge` "
                   "(default: none). With it the endpoint is not probed first: a run the cache answers needs no server.")
@overwrite_option
def run_agent_command(suite: Path, spec: str, mode: str, out: Path, base_url: str | None, budget: int,
                      concurrency: int, max_turns: int, latency: bool, limit: int | None, cache: Path | None,
                      overwrite: bool) -> None:
    """Answer every contract of a suite with one agent, recording every tool call (and a model agent's turns)."""
    import time

    from judges.groundeval.run import agent_endpoint, run_agent
    from judges.groundeval.task_track import is_task_suite, run_task_agent
    from orgbench.commands.options import check_cache_file
    from orgbench.commands.preflight import check_endpoint, refuse_request_options
    from judges.backends.base import Usage
    from orgbench.commands.progress import Bar, Totals

    started = time.perf_counter()
    refuse_request_options((spec,), role="agent")
    _refuse_unused_agent_options(spec, mode)
    guard(out, "a GroundEval agent run", _agent_header(suite, spec, mode, budget, base_url), overwrite=overwrite)
    tasks = is_task_suite(suite)
    if not tasks:
        from judges.groundeval.run import suite_questions
        from orgbench.core.errors import InputError

        if not suite_questions(suite):
            raise InputError(f"{suite / 'contracts.jsonl'}: no contracts; nothing to answer (nothing written)")
    if cache is None:
        check_endpoint(spec, base_url)
    check_cache_file(cache)
    endpoint = agent_endpoint(base_url, concurrency)
    with Bar(f"{spec} answering") as progress:
        if tasks:
            info = run_task_agent(suite, spec, out, mode, budget, endpoint=endpoint, max_turns=max_turns,
                                  progress=progress, limit=limit, cache_path=cache, overwrite=overwrite)
        else:
            info = run_agent(suite, spec, mode, out, record_latency=latency, budget=budget, endpoint=endpoint,
                             max_turns=max_turns, progress=progress, limit=limit, cache_path=cache,
                             overwrite=overwrite)
    click.echo(f"{out}: {info['questions']} answers from {spec} ({'task contracts, ' if tasks else ''}{mode} mode), "
               f"{time.perf_counter() - started:.1f} s")
    if "usage" in info:
        used = info["usage"]
        totals = Totals(used["requests"], used["retries"], Usage.from_json(used), started)
        click.echo(totals.line() + (f"; {used['from_cache']:,} of {used['turns']:,} turns from {cache}" if cache else ""))

def check_answered_suite(suite: Path, answers: Path) -> None:
    """Refuse a run directory whose run.json records another suite than ``suite`` (its contracts' digest), or more
    questions than its answers.jsonl holds."""
    from orgbench.core.errors import InputError
    from orgbench.core.storage import read_json

    record = answers / "run.json"
    if not (answers.is_dir() and (record.exists() or record.is_symlink())):
        return                   # answers from elsewhere (a JSONL file, serve-mcp's folder) record no suite
    run = read_json(record)
    if not isinstance(run, dict):
        raise InputError(f"{record}: not a JSON object (the run.json `orgbench run-agent` writes)")
    _check_answered_all(answers, run)
    recorded = run.get("suite_contracts_sha256")
    if recorded is None:
        return
    if not isinstance(recorded, str):
        raise InputError(f"{record}: field suite_contracts_sha256: not text")
    actual = _digest(suite / "contracts.jsonl")
    if recorded != actual:
        raise InputError(f"{record}: the run answered another suite (suite_contracts_sha256 {str(recorded)[:12]}…, "
                         f"not {suite / 'contracts.jsonl'}'s {str(actual)[:12]}…); score it against the suite it "
                         f"answered; nothing written")


def _check_answered_all(answers: Path, run: dict) -> None:
    """Refuse a run whose answers.jsonl holds fewer answer lines than the questions its run.json says it answered."""
    from orgbench.core.errors import InputError
    from orgbench.core.storage import read_bytes

    questions = run.get("questions")
    path = answers / "answers.jsonl"
    if not isinstance(questions, int) or isinstance(questions, bool) or not path.is_file():
        return
    lines = sum(1 for line in read_bytes(path, "JSONL file").split(b"\n") if line.strip())
    if lines < questions:
        raise InputError(f"{path}: {lines} answer lines, but {answers / 'run.json'} says the run answered {questions} "
                         f"questions (the file was cut short); run the same `orgbench run-agent` command again to "
                         f"redo the run; nothing written")


@click.command("groundeval")
@click.option("--suite", type=click.Path(path_type=Path), required=True,
              help="GroundEval suite directory (from `orgbench build groundeval`).")
@click.option("--answers", type=click.Path(path_type=Path), required=True,
              help="A run-agent directory, or a JSONL of answers (with calls) from any agent.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Scores directory; one holding other scores is refused (see --overwrite).")
@click.option("--answered-only", is_flag=True,
              help="Score only the questions that were answered (default: a missing answer scores 0).")
@click.option("--on-error", type=click.Choice(("stop", "skip")), default="stop", show_default=True,
              help="An unreadable answer or trace line: stop names it (exit 2, nothing written); skip leaves "
                   "it out, lists it on stderr and in OUT/summary.json.")
@click.option("--profile", type=click.Choice(("orgbench", "preprint")), default="orgbench", show_default=True,
              help="Scoring profile: orgbench's rules, or the public preprint's weights for comparison "
                   "(docs/spec/groundeval.md).")
@overwrite_option
def score_groundeval(suite: Path, answers: Path, out: Path, answered_only: bool, on_error: str, profile: str,
                     overwrite: bool) -> None:
    """Score answers and traces (every call's gates re-derived from the suite): S_answer, S_traj, v, S_adj, summaries."""
    from judges.groundeval.run import score_run
    from judges.groundeval.traces import load_submissions
    from orgbench.core.errors import InputError
    from orgbench.core.storage import read_json, sha256_file

    from judges.groundeval.scoring_profile import profile_named
    from judges.groundeval.task_track import TASK_SCORING, is_task_suite, score_task_run

    notes: list[str] = []
    if not is_task_suite(suite):
        from judges.groundeval.run import suite_questions

        known = suite_questions(suite)          # the suite first: another kind of folder is named as such
        check_answered_suite(suite, answers)
        notes = load_submissions(answers, known=known)[1]
    if notes and on_error == "stop":
        more = f" (and {len(notes) - 1} more)" if len(notes) > 1 else ""
        raise InputError(f"{notes[0]}{more}; nothing written (--on-error skip leaves such lines out)")
    for note in notes:           # the other lines skipped are listed after scoring (summary.json's unreadable_lines)
        if note.endswith("is not a question of the suite") or ": repeats the answer of line" in note:
            click.echo(f"{note}: kept as a marked row of questions.jsonl (--on-error skip)", err=True)
    answer_files = sorted(answers.glob("*.jsonl")) if answers.is_dir() else [answers]
    inputs = {"suite_contracts_sha256": _digest(suite / "contracts.jsonl"), "answered_only": answered_only,
              "profile": profile,
              "answers": {p.name: sha256_file(p) for p in answer_files if p.is_file()}}
    guard(out, "GroundEval scores", inputs, overwrite=overwrite)
    if is_task_suite(suite):
        for agent, total in score_task_run(suite, answers, out).items():
            click.echo(f"{agent} (task contracts, scoring {TASK_SCORING}): S_decision {total['s_decision']:.3f}  "
                       f"S_verify {total['s_verify']:.3f}  S_adj {total['s_adj']:.3f}  violations {total['v']:.3f}")
            if total["malformed"]:
                click.echo(f"{agent}: {total['malformed']} answer(s) scored 0 unread, e.g. {total['first_malformed']}",
                           err=True)
        bind(out, "score groundeval", inputs)
        return
    summary = score_run(suite, answers, out, answered_only=answered_only, profile=profile)   # put in place whole
    bind(out, "score groundeval", inputs)
    for agent, modes in summary.items():
        for mode, tracks in modes.items():
            total = tracks["all"]
            click.echo(f"{agent} ({mode}, scoring {profile_named(profile).label}): S_answer {total['s_answer']:.3f}  "
                       f"S_traj {total['s_traj']:.3f}  "
                       f"S_adj {total['s_adj']:.3f}  violations {total['violation_rate']:.3f}  "
                       f"correct-but-invalid {total['correct_invalid_path']}  "
                       f"tampered traces {total['tampered_traces']}")
    skipped = read_json(out / "summary.json").get("unreadable_lines") or []
    if skipped:
        click.echo(f"skipped {len(skipped)} unreadable line(s) (--on-error skip; listed in {out / 'summary.json'}): "
                   + "; ".join(skipped[:5]) + (" …" if len(skipped) > 5 else ""), err=True)

@click.command("serve-mcp")
@click.option("--suite", type=click.Path(path_type=Path), required=True,
              help="GroundEval suite directory (from `orgbench build groundeval`).")
@click.option("--contract", "question_id", default=None,
              help="Serve this one question only (default: the whole suite: list_contracts, start_contract).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("mcp-run"), show_default=True,
              help="Where answers.jsonl and traces.jsonl are written on submit (any number of servers may share it).")
@click.option("--agent-name", default="mcp-agent", show_default=True,
              help="Agent name recorded with the answer (--http: a session's URL names its own, /mcp?agent=NAME, "
                   "else it answers as NAME-<session id>).")
@click.option("--http", "port", type=click.IntRange(1, 65535), default=None,
              help="Serve streamable HTTP at http://127.0.0.1:PORT/mcp (one MCP session per client) instead of stdio.")
@click.option("--mode", type=click.Choice(("tool", "context")), default="tool", show_default=True,
              help="tool: the agent searches and fetches; context: each contract is shown with its context "
                   "(as run-agent --mode context builds it) and the agent cites from it.")
def serve_mcp(suite: Path, question_id: str | None, out: Path, agent_name: str, port: int | None, mode: str) -> None:
    """Serve a suite's gated runtime over MCP (stdio, or HTTP): list_contracts, start_contract, search, fetch, submit."""
    from judges.groundeval.mcp_server import serve
    from orgbench.commands.options import check_out_dir

    check_out_dir(out, into=True)
    serve(suite, question_id, out, agent_name, None if port is None else ("127.0.0.1", port), mode)


def register(cli: click.Group) -> None:
    """Add the GroundEval commands to the CLI."""
    subgroup(cli, "build").add_command(build_groundeval)
    cli.add_command(run_agent_command)
    subgroup(cli, "score").add_command(score_groundeval)
    cli.add_command(serve_mcp)
