"""The simulation's configuration: one TOML schema, validated once on load, with errors naming the field.

``load_config`` starts from the embedded default (``orgbench/defaults/world.toml``),
lays a user's TOML file over it (tables merge key by key; ``teams`` and
``roles`` are replaced whole when given), applies keyword overrides (``seed=``,
``days=``, ``people=``) and returns a frozen :class:`SimConfig`. Anything
wrong ends in one :class:`InputError` line such as
``config.toml: days: must be a positive integer``.

Every rate has a finite ceiling (``RATE_MAXIMA``), well above the default
world but low enough that a run still finishes, and a run must contain at
least one working day.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping

from orgbench.core.errors import ConfigError, InputError
from simulator.model import ROLES, SUBSYSTEMS, TEAMS

WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MIN_PEOPLE_PER_TEAM = 2
#: The largest relative headcount share a team may be given.
MAX_TEAM_SHARE = 10_000
#: Staffing counts are given per this many people and scaled with headcount.
STAFFING_PER_PEOPLE = 60.0
#: The largest staffing count (per 60 people) of each kind.
MAX_STAFFING_COUNT = 1_000
#: Ceilings of the workload rates, per person per business day: about a hundred
#: times the default world, so a run with any accepted rate still finishes.
RATE_MAXIMA: dict[str, float] = {
    "cases_per_person": 10.0,
    "changes_per_person": 10.0,
    "chat_messages_per_person": 200.0,
    "direct_messages_per_person": 100.0,
    "emails_per_person": 50.0,
    "wiki_edits_per_person": 10.0,
}
#: Ceiling of customer accounts per employee.
MAX_ACCOUNTS_PER_PERSON = 100.0
#: Ceiling of the weight one interaction adds to a collaboration tie.
MAX_INTERACTION_WEIGHT = 100.0


@dataclass(frozen=True)
class CalendarConfig:
    """Working hours (UTC), working weekdays and holidays."""

    workday_start: int
    workday_end: int
    workdays: tuple[str, ...]
    holidays: tuple[date, ...]


@dataclass(frozen=True)
class CustomerConfig:
    """How many customer accounts, assets and contacts exist."""

    accounts_per_person: float
    assets_per_account: int
    contacts_per_account: int
    strategic_share: float


@dataclass(frozen=True)
class WorkloadConfig:
    """Rates of work, per employee per business day, and outcome shares."""

    cases_per_person: float
    changes_per_person: float
    chat_messages_per_person: float
    direct_messages_per_person: float
    emails_per_person: float
    wiki_edits_per_person: float
    incident_rate: float
    postmortem_rate: float
    stalled_case_rate: float
    unanswered_escalation_rate: float


@dataclass(frozen=True)
class StaffingConfig:
    """Staffing changes over the run, per 60 people (scaled with headcount)."""

    hires: int
    departures: int
    role_changes: int
    grants: int


@dataclass(frozen=True)
class GraphConfig:
    """Collaboration graph dynamics."""

    daily_decay: float
    interaction_weight: float


@dataclass(frozen=True)
class SimConfig:
    """A fully validated simulation configuration."""

    seed: int
    start: date
    days: int
    people: int
    calendar: CalendarConfig
    teams: tuple[tuple[str, int], ...]
    customers: CustomerConfig
    workload: WorkloadConfig
    staffing: StaffingConfig
    graph: GraphConfig
    roles: tuple[tuple[str, tuple[str, ...]], ...]
    #: The domain pack: a built-in name or the absolute path of a pack file (see simulator.packs).
    pack: str = "hardware"
    source: str = "<default>"

    @property
    def roles_map(self) -> dict[str, tuple[str, ...]]:
        """Role → subsystems as a dict."""
        return dict(self.roles)

    @property
    def domain_pack(self):
        """The validated domain pack (simulator.packs.Pack) this world is made from."""
        from simulator.packs import load_pack

        return load_pack(self.pack)

    @property
    def team_shares(self) -> dict[str, int]:
        """Team → relative headcount share as a dict."""
        return dict(self.teams)

    def to_json(self) -> dict[str, Any]:
        """The resolved configuration as it is written into world.json."""
        out = asdict(self)
        out.pop("source")
        out.pop("pack")   # the default pack is implied: a default world's bytes do not change
        out["start"] = self.start.isoformat()
        out["calendar"]["holidays"] = [d.isoformat() for d in self.calendar.holidays]
        out["calendar"]["workdays"] = list(self.calendar.workdays)
        out["teams"] = {name: share for name, share in self.teams}
        out["roles"] = {role: list(subs) for role, subs in self.roles}
        if not self.domain_pack.is_default:
            out["pack"] = self.domain_pack.to_json()
        return out


# -- field checks ---------------------------------------------------------------

def _fail(source: str, field: str, message: str) -> ConfigError:
    return ConfigError(f"{source}: {field}: {message}")


def _int(lo: int | None = None, hi: int | None = None, what: str = "an integer") -> Callable[[str, str, Any], int]:
    def check(source: str, field: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(source, field, f"must be {what}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise _fail(source, field, f"must be {what}")
        return value
    return check


def _float(lo: float, hi: float, what: str = "a number") -> Callable[[str, str, Any], float]:
    def check(source: str, field: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(source, field, f"must be {what}")
        if not math.isfinite(value) or value < lo or value > hi:  # nan, inf and out of range
            raise _fail(source, field, f"must be {what}")
        return float(value)
    return check


def _rate(name: str) -> Callable[[str, str, Any], float]:
    hi = RATE_MAXIMA[name]
    return _float(0.0, hi, f"a finite number between 0 and {hi:g} per person per business day")


def _date(source: str, field: str, value: Any) -> date:
    if isinstance(value, datetime):
        raise _fail(source, field, "must be a date (YYYY-MM-DD), not a date-time")
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise _fail(source, field, "must be a date (YYYY-MM-DD)")


def _dates(source: str, field: str, value: Any) -> tuple[date, ...]:
    if not isinstance(value, list):
        raise _fail(source, field, "must be a list of dates (YYYY-MM-DD)")
    return tuple(sorted({_date(source, f"{field}[{i}]", v) for i, v in enumerate(value)}))


def _weekdays(source: str, field: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise _fail(source, field, "must be a non-empty list of weekday names (mon..sun)")
    for i, day in enumerate(value):
        if day not in WEEKDAYS:
            raise _fail(source, f"{field}[{i}]", f"must be one of {', '.join(WEEKDAYS)}")
    return tuple(d for d in WEEKDAYS if d in value)


def _pack(source: str, field: str, value: Any) -> str:
    from simulator.packs import pack_reference  # the packs read TEAMS and ROLES from here

    return pack_reference(source, field, value)


SHARE = _float(0.0, 1.0, "a number between 0 and 1")
COUNT = _int(0, MAX_STAFFING_COUNT, f"an integer between 0 and {MAX_STAFFING_COUNT}")

TOP: dict[str, Callable] = {
    "seed": _int(0, 2**63 - 1, "a non-negative integer"),
    "start": _date,
    "days": _int(1, 3660, "a positive integer (at most 3660)"),
    "people": _int(len(TEAMS) * MIN_PEOPLE_PER_TEAM, 100_000,
                   f"an integer from {len(TEAMS) * MIN_PEOPLE_PER_TEAM} (two per team) to 100000"),
    "pack": _pack,
}
TABLES: dict[str, dict[str, Callable]] = {
    "calendar": {
        "workday_start": _int(0, 23, "an hour between 0 and 23"),
        "workday_end": _int(1, 24, "an hour between 1 and 24"),
        "workdays": _weekdays,
        "holidays": _dates,
    },
    "customers": {
        "accounts_per_person": _float(0.0, MAX_ACCOUNTS_PER_PERSON,
                                      f"a positive number of at most {MAX_ACCOUNTS_PER_PERSON:g}"),
        "assets_per_account": _int(1, 1000, "a positive integer"),
        "contacts_per_account": _int(1, 1000, "a positive integer"),
        "strategic_share": SHARE,
    },
    "workload": {
        **{name: _rate(name) for name in RATE_MAXIMA},
        "incident_rate": SHARE, "postmortem_rate": SHARE, "stalled_case_rate": SHARE,
        "unanswered_escalation_rate": SHARE,
    },
    "staffing": {"hires": COUNT, "departures": COUNT, "role_changes": COUNT, "grants": COUNT},
    "graph": {
        "daily_decay": _float(0.0, 1.0, "a number between 0 and 1"),
        "interaction_weight": _float(0.0, MAX_INTERACTION_WEIGHT,
                                     f"a positive number of at most {MAX_INTERACTION_WEIGHT:g}"),
    },
}
REPLACED_WHOLE = ("teams", "roles")


def _default_text() -> str:
    return resources.files("orgbench.defaults").joinpath("world.toml").read_text(encoding="utf-8")


def _parse(text: str, source: str) -> dict[str, Any]:
    from orgbench.core.storage import loads_toml

    return loads_toml(text, source)


def _merge(base: dict[str, Any], user: Mapping[str, Any], source: str) -> dict[str, Any]:
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in user.items():
        if key not in TOP and key not in TABLES and key not in REPLACED_WHOLE:
            raise _fail(source, key, "unknown key")
        if key in TABLES:
            if not isinstance(value, dict):
                raise _fail(source, key, "must be a table")
            for sub in value:
                if sub not in TABLES[key]:
                    raise _fail(source, f"{key}.{sub}", "unknown key")
            merged[key] = {**merged.get(key, {}), **value}
        else:
            merged[key] = value
    return merged


def _teams(source: str, value: Any) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, dict) or not value:
        raise _fail(source, "teams", f"must be a non-empty table of team = share for {', '.join(TEAMS)}")
    for name in value:
        if name not in TEAMS:
            raise _fail(source, f"teams.{name}", f"unknown team (teams are {', '.join(TEAMS)})")
    for name in TEAMS:
        if name not in value:
            raise _fail(source, "teams", f"missing team {name!r}")
    share = _int(1, MAX_TEAM_SHARE, f"a positive integer share of at most {MAX_TEAM_SHARE}")
    return tuple((name, share(source, f"teams.{name}", value[name])) for name in TEAMS)


def _roles(source: str, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict) or not value:
        raise _fail(source, "roles", "must be a non-empty table of role = [subsystems]")
    for role in value:
        if role not in ROLES:
            raise _fail(source, f"roles.{role}", f"unknown role (roles are {', '.join(ROLES)})")
    out = []
    for role in ROLES:
        if role not in value:
            raise _fail(source, "roles", f"missing role {role!r}")
        subs = value[role]
        if not isinstance(subs, list):
            raise _fail(source, f"roles.{role}", "must be a list of subsystem names")
        for i, sub in enumerate(subs):
            if sub not in SUBSYSTEMS:
                raise _fail(source, f"roles.{role}[{i}]", f"unknown subsystem {sub!r} (subsystems are {', '.join(SUBSYSTEMS)})")
        out.append((role, tuple(s for s in SUBSYSTEMS if s in subs)))
    return tuple(out)


def _require_a_working_day(source: str, start: date, days: int, workdays: tuple[str, ...],
                           holidays: tuple[date, ...]) -> None:
    """A run needs at least one working day: people, cases and staffing all happen on working days."""
    dates = [start + timedelta(days=i) for i in range(days)]
    weekdays = [d for d in dates if WEEKDAYS[d.weekday()] in workdays]
    last = dates[-1].isoformat()
    if not weekdays:
        raise _fail(source, "days", f"the run from start {start.isoformat()} to {last} ({days} day(s)) has no "
                    f"working day ({', '.join(workdays)}); a run needs at least one")
    off = set(holidays)
    if all(d in off for d in weekdays):
        raise _fail(source, "calendar.holidays", f"cover every working day of the run ({start.isoformat()} to "
                    f"{last}); a run needs at least one working day")


def _build(raw: Mapping[str, Any], source: str) -> SimConfig:
    for key in TOP:
        if key not in raw:
            raise _fail(source, key, "missing")
    top = {key: check(source, key, raw[key]) for key, check in TOP.items()}
    tables: dict[str, dict[str, Any]] = {}
    for table, fields in TABLES.items():
        given = raw.get(table, {})
        values = {}
        for name, check in fields.items():
            if name not in given:
                raise _fail(source, f"{table}.{name}", "missing")
            values[name] = check(source, f"{table}.{name}", given[name])
        tables[table] = values
    cal = tables["calendar"]
    if cal["workday_end"] <= cal["workday_start"]:
        raise _fail(source, "calendar.workday_end", "must be later than calendar.workday_start")
    if tables["customers"]["accounts_per_person"] <= 0:
        raise _fail(source, "customers.accounts_per_person",
                    f"must be a positive number of at most {MAX_ACCOUNTS_PER_PERSON:g}")
    _require_a_working_day(source, top["start"], top["days"], cal["workdays"], cal["holidays"])
    teams = _teams(source, raw.get("teams"))
    if top["people"] < MIN_PEOPLE_PER_TEAM * len(teams):
        raise _fail(source, "people", f"must be at least {MIN_PEOPLE_PER_TEAM * len(teams)} (two per team)")
    return SimConfig(
        seed=top["seed"], start=top["start"], days=top["days"], people=top["people"], pack=top["pack"],
        calendar=CalendarConfig(**cal), teams=teams,
        customers=CustomerConfig(**tables["customers"]), workload=WorkloadConfig(**tables["workload"]),
        staffing=StaffingConfig(**tables["staffing"]), graph=GraphConfig(**tables["graph"]),
        roles=_roles(source, raw.get("roles")), source=source,
    )


def load_config(path: Path | None = None, **overrides: Any) -> SimConfig:
    """Load and validate a config: the embedded default, overlaid by ``path`` and ``overrides``."""
    raw = _parse(_default_text(), "orgbench/defaults/world.toml")
    source = "<default>"
    if path is not None:
        path = Path(path)
        source = str(path)
        from orgbench.core.storage import read_text

        text = read_text(path, "TOML config")
        raw = _merge(raw, _parse(text, source), source)
    given = {k: v for k, v in overrides.items() if v is not None}
    for key, value in given.items():
        if key not in TOP:
            raise _fail("override", key, "unknown key")
        try:
            given[key] = TOP[key]("option", f"--{key}", value)
        except InputError as exc:       # checked as field --KEY of a source "option": said of the option alone
            raise ConfigError(exc.message.removeprefix("option: ")) from None
    return _build({**raw, **given}, source)
