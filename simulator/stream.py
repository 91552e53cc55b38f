"""Writing a world while it is simulated: events and artifact versions leave memory in bounded chunks.

``WorldWriter`` appends each chunk of final records (events in (time,
sequence) order, artifact versions in the order they were drafted, labelled
claims in the order they were made) to ``events.jsonl``, ``artifacts.jsonl``
and ``claims.jsonl`` inside a staged directory, and at the end writes the
small files and the manifest. The bytes are those
``save_world`` writes for the same world: the same line writers, the same
order, only written piece by piece.

A ``Rewrite`` hook (optional) gives each chunk's artifact versions new
bodies before they are written: a plain callable from the versions to their
bodies, in the same order. Only the body changes; id, version, facts, ACL
and everything else of a version are the simulator's. The front door
(``orgbench.prose``) makes one that asks a model; this module knows
nothing of how the bodies are made.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Protocol, Sequence

from orgbench.core.canonical_lines import Stamps, artifact_lines, event_lines
from orgbench.core.storage import dumps
from simulator.claims import Claim
from simulator.model import Actor, ArtifactVersion, Event
from simulator.policy import AccessPolicy
from simulator.world import write_small_files

#: Records (events plus drafts) the simulator holds before it hands them to the writer.
CHUNK = 20_000
#: The files written piece by piece (``simulator.world.WORLD_FILES`` has them all).
STREAMED = ("events.jsonl", "artifacts.jsonl", "claims.jsonl")


class Rewrite(Protocol):
    """New bodies for a chunk's artifact versions, and what world.json says of them (its ``prose`` field)."""

    def __call__(self, versions: Sequence[ArtifactVersion]) -> Sequence[str]:
        """One body per version, in the versions' order (a version's own body to leave it as it is)."""

    def record(self) -> Mapping[str, Any]:
        """What world.json records of the rewrites (it must not depend on anything but the world's bodies)."""


def rewritten(versions: list[ArtifactVersion], rewrite: Rewrite) -> list[ArtifactVersion]:
    """``versions`` with the bodies ``rewrite`` gives them; everything else of each version unchanged."""
    bodies = list(rewrite(versions))
    if len(bodies) != len(versions) or not all(isinstance(b, str) for b in bodies):
        raise ValueError(f"the prose rewrite gave {len(bodies)} bodies for {len(versions)} artifact versions")
    return [v if body == v.body else replace(v, body=body) for v, body in zip(versions, bodies)]


class WorldWriter:
    """Appends events, artifact versions and claims to a (staged) world directory; ``finish`` completes it."""

    def __init__(self, directory: Path, subsystems: Iterable[str], rewrite: Rewrite | None = None) -> None:
        self.directory = Path(directory)
        self.rewrite = rewrite
        self.events = 0
        self.versions = 0
        self.claims = 0
        self.by_subsystem = {s: 0 for s in subsystems}
        self._files = {name: open(self.directory / name, "w", encoding="utf-8", newline="")
                       for name in STREAMED}

    def write(self, events: list[Event], versions: list[ArtifactVersion], claims: list[Claim]) -> None:
        """Append one chunk of final records (the versions' bodies rewritten first, with a ``Rewrite``)."""
        if self.rewrite is not None and versions:
            versions = rewritten(versions, self.rewrite)
        stamps = Stamps()
        self._files["events.jsonl"].writelines(event_lines(events, stamps))
        self._files["artifacts.jsonl"].writelines(artifact_lines(versions, stamps))
        # the lines write_jsonl writes for claims.jsonl in save_world
        self._files["claims.jsonl"].write("".join(dumps(c.to_json()) + "\n" for c in claims))
        counts = self.by_subsystem
        for event in events:
            counts[event.subsystem] += 1
        self.events += len(events)
        self.versions += len(versions)
        self.claims += len(claims)

    def close(self) -> None:
        """Flush and close the streamed files (to disk: the directory is renamed into place next)."""
        for handle in self._files.values():
            if not handle.closed:
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()

    def finish(self, meta: Mapping[str, Any], actors: Iterable[Actor], policy: AccessPolicy,
               graph: Mapping[str, Any]) -> None:
        """Close the streamed files and write world.json, actors, policy, graph and MANIFEST.json."""
        self.close()
        write_small_files(self.directory, meta, actors, policy, graph)
