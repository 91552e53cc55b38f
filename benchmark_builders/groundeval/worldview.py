"""Read-only helpers the track builders share: the world's time span, as-of versions, who could see what."""

from __future__ import annotations

import random
from bisect import bisect_right
from datetime import datetime
from typing import Iterable

from orgbench.core.clock import format_ts, parse_ts
from simulator.claims import labelled_fields
from simulator.model import Actor, ArtifactVersion, Event
from simulator.world import World


class WorldView:
    """A world with the lookups question builders need (built once per build)."""

    def __init__(self, world: World, name: str) -> None:
        self.world = world
        self.name = name
        self.policy = world.policy
        #: (version ref, fact) of every statement the truth sidecar labels: never a source of truth.
        self.untrue = labelled_fields(world.claims)
        self.actors: tuple[Actor, ...] = tuple(sorted(world.actors, key=lambda a: a.actor_id))
        self._history = {a: world.versions(a) for a in world.artifact_ids()}
        self.subsystem_of: dict[str, str] = {a: h[0].subsystem for a, h in self._history.items() if h}
        self._times = {a: [v.created_at for v in h] for a, h in self._history.items()}
        times = [e.ts for e in world.events] + [v.created_at for v in world.artifacts]
        meta_end = world.meta.get("end")
        self.start: datetime = min(times) if times else parse_ts(str(world.meta.get("start")))
        self.end: datetime = max(times + ([parse_ts(meta_end)] if isinstance(meta_end, str) else []))
        self.events_by_type: dict[str, list[Event]] = {}
        for event in sorted(world.events, key=lambda e: (e.ts, e.event_id)):
            self.events_by_type.setdefault(event.type, []).append(event)

    def records(self, event: Event) -> list[str]:
        """The artifact ids a question names with an event: those it lists, for an imported domain (else none)."""
        if self.world.meta.get("source") != "groundeval-domain":
            return []
        return list(dict.fromkeys(ref.rsplit("@", 1)[0] for ref in event.artifacts))

    def describe(self, event: Event) -> str:
        """How a question names an event: ``incident INC-42``; in a domain also the records it lists."""
        records = self.records(event)
        return describe_entity(event) + (f" (records {', '.join(records)})" if records else "")

    def as_of(self, artifact_id: str, moment: datetime) -> ArtifactVersion | None:
        """The version of an artifact current at ``moment``."""
        index = bisect_right(self._times.get(artifact_id, []), moment) - 1
        return self._history[artifact_id][index] if index >= 0 else None

    def event_artifacts(self, event: Event, moment: datetime) -> list[ArtifactVersion]:
        """The as-of versions (at ``moment``) of the artifacts an event cites, in citation order."""
        out, seen = [], set()
        for ref in event.artifacts:
            artifact_id = ref.rsplit("@", 1)[0]
            if artifact_id in seen:
                continue
            seen.add(artifact_id)
            version = self.as_of(artifact_id, moment)
            if version is not None:
                out.append(version)
        return out

    def visible(self, actor_id: str, versions: Iterable[ArtifactVersion], moment: datetime) -> list[ArtifactVersion]:
        """The versions that no gate withholds from the actor at ``moment``."""
        return [v for v in versions if self.policy.can_see(actor_id, v, moment)]

    def nearest_role(self, actor_id: str, moment: datetime) -> str | None:
        """The actor's role at ``moment``; if not employed then, the last role held before it, else the next one."""
        role = self.policy.role_at(actor_id, moment)
        if role is not None:
            return role
        history = [a for a in self.policy.assignments if a.actor_id == actor_id]
        before = [a for a in history if a.valid_from <= moment]
        after = [a for a in history if a.valid_from > moment]
        if before:
            return max(before, key=lambda a: a.valid_from).role
        return min(after, key=lambda a: a.valid_from).role if after else None

    def readable_subsystems(self, actor_id: str, moment: datetime) -> tuple[str, ...]:
        """The subsystems the actor's role and grants covered at ``moment``, sorted."""
        return tuple(sorted(self.policy.subsystems_at(actor_id, moment)))


def at_most(events: Iterable[Event], limit: int, rng: random.Random) -> list[Event]:
    """``events`` as a list, or — when there are more than ``limit`` — a seeded sample of them, in time order."""
    events = list(events)
    if len(events) > limit:
        events = sorted(rng.sample(events, limit), key=lambda e: (e.ts, e.event_id))
    return events


def floor_minute(moment: datetime) -> datetime:
    """The moment with seconds and microseconds dropped (questions speak in minutes)."""
    return moment.replace(second=0, microsecond=0)


def when(moment: datetime) -> str:
    """A timestamp as question wording shows it."""
    return format_ts(moment)


def describe_entity(event: Event) -> str:
    """``incident INC-42`` — how questions name what an event is about."""
    kind = event.entity.kind.replace("_", " ").replace(".", " ")
    return f"{kind} {event.entity.id}"
