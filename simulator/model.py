"""The world's records: people, events, artifact versions and their access lists.

These frozen dataclasses are the contract between the simulator and every
later stage. ``to_json`` / ``from_json`` convert them to and from the JSON
objects of the world files described in ARCHITECTURE.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Callable, Mapping, TypeVar, cast

from orgbench.core.clock import format_optional_ts as _ts, format_ts, parse_optional_ts as _dt, parse_ts

#: Every subsystem an artifact or event can live in.
SUBSYSTEMS: tuple[str, ...] = (
    "ticketing",   # support cases (tickets and their comments)
    "crm",         # customer accounts, assets, contacts
    "email",       # internal and external email
    "chat",        # public and private channels, direct messages
    "wiki",        # runbooks and other pages, some restricted
    "meetings",    # meeting notes
    "deploys",     # changes and deploy records
    "incidents",   # incident records and on-call pages
    "postmortems", # postmortem documents
    "hr",          # staffing records
)
#: Every team the organisation has; each must be present with a positive share.
TEAMS: tuple[str, ...] = (
    "support_l1", "support_l2", "engineering", "sre", "sales", "legal", "hr", "leadership",
)
#: Every role a person can hold (team members and managers).
ROLES: tuple[str, ...] = (
    "support_l1", "support_l2", "support_manager", "engineer", "engineering_manager", "sre",
    "sales", "sales_manager", "legal", "hr", "executive",
)


@dataclass(frozen=True, slots=True)
class EntityRef:
    """What a record is about: ``kind`` (case, incident, change, …) and its readable ``id``."""

    kind: str
    id: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "id": self.id}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "EntityRef":
        return EntityRef(kind=obj["kind"], id=obj["id"])


@dataclass(frozen=True, slots=True)
class Actor:
    """A person in the organisation (current role; role history is in the policy)."""

    actor_id: str
    name: str
    email: str
    title: str
    team: str
    role: str
    manager: str | None
    joined_at: datetime
    left_at: datetime | None = None
    #: The office the person works from, and its hours from UTC (working hours are local office hours).
    office: str = "London"
    utc_offset: int = 0

    def employed_at(self, moment: datetime) -> bool:
        """True if the person had joined and not yet left at ``moment``."""
        return self.joined_at <= moment and (self.left_at is None or moment < self.left_at)

    def to_json(self) -> dict[str, Any]:
        return {
            "actor_id": self.actor_id, "name": self.name, "email": self.email,
            "title": self.title, "team": self.team, "role": self.role,
            "manager": self.manager, "joined_at": _ts(self.joined_at), "left_at": _ts(self.left_at),
            "office": self.office, "utc_offset": self.utc_offset,
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Actor":
        return Actor(
            actor_id=obj["actor_id"], name=obj["name"], email=obj["email"], title=obj["title"],
            team=obj["team"], role=obj["role"], manager=obj.get("manager"),
            joined_at=parse_ts(obj["joined_at"]), left_at=_dt(obj.get("left_at")),
            office=obj.get("office", "London"), utc_offset=int(obj.get("utc_offset", 0)),
        )


@dataclass(frozen=True, slots=True)
class ParentLink:
    """A causal or procedural link to an earlier event, with the join key that makes it."""

    event_id: str
    join_key: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"event_id": self.event_id, "join_key": dict(self.join_key)}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "ParentLink":
        return ParentLink(event_id=obj["event_id"], join_key=dict(obj.get("join_key", {})))


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, at ``ts``, in (ts, seq) order in events.jsonl."""

    event_id: str
    ts: datetime
    type: str
    actors: tuple[str, ...]
    subsystem: str
    entity: EntityRef
    payload: Mapping[str, Any] = field(default_factory=dict)
    parents: tuple[ParentLink, ...] = ()
    artifacts: tuple[str, ...] = ()  # "ARTIFACT-ID@version"

    def to_json(self) -> dict[str, Any]:
        return {
            "event_id": self.event_id, "ts": format_ts(self.ts), "type": self.type,
            "actors": list(self.actors), "subsystem": self.subsystem,
            "entity": self.entity.to_json(), "payload": dict(self.payload),
            "parents": [p.to_json() for p in self.parents], "artifacts": list(self.artifacts),
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Event":
        return Event(
            event_id=obj["event_id"], ts=parse_ts(obj["ts"]), type=obj["type"],
            actors=tuple(obj.get("actors", ())), subsystem=obj["subsystem"],
            entity=EntityRef.from_json(obj["entity"]), payload=dict(obj.get("payload", {})),
            parents=tuple(ParentLink.from_json(p) for p in obj.get("parents", ())),
            artifacts=tuple(obj.get("artifacts", ())),
        )


@dataclass(frozen=True, slots=True)
class Acl:
    """Who may see an artifact version beyond the role rules.

    - ``space``: a private space (channel, restricted wiki, restricted ticket
      queue); only its members at the time may see it.
    - ``audience``: when set (direct messages, email), only these actors may see it.
    - ``participants``: actors who took part in the event; they may see it even
      if their role does not cover the subsystem.
    """

    space: str | None = None
    audience: tuple[str, ...] | None = None
    participants: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "audience": None if self.audience is None else list(self.audience),
            "participants": list(self.participants),
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any] | None) -> "Acl":
        obj = obj or {}
        audience = obj.get("audience")
        return Acl(
            space=obj.get("space"),
            audience=None if audience is None else tuple(audience),
            participants=tuple(obj.get("participants", ())),
        )


@dataclass(frozen=True, slots=True)
class ArtifactVersion:
    """One version of an artifact: its own time, author, rendered text and the facts it states."""

    artifact_id: str
    version: int
    subsystem: str
    kind: str
    created_at: datetime
    author: str
    entity: EntityRef
    title: str
    body: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    acl: Acl = field(default_factory=Acl)

    @property
    def ref(self) -> str:
        """``ARTIFACT-ID@version``, as events cite it."""
        return f"{self.artifact_id}@{self.version}"

    def to_json(self) -> dict[str, Any]:
        return {
            "artifact_id": self.artifact_id, "version": self.version, "subsystem": self.subsystem,
            "kind": self.kind, "created_at": format_ts(self.created_at), "author": self.author,
            "entity": self.entity.to_json(), "title": self.title, "body": self.body,
            "facts": dict(self.facts), "acl": self.acl.to_json(),
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "ArtifactVersion":
        return ArtifactVersion(
            artifact_id=obj["artifact_id"], version=int(obj["version"]), subsystem=obj["subsystem"],
            kind=obj["kind"], created_at=parse_ts(obj["created_at"]), author=obj["author"],
            entity=EntityRef.from_json(obj["entity"]), title=obj["title"], body=obj["body"],
            facts=dict(obj.get("facts", {})), acl=Acl.from_json(obj.get("acl")),
        )


_Record = TypeVar("_Record")


def bulk_constructor(cls: type[_Record]) -> Callable[..., _Record]:
    """A constructor for a frozen slotted dataclass with no ``__post_init__``, taking every field positionally.

    It gives the same instance as ``cls(*values)`` at about half the cost: the fields are stored into a
    plain twin with the same slots (an attribute store each, not the frozen class's guarded ``__setattr__``),
    which then becomes a ``cls``. For records built by the ten thousand (the simulator's events and artifact
    versions); anything else calls the class.
    """
    names = [f.name for f in fields(cast(Any, cls))]
    if "__slots__" not in vars(cls) or hasattr(cls, "__post_init__") or cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: not a slotted dataclass without __post_init__")
    twin = type(f"_{cls.__name__}Fields", (), {"__slots__": tuple(vars(cls)["__slots__"])})
    probe: Any = object.__new__(twin)
    try:
        probe.__class__ = cls  # the same layout, or refused here rather than at the first build
    except TypeError:
        raise TypeError(f"{cls.__name__}: its slots are not laid out as a plain class's") from None
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls, "twin": twin}
    body = "".join(f"    record.{n} = {n}\n" for n in names)
    exec(f"def build({', '.join(names)}):\n    record = new(twin)\n{body}    record.__class__ = cls\n"
         "    return record\n", scope)
    build: Callable[..., _Record] = scope["build"]
    build.__doc__ = f"A {cls.__name__} from every field in order (``bulk_constructor``)."
    return build


#: ``Event(...)`` and ``ArtifactVersion(...)`` of every field in order, built the fast way (``bulk_constructor``)
new_event = bulk_constructor(Event)
new_artifact_version = bulk_constructor(ArtifactVersion)
