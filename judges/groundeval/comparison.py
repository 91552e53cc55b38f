"""Compare two GroundEval agent runs of one suite, question by question: what changed, and is it a regression.

``compare_agent_runs(run_a, run_b)`` scores both runs with the scorer (every
call's gates re-derived from the suite) and returns one JSON-ready dict:

- ``summary``: per track and ``all``: n, mean S_adj of A and of B, the mean
  of the per-question deltas ΔS_adj = S_adj(B) − S_adj(A) with a paired
  bootstrap 95% percentile CI (questions resampled with replacement, the same
  draws for both runs, ``numpy.random.default_rng(seed)``);
- ``questions``: every question that changed in any way — its S_adj in A and
  B and the delta, the answer fixed (wrong in A, right in B) or regressed,
  gates B breaks that A did not (``new_gates``) and A broke that B does not,
  and the two call sequences (tool and arguments) when they differ;
- ``fixed`` / ``regressed`` / ``new_gates`` / ``tool_sequences_changed``:
  the question ids of each kind.

A run is a ``run-agent`` directory or any directory holding ``answers.jsonl``
and ``traces.jsonl`` (an MCP server's ``--out``) with one agent and mode. Runs
of different suites, runs holding answers to questions the suite does not
have, or runs with unreadable lines are refused (InputError, one line).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from benchmark_builders.groundeval.tracks import track_names
from judges.groundeval.question_score import QuestionScore
from judges.groundeval.run import score_submissions
from judges.groundeval.scoring_profile import DEFAULT_PROFILE, profile_named
from judges.groundeval.runtime import Corpus
from judges.groundeval.task_track import is_task_suite
from judges.groundeval.traces import Submission, load_corpus_world, load_submissions, load_suite
from judges.bootstrap import BOOTSTRAP_SEED, RESAMPLES, paired_mean_delta
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, sha256_file
from orgbench.core.tables import Table

RUN_JSON = "run.json"


def _recorded_suite(run: Path) -> tuple[str | None, Path | None]:
    """(contracts digest, suite path) a run.json records, or (None, None) for a directory without one."""
    path = run / RUN_JSON
    if not path.is_file():
        return None, None
    info = read_json(path)
    where = info.get("suite")
    return info.get("suite_contracts_sha256"), Path(where) if isinstance(where, str) else None


def suite_of_agent_runs(runs: Sequence[Path], suite_dir: Path | None) -> Path:
    """The suite both runs answered: ``suite_dir`` or the one a run.json names; InputError on any mismatch."""
    recorded = [(run, *_recorded_suite(run)) for run in runs]
    digests = [(run, digest) for run, digest, _ in recorded if digest is not None]
    for run, digest in digests[1:]:
        if digest != digests[0][1]:
            raise InputError(f"{run / RUN_JSON}: suite_contracts_sha256 is {digest}, but {digests[0][0] / RUN_JSON} "
                             f"has {digests[0][1]}: the runs answered different suites")
    if suite_dir is None:
        named = next((where for _, _, where in recorded if where is not None), None)
        if named is None:
            raise InputError(f"{runs[0]}: no run.json naming the suite the run answered; pass --suite")
        if not named.is_dir():
            raise InputError(f"{runs[0] / RUN_JSON}: suite {named} is not a directory (moved?); pass --suite")
        suite_dir = named
    contracts = Path(suite_dir) / "contracts.jsonl"
    if not contracts.is_file():
        raise InputError(f"{suite_dir}: not a GroundEval suite (no contracts.jsonl)")
    found = sha256_file(contracts)
    for run, digest in digests:
        if digest != found:
            raise InputError(f"{run / RUN_JSON}: suite_contracts_sha256 is {digest}, but {contracts} has {found}: "
                             "not the suite this run answered")
    return Path(suite_dir)


def _submissions(run: Path, questions: set[str]) -> tuple[tuple[str, str], list[Submission]]:
    submissions, notes = load_submissions(run, known=questions)     # a repeated answer too, as score refuses it
    stranger = next((note for note in notes if note.endswith("is not a question of the suite")), None)
    if stranger is not None:
        raise InputError(f"{stranger}: the runs answered different suites (or pass the right --suite)")
    if notes:
        raise InputError(f"{notes[0]}" + (f" (and {len(notes) - 1} more)" if len(notes) > 1 else ""))
    groups = sorted({(s.agent, s.mode) for s in submissions})
    if len(groups) != 1:
        raise InputError(f"{run / 'answers.jsonl'}: holds {len(groups)} agents/modes "
                         f"({', '.join(f'{a} ({m})' for a, m in groups)}); compare runs of one agent and mode")
    return groups[0], submissions


def _gates(row: QuestionScore) -> set[str]:
    calls = row.diagnostics.get("calls") or []
    return {g for c in calls if isinstance(c, dict) and isinstance(c.get("gates"), dict)
            for g, broken in c["gates"].items() if broken is True}


def _sequence(sub: Submission | None) -> list[list[Any]]:
    calls = sub.calls if sub is not None and isinstance(sub.calls, list) else []
    return [[c.get("tool"), c.get("args")] if isinstance(c, dict) else [None, c] for c in calls]


def _question(qid: str, ra: QuestionScore, rb: QuestionScore, sa: Submission | None,
              sb: Submission | None) -> dict[str, Any] | None:
    ga, gb = _gates(ra), _gates(rb)
    seq_a, seq_b = _sequence(sa), _sequence(sb)
    if ra.s_adj == rb.s_adj and ra.answer_correct == rb.answer_correct and ga == gb and seq_a == seq_b:
        return None
    answer = ("fixed" if rb.answer_correct else "regressed") if ra.answer_correct != rb.answer_correct else "same"
    entry: dict[str, Any] = {"question_id": qid, "track": ra.track, "s_adj_a": ra.s_adj, "s_adj_b": rb.s_adj,
             "delta": round(rb.s_adj - ra.s_adj, 6), "answer": answer,
             "new_gates": sorted(gb - ga), "cleared_gates": sorted(ga - gb), "calls": None}
    if seq_a != seq_b:
        first = next((i for i, (x, y) in enumerate(zip(seq_a, seq_b)) if x != y), min(len(seq_a), len(seq_b)))
        entry["calls"] = {"a": seq_a, "b": seq_b, "first_difference": first}
    return entry


def compare_agent_runs(run_a: Path, run_b: Path, *, suite_dir: Path | None = None, resamples: int = RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> dict[str, Any]:
    """The comparison of two agent runs of one suite (see the module docstring)."""
    runs = [Path(run_a), Path(run_b)]
    suite = suite_of_agent_runs(runs, suite_dir)
    if is_task_suite(suite):
        raise InputError(f"{suite}: a task-contract suite; compare handles question suites only (score groundeval "
                         "scores task runs)")
    contracts = load_suite(suite)[1]
    questions = {c.question_id for c in contracts}
    loaded = [_submissions(run, questions) for run in runs]
    corpus = Corpus(load_corpus_world(suite))
    scored = []
    for _, submissions in loaded:
        rows, _ = score_submissions(suite, submissions, corpus=corpus)
        scored.append({r.question_id: r for r in rows})
    subs = [{s.question_id: s for s in submissions} for _, submissions in loaded]
    tracks = track_names(r.track for r in scored[0].values())
    order = sorted(scored[0], key=lambda q: (tracks.index(scored[0][q].track), q))
    summary = {}
    for track in (*tracks, "all"):
        mine = [q for q in order if track == "all" or scored[0][q].track == track]
        a = np.array([scored[0][q].s_adj for q in mine])
        b = np.array([scored[1][q].s_adj for q in mine])
        mean, low, high = paired_mean_delta(a, b, resamples=resamples, seed=seed)
        summary[track] = {"n": len(mine), "s_adj_a": round(float(a.mean()), 4) if len(mine) else None,
                          "s_adj_b": round(float(b.mean()), 4) if len(mine) else None,
                          "delta": round(mean, 4), "ci": [round(low, 4), round(high, 4)]}
    changed = [e for q in order if (e := _question(q, scored[0][q], scored[1][q], subs[0].get(q), subs[1].get(q)))]
    return {"kind": "groundeval", "suite": str(suite), "scoring": profile_named(DEFAULT_PROFILE).label,
            "resamples": resamples, "seed": seed,
            "runs": [{"run": str(run), "agent": group[0], "mode": group[1]} for run, (group, _) in zip(runs, loaded)],
            "summary": summary, "questions": changed,
            "fixed": [e["question_id"] for e in changed if e["answer"] == "fixed"],
            "regressed": [e["question_id"] for e in changed if e["answer"] == "regressed"],
            "new_gates": [e["question_id"] for e in changed if e["new_gates"]],
            "tool_sequences_changed": [e["question_id"] for e in changed if e["calls"] is not None]}


def regression(result: Mapping[str, Any], tolerance: float) -> str | None:
    """Why B regressed on A by more than ``tolerance`` in mean S_adj over all questions, or None."""
    delta = result["summary"]["all"]["delta"]
    if delta < -tolerance:
        return f"regression: mean ΔS_adj {delta:+.4f} is below −{tolerance:g} (--fail-on-regression)"
    return None


def _calls_text(seq: list[list[Any]]) -> str:
    return " → ".join(str(tool) for tool, _ in seq) or "(none)"


def agent_comparison_markdown(result: Mapping[str, Any]) -> str:
    """The comparison as Markdown: the S_adj table by track, then every question that changed."""
    a, b = result["runs"]
    lines = [f"A: {a['agent']} ({a['mode']}) — {a['run']}  ", f"B: {b['agent']} ({b['mode']}) — {b['run']}", "",
             f"## S_adj, B − A (scoring {result['scoring']}; paired bootstrap, {result['resamples']} resamples, "
             f"seed {result['seed']})", ""]
    lines += Table.from_lists(("track", "questions", "S_adj A", "S_adj B", "ΔS_adj", "95% CI"), [
        (track, str(row["n"]), f"{row['s_adj_a']:.4f}", f"{row['s_adj_b']:.4f}", f"{row['delta']:+.4f}",
         f"[{row['ci'][0]:+.4f}, {row['ci'][1]:+.4f}]") for track, row in result["summary"].items() if row["n"]
    ]).to_markdown().splitlines()
    changed = result["questions"]
    lines += ["", f"## Questions that changed ({len(changed)})", ""]
    if not changed:
        lines.append("None: every question has the same S_adj, answer verdict, gates and calls in both runs.")
    else:
        lines += Table.from_lists(("question", "track", "S_adj A", "S_adj B", "Δ", "answer", "new gates", "calls changed"), [
            (str(e["question_id"]), str(e["track"]), f"{e['s_adj_a']:.4f}", f"{e['s_adj_b']:.4f}", f"{e['delta']:+.4f}",
             str(e["answer"]), ", ".join(e["new_gates"]) or "–",
             "–" if e["calls"] is None else f"from call {e['calls']['first_difference'] + 1}") for e in changed
        ]).to_markdown().splitlines()
    lines += ["", f"Answers fixed: {len(result['fixed'])} ({', '.join(result['fixed']) or 'none'}).  ",
              f"Answers regressed: {len(result['regressed'])} ({', '.join(result['regressed']) or 'none'}).  ",
              f"Newly violated gates: {len(result['new_gates'])} question(s) "
              f"({', '.join(result['new_gates']) or 'none'})."]
    sequences = [e for e in changed if e["calls"] is not None]
    if sequences:
        lines += ["", "## Changed tool sequences", ""]
        for e in sequences:
            lines.append(f"- {e['question_id']}: A {_calls_text(e['calls']['a'])}; B {_calls_text(e['calls']['b'])}")
    return "\n".join(lines) + "\n"
