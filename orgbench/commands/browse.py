"""``orgbench list`` (everything a user can name) and ``orgbench view DIR`` (one folder as a self-contained page)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click


def table_studies() -> dict[str, str]:
    """What ``holds`` calls a folder of each study's tables, and the study whose section renders it."""
    from orgbench.studies.descriptor import STUDIES

    return {s.tables_kind: s.name for s in STUDIES.all() if s.tables_kind}


def _run_section(directory: Path, kind: str) -> dict[str, Any]:
    """A page section for a run or score folder: its summary table and one drill-down record per line."""
    from orgbench.report import drill_spec
    from orgbench.report.views import agent_run_view, comparison_view, judge_run_view, scores_view

    build = {"a CARGO judge run": judge_run_view, "a GroundEval agent run": agent_run_view,
             "GroundEval scores": scores_view, "a comparison": comparison_view}[kind]
    title, intro, table, records = build(directory)
    return {"key": "view", "title": title, "intro": intro, "provenance": "", "tables": [table] if table else [],
            "figures": [], "drilldown": drill_spec(records) if records else None, "findings": [],
            "definitions": (), "has_llm": False}


def view_page(directory: Path, target: Path) -> str:
    """Render ``directory`` (results, a table set, a run or scores) to ``target``; return what it held."""
    from orgbench.outdir import holds
    from orgbench.report import render_page, study_section, write_report
    from orgbench.core.errors import InputError
    from orgbench.core.storage import verify_if_sealed

    directory = Path(directory)
    kind = holds(directory)
    if kind == "GroundEval scores":     # as tables groundeval reads them: edited since, they are not the scorer's
        verify_if_sealed(directory, "; score the answers again (`orgbench score groundeval`)")
    subtitle = f"`orgbench view {directory}`: {kind}; self-contained, no network needed."
    if kind == "results (orgbench reproduce)":
        write_report(directory, target)
    elif kind in table_studies():
        key = table_studies()[kind]
        section = study_section(directory.resolve().parent, key, directory.resolve().name)
        if section is None:
            raise InputError(f"{directory}: not a directory")
        render_page([section], target, subtitle)
    elif kind in ("a CARGO judge run", "a GroundEval agent run", "GroundEval scores", "a comparison"):
        render_page([_run_section(directory, kind)], target, subtitle)
    else:
        raise InputError(f"{directory}: holds {kind or 'nothing'}; view renders results, table sets (tables "
                         f"cargo|groundeval|assurance), CARGO judge runs, GroundEval agent runs and scores, and compare --out "
                         "folders")
    return kind


def _print_list(data: dict[str, Any]) -> None:
    for heading, entries in data.items():
        click.echo(f"{heading}:")
        if isinstance(entries, dict):
            width = max(map(len, entries))
            for name, text in entries.items():
                click.echo(f"  {name.ljust(width)}  {text}")
        else:
            click.echo("  " + ", ".join(entries))


def register(cli: click.Group) -> None:
    """Add ``list`` and ``view`` to the CLI."""

    @cli.command("list")
    @click.option("--json", "as_json", is_flag=True, help="Print the lists as one JSON object.")
    def list_command(as_json: bool) -> None:
        """List the judges, agents, conditions, tracks, studies and import/export formats (read from the code)."""
        from orgbench.commands.registry import everything

        data = everything()
        if as_json:
            click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            _print_list(data)

    @cli.command("view")
    @click.argument("directory", type=click.Path(file_okay=False, exists=True, path_type=Path))
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="The HTML file to write (default: DIRECTORY.html beside the folder, which is left untouched).")
    def view_command(directory: Path, out: Path | None) -> None:
        """Render DIRECTORY on its own as a self-contained HTML page: results, a table set, a run or scores."""
        from orgbench.commands.options import check_out_dir
        from orgbench.core.errors import InputError

        target = out or directory.resolve().parent / f"{directory.resolve().name}.html"
        check_out_dir(target.parent, option="--out")
        if target.is_file() and b'<meta name="generator" content="orgbench">' not in target.read_bytes()[:400]:
            raise InputError(f"--out {target}: exists and was not written by orgbench; choose another file")
        kind = view_page(directory, target)
        click.echo(f"{target}: {kind}")
