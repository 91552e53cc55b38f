"""How the judges read and score one GroundEval track: its ``TrackBehaviour``.

orgbench's own tracks' behaviours are in ``track_readings.py``, under each
track's name; a plugin's track (``benchmark_builders.groundeval.tracks``)
names its behaviour by ``module:attr`` in its record. The agents and the
scorer look it up here by the contract's or truth's track, so neither branches
on a track's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from benchmark_builders.groundeval.tracks import track
from orgbench.core.errors import InputError
from orgbench.core.registry import load_attr

_BUILTIN = "judges.groundeval.track_readings:BUILTIN_BEHAVIOURS"


@dataclass(frozen=True)
class TrackBehaviour:
    """One track's agent readings and its score.

    ``readings``: built-in agent name -> ``reading(contract, reader) -> answer`` (``reader``: an
    ``agents.Reader``). ``bm25`` is also the reading of any other reading agent the track leaves out (``follow``,
    ``proximity``); ``zero-shot``'s takes no evidence from the reader. ``leaky(contract, raw, runtime)`` reads the
    raw world (``agents.RawWorld``). ``oracle_looks(contract, runtime)`` makes the oracle's first searches.
    ``score(reading) -> (s_answer, answer_parts, s_traj, traj_parts)`` scores one ``scoring.AnswerReading``;
    ``tallies_searches``: the scorer tallies the calls' searches instead of what they fetched.
    """

    score: Callable[[Any], tuple[float, dict[str, Any], float, dict[str, Any]]]
    track: str = ""                      # orgbench's own: the track it is the behaviour of
    readings: Mapping[str, Callable[..., dict[str, Any]]] = field(default_factory=dict)
    leaky: Callable[..., dict[str, Any]] | None = None
    oracle_looks: Callable[..., None] | None = None
    tallies_searches: bool = False


_LOADED: dict[str, TrackBehaviour] = {}


def behaviour(track_name: str) -> TrackBehaviour:
    """The behaviour of the track called ``track_name`` (InputError for an unknown track)."""
    found = _LOADED.get(track_name)
    if found is None:
        record = track(track_name)
        if record.behaviour:
            found = record.load("behaviour")
        else:       # orgbench's own: a lazy registry, read on first use (its readings import the agents)
            found = next((b for b in load_attr(_BUILTIN, "GroundEval track behaviours") if b.track == track_name), None)
        if not isinstance(found, TrackBehaviour):
            raise InputError(f"GroundEval track {track_name!r} behaviour: expected a TrackBehaviour, "
                             f"got {type(found).__name__} (a plugin's track names one in its record)")
        _LOADED[track_name] = found
    return found
