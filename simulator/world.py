"""A world on disk: write it atomically with its manifest, read it back with clear errors.

``World`` holds the records of one simulated organisation and a few indexes
(versions per artifact, "as of T" views). ``save_world`` and ``load_world``
are the only code that knows the file layout.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from operator import attrgetter
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from orgbench.core.collector import collector_paused
from orgbench.core.errors import InputError
from orgbench.core.canonical_lines import Stamps, artifact_lines, event_lines
from simulator.claims import Claim
from simulator.model import Actor, ArtifactVersion, Event
from simulator.policy import AccessPolicy
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import (
    read_json, require_sealed, staged_directory, write_json, write_jsonl,
    write_lines_atomic, write_manifest,
)

if TYPE_CHECKING:   # networkx costs a quarter of a second to import; only ``org_graph`` needs it
    import networkx as nx

FORMAT_VERSION = 1
WORLD_FILES = ("world.json", "actors.jsonl", "events.jsonl", "artifacts.jsonl", "policy.json", "graph.json",
               "claims.jsonl")
#: The truth sidecar (``simulator.claims``): optional when reading, so worlds written before it still load.
CLAIMS_FILE = "claims.jsonl"


@dataclass(frozen=True)
class World:
    """One simulated organisation: people, events, artifact versions, policy and org graph."""

    meta: Mapping[str, Any]
    actors: tuple[Actor, ...]
    events: tuple[Event, ...]
    artifacts: tuple[ArtifactVersion, ...]
    policy: AccessPolicy
    graph: Mapping[str, Any]  # networkx node-link data
    #: Labelled stale, wrong and conflicting statements (the truth sidecar); never part of any artifact.
    claims: tuple[Claim, ...] = ()
    #: Versions per artifact, oldest first: built on first use (``_index``), as writing a world needs none.
    _versions: dict[str, list[ArtifactVersion]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _index(self) -> dict[str, list[ArtifactVersion]]:
        versions = self._versions
        if versions or not self.artifacts:
            return versions
        get = versions.get
        for version in self.artifacts:
            history = get(version.artifact_id)
            if history is None:
                versions[version.artifact_id] = [version]
            else:
                history.append(version)
        by_number = attrgetter("version")
        for history in versions.values():
            if len(history) > 1:
                history.sort(key=by_number)
        return versions

    @property
    def seed(self) -> int:
        return int(self.meta["seed"])

    def actor(self, actor_id: str) -> Actor:
        """The person with this id."""
        for actor in self.actors:
            if actor.actor_id == actor_id:
                return actor
        raise KeyError(actor_id)

    def versions(self, artifact_id: str) -> list[ArtifactVersion]:
        """Every version of one artifact, oldest first."""
        return self._index().get(artifact_id, [])

    def artifact_ids(self) -> list[str]:
        """Every artifact id, sorted."""
        return sorted(self._index())

    def as_of(self, artifact_id: str, moment: datetime) -> ArtifactVersion | None:
        """The version of an artifact in force at ``moment`` (None if it did not exist yet)."""
        history = self._index().get(artifact_id, [])
        index = bisect_right([v.created_at for v in history], moment) - 1
        return history[index] if index >= 0 else None

    def version(self, ref: str) -> ArtifactVersion:
        """The version named ``ARTIFACT-ID@N``."""
        artifact_id, _, number = ref.rpartition("@")
        for version in self._index().get(artifact_id, []):
            if version.version == int(number):
                return version
        raise KeyError(ref)

    def org_graph(self) -> nx.Graph:
        """The collaboration graph as a networkx graph."""
        import networkx

        return networkx.node_link_graph(dict(self.graph), edges="links")


def save_world(world: World, directory: Path) -> None:
    """Write every world file atomically into ``directory``, then MANIFEST.json.

    The collector pauses while it writes: the lines it makes hold no cycles, and a collection would only rescan
    the world."""
    with collector_paused(), staged_directory(Path(directory)) as tmp:
        # the same bytes as write_jsonl(path, (r.to_json() for r in records)), written without the dicts
        stamps = Stamps()
        hashed = {"events.jsonl": write_lines_atomic(tmp / "events.jsonl", event_lines(world.events, stamps)),
                  "artifacts.jsonl": write_lines_atomic(tmp / "artifacts.jsonl", artifact_lines(world.artifacts, stamps))}
        write_jsonl(tmp / CLAIMS_FILE, (c.to_json() for c in world.claims))
        write_small_files(tmp, world.meta, world.actors, world.policy, world.graph, hashed)


def write_small_files(directory: Path, meta: Mapping[str, Any], actors: Iterable[Actor], policy: AccessPolicy,
                      graph: Mapping[str, Any], hashed: Mapping[str, str] | None = None) -> None:
    """Write world.json, actors.jsonl, policy.json and graph.json beside the records, then MANIFEST.json
    (``hashed``: the SHA-256 of the records' files, as ``write_lines_atomic`` returned them)."""
    write_json(directory / "world.json", dict(meta))
    write_jsonl(directory / "actors.jsonl", (a.to_json() for a in actors))
    write_json(directory / "policy.json", policy.to_json())
    write_json(directory / "graph.json", dict(graph))
    write_manifest(directory, hashed=hashed)


def _records(path: Path, build, *, key: tuple[str, ...] = (), required: bool = False) -> tuple:
    """The records of one world file; one repeating the ``key`` fields of another, or (``required``) none, refused."""
    rows = []
    seen: dict[tuple, int] = {}
    for number, obj in read_jsonl(path).numbered():
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
        if key:
            ident = tuple(str(obj.get(name)) for name in key)
            if ident in seen:
                raise InputError(f"{path}:{number}: repeats the {'/'.join(key)} of line {seen[ident]}")
            seen[ident] = number
        try:
            rows.append(build(obj))
        except (KeyError, TypeError, ValueError) as exc:
            field = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise InputError(f"{path}:{number}: bad or missing field {field}") from None
    if required and not rows:
        raise InputError(f"{path}: no records (a world has at least one)")
    return tuple(rows)


def load_world(directory: Path, *, verify: bool = True) -> World:
    """Read a world directory; with ``verify``, refuse one whose files differ from its manifest."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a world directory")
    if verify:
        require_sealed(directory, "a world written by orgbench")
    meta = read_json(directory / "world.json")
    if not isinstance(meta, dict) or not isinstance(meta.get("seed"), int):
        raise InputError(f"{directory / 'world.json'}: field seed: missing or not an integer")
    try:
        policy = AccessPolicy.from_json(read_json(directory / "policy.json"))
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{directory / 'policy.json'}: bad or missing field {exc}") from None
    return World(
        meta=meta,
        actors=_records(directory / "actors.jsonl", Actor.from_json, key=("actor_id",), required=True),
        events=_records(directory / "events.jsonl", Event.from_json, key=("event_id",), required=True),
        artifacts=_records(directory / "artifacts.jsonl", ArtifactVersion.from_json, key=("artifact_id", "version"),
                           required=True),
        policy=policy,
        graph=read_json(directory / "graph.json"),
        claims=_records(directory / CLAIMS_FILE, Claim.from_json) if (directory / CLAIMS_FILE).is_file() else (),
    )


def build_world(meta: Mapping[str, Any], actors: Iterable[Actor], events: Iterable[Event],
                artifacts: Iterable[ArtifactVersion], policy: AccessPolicy, graph: Mapping[str, Any],
                claims: Iterable[Claim] = ()) -> World:
    """Assemble a World from records (used by the simulator and by tests)."""
    return World(meta=dict(meta), actors=tuple(actors), events=tuple(events),
                 artifacts=tuple(artifacts), policy=policy, graph=dict(graph), claims=tuple(claims))
