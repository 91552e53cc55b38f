"""Config loading: defaults, overrides, and malformed configs that end in one line naming the field."""

from __future__ import annotations

from datetime import date

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from simulator.config import load_config
from simulator.errors import InputError


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
    ("negative rate", "[workload]\ncases_per_person = -1\n", "workload.cases_per_person: must be a non-negative number"),
    ("too few people", "people = 5\n", "people: must be an integer of at least 16"),
    ("table as scalar", "calendar = 5\n", "calendar: must be a table"),
    ("unknown subsystem", '[roles]\nsupport_l1 = ["ticketing", "telepathy"]\n', "roles.support_l1[1]: unknown subsystem"),
    ("invalid toml", "days = \n", "invalid TOML"),
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
    (["--people", "4"], "--people: must be an integer of at least 16"),
    (["--seed", "-1"], "--seed: must be a non-negative integer"),
])
def test_bad_overrides_exit_2(tmp_path, args, expected):
    out = tmp_path / "world"
    result = CliRunner().invoke(cli, ["simulate", "--out", str(out), *args])
    assert result.exit_code == 2
    assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_config_file(tmp_path):
    with pytest.raises(InputError, match="nope.toml: file not found"):
        load_config(tmp_path / "nope.toml")
