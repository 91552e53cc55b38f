"""``orgbench assure run``: the five pipeline stages (build, check, stage, emit, dispatch) in order, one command.

Each stage is the one ``orgbench assure STAGE`` runs, with the same step
record; the first that fails or refuses stops the rest, with that stage's
exit code (1: a check failed, 3: refused, 4: tampering found, 2: bad input).
"""

from __future__ import annotations

import click

from orgbench.commands.options import subgroup


def register(cli: click.Group) -> None:
    """Add ``assure run`` to the CLI."""
    from orgbench.commands.assurance import STAGE_NAMES, pipeline_options, run_stage_step, stage_key

    @subgroup(cli, "assure").command("run")
    @pipeline_options()
    @click.pass_context
    def run(ctx, source, work, controls, draws, judge, base_url, key_file, pinned):
        """Run build, check, stage, emit and dispatch in order; stop at the first stage that fails or refuses."""
        from judges.assurance.pipeline import Controls, PipelineConfig
        from judges.backends import make_backend
        from orgbench.commands.options import check_out_dir
        from orgbench.commands.preflight import check_endpoint, refuse_request_options

        refuse_request_options((judge,))
        check_out_dir(work, option="--work", into=True)
        check_endpoint(judge, base_url)
        from judges.assurance.source import ParsedSources

        backend = make_backend(judge, base_url=base_url)
        parsed = ParsedSources()                 # a stage reading the very bytes an earlier one parsed takes its records
        for step in STAGE_NAMES:
            cfg = PipelineConfig(source, work, Controls.parse(controls), draws=draws,
                                 key=stage_key(ctx, work, step, key_file, pinned), parsed=parsed)
            run_stage_step(ctx, cfg, step, backend if step == "dispatch" else None)
