"""The GroundEval study's records: a scored answer with its world's seed, and what a group of answers scores."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Sequence

from judges.groundeval.question_score import QuestionScore


@dataclass(frozen=True, slots=True)
class SeededScore:
    """One scored answer and the seed of the world its suite was built from (for scores from elsewhere: the
    index of the folder they came from)."""

    seed: int
    score: QuestionScore


def _mean(values: Sequence[float]) -> float:
    return sum(float(v) for v in values) / len(values) if values else 0.0


@dataclass(frozen=True, slots=True)
class GroupScore:
    """What a group of scored answers (one agent and mode, over a track or a question kind) scores together."""

    n: int
    s_answer: float
    s_traj: float
    s_adj: float
    violation_rate: float
    correct_invalid_path: int
    verdict_correct: float
    min_s_adj: float

    @staticmethod
    def of(scores: Sequence[QuestionScore]) -> "GroupScore":
        """The means (and counts) over ``scores``; every mean is 0.0 for no scores."""
        calls = sum(s.n_calls for s in scores)
        violating = sum(round(s.v * s.n_calls) for s in scores)
        return GroupScore(
            n=len(scores), s_answer=_mean([s.s_answer for s in scores]), s_traj=_mean([s.s_traj for s in scores]),
            s_adj=_mean([s.s_adj for s in scores]), violation_rate=violating / calls if calls else 0.0,
            correct_invalid_path=sum(1 for s in scores if s.answer_correct and s.v > 0),
            verdict_correct=sum(1 for s in scores if s.answer_correct) / len(scores) if scores else 0.0,
            min_s_adj=min((s.s_adj for s in scores), default=0.0))

    def rounded(self) -> "GroupScore":
        """The same group with every float rounded to 4 places, as summary.json reports it."""
        values: dict[str, Any] = {k: round(v, 4) if isinstance(v, float) else v for k, v in self.to_json().items()}
        return replace(self, **values)

    def to_json(self) -> dict[str, Any]:
        """The group as summary.json writes it."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
