"""The access policy in force at every moment, and the one question it answers.

``AccessPolicy.check(actor, version, at)`` says whether actor A could see
artifact version X at time T and, if not, which gate stops it. Gates are
tested in a fixed precedence:

1. ``horizon``   — the version was created after T;
2. ``actor``     — A was not employed at T, or X lies in a private space A was
   not a member of at T, or X has an audience that does not include A;
3. ``subsystem`` — A's role at T does not cover X's subsystem, no grant for it
   was valid at T, and A did not take part in the event that produced X.

Role history doubles as employment: A is employed at T iff one of A's role
assignments covers T.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Mapping

from orgbench.core.clock import format_optional_ts as _ts, format_ts, parse_optional_ts as _dt, parse_ts
from simulator.model import ArtifactVersion

HORIZON, ACTOR, SUBSYSTEM = "horizon", "actor", "subsystem"
GATES: tuple[str, ...] = (HORIZON, ACTOR, SUBSYSTEM)


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """A record valid from ``valid_from`` (inclusive) to ``valid_to`` (exclusive, None = open)."""

    valid_from: datetime
    valid_to: datetime | None = None

    def covers(self, moment: datetime) -> bool:
        """True if ``moment`` falls inside the window."""
        return self.valid_from <= moment and (self.valid_to is None or moment < self.valid_to)

    def window_json(self) -> dict[str, str | None]:
        """The window as policy.json writes it."""
        return {"valid_from": _ts(self.valid_from), "valid_to": _ts(self.valid_to)}

    @staticmethod
    def window_of(obj: Mapping[str, Any]) -> dict[str, Any]:
        """The window of a policy.json object, as keyword arguments of the record it belongs to."""
        return {"valid_from": parse_ts(obj["valid_from"]), "valid_to": _dt(obj.get("valid_to"))}


@dataclass(frozen=True, slots=True)
class RoleAssignment(Window):
    """Actor held ``role`` for the window (employment is having some role)."""

    actor_id: str
    role: str


@dataclass(frozen=True, slots=True)
class Grant(Window):
    """An extra subsystem granted to one actor for the window."""

    grant_id: str
    actor_id: str
    subsystem: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Membership(Window):
    """One actor's membership of a private space for the window."""

    actor_id: str


@dataclass(frozen=True, slots=True)
class PrivateSpace:
    """A private channel, restricted wiki space or restricted ticket queue, with its members over time."""

    space_id: str
    subsystem: str
    name: str
    members: tuple[Membership, ...]


@dataclass(frozen=True, slots=True)
class Access:
    """The answer to "could A see X at T": allowed, or the first gate that stops it."""

    allowed: bool
    gate: str | None
    reason: str


class AccessPolicy:
    """Roles → subsystems, role history, grants and private spaces, queried by time."""

    def __init__(
        self,
        roles: Mapping[str, Iterable[str]],
        assignments: Iterable[RoleAssignment],
        grants: Iterable[Grant] = (),
        spaces: Iterable[PrivateSpace] = (),
    ) -> None:
        self.roles: dict[str, tuple[str, ...]] = {r: tuple(s) for r, s in sorted(roles.items())}
        self.assignments = tuple(sorted(assignments, key=lambda a: (a.actor_id, a.valid_from)))
        self.grants = tuple(sorted(grants, key=lambda g: (g.actor_id, g.valid_from, g.grant_id)))
        self.spaces = {s.space_id: s for s in sorted(spaces, key=lambda s: s.space_id)}
        self._by_actor: dict[str, list[RoleAssignment]] = {}
        for assignment in self.assignments:
            self._by_actor.setdefault(assignment.actor_id, []).append(assignment)
        self._starts = {a: [x.valid_from for x in xs] for a, xs in self._by_actor.items()}
        self._grants: dict[str, list[Grant]] = {}
        for grant in self.grants:
            self._grants.setdefault(grant.actor_id, []).append(grant)
        self._members: dict[str, dict[str, list[Membership]]] = {}
        for space in self.spaces.values():
            per_actor: dict[str, list[Membership]] = {}
            for m in space.members:
                per_actor.setdefault(m.actor_id, []).append(m)
            self._members[space.space_id] = per_actor

    # -- questions about actors -------------------------------------------------
    def role_at(self, actor_id: str, moment: datetime) -> str | None:
        """The actor's role at ``moment``, or None if not employed then."""
        history = self._by_actor.get(actor_id)
        if not history:
            return None
        index = bisect_right(self._starts[actor_id], moment) - 1
        if index >= 0 and history[index].covers(moment):
            return history[index].role
        return None

    def employed_at(self, actor_id: str, moment: datetime) -> bool:
        """True if some role assignment covers ``moment``."""
        return self.role_at(actor_id, moment) is not None

    def subsystems_at(self, actor_id: str, moment: datetime) -> frozenset[str]:
        """Subsystems the actor may read at ``moment`` through role and grants."""
        role = self.role_at(actor_id, moment)
        if role is None:
            return frozenset()
        allowed = set(self.roles.get(role, ()))
        allowed.update(g.subsystem for g in self._grants.get(actor_id, ()) if g.covers(moment))
        return frozenset(allowed)

    def is_member(self, space_id: str, actor_id: str, moment: datetime) -> bool:
        """True if the actor belonged to the private space at ``moment``."""
        return any(m.covers(moment) for m in self._members.get(space_id, {}).get(actor_id, ()))

    # -- the question -------------------------------------------------------------
    def violations(self, actor_id: str, version: ArtifactVersion, moment: datetime) -> tuple[str, ...]:
        """Every gate (in precedence order) that withholds ``version`` from the actor at ``moment``."""
        broken: list[str] = []
        if version.created_at > moment:
            broken.append(HORIZON)
        acl = version.acl
        role = self.role_at(actor_id, moment)
        if (
            role is None
            or (acl.space is not None and not self.is_member(acl.space, actor_id, moment))
            or (acl.audience is not None and actor_id not in acl.audience)
        ):
            broken.append(ACTOR)
        if role is not None and actor_id not in acl.participants:
            if version.subsystem not in self.subsystems_at(actor_id, moment):
                broken.append(SUBSYSTEM)
        return tuple(broken)

    def check(self, actor_id: str, version: ArtifactVersion, moment: datetime) -> Access:
        """Could ``actor_id`` see ``version`` at ``moment``? If not, the first gate that stops it."""
        broken = self.violations(actor_id, version, moment)
        if not broken:
            return Access(True, None, "visible")
        gate = broken[0]
        reasons = {
            HORIZON: f"{version.ref} was created at {format_ts(version.created_at)}, after {format_ts(moment)}",
            ACTOR: f"{actor_id} was not in the audience, space or employment that {version.ref} required at {format_ts(moment)}",
            SUBSYSTEM: f"{actor_id}'s role at {format_ts(moment)} does not cover {version.subsystem}",
        }
        return Access(False, gate, reasons[gate])

    def can_see(self, actor_id: str, version: ArtifactVersion, moment: datetime) -> bool:
        """True if no gate withholds ``version`` from the actor at ``moment``."""
        return not self.violations(actor_id, version, moment)

    # -- files ----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The policy.json object."""
        return {
            "roles": {r: list(s) for r, s in self.roles.items()},
            "assignments": [{"actor_id": a.actor_id, "role": a.role, **a.window_json()} for a in self.assignments],
            "grants": [
                {"grant_id": g.grant_id, "actor_id": g.actor_id, "subsystem": g.subsystem, **g.window_json(),
                 "reason": g.reason}
                for g in self.grants
            ],
            "spaces": [
                {"space_id": s.space_id, "subsystem": s.subsystem, "name": s.name,
                 "members": [{"actor_id": m.actor_id, **m.window_json()} for m in s.members]}
                for s in self.spaces.values()
            ],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "AccessPolicy":
        """Rebuild a policy from its policy.json object."""
        return AccessPolicy(
            roles=obj["roles"],
            assignments=[RoleAssignment(a["actor_id"], a["role"], **Window.window_of(a))
                         for a in obj.get("assignments", ())],
            grants=[Grant(g["grant_id"], g["actor_id"], g["subsystem"], g.get("reason", ""), **Window.window_of(g))
                    for g in obj.get("grants", ())],
            spaces=[PrivateSpace(s["space_id"], s["subsystem"], s["name"],
                                 tuple(Membership(m["actor_id"], **Window.window_of(m)) for m in s.get("members", ())))
                    for s in obj.get("spaces", ())],
        )
