"""GroundEval commands: ``build groundeval``, ``run-agent``, ``score groundeval`` and ``serve-mcp``."""

from __future__ import annotations

from pathlib import Path

import click


def register(cli: click.Group) -> None:
    """Add the GroundEval commands to the CLI."""
    build = cli.commands["build"]
    score = cli.commands["score"]

    @build.command("groundeval")
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
    def build_groundeval(out: Path, world_dir: Path | None, domain_dir: Path | None, config_path: Path | None,
                         seed: int | None, allow_unknown_keys: bool, drop_unresolved_rules: bool) -> None:
        """Write GroundEval contracts, truth and corpus from a world or a GroundEval-format domain."""
        from benchmark_builders.groundeval.build import build_suite
        from orgbench.commands.options import check_out_dir
        from simulator.errors import InputError

        if (world_dir is None) == (domain_dir is None):
            raise InputError("build groundeval: give exactly one of --world DIR or --domain DIR")
        check_out_dir(out, ("contracts.jsonl", "MANIFEST.json"), "a GroundEval suite")
        from benchmark_builders.groundeval.task_domain import build_task_suite, is_task_domain

        if domain_dir is not None and is_task_domain(domain_dir):        # upstream's task-contract format
            warn = (lambda line: click.echo(line, err=True)) if allow_unknown_keys else None
            click.echo(f"{out}: {build_task_suite(out, domain_dir, warn)} task contracts")
            return
        overrides = {} if seed is None else {"seed": seed}
        counts = build_suite(out, world_dir=world_dir, domain_dir=domain_dir, config_path=config_path,
                             allow_unknown_keys=allow_unknown_keys, drop_unresolved_rules=drop_unresolved_rules,
                             **overrides)
        click.echo(f"{out}: " + ", ".join(f"{n} {t}" for t, n in counts.items()) + f" ({sum(counts.values())} questions)")

    @cli.command("run-agent")
    @click.option("--suite", type=click.Path(path_type=Path), required=True)
    @click.option("--agent", "spec", required=True,
                  help="oracle | leaky | lazy | proximity | bm25 | follow | zero-shot | openai:MODEL "
                       "(task contracts: oracle | skip-precondition | wrong-field)")
    @click.option("--mode", type=click.Choice(("tool", "context")), default="tool", show_default=True)
    @click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory to write.")
    @click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
    @click.option("--budget", type=click.IntRange(1), default=24_000, show_default=True, help="Context-mode size budget (characters).")
    @click.option("--concurrency", type=click.IntRange(1), default=8, show_default=True, help="Questions in flight (openai:MODEL).")
    @click.option("--max-turns", type=click.IntRange(1), default=12, show_default=True, help="Tool-calling turns per question.")
    @click.option("--latency/--no-latency", default=True, show_default=True,
                  help="Record each call's latency in the trace (off: byte-identical reruns).")
    def run_agent_command(suite: Path, spec: str, mode: str, out: Path, base_url: str | None, budget: int,
                          concurrency: int, max_turns: int, latency: bool) -> None:
        """Answer every contract of a suite with one agent, recording every tool call."""
        from judges.groundeval.run import run_agent
        from orgbench.commands.options import check_out_dir

        check_out_dir(out, ("answers.jsonl", "run.json"), "a run-agent directory")
        from judges.groundeval.task_track import is_task_suite, run_task_agent

        if is_task_suite(suite):
            click.echo(f"{out}: {run_task_agent(suite, spec, out)['questions']} answers from {spec} (task contracts)")
            return
        info = run_agent(suite, spec, mode, out, record_latency=latency, budget=budget, base_url=base_url,
                         concurrency=concurrency, max_turns=max_turns)
        click.echo(f"{out}: {info['questions']} answers from {spec} ({mode} mode)")

    @score.command("groundeval")
    @click.option("--suite", type=click.Path(path_type=Path), required=True)
    @click.option("--answers", type=click.Path(path_type=Path), required=True,
                  help="A run-agent directory, or a JSONL of answers (with calls) from any agent.")
    @click.option("--out", type=click.Path(path_type=Path), required=True)
    @click.option("--answered-only", is_flag=True,
                  help="Score only the questions that were answered (default: a missing answer scores 0).")
    def score_groundeval(suite: Path, answers: Path, out: Path, answered_only: bool) -> None:
        """Score answers and traces (every call's gates re-derived from the suite): S_answer, S_traj, v, S_adj, summaries."""
        from judges.groundeval.run import score_run
        from orgbench.commands.options import check_out_dir

        check_out_dir(out, ("summary.json", "questions.jsonl"), "a score groundeval directory")
        from judges.groundeval.task_track import is_task_suite, score_task_run

        if is_task_suite(suite):
            for agent, total in score_task_run(suite, answers, out).items():
                click.echo(f"{agent} (task contracts): S_decision {total['s_decision']:.3f}  "
                           f"S_verify {total['s_verify']:.3f}  S_adj {total['s_adj']:.3f}  violations {total['v']:.3f}")
            return
        summary = score_run(suite, answers, out, answered_only=answered_only)
        for agent, modes in summary.items():
            for mode, tracks in modes.items():
                total = tracks["all"]
                click.echo(f"{agent} ({mode}): S_answer {total['s_answer']:.3f}  S_traj {total['s_traj']:.3f}  "
                           f"S_adj {total['s_adj']:.3f}  violations {total['violation_rate']:.3f}  "
                           f"correct-but-invalid {total['correct_invalid_path']}  "
                           f"tampered traces {total['tampered_traces']}")
        from simulator.storage import read_json

        notes = read_json(out / "summary.json").get("unreadable_lines") or []
        if notes:
            click.echo(f"note: {len(notes)} unreadable line(s) left out (listed in {out / 'summary.json'}), "
                       f"first: {notes[0]}", err=True)

    @cli.command("serve-mcp")
    @click.option("--suite", type=click.Path(path_type=Path), required=True)
    @click.option("--contract", "question_id", required=True, help="The question id to serve.")
    @click.option("--out", type=click.Path(path_type=Path), default=Path("mcp-run"), show_default=True,
                  help="Where answers.jsonl and traces.jsonl are written on submit.")
    @click.option("--agent-name", default="mcp-agent", show_default=True, help="Agent name recorded with the answer.")
    def serve_mcp(suite: Path, question_id: str, out: Path, agent_name: str) -> None:
        """Serve one contract's gated runtime over MCP (stdio): search_artifacts, fetch_artifact, submit_answer."""
        from judges.groundeval.mcp_server import serve
        from orgbench.commands.options import check_out_dir

        check_out_dir(out, into=True)
        serve(suite, question_id, out, agent_name)
