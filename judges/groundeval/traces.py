"""Answers and traces on disk: the run directory of ``run-agent`` and the JSONL any other agent can write.

A run directory holds ``run.json``, ``answers.jsonl`` and ``traces.jsonl``.
An answers line is ``{"question_id", "agent", "mode", "answer"}`` where
``answer`` is the JSON object of the track's schema (or a string holding
it); a traces line is ``{"question_id", "agent", "mode", "calls": [call…]}``
with each call as the gated runtime records it (``seq``, ``tool``, ``args``,
``returned_ids``, ``outcome``, ``gates`` {horizon, actor, subsystem: bool},
``latency_ms``). A single JSONL file may also carry ``calls`` on the answer
lines themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark_builders.groundeval.contracts import Contract, Truth
from judges.groundeval.call_args import may_hold_surrogates, well_formed_text
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import read_bytes, read_json, verify_if_sealed
from simulator.world import World, load_world


@dataclass
class Submission:
    """One agent's answer to one question in one mode, with its recorded calls."""

    question_id: Any
    agent: str
    mode: str
    answer: Any
    calls: Any = field(default_factory=list)


def load_suite(directory: Path) -> tuple[dict[str, Any], list[Contract]]:
    """suite.json and the contracts of a suite directory (never the truth)."""
    directory = Path(directory)
    for name in ("suite.json", "contracts.jsonl"):
        if not (directory / name).exists():
            raise InputError(f"{directory}: not a GroundEval suite (no {name})")
    verify_if_sealed(directory)
    meta = read_json(directory / "suite.json")
    contracts = []
    first: dict[str, int] = {}
    for number, obj in read_jsonl(directory / "contracts.jsonl").numbered():
        try:
            contracts.append(Contract.from_json(obj))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{directory / 'contracts.jsonl'}:{number}: bad or missing field {exc}") from None
        if contracts[-1].question_id in first:
            raise InputError(f"{directory / 'contracts.jsonl'}:{number}: repeats the question_id of line "
                             f"{first[contracts[-1].question_id]}")
        first[contracts[-1].question_id] = number
    return meta, contracts


def load_truth(directory: Path) -> dict[str, Truth]:
    """The truth records of a suite, by question id (for the scorer and the oracle only)."""
    path = Path(directory) / "truth.jsonl"
    out = {}
    for number, obj in read_jsonl(path).numbered():
        try:
            truth = Truth.from_json(obj)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}:{number}: bad or missing field {exc}") from None
        out[truth.question_id] = truth
    return out


def load_corpus_world(directory: Path) -> World:
    """The world the suite's runtime serves (``world/`` inside the suite)."""
    return load_world(Path(directory) / "world", verify=False)


def _lines(path: Path) -> list[tuple[int, Any, str | None]]:
    """(line number, value, problem) of each non-blank line, every lone surrogate escape in a value read as U+FFFD
    (``well_formed_text``, as the runtime reads one); an unreadable line's value is None and its problem says why
    (not JSON, not UTF-8), noted by the caller."""
    data = read_bytes(path, "JSONL file")
    lines = read_jsonl(path, data, lenient=True)
    if may_hold_surrogates(data):
        return [(line.number, well_formed_text(line.value), line.problem) for line in lines]
    return [(line.number, line.value, line.problem) for line in lines]


def _answer_problem(obj: Any, known: Any) -> str | None:
    """Why an answer line cannot be scored (None when it can): its fields' types, or a question the suite lacks."""
    if not isinstance(obj, dict) or "question_id" not in obj:
        return "not an answer line (needs question_id)"
    for name in ("question_id", "agent", "mode"):
        if name in obj and not isinstance(obj[name], str):
            return f"field {name} is {type(obj[name]).__name__}, not text"
    if known is not None and obj["question_id"] not in known:
        return f"question_id {obj['question_id']!r} is not a question of the suite"
    return None


def load_submissions(path: Path, known: Any = None) -> tuple[list[Submission], list[str]]:
    """Answers (and traces) from a run directory or a JSONL file; returns them and one note per unreadable line.

    An unreadable line is one that is not an answer or has a field of the wrong type; given ``known`` (the
    suite's question ids: the strict check before scoring), also one naming another question or repeating an
    earlier answer (question, agent, mode); without it the scorer marks those rows. A trace repeating an earlier
    one's (question, agent, mode), and a run directory's answer with no trace, are always noted and left out.
    """
    path = Path(path)
    notes: list[str] = []
    if path.is_dir():
        answers_path, traces_path = path / "answers.jsonl", path / "traces.jsonl"
        if not answers_path.is_file():
            raise InputError(f"{path}: no answers.jsonl (expected a run-agent output directory or a JSONL file)")
        if not traces_path.is_file():
            raise InputError(f"{traces_path}: file not found (a run directory holds answers.jsonl and traces.jsonl)")
    elif path.is_file():
        answers_path, traces_path = path, None
    else:
        raise InputError(f"{path}: no such file or directory")
    traces: dict[tuple[Any, str, str], Any] = {}
    trace_lines: dict[tuple[Any, str, str], int] = {}
    if traces_path is not None:
        for number, obj, unreadable in _lines(traces_path):
            if not isinstance(obj, dict) or "question_id" not in obj:
                notes.append(f"{traces_path}:{number}: {unreadable or 'not a trace line'}")
                continue
            key = (str(obj["question_id"]), str(obj.get("agent", "agent")), str(obj.get("mode", "tool")))
            if key in trace_lines:          # a second writer's or a copy's: the first is kept, the line noted
                notes.append(f"{traces_path}:{number}: repeats the trace of line {trace_lines[key]} "
                             f"({', '.join(key)})")
                continue
            trace_lines[key] = number
            traces[key] = obj.get("calls", [])
    submissions = []
    first: dict[tuple[str, str, str], int] = {}
    for number, obj, unreadable in _lines(answers_path):
        problem = unreadable or _answer_problem(obj, known)
        if problem:
            notes.append(f"{answers_path}:{number}: {problem}")
            continue
        agent, mode = str(obj.get("agent", "agent")), str(obj.get("mode", "tool"))
        qid = obj["question_id"]
        if known is not None and (qid, agent, mode) in first:
            notes.append(f"{answers_path}:{number}: repeats the answer of line {first[qid, agent, mode]} "
                         f"({qid}, {agent}, {mode})")
            continue
        first[qid, agent, mode] = number
        if traces_path is not None and "calls" not in obj and (str(qid), agent, mode) not in traces:
            notes.append(f"{answers_path}:{number}: no trace in {traces_path.name} for ({qid}, {agent}, {mode}); "
                         "each answer of a run has one (the file was cut, or written by another run)")
            continue
        calls = obj.get("calls", traces.get((str(qid), agent, mode), []))
        submissions.append(Submission(qid, agent, mode, obj.get("answer"), calls))
    if not submissions:
        raise InputError(f"{answers_path}: no answer lines (each needs a question_id; {len(notes)} unreadable)")
    return submissions, notes
