"""Scoring profiles: orgbench's rules (the default) and the public preprint's, kept for comparison.

``orgbench`` (version 2) gives trajectory credit only for evidence sought
(``judges.groundeval.evidence_sought``) and only with the right verdict, gives
no credit for the cause and effect ids a Counterfactual question states, and
counts an empty search as an answer rather than a dead end. ``preprint``
(version 1) keeps upstream's weights and credits: the trajectory scores
whatever the calls were and whatever the verdict, and the stated ids earn
.20 each. Both apply the same gates and the same violation rate. Every score
output records the profile's ``label``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from benchmark_builders.groundeval.tracks import BUILTIN_TRACKS
from orgbench.core.errors import InputError


@dataclass(frozen=True, slots=True)
class ScoringProfile:
    """How answer and trajectory combine: weights, the Counterfactual answer parts, and the two credit gates."""

    name: str
    version: int
    weights: Mapping[str, tuple[float, float]]            # track -> (w_answer, w_traj)
    counterfactual: Mapping[str, float]                   # answer part -> weight (sums to 1)
    evidence_sought: bool                                 # no trajectory credit without a relevant call / citation
    verdict_gates_trajectory: bool                        # no trajectory credit with a wrong verdict
    empty_search_is_dead_end: bool

    @property
    def label(self) -> str:
        """What every score output records: ``NAME-VERSION``."""
        return f"{self.name}-{self.version}"


_PREPRINT_CF = {"outcome": 0.20, "mechanism": 0.20, "cause_id": 0.20, "effect_id": 0.20, "direction": 0.10,
                "evidence": 0.05, "actor": 0.05}
_STATED = ("cause_id", "effect_id")      # every Counterfactual question states both ids: they earn nothing
_KEPT = sum(w for part, w in _PREPRINT_CF.items() if part not in _STATED)
_ORGBENCH_CF = {part: (0.0 if part in _STATED else w / _KEPT) for part, w in _PREPRINT_CF.items()}
#: orgbench's tracks' (w_answer, w_traj); a plugin track's come from its record.
WEIGHTS: dict[str, tuple[float, float]] = {t.name: t.weights for t in BUILTIN_TRACKS}

PROFILES: dict[str, ScoringProfile] = {
    "orgbench": ScoringProfile("orgbench", 2, WEIGHTS, _ORGBENCH_CF, True, True, False),
    "preprint": ScoringProfile("preprint", 1, WEIGHTS, _PREPRINT_CF, False, False, True),
}
DEFAULT_PROFILE = "orgbench"


def profile_named(name: str) -> ScoringProfile:
    """The profile called ``name``; InputError naming the known ones otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        raise InputError(f"--profile: unknown scoring profile {name!r} (known: {', '.join(PROFILES)})") from None
