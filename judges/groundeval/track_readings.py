"""How orgbench's agents read, and its scorer scores, its own three tracks: one ``TrackBehaviour`` each.

Each is found by its track's name (``track_behaviour.behaviour``).
"""

from __future__ import annotations

from judges.groundeval.agents import (
    heuristic_counterfactual, heuristic_perspective, heuristic_silence_in_role, leaky_counterfactual,
    leaky_perspective, leaky_silence, oracle_looks_at_entity, prior_counterfactual, prior_perspective, prior_silence,
    proximity_counterfactual,
)
from judges.groundeval.follow_agent import follow_counterfactual, follow_silence
from judges.groundeval.scoring import score_counterfactual, score_perspective, score_silence
from judges.groundeval.track_behaviour import TrackBehaviour

PERSPECTIVE = TrackBehaviour(
    track="perspective", score=score_perspective,
    readings={"bm25": heuristic_perspective, "zero-shot": prior_perspective},
    leaky=leaky_perspective, oracle_looks=oracle_looks_at_entity,
)
COUNTERFACTUAL = TrackBehaviour(
    track="counterfactual", score=score_counterfactual,
    readings={"bm25": heuristic_counterfactual, "follow": follow_counterfactual,
              "proximity": proximity_counterfactual, "zero-shot": prior_counterfactual},
    leaky=leaky_counterfactual,
)
SILENCE = TrackBehaviour(
    track="silence", score=score_silence,
    readings={"bm25": heuristic_silence_in_role, "follow": follow_silence, "zero-shot": prior_silence},
    leaky=leaky_silence, tallies_searches=True,
)
BUILTIN_BEHAVIOURS: tuple[TrackBehaviour, ...] = (PERSPECTIVE, COUNTERFACTUAL, SILENCE)
