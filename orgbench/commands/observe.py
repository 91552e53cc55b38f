"""Score agents where they live: ``observe`` (a framework agent through an adapter) and ``import-otel`` (GenAI spans)."""

from __future__ import annotations

from pathlib import Path

import click

from orgbench.outdir import guard, holds, overwrite_option


def register(cli: click.Group) -> None:
    """Add ``observe`` and ``import-otel`` to the CLI."""

    @cli.command("observe")
    @click.option("--framework", type=click.Choice(("openai-agents", "langgraph")), required=True,
                  help="The framework your agent factory builds with.")
    @click.option("--agent", "spec", required=True, help="Your agent factory, package.module:function; it is called "
                  "as build_agent(tools, model) once per contract.")
    @click.option("--suite", type=click.Path(path_type=Path), required=True,
                  help="GroundEval suite directory (from `orgbench build groundeval`).")
    @click.option("--out", type=click.Path(path_type=Path), required=True,
                  help="Run directory to write; one holding another run is refused (see --overwrite).")
    @click.option("--model", default="gpt-4o-mini", show_default=True, help="Model name given to the factory.")
    @click.option("--base-url", default=None, help="OpenAI-compatible endpoint given to the factory.")
    @click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
                  help="Environment variable holding the endpoint's key (none needed for a local server).")
    @click.option("--max-turns", type=click.IntRange(1), default=50, show_default=True, help="Model turns per contract.")
    @click.option("--latency/--no-latency", default=True, show_default=True,
                  help="Record each call's latency in the trace (off: byte-identical reruns).")
    @click.option("--limit", type=click.IntRange(1), default=None, help="Answer only the first N contracts.")
    @overwrite_option
    def observe_command(framework: str, spec: str, suite: Path, out: Path, model: str, base_url: str | None,
                        api_key_env: str, max_turns: int, latency: bool, limit: int | None, overwrite: bool) -> None:
        """Run your own framework agent on a suite through orgbench's gated tools, recording every call."""
        from judges.groundeval.adapters.base import ModelConfig
        from judges.groundeval.adapters.observe import observe, run_header
        from orgbench.commands.progress import Bar

        config = ModelConfig(model=model, base_url=base_url, api_key_env=api_key_env, max_turns=max_turns)
        guard(out, "a GroundEval agent run", run_header(suite, framework, spec, config), overwrite=overwrite)
        with Bar(f"{framework} answering") as progress:
            info = observe(suite, framework, spec, out, config, record_latency=latency, limit=limit,
                           progress=progress)
        click.echo(f"{out}: {info['questions']} answers from {info['agent']} (tool mode); "
                   f"score with: orgbench score groundeval --suite {suite} --answers {out} --out SCORES")

    @cli.command("import-otel")
    @click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
    @click.option("--suite", type=click.Path(path_type=Path), required=True,
                  help="GroundEval suite directory (from `orgbench build groundeval`).")
    @click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory to write.")
    @click.option("--agent-name", default=None,
                  help="Agent name for every span (default: gen_ai.agent.name, else the resource's service.name).")
    @overwrite_option
    def import_otel(files: tuple[Path, ...], suite: Path, out: Path, agent_name: str | None, overwrite: bool) -> None:
        """Turn the OTLP JSON GenAI execute_tool spans (semconv 1.41.0) in FILES into a run directory that score
        groundeval scores."""
        from judges.groundeval.otlp_import import import_run

        from orgbench.core.errors import InputError

        guard(out, "a GroundEval agent run", None, overwrite=overwrite)
        if holds(out) is not None and not overwrite:     # the spans decide the agent: any earlier run is another
            raise InputError(f"--out {out}: holds {holds(out)}; choose another directory (or add --overwrite)")
        info = import_run(list(files), suite, out, agent_name)
        click.echo(f"{out}: {info['questions']} answers from {info['agent']} ({len(files)} file(s); "
                   f"{info['other_tool_spans']} spans of other tools not scored)")

    @cli.command("draft-contract")
    @click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
    @click.option("--action", required=True, help="The tool that acts on the decision (e.g. issue_refund).")
    @click.option("--out", type=click.Path(path_type=Path), required=True, help="Draft domain directory to write.")
    @click.option("--trace-id", default=None, help="The run's trace id (needed when the file holds several).")
    @click.option("--name", default="observed_task", show_default=True, help="The contract's name.")
    @click.option("--actor", default="agent", show_default=True,
                  help="The actor the draft contract acts as (set the real one on review).")
    @click.option("--role", default="agent", show_default=True,
                  help="The draft's role for that actor, reading the subsystems the run touched (set the real one "
                       "on review).")
    @overwrite_option
    def draft_contract(files: tuple[Path, ...], action: str, out: Path, trace_id: str | None, name: str, actor: str,
                       role: str, overwrite: bool) -> None:
        """Draft a task contract (and a review checklist) from an observed run's OTLP spans (FILES) in your own
        domain."""
        from judges.groundeval.draft_contract import write_draft
        from orgbench.core.errors import InputError

        if holds(out) is not None and not overwrite:
            raise InputError(f"--out {out}: holds {holds(out)}; choose another directory (or add --overwrite)")
        checks = write_draft(list(files), out, action, trace_id=trace_id, name=name, actor=actor, role=role)
        click.echo(f"{out}: draft contract {name!r} with {checks} precondition(s), reviewed: false; go through "
                   f"{out / 'REVIEW.md'}, set reviewed: true, then orgbench build groundeval --domain {out}")
