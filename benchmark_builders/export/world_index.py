"""Lookups every export shares: people by id, artifact histories, the event that cites each version.

Built once per export from a loaded World; every list comes out in a fixed
order (artifact id, version, time) so that an export is byte-identical for
the same world.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from orgbench.core.storage import written_as
from simulator.model import Actor, ArtifactVersion, Event
from simulator.world import World


@dataclass(frozen=True)
class WorldIndex:
    """A world with the lookups exports need."""

    world: World
    people: dict[str, Actor]
    histories: dict[str, list[ArtifactVersion]]
    citing: dict[str, Event]   # "ARTIFACT@N" → the first event that cites it
    events: dict[str, Event]   # event id → event

    @staticmethod
    def of(world: World) -> "WorldIndex":
        """Index ``world``."""
        citing: dict[str, Event] = {}
        for event in world.events:
            for ref in event.artifacts:
                citing.setdefault(ref, event)
        return WorldIndex(world, {a.actor_id: a for a in world.actors},
                          {a: world.versions(a) for a in world.artifact_ids()}, citing,
                          {e.event_id: e for e in world.events})

    def of_kind(self, *kinds: str) -> list[list[ArtifactVersion]]:
        """Histories of the artifacts of these kinds (kind of the first version), by first time then id."""
        found = [h for h in self.histories.values() if h and h[0].kind in kinds]
        return sorted(found, key=lambda h: (h[0].created_at, h[0].artifact_id))

    def name(self, actor_id: str) -> str:
        """A person's name (the id itself for someone the world does not list)."""
        person = self.people.get(actor_id)
        return person.name if person else actor_id

    def email(self, actor_id: str) -> str:
        """A person's email address (``id@domain.invalid`` for someone the world does not list)."""
        person = self.people.get(actor_id)
        return person.email if person else f"{actor_id.lower()}@domain.invalid"

    @property
    def domain(self) -> str:
        """The staff email domain (of the first person), for message ids."""
        for actor in self.world.actors:
            if "@" in actor.email:
                return actor.email.rsplit("@", 1)[1]
        return "orgbench.invalid"

    @property
    def company(self) -> str:
        """The company's name, from the world's pack (the default pack's when none is recorded)."""
        pack = (self.world.meta.get("config") or {}).get("pack")
        if isinstance(pack, dict) and isinstance(pack.get("company"), str):
            return pack["company"]
        from simulator.packs import default_pack

        return default_pack().company


def epoch(moment: datetime) -> float:
    """Seconds since 1970 (UTC)."""
    return (moment - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds()


def put(path: Path, data: str | bytes) -> None:
    """Write one file of an export being staged (the staged folder as a whole is renamed into place)."""
    with written_as(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def unique_sorted(values: Iterable[str]) -> list[str]:
    """The distinct values, sorted (never a set in output order)."""
    return sorted(dict.fromkeys(values))
