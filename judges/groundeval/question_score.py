"""One scored GroundEval answer (``QuestionScore``, a questions.jsonl line) and the means over many.

``judges.groundeval.scoring.score_question`` makes one; ``run.score_submissions``
sets who answered (``agent``) and what the trace check found, and writes them
with ``to_json``; ``from_json`` reads a line back and ``load_scores`` a whole
questions.jsonl (the one reader every table, view and drill-down uses).
``summarize`` gives the means a summary.json reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from orgbench.core.errors import FormatError
from orgbench.core.jsonl import read_jsonl

#: Every field of a questions.jsonl line but ``agent`` (which only a run sets), in the order they are read.
FIELDS = ("question_id", "track", "kind", "difficulty", "mode", "s_answer", "s_traj", "v", "s_adj", "answer_correct",
          "n_calls", "malformed", "trace_tampered", "diagnostics")


@dataclass(frozen=True, slots=True)
class QuestionScore:
    """The score of one answer: S_answer, S_traj, the violation rate v, S_adj, and the diagnostics behind them.

    ``track``, ``kind`` and ``difficulty`` are None for an answer to a question the suite does not hold;
    ``malformed`` is the reason an answer or trace scored 0 (None when it was scored).
    """

    question_id: Any
    track: str | None
    kind: str | None
    difficulty: str | None
    mode: str
    s_answer: float
    s_traj: float
    v: float
    s_adj: float
    answer_correct: bool
    n_calls: int
    malformed: str | None
    trace_tampered: bool = False
    diagnostics: Mapping[str, Any] = field(default_factory=dict)
    agent: str | None = None
    scoring: str | None = None       # the scoring profile's label (scoring_profile.py), e.g. orgbench-2

    def to_json(self) -> dict[str, Any]:
        """The score as a questions.jsonl line (``agent`` only when a run set it)."""
        out = {name: getattr(self, name) for name in FIELDS}
        out["diagnostics"] = dict(self.diagnostics)
        if self.agent is not None:
            out["agent"] = self.agent
        if self.scoring is not None:
            out["scoring"] = self.scoring
        return out

    @staticmethod
    def from_json(row: Any, path: str, line: int | None = None) -> "QuestionScore":
        """A questions.jsonl line as a QuestionScore; FormatError naming the line and the first missing field."""
        if not isinstance(row, dict):
            raise FormatError(path, "not a JSON object", line=line)
        missing = next((name for name in FIELDS if name not in row), None)
        if missing is not None:
            raise FormatError(path, f"field {missing!r} missing", line=line)
        if not isinstance(row["diagnostics"], dict):
            raise FormatError(path, "field 'diagnostics' not an object", line=line)
        return QuestionScore(**{name: row[name] for name in FIELDS}, agent=row.get("agent"), scoring=row.get("scoring"))


def load_scores(path: Path | str) -> list[QuestionScore]:
    """Every line of a questions.jsonl as a QuestionScore, in file order; FormatError naming the first bad line."""
    return [QuestionScore.from_json(row, str(path), number) for number, row in read_jsonl(Path(path)).numbered()]


def summarize(rows: Iterable[QuestionScore]) -> dict[str, Any]:
    """Means of S_answer, S_traj, S_adj, the violation rate and the correct-answer-invalid-path count."""
    rows = list(rows)
    n = len(rows)
    calls = sum(r.n_calls for r in rows)
    violating = sum(round(r.v * r.n_calls) for r in rows)
    return {
        "n": n,
        "s_answer": round(sum(r.s_answer for r in rows) / n, 4) if n else 0.0,
        "s_traj": round(sum(r.s_traj for r in rows) / n, 4) if n else 0.0,
        "s_adj": round(sum(r.s_adj for r in rows) / n, 4) if n else 0.0,
        "violation_rate": round(violating / calls, 4) if calls else 0.0,
        "correct_invalid_path": sum(1 for r in rows if r.answer_correct and r.v > 0),
        "malformed": sum(1 for r in rows if r.malformed),
        "tampered_traces": sum(1 for r in rows if r.trace_tampered),
    }
