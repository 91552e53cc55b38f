"""The organisation: people, teams, managers, roles over time, private spaces and grants.

``Org.generate`` creates the people employed at the start (seeded faker
identities). During the run, staffing processes call ``hire``, ``depart``,
``change_role`` and ``grant``; each changes, from that moment, the role
assignments, space memberships and grants that ``to_policy`` writes out, so
the access policy always says who could see what at any time.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from simulator.calendar import BusinessCalendar
from simulator.config import SimConfig
from simulator.model import Actor
from simulator.names import Names
from simulator.policy import AccessPolicy, Grant, Membership, PrivateSpace, RoleAssignment

#: Team → (member role, manager role).
TEAM_ROLES: dict[str, tuple[str, str]] = {
    "support_l1": ("support_l1", "support_manager"),
    "support_l2": ("support_l2", "support_manager"),
    "engineering": ("engineer", "engineering_manager"),
    "sre": ("sre", "engineering_manager"),
    "sales": ("sales", "sales_manager"),
    "legal": ("legal", "legal"),
    "hr": ("hr", "hr"),
    "leadership": ("executive", "executive"),
}

#: Private spaces: id → (subsystem, name, roles whose holders are members).
SPACES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "SP-LEADERSHIP": ("chat", "#leadership", ("executive",)),
    "SP-SRE-ONCALL": ("chat", "#sre-oncall", ("sre", "engineering_manager")),
    "SP-HR-PRIVATE": ("chat", "#hr-private", ("hr",)),
    "SP-LEGAL-REVIEW": ("chat", "#legal-review", ("legal", "executive")),
    "SP-STRATEGIC-ACCOUNTS": ("ticketing", "strategic accounts queue",
                              ("support_l2", "support_manager", "sales_manager", "executive")),
    "SP-WIKI-RESTRICTED": ("wiki", "restricted wiki space",
                           ("support_l2", "support_manager", "sre", "engineering_manager", "executive")),
}

def _split(total: int, shares: dict[str, int]) -> dict[str, int]:
    """Split ``total`` people over teams by share (largest remainder), at least two per team."""
    weight = sum(shares.values())
    raw = {t: total * s / weight for t, s in shares.items()}
    counts = {t: max(2, int(v)) for t, v in raw.items()}
    order = sorted(shares, key=lambda t: (-(raw[t] - int(raw[t])), t))
    i = 0
    while sum(counts.values()) < total:
        counts[order[i % len(order)]] += 1
        i += 1
    while sum(counts.values()) > total:
        largest = max(counts, key=lambda t: (counts[t], t))
        counts[largest] -= 1
    return counts


class Org:
    """People, teams and the access-relevant history of the organisation."""

    def __init__(self, config: SimConfig, calendar: BusinessCalendar, rng: random.Random, faker: Names) -> None:
        self.config = config
        self.calendar = calendar
        self.rng = rng
        self.faker = faker
        pack = config.domain_pack
        self.domain = pack.domain
        self.titles = pack.titles_map
        self.executive_titles = pack.executive_titles
        self.reports_to = dict(pack.reports_to)
        #: Each person's current record (replaced, from that moment, when staffing changes it).
        self.people: dict[str, Actor] = {}
        #: Each person's role history: [role, valid_from, valid_to] entries.
        self.role_history: dict[str, list[list]] = {}
        self.memberships: dict[str, list[list]] = {sid: [] for sid in SPACES}  # [actor, from, to]
        self.grants: list[Grant] = []
        self._used_names: set[str] = set()
        self._team_members: dict[str, list[str]] = {t: [] for t in TEAM_ROLES}
        self._cache: dict[tuple[str, str], list[str]] = {}
        #: People in the middle of something (an incident, an escalation) who do not leave or move now.
        self.busy: dict[str, int] = {}

    # -- identities ---------------------------------------------------------------
    def _identity(self) -> tuple[str, str]:
        while True:
            first, last = self.faker.first_name(), self.faker.last_name()
            name = f"{first} {last}"
            if name not in self._used_names:
                self._used_names.add(name)
                email = f"{first}.{last}".lower().replace("'", "").replace(" ", "") + f"@{self.domain}"
                return name, email

    def _new_person(self, team: str, role: str, title: str, manager: str | None, joined: datetime) -> Actor:
        actor_id = f"P-{len(self.people) + 1:04d}"
        name, email = self._identity()
        person = self.people[actor_id] = Actor(actor_id, name, email, title, team, role, manager, joined)
        self.role_history[actor_id] = []
        self._team_members[team].append(actor_id)
        self._cache.clear()
        self._start_role(actor_id, role, joined)
        return person

    # -- generation ---------------------------------------------------------------
    @classmethod
    def generate(cls, config: SimConfig, calendar: BusinessCalendar, rng: random.Random, faker: Names) -> "Org":
        """The people employed when the run starts."""
        org = cls(config, calendar, rng, faker)
        counts = _split(config.people, config.team_shares)
        start = calendar.start

        def joined() -> datetime:
            return start - timedelta(days=rng.randint(30, 2600), hours=rng.randint(0, 8))

        executives: dict[str, str] = {}
        titles, chief = org.executive_titles, org.executive_titles[0]
        for i in range(counts["leadership"]):
            title = titles[i] if i < len(titles) else "Vice President"
            ceo = executives.get(chief)
            person = org._new_person("leadership", "executive", title, ceo, joined())
            executives.setdefault(title, person.actor_id)
        ceo = executives[chief]
        for team, (member_role, manager_role) in TEAM_ROLES.items():
            if team == "leadership":
                continue
            boss = executives.get(org.reports_to.get(team, chief), ceo)
            manager_title = org.titles[manager_role][0] if manager_role != member_role else f"Head of {team.title()}"
            manager = org._new_person(team, manager_role, manager_title, boss, joined())
            for _ in range(counts[team] - 1):
                org._new_person(team, member_role, rng.choice(org.titles[member_role]), manager.actor_id, joined())
        return org

    # -- roles and spaces over time -------------------------------------------------
    def _start_role(self, actor_id: str, role: str, moment: datetime) -> None:
        self.role_history[actor_id].append([role, moment, None])
        for space_id, (_, _, roles) in SPACES.items():
            if role in roles:
                self.memberships[space_id].append([actor_id, moment, None])

    def _end_role(self, actor_id: str, moment: datetime) -> None:
        for entry in self.role_history[actor_id]:
            if entry[2] is None:
                entry[2] = moment
        for members in self.memberships.values():
            for entry in members:
                if entry[0] == actor_id and entry[2] is None:
                    entry[2] = moment
        for i, grant in enumerate(self.grants):
            if grant.actor_id == actor_id and (grant.valid_to is None or grant.valid_to > moment):
                self.grants[i] = replace(grant, valid_to=moment)

    def _update(self, actor_id: str, **changes: Any) -> Actor:
        person = self.people[actor_id] = replace(self.people[actor_id], **changes)
        return person

    def hire(self, team: str, moment: datetime) -> Actor:
        """A new member of ``team`` starting at ``moment``."""
        member_role = TEAM_ROLES[team][0]
        manager = self.manager_of(team)
        title = "Vice President" if team == "leadership" else self.rng.choice(self.titles[member_role])
        return self._new_person(team, member_role, title, manager, moment)

    def place(self, actor_id: str, office: str, utc_offset: int) -> Actor:
        """The person works from ``office`` (``utc_offset`` hours from UTC); their record as it is now."""
        return self._update(actor_id, office=office, utc_offset=utc_offset)

    def depart(self, actor_id: str, moment: datetime) -> Actor:
        """The person leaves at ``moment``: roles, memberships and grants end then; their record as it is now."""
        self._end_role(actor_id, moment)
        self._cache.clear()
        return self._update(actor_id, left_at=moment)

    def change_role(self, actor_id: str, team: str, moment: datetime) -> Actor:
        """The person moves to ``team`` (as a member) at ``moment``; their record as it is now."""
        old_team = self.people[actor_id].team
        self._end_role(actor_id, moment)
        self._team_members[old_team].remove(actor_id)
        self._team_members[team].append(actor_id)
        self._cache.clear()
        role = TEAM_ROLES[team][0]
        person = self._update(actor_id, team=team, role=role)
        title = person.title
        if role == "support_l2":
            title = "Senior Support Engineer"
        elif role in self.titles:
            title = self.titles[role][0]
        person = self._update(actor_id, manager=self.manager_of(team), title=title)
        self._start_role(actor_id, role, moment)
        self._cache.clear()
        return person

    def grant(self, person: Actor, subsystem: str, start: datetime, end: datetime, reason: str) -> Grant:
        """Give ``person`` read access to ``subsystem`` for a time window."""
        grant = Grant(f"GRANT-{len(self.grants) + 1}", person.actor_id, subsystem, reason, valid_from=start, valid_to=end)
        self.grants.append(grant)
        return grant

    # -- questions ------------------------------------------------------------------------
    def members(self, team: str) -> list[str]:
        """Actor ids currently employed in ``team`` (managers included), in id order (do not modify)."""
        key = ("team", team)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = [a for a in self._team_members[team] if self.people[a].left_at is None]
        return found

    def with_role(self, role: str) -> list[str]:
        """Actor ids currently holding ``role`` (do not modify)."""
        key = ("role", role)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = [a for a, p in self.people.items() if p.role == role and p.left_at is None]
        return found

    def cached_or_none(self, key: tuple[str, str]) -> list[str] | None:
        """The list ``cached`` stored under ``key``, or None if it is not built (or was cleared)."""
        return self._cache.get(key)

    def cached(self, key: tuple[str, str], build) -> list[str]:
        """A list derived from who is employed where, rebuilt only after a staffing change."""
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = build()
        return found

    def available(self, team: str) -> list[str]:
        """Members of ``team`` who are not busy: the people a departure or move may pick."""
        return [a for a in self.members(team) if not self.busy.get(a)]

    def manager_of(self, team: str) -> str:
        """The current manager of ``team`` (its first employed holder of the manager role)."""
        manager_role = TEAM_ROLES[team][1]
        for actor_id in self._team_members[team]:
            person = self.people[actor_id]
            if person.role == manager_role and person.left_at is None:
                return actor_id
        return self.members(team)[0]

    def space_members(self, space_id: str) -> list[str]:
        """Actor ids who are members of a private space now."""
        return self.cached(("space", space_id),
                           lambda: sorted({a for a, _, end in self.memberships[space_id] if end is None}))

    def active(self) -> list[str]:
        """Every employed actor id (do not modify)."""
        found = self._cache.get(("active", ""))
        if found is None:
            found = self._cache[("active", "")] = [a for a, p in self.people.items() if p.left_at is None]
        return found

    def active_set(self) -> frozenset[str]:
        """Every employed actor id, as a set."""
        found = self._cache.get(("active_set", ""))
        if found is None:
            found = self._cache[("active_set", "")] = frozenset(self.active())  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def hold(self, *actor_ids: str) -> None:
        """Mark people busy (they will not leave or move until released)."""
        for actor_id in actor_ids:
            self.busy[actor_id] = self.busy.get(actor_id, 0) + 1

    def release(self, *actor_ids: str) -> None:
        """Undo one ``hold`` for each person."""
        for actor_id in actor_ids:
            self.busy[actor_id] -= 1

    def is_active(self, actor_id: str) -> bool:
        """True if the person is employed now."""
        return self.people[actor_id].left_at is None

    # -- output ---------------------------------------------------------------------------
    def actors(self) -> list[Actor]:
        """Actor records, in id order."""
        return [self.people[a] for a in sorted(self.people)]

    def to_policy(self) -> AccessPolicy:
        """The access policy: roles → subsystems, role history, grants and private spaces."""
        assignments = [RoleAssignment(actor_id, role, valid_from=start, valid_to=end)
                       for actor_id, history in self.role_history.items() for role, start, end in history]
        spaces = [PrivateSpace(sid, sub, name, tuple(Membership(a, valid_from=s, valid_to=e) for a, s, e in self.memberships[sid]))
                  for sid, (sub, name, _) in SPACES.items()]
        return AccessPolicy(self.config.roles_map, assignments, self.grants, spaces)


def iso(day: date | datetime) -> str:
    """A date as YYYY-MM-DD."""
    return (day.date() if isinstance(day, datetime) else day).isoformat()
