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
    def build_groundeval(out: Path, world_dir: Path | None, domain_dir: Path | None, config_path: Path | None,
                         seed: int | None) -> None:
        """Write GroundEval contracts, truth and corpus from a world or a GroundEval-format domain."""
        from benchmark_builders.groundeval.build import build_suite
        from orgbench.commands.options import check_out_dir
        from simulator.errors import InputError

        if (world_dir is None) == (domain_dir is None):
            raise InputError("build groundeval: give exactly one of --world DIR or --domain DIR")
        check_out_dir(out, ("contracts.jsonl", "MANIFEST.json"), "a GroundEval suite")
        overrides = {} if seed is None else {"seed": seed}
        counts = build_suite(out, world_dir=world_dir, domain_dir=domain_dir, config_path=config_path, **overrides)
        click.echo(f"{out}: " + ", ".join(f"{n} {t}" for t, n in counts.items()) + f" ({sum(counts.values())} questions)")

    @cli.command("run-agent")
    @click.option("--suite", type=click.Path(path_type=Path), required=True)
    @click.option("--agent", "spec", required=True,
                  help="oracle | leaky | lazy | proximity | bm25 | zero-shot | openai:MODEL | local:MODEL "
                       "(smollm2, gemma3-270m, PATH.gguf)")
    @click.option("--mode", type=click.Choice(("tool", "context")), default="tool", show_default=True)
    @click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory to write.")
    @click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
    @click.option("--budget", type=click.IntRange(1), default=24_000, show_default=True, help="Context-mode size budget (characters).")
    @click.option("--concurrency", type=click.IntRange(1), default=8, show_default=True, help="Questions in flight (openai:MODEL).")
    @click.option("--max-turns", type=click.IntRange(1), default=12, show_default=True, help="Tool-calling turns per question.")
    @click.option("--latency/--no-latency", default=True, show_default=True,
                  help="Record each call's latency in the trace (off: byte-identical reruns).")
    @click.option("--limit", type=click.IntRange(1), default=None, help="Answer only the first N contracts.")
    def run_agent_command(suite: Path, spec: str, mode: str, out: Path, base_url: str | None, budget: int,
                          concurrency: int, max_turns: int, latency: bool, limit: int | None) -> None:
        """Answer every contract of a suite with one agent, recording every tool call."""
        from judges.groundeval.run import run_agent
        from orgbench.commands.options import check_out_dir

        check_out_dir(out, ("answers.jsonl", "run.json"), "a run-agent directory")
        info = run_agent(suite, spec, mode, out, record_latency=latency, budget=budget, base_url=base_url,
                         concurrency=concurrency, max_turns=max_turns, limit=limit)
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
