"""``orgbench tables groundeval`` and ``orgbench tables assurance``: a study's tables from your own scores or suite.

Both follow the output-directory rule (orgbench.outdir) and write their
folder whole (under a temporary name, renamed into place), so the folder
is what ``orgbench report`` and ``orgbench view`` render.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from orgbench.commands.options import subgroup
from orgbench.outdir import bind, guard, holds, overwrite_option

if TYPE_CHECKING:
    from orgbench.studies.groundeval_scores import SeededScore


def _score_rows(folder: Path, index: int) -> tuple[list[SeededScore], list[dict[str, Any]]]:
    """The scored rows of one ``score groundeval`` folder (as the study tables take them, with the folder's
    index as their seed) and the drill-down records (when its suite is there)."""
    from judges.groundeval.question_score import load_scores
    from judges.groundeval.traces import load_submissions, load_suite
    from orgbench.core.errors import InputError
    from orgbench.core.storage import read_json, verify_if_sealed
    from orgbench.report.groundeval_drilldown import records as drilldown_records
    from orgbench.studies.groundeval_scores import SeededScore

    found = holds(folder)
    if found != "GroundEval scores":
        hint = " (score it first: `orgbench score groundeval --answers RUN`)" if found == "a GroundEval agent run" else ""
        raise InputError(f"{folder}: holds {found or 'nothing'}, not GroundEval scores (the folder `orgbench score "
                         f"groundeval` writes){hint}")
    # an edited, cut or appended-to questions.jsonl is not what the scorer wrote
    verify_if_sealed(folder, "; score the answers again (`orgbench score groundeval`)")
    scores = load_scores(folder / "questions.jsonl")
    rows = [SeededScore(index, score) for score in scores]
    meta = read_json(folder / "summary.json")
    if not isinstance(meta, dict):
        raise InputError(f"{folder / 'summary.json'}: not a JSON object (the summary `orgbench score groundeval` "
                         "writes)")
    for name in ("suite", "answers"):
        if not isinstance(meta.get(name), str):
            raise InputError(f"{folder / 'summary.json'}: field {name}: missing or not text")
    suite, answers = Path(meta["suite"]), Path(meta["answers"])
    if not (suite / "contracts.jsonl").is_file() or not answers.exists():
        return rows, []
    contracts = {c.question_id: c for c in load_suite(suite)[1]}
    given = {(s.question_id, s.agent, s.mode): s.answer for s in load_submissions(answers)[0]}
    tool = [score for score in scores if score.mode == "tool"]
    return rows, drilldown_records(tool, contracts, given, {qid: index for qid in contracts})


@click.command("groundeval")
@click.argument("scores", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory for the tables; one holding anything else is refused (see --overwrite).")
@overwrite_option
def tables_groundeval(scores: tuple[Path, ...], out: Path, overwrite: bool) -> None:
    """Write the GroundEval tables, figure and drill-down from SCORES folders (from `orgbench score groundeval`)."""
    from orgbench.studies.groundeval import MODES, write_study_tables
    from orgbench.core.errors import InputError
    from orgbench.core.storage import sha256_file, staged_directory

    all_rows: list[SeededScore] = []
    drill: list[dict[str, Any]] = []
    for index, folder in enumerate(scores):
        rows, records = _score_rows(folder, index)
        all_rows.extend(rows)
        drill.extend(records)
    if not all_rows:
        raise InputError(f"{scores[0]}: no scored questions")
    ids = [r["id"] for r in drill]
    if len(set(ids)) != len(ids):
        raise InputError("SCORES: the same agent and question are scored in two folders; give each once")
    agents = list(dict.fromkeys(str(r.score.agent) for r in all_rows))
    missing = [(a, m) for a in agents for m in MODES
               if not any(r.score.agent == a and r.score.mode == m for r in all_rows)]
    inputs = {"scores": [sha256_file(folder / "questions.jsonl") for folder in scores]}
    guard(out, "GroundEval tables", inputs, overwrite=overwrite)
    with staged_directory(out) as tmp:
        write_study_tables(tmp, all_rows, drill, agents, (), where=", ".join(str(s) for s in scores))
        bind(tmp, "tables groundeval", inputs)
    note = f" ({', '.join(f'{a} {m}' for a, m in missing)} not scored: their rows are empty)" if missing else ""
    click.echo(f"wrote GroundEval tables for {len(agents)} agent(s) to {out}{note}")


@click.command("assurance")
@click.option("--source", required=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Trajectory suite for the later-context contrast (from `orgbench build trajectories`).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory for the tables; one holding anything else is refused (see --overwrite).")
@click.option("--judge", default="builtin:step", show_default=True, help="Contrast judge: builtin:step, openai:MODEL, stub.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL.")
@click.option("--draws", default=2, show_default=True, type=click.IntRange(1), help="Judgements per packet.")
@overwrite_option
def tables_assurance(source: Path, out: Path, judge: str, base_url: str | None, draws: int, overwrite: bool) -> None:
    """Write the fault study (recording stub, P0–P3) and the later-context contrast of SOURCE, as `reproduce` does."""
    from judges.assurance.contrast import drilldown_records as packet_rows
    from orgbench.report.fault_report import drilldown_records as fault_rows
    from judges.backends import make_backend
    from orgbench.report.assurance_outputs import run_contrast, run_faults
    from orgbench.commands.preflight import check_endpoint, refuse_request_options
    from orgbench.core.storage import dumps, sha256_file, staged_directory, write_text_atomic

    refuse_request_options((judge,))
    inputs = {"source": sha256_file(source / "trajectories.jsonl") if (source / "trajectories.jsonl").is_file()
              else None, "judge": judge, "base_url": base_url, "draws": draws}
    guard(out, "assurance tables", inputs, overwrite=overwrite)
    from benchmark_builders.trajectories.records import read_trajectories

    read_trajectories(source / "trajectories.jsonl")          # a malformed source is refused before the fault study
    check_endpoint(judge, base_url)
    backend = make_backend(judge, base_url=base_url)
    with staged_directory(out) as tmp:
        faults_line, outcomes = run_faults(tmp)
        contrast_line, judged = run_contrast(source, tmp, backend, draws)
        write_text_atomic(tmp / "drilldown.jsonl", "".join(dumps(r) + "\n" for r in fault_rows(outcomes) + packet_rows(judged)))
        bind(tmp, "tables assurance", inputs)
    click.echo(f"{faults_line}\n{contrast_line.replace(str(tmp), str(out))}")


def register(cli: click.Group) -> None:
    """Add ``tables groundeval`` and ``tables assurance`` to the CLI."""
    subgroup(cli, "tables").add_command(tables_groundeval)
    subgroup(cli, "tables").add_command(tables_assurance)
