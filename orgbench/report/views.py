"""One run or score folder as a page section (``orgbench view``): a summary table and a record per line."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from orgbench.core.storage import read_json


def _clip(value: Any, limit: int = 4000) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(header: list[str], rows: list[list[Any]], name: str, title: str) -> dict[str, Any]:
    return {"name": name, "title": title, "header": header,
            "rows": [{"paper": False, "kind": "", "cells": [{"text": str(c), "cls": ""} for c in row]} for row in rows]}


def judge_run_view(directory: Path) -> tuple[str, str, dict[str, Any] | None, list[dict[str, Any]]]:
    """A CARGO judge run: verdict counts per condition, and every judgment with the judge's response."""
    from judges.judgments import load_judgments
    from judges.run_record import unfinished

    meta = read_json(directory / "run.json") if (directory / "run.json").is_file() else {}
    judge = str(meta.get("judge", directory.name))
    rows = load_judgments(directory)
    verdict = lambda r: "error" if r.error else r.verdict.verdict if r.verdict else "unparsed"  # noqa: E731
    counts: dict[str, Counter] = {}
    for row in rows:
        counts.setdefault(row.condition, Counter())[verdict(row)] += 1
    names = ["pass", "fail", "cannot_decide", "unparsed", "error"]
    table = _plain(["condition", *names, "judged"], [[c, *(n[v] for v in names), sum(n.values())]
                                                      for c, n in counts.items()], "run_summary",
                   f"Verdicts of {judge} per condition")
    records = [{"id": f"{r.item_id}.{r.condition}.{r.seed}", "title": f"{r.item_id} under {r.condition}",
                "fields": {"item": r.item_id, "condition": r.condition, "seed": r.seed, "outcome": verdict(r)},
                "sections": [{"heading": "Response", "text": _clip(r.response or r.error or "")}]}
               for r in rows]
    problem = unfinished(directory, rows)
    if problem:
        print(f"warning: view: {problem}", file=sys.stderr)
    flagged = f" Not finished: {problem}." if problem else ""
    return (f"CARGO judge run: {judge}", f"{directory}: {len(rows)} judgments (judgments.jsonl).{flagged}", table,
            records)


def agent_run_view(directory: Path) -> tuple[str, str, dict[str, Any] | None, list[dict[str, Any]]]:
    """A GroundEval agent run: one record per answer, with its tool calls."""
    from judges.groundeval.traces import load_submissions

    meta = read_json(directory / "run.json")
    traced = (directory / "traces.jsonl").is_file()     # a task run keeps its calls on the answer lines
    records = []
    answers, unread = load_submissions(directory if traced else directory / "answers.jsonl")
    for note in unread:
        print(f"warning: view: {note}; left out (flagged on the page)", file=sys.stderr)
    for answer in answers:
        key = (answer.question_id, answer.agent, answer.mode)
        calls = answer.calls if isinstance(answer.calls, list) else []
        records.append({"id": f"{key[0]}:{key[1]}:{key[2]}", "title": f"{key[0]} by {key[1]} ({key[2]} mode)",
                        "fields": {"question": key[0], "agent": key[1], "mode": key[2], "calls": len(calls)},
                        "sections": [{"heading": "Answer", "text": _clip(answer.answer)},
                                     {"heading": "Tool calls", "text": _clip(calls)}]})
    title = f"GroundEval agent run: {meta.get('agent')} ({meta.get('mode')} mode)"
    flagged = f" {len(unread)} unreadable line(s) left out: " + "; ".join(unread) + "." if unread else ""
    questions = meta.get("questions") if isinstance(meta, dict) else None
    if isinstance(questions, int) and len(answers) + len(unread) < questions:
        short = f"{len(answers)} of the {questions} answers run.json records (the file was cut short)"
        print(f"warning: view: {directory / 'answers.jsonl'}: {short}", file=sys.stderr)
        flagged += f" Incomplete: {short}."
    return (title, f"{directory}: {len(records)} answers (answers.jsonl, traces.jsonl); not scored yet.{flagged}",
            None, records)


def scores_view(directory: Path) -> tuple[str, str, dict[str, Any] | None, list[dict[str, Any]]]:
    """GroundEval scores: the means per agent, mode and track, and every scored question."""
    from judges.groundeval.question_score import load_scores

    summary = read_json(directory / "summary.json")
    table_rows = [[agent, mode, track, v.get("n", ""), *(f"{v.get(k, 0):.3f}" for k in ("s_answer", "s_traj", "s_adj",
                                                                                       "violation_rate"))]
                  for agent, modes in (summary.get("agents") or {}).items() for mode, tracks in modes.items()
                  if isinstance(tracks, dict) for track, v in tracks.items() if isinstance(v, dict)]
    table = _plain(["agent", "mode", "track", "n", "S_answer", "S_traj", "S_adj", "violation rate"], table_rows,
                   "scores_summary", "Mean scores per agent, mode and track")
    records = [{"id": f"{r.question_id}:{r.agent}:{r.mode}", "title": f"{r.question_id} by {r.agent}",
                "fields": {"question": r.question_id, "track": r.track, "kind": r.kind, "agent": r.agent,
                           "mode": r.mode, "s_adj": f"{float(r.s_adj):.2f}"},
                "sections": [{"heading": "Score and diagnostics", "text": _clip(r.to_json())}]}
               for r in load_scores(directory / "questions.jsonl")]
    skipped = summary.get("unreadable_lines") or []
    intro = f"{directory}: {len(records)} scored questions" + (f"; {len(skipped)} unreadable line(s) skipped" if skipped else "")
    return "GroundEval scores", intro + ".", table, records


def comparison_view(directory: Path) -> tuple[str, str, dict[str, Any] | None, list[dict[str, Any]]]:
    """A ``compare --out`` folder: per judge and condition DI and accuracy; each disagreement with every response."""
    from judges.comparison import time_cell
    from judges.judgments import load_judgments

    data = read_json(directory / "compare.json")
    disagreements = data.get("disagreements") if isinstance(data, dict) else None
    if not isinstance(disagreements, dict):        # an agent or contrast comparison: its Markdown as it is
        text = (directory / "compare.md").read_text(encoding="utf-8")
        return "Comparison", f"{directory}: compare.md", None, [
            {"id": "compare", "title": "compare.md", "fields": {}, "sections": [{"heading": "", "text": text}]}]
    judges = data["judges"]
    rows = [[judge, condition, row.get("di"), row.get("accuracy"), row.get("parse_rate"), time_cell(row),
             row.get("cost")] for judge, entry in judges.items() for condition, row in entry["conditions"].items()]
    table = _plain(["judge", "condition", "DI", "accuracy", "parse rate", "time s", "cost"], rows, "comparison",
                   "Judges per condition")
    responses: dict[str, dict[tuple[str, str], str]] = {}
    for name, entry in judges.items():
        lowest: dict[tuple[str, str], tuple[int, str]] = {}
        run = Path(entry["run"])
        for r in load_judgments(run) if run.is_dir() else ():      # an inspect log: verdicts only
            key = (r.item_id, r.condition)
            if key not in lowest or r.seed < lowest[key][0]:
                lowest[key] = (r.seed, r.response or r.error or "")
        responses[name] = {key: text for key, (_, text) in lowest.items()}
    records = []
    for condition, items in disagreements.items():
        for d in items:
            verdicts = d["verdicts"]
            records.append({"id": f"{d['item']}.{condition}", "title": f"{d['item']} under {condition}",
                            "fields": {"item": d["item"], "condition": condition, "family": d["family"],
                                       **{f"verdict {j}": v or "–" for j, v in verdicts.items()}},
                            "sections": [{"heading": f"{j}: {verdicts.get(j) or '–'}",
                                          "text": _clip(responses.get(j, {}).get((d["item"], condition), ""))}
                                         for j in verdicts]})
    count = sum(len(v) for v in disagreements.values())
    return ("Judge comparison", f"{directory}: {len(judges)} runs; {count} item(s) on which the judges disagree "
            "(select one for every judge's response).", table, records)
