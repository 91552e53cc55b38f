"""What ``orgbench reproduce --judge A --judge B [--quick]`` writes: every study's tables and comparisons, a report.

Layout of the output folder (``results-local`` by default):
``cargo/`` (Tables 1–3 and scores for the judged items, ``verdicts.*``,
``compare.*``), ``groundeval/`` (``table_agents.*``, ``compare.*``),
``assurance/`` (``contrast.*`` per judge, ``compare.*``), ``README.md`` and
``index.html`` (with a judge leaderboard per study). Everything is read from
the cached runs, so a rerun asks no model anything.
"""

from __future__ import annotations

import time
from itertools import combinations
from pathlib import Path
from typing import Any, Callable

from orgbench.core.errors import InputError
from orgbench.core.storage import dumps_pretty, read_json, write_text_atomic
from orgbench.studies import ReproduceOptions
from orgbench.studies.models import FULL, QUICK, WALL, ModelRuns, Size, run_models

VERDICTS = ("pass", "fail", "cannot_decide", "unparsed")


def _write_compare(out: Path, result: Any, markdown: str, title: str) -> None:
    write_text_atomic(out / "compare.json", dumps_pretty(result))
    write_text_atomic(out / "compare.md", f"# {title}\n\n{markdown}")


def _table(out: Path, name: str, header: list[str], rows: list[list[Any]], caption: str) -> None:
    from orgbench.core.tables import Table, write_table

    write_table(out, name, Table.from_lists(header, rows, title=caption, text_columns=3), heading="",
                latex={"caption_first": True, "small": False})


def verdict_rows(run_dirs: tuple[Path, ...], suite: Path) -> list[list[Any]]:
    """Per judge, condition and family: how many pass / fail / cannot_decide / unparsed verdicts."""
    from benchmark_builders.cargo.records import FAMILIES
    from judges.judgments import load_judgments
    from orgbench.core.jsonl import read_jsonl

    family = {row["item_id"]: row["family"] for row in read_jsonl(suite / "truth.jsonl").values}
    rows = []
    for run in run_dirs:
        judge = read_json(run / "run.json").get("judge", run.name)
        counts: dict[tuple[str, str], dict[str, int]] = {}
        for row in load_judgments(run):
            label = row.verdict.verdict if row.verdict is not None and not row.error else None
            label = label if label in VERDICTS[:3] else "unparsed"
            cell = counts.setdefault((row.condition, family[row.item_id]), dict.fromkeys(VERDICTS, 0))
            cell[label] += 1
        for condition in sorted({c for c, _ in counts}):
            for fam in FAMILIES:
                found = counts.get((condition, fam))
                if found:
                    rows.append([judge, condition, fam, *(found[v] for v in VERDICTS)])
    return rows


def write_cargo(out: Path, runs: ModelRuns) -> dict[str, Any]:
    """cargo/: the tables for the judged items, the verdicts per family and the judge comparison."""
    from judges.comparison import compare_runs, comparison_markdown
    from orgbench.report.cargo_tables import write_tables

    out.mkdir(parents=True, exist_ok=True)
    write_tables(list(runs.cargo), runs.cargo_suite, out)
    _table(out, "verdicts", ["judge", "condition", "family", *VERDICTS], verdict_rows(runs.cargo, runs.cargo_suite),
           "CARGO verdicts per judge, condition and family (P1, P3 should pass; P2, P4 should fail).")
    result = compare_runs(list(runs.cargo), suite_dir=runs.cargo_suite)
    _write_compare(out, result, comparison_markdown(result), "Judge comparison (CARGO)")
    return result


def _turn_counts(run: Path) -> dict[str, int]:
    """The agent's turns in ``run/turns.jsonl`` and how many of them called a tool (submit_answer included)."""
    from orgbench.core.jsonl import read_jsonl

    turns = read_jsonl(run / "turns.jsonl").values if (run / "turns.jsonl").is_file() else []
    return {"turns": len(turns), "tool_call_turns": sum(1 for t in turns if t["message"].get("tool_calls"))}


def write_groundeval(out: Path, runs: ModelRuns) -> dict[str, Any]:
    """groundeval/: S_answer / S_traj / S_adj per agent and track, and S_adj deltas between every pair of agents."""
    from benchmark_builders.groundeval.tracks import track_names
    from judges.groundeval.comparison import agent_comparison_markdown, compare_agent_runs
    from judges.groundeval.run import score_submissions
    from judges.groundeval.traces import load_submissions
    from orgbench.studies.groundeval_scores import GroupScore

    out.mkdir(parents=True, exist_ok=True)
    rows_out, per_agent = [], {}
    for judge, run in zip(runs.judges, runs.groundeval):
        scores, _ = score_submissions(runs.groundeval_suite, load_submissions(run)[0])
        per_agent[judge] = {"run": str(run), "wall_s": read_json(run.parent / WALL)["wall_s"], **_turn_counts(run),
                            "tracks": {}}
        for track in (*track_names(s.track for s in scores), "all"):
            group = GroupScore.of([s for s in scores if track == "all" or s.track == track])
            if group.n:
                per_agent[judge]["tracks"][track] = group.rounded().to_json()
                rows_out.append([judge, "tool", track, group.n, group.s_answer, group.s_traj, group.s_adj,
                                 group.violation_rate, group.correct_invalid_path])
    contracts = per_agent[runs.judges[0]]["tracks"]["all"]["n"] if rows_out else 0
    _table(out, "table_agents", ["agent", "mode", "track", "n", "S_answer", "S_traj", "S_adj", "violation rate",
                                 "correct, invalid path"], rows_out,
           f"GroundEval: model agents in tool mode on the same {contracts} contracts (world seed 0), scored by "
           "the deterministic scorer.")
    pairs = [compare_agent_runs(a, b, suite_dir=runs.groundeval_suite)
             for a, b in combinations(runs.groundeval, 2)]
    result = {"agents": per_agent, "pairs": pairs}
    text = "\n".join(agent_comparison_markdown(p) for p in pairs) or "One agent: no pair to compare.\n"
    _write_compare(out, result, text, "Agent comparison (GroundEval, S_adj)")
    return result


def write_assurance(out: Path, runs: ModelRuns) -> dict[str, Any]:
    """assurance/: each judge's contrast (G with cluster-bootstrap CIs) and the paired ΔG between judges."""
    from judges.assurance.contrast_compare import compare_contrast_runs, contrast_comparison_markdown
    from orgbench.core.tables import Table

    out.mkdir(parents=True, exist_ok=True)
    header: tuple[str, ...] = ()
    rows: list[tuple[str, ...]] = []
    texts: list[str] = []
    for judge, run in zip(runs.judges, runs.contrast):
        table = Table.from_csv((run / "contrast.csv").read_text(encoding="utf-8"), run / "contrast.csv")
        header = table.columns
        rows += [r for r in table.rows if r not in rows]      # each judge's rows; the paper's once
        texts.append(f"## {judge}\n\n" + (run / "contrast.md").read_text(encoding="utf-8").split("\n", 2)[2])
    rows.sort(key=lambda r: ("paper" in r[0], r[0]))
    write_text_atomic(out / "contrast.csv", Table(header, tuple(rows)).to_csv())
    write_text_atomic(out / "contrast.md", "# Later-context contrast, per judge\n\n" + "\n".join(texts))
    result = compare_contrast_runs(list(runs.contrast))
    for judge, run in zip(runs.judges, runs.contrast):
        result["judges"][judge]["wall_s"] = read_json(run / WALL)["wall_s"]
    _write_compare(out, result, contrast_comparison_markdown(result), "Contrast comparison (assurance)")
    return result


def reproduce_models(study: str, judges: tuple[str, ...], out: Path, options: ReproduceOptions, *, quick: bool,
                     echo: Callable[[str], None] = lambda line: None) -> None:
    """Run every judge through every study (the quick subset or the whole size), compare them, write ``out``."""
    from orgbench.commands.progress import Stages
    from orgbench.core.storage import staged_directory
    from orgbench.outdir import removed_on_failure
    from orgbench.report import write_report
    from orgbench.studies.models_readme import write_readme

    if study != "all":
        raise InputError(f"reproduce {study}: comparing judges (several --judge, or --quick) runs every study; "
                         "leave STUDY out")
    if not judges:
        raise InputError("--quick: name the judges to compare, e.g. --judge local:smollm2 --judge local:gemma3-270m")
    size: Size = QUICK if quick else FULL
    started = time.perf_counter()
    with removed_on_failure(out), Stages(echo):
        runs = run_models(judges, size, options, echo=echo)
        found = {}
        for name, write in (("cargo", write_cargo), ("groundeval", write_groundeval),
                            ("assurance", write_assurance)):
            with staged_directory(Path(out) / name) as tmp:
                found[name] = write(tmp, runs)
        write_readme(Path(out), runs, size, quick, found)
        write_report(Path(out), Path(out) / "index.html")
    echo(f"results: {out} ({time.perf_counter() - started:.1f} s; model time per judge in {out}/README.md)")
