"""Config loading: defaults, overrides, and malformed configs that end in one line naming the field."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from simulator.config import RATE_MAXIMA, load_config
from orgbench.core.errors import InputError
from simulator.simulate import simulate


def test_default_config_values():
    config = load_config()
    assert (config.seed, config.days, config.people, config.start) == (7, 90, 60, date(2026, 1, 5))
    assert dict(config.teams)["support_l1"] == 14
    assert config.roles_map["support_l1"] == ("ticketing", "crm", "email", "chat", "wiki", "meetings")
    assert config.to_json()["teams"]["leadership"] == 5


def test_overrides_and_partial_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("days = 30\n[workload]\nincident_rate = 0.5\n", encoding="utf-8")
    config = load_config(path, seed=3, people=40)
    assert (config.seed, config.days, config.people) == (3, 30, 40)
    assert config.workload.incident_rate == 0.5
    assert config.workload.postmortem_rate == 0.6  # untouched default


BAD_CONFIGS = [
    ("unknown key", "colour = 3\n", "colour: unknown key"),
    ("unknown nested key", "[workload]\nfoo = 1\n", "workload.foo: unknown key"),
    ("wrong type", 'days = "ten"\n', "days: must be a positive integer"),
    ("bool for int", "seed = true\n", "seed: must be a non-negative integer"),
    ("negative days", "days = -5\n", "days: must be a positive integer"),
    ("empty teams", "[teams]\n", "teams: must be a non-empty table"),
    ("unknown team", "[teams]\nsupport_l1 = 1\nmarketing = 3\n", "teams.marketing: unknown team"),
    ("missing team", "[teams]\nsupport_l1 = 1\n", "teams: missing team"),
    ("zero share", "[teams]\nsupport_l1 = 0\nsupport_l2 = 1\nengineering = 1\nsre = 1\nsales = 1\nlegal = 1\nhr = 1\nleadership = 1\n",
     "teams.support_l1: must be a positive integer share"),
    ("bad date", 'start = "2026-13-45"\n', "start: must be a date"),
    ("bad holiday", '[calendar]\nholidays = ["soon"]\n', "calendar.holidays[0]: must be a date"),
    ("bad weekday", '[calendar]\nworkdays = ["mon", "funday"]\n', "calendar.workdays[1]: must be one of"),
    ("hours reversed", "[calendar]\nworkday_start = 17\nworkday_end = 9\n", "calendar.workday_end: must be later"),
    ("rate out of range", "[workload]\nincident_rate = 1.5\n", "workload.incident_rate: must be a number between 0 and 1"),
    ("negative rate", "[workload]\ncases_per_person = -1\n",
     "workload.cases_per_person: must be a finite number between 0 and 10 per person per business day"),
    ("infinite rate", "[workload]\nchat_messages_per_person = inf\n",
     "field workload.chat_messages_per_person: inf is not a finite number"),
    ("huge rate", "[workload]\nchat_messages_per_person = 1e9\n",
     "workload.chat_messages_per_person: must be a finite number between 0 and 200 per person per business day"),
    ("nan rate", "[workload]\ndirect_messages_per_person = nan\n",
     "field workload.direct_messages_per_person: nan is not a finite number"),
    ("huge case rate", "[workload]\ncases_per_person = 11\n", "workload.cases_per_person: must be a finite number between 0 and 10"),
    ("infinite share", "[workload]\nincident_rate = inf\n", "field workload.incident_rate: inf is not a finite number"),
    ("huge accounts", "[customers]\naccounts_per_person = 1e9\n", "customers.accounts_per_person: must be a positive number of at most 100"),
    ("infinite weight", "[graph]\ninteraction_weight = inf\n", "field graph.interaction_weight: inf is not a finite number"),
    ("huge staffing", "[staffing]\nhires = 1000000000\n", "staffing.hires: must be an integer between 0 and 1000"),
    ("huge share", "[teams]\nsupport_l1 = 1000000\nsupport_l2 = 1\nengineering = 1\nsre = 1\nsales = 1\nlegal = 1\nhr = 1\n"
     "leadership = 1\n", "teams.support_l1: must be a positive integer share of at most 10000"),
    ("weekend-only run", "start = 2026-01-03\ndays = 2\n",
     "days: the run from start 2026-01-03 to 2026-01-04 (2 day(s)) has no working day"),
    ("no workday in run", 'days = 5\n[calendar]\nworkdays = ["sat"]\n',
     "days: the run from start 2026-01-05 to 2026-01-09 (5 day(s)) has no working day (sat)"),
    ("holidays cover the run", "days = 3\n[calendar]\nholidays = [2026-01-05, 2026-01-06, 2026-01-07]\n",
     "calendar.holidays: cover every working day of the run (2026-01-05 to 2026-01-07)"),
    ("too few people", "people = 5\n", "people: must be an integer from 16 (two per team) to 100000"),
    ("too many people", "people = 100001\n", "people: must be an integer from 16 (two per team) to 100000"),
    ("table as scalar", "calendar = 5\n", "calendar: must be a table"),
    ("unknown subsystem", '[roles]\nsupport_l1 = ["ticketing", "telepathy"]\n', "roles.support_l1[1]: unknown subsystem"),
    ("invalid toml", "days = \n", "config.toml:1: invalid TOML (Invalid value at column 8)"),
]


@pytest.mark.parametrize("label,text,expected", BAD_CONFIGS, ids=[b[0] for b in BAD_CONFIGS])
def test_malformed_config_exits_2_naming_the_field(tmp_path, label, text, expected):
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    out = tmp_path / "world"
    result = CliRunner().invoke(cli, ["simulate", "--out", str(out), "--config", str(config)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert expected in lines[0] and str(config) in lines[0]
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no partial directory either


@pytest.mark.parametrize("args,expected", [
    (["--days", "-3"], "--days: must be a positive integer"),
    (["--people", "4"], "--people: must be an integer from 16 (two per team) to 100000"),
    (["--people", "100000000"], "--people: must be an integer from 16 (two per team) to 100000"),
    (["--seed", "-1"], "--seed: must be a non-negative integer"),
    (["--pack", "nope"], "--pack: unknown pack 'nope' (built-in packs are"),
])
def test_bad_overrides_exit_2(tmp_path, args, expected):
    """The line names the option as given (not a config source called "option")."""
    out = tmp_path / "world"
    result = CliRunner().invoke(cli, ["simulate", "--out", str(out), *args])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {expected}") and len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_config_file(tmp_path):
    with pytest.raises(InputError, match="nope.toml: file not found"):
        load_config(tmp_path / "nope.toml")


def test_weekend_run_from_the_command_line_exits_2(tmp_path):
    """``start`` on a Saturday with ``--days 2``: one line naming the field, no output directory."""
    config = tmp_path / "weekend.toml"
    config.write_text("start = 2026-01-03\n", encoding="utf-8")
    out = tmp_path / "world"
    result = CliRunner().invoke(cli, ["simulate", "--out", str(out), "--config", str(config), "--days", "2"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "days: the run from start 2026-01-03" in lines[0] and "no working day" in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("start,days", [(date(2026, 1, 5), 1), (date(2026, 1, 9), 3), (date(2026, 1, 3), 3)])
def test_short_runs_with_one_working_day_finish(tmp_path, start, days):
    """A run whose only working day is its first, middle or last still simulates, staffing included."""
    path = tmp_path / "short.toml"
    path.write_text(f"start = {start.isoformat()}\n", encoding="utf-8")
    world = simulate(load_config(path, days=days, people=16))
    hr = [e for e in world.events if e.type in ("hr.hired", "hr.departed", "hr.role_changed", "access.granted")]
    assert hr and {e.ts.date() for e in hr} == {d for d in (start + timedelta(days=i) for i in range(days))
                                               if d.weekday() < 5}


def test_rates_at_their_maxima_are_accepted(tmp_path):
    """Each ceiling itself is valid, and the default world sits far below every one."""
    path = tmp_path / "busy.toml"
    path.write_text("[workload]\n" + "".join(f"{name} = {ceiling}\n" for name, ceiling in RATE_MAXIMA.items()),
                    encoding="utf-8")
    busy = load_config(path).workload
    defaults = load_config().workload
    for name, ceiling in RATE_MAXIMA.items():
        assert getattr(busy, name) == ceiling
        assert getattr(defaults, name) * 10 < ceiling
