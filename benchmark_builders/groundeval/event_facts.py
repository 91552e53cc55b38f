"""Perspective subjects from any event log: an event, the artifacts it names, and the facts it recorded there.

A fact is (event, key, value) for a scalar fact of the event. It is stated
by the versions of the event's artifacts that hold ``key = value`` from the
version current when the event's fact reached that artifact (the event's
time, or the artifact's creation if later) until the artifact's value of
``key`` next changes. A fact is left out when any of the event's artifacts
held ``key = value`` before that (the value would not be this event's to
tell), or when no artifact records it.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmark_builders.groundeval.worldview import WorldView
from simulator.model import ArtifactVersion, Event

MAX_VALUE_LENGTH = 60


@dataclass(frozen=True)
class FactSource:
    """Who states a fact: the stating versions (in time order), the primary artifacts and the related ones."""

    versions: tuple[ArtifactVersion, ...]
    primary: frozenset[str]
    related: tuple[str, ...]
    subject: dict


def _statements(view: WorldView, event: Event, key: str, value: str) -> list[ArtifactVersion] | None:
    out: list[ArtifactVersion] = []
    for ref in dict.fromkeys(r.rsplit("@", 1)[0] for r in event.artifacts):
        history = view.world.versions(ref)
        reached = max(event.ts, history[0].created_at)
        current = view.as_of(ref, reached)
        if current is None:
            continue
        if current.created_at < reached:     # the event added nothing here: what it says was already there
            if _holds(current, key, value):
                return None
            continue
        if any(_holds(v, key, value) for v in history if v.version < current.version):
            return None                      # stated before this event: not this event's to tell
        for version in history[current.version - 1:]:
            if not _holds(version, key, value):
                break
            out.append(version)
    return out


def _holds(version: ArtifactVersion, key: str, value: str) -> bool:
    found = version.facts.get(key)
    return found is not None and not isinstance(found, bool) and str(found) == value


def event_facts(view: WorldView) -> dict[tuple[str, str, str, str], FactSource]:
    """Every (``event``, event id, key, value) fact of the world's events, with what states it."""
    out: dict[tuple[str, str, str, str], FactSource] = {}
    for event in sorted(view.world.events, key=lambda e: (e.ts, e.event_id)):
        artifacts = tuple(dict.fromkeys(r.rsplit("@", 1)[0] for r in event.artifacts))
        if not artifacts:
            continue
        for key, raw in sorted(event.payload.items()):
            if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
                continue
            value = str(raw)
            if not value or len(value) > MAX_VALUE_LENGTH or value in artifacts or value == event.event_id:
                continue
            stated = _statements(view, event, key, value)
            if not stated:
                continue
            stated.sort(key=lambda v: (v.created_at, v.artifact_id, v.version))
            subject = {"entity": {"kind": "event", "id": event.event_id}, "event_type": event.type,
                       "artifacts": list(artifacts), "fact": key, "value": value}
            out[("event", event.event_id, key, value)] = FactSource(tuple(stated), frozenset(artifacts), artifacts,
                                                                    subject)
    return out
