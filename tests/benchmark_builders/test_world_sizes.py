"""Every suite on worlds of any size: a build exits 0 with items, or 2 with one line saying what was short; never 1.

A grid of world sizes from 8 to 200 people and 5 to 90 days (8 people is below the simulator's floor of 16: the
simulation itself stops with exit 2 in one line). ``MUST_BUILD`` names the sizes whose suites must all build.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from orgbench.cli import cli

#: (people, days) of the grid.
GRID = ((8, 5), (16, 5), (16, 12), (16, 30), (20, 8), (24, 90), (30, 45), (40, 20), (60, 10), (100, 6),
        (150, 5), (200, 5))
#: Sizes whose three suites must build with items.
MUST_BUILD = {(16, 30), (24, 90), (30, 45), (40, 20)}


def _one_error_line(result) -> None:
    lines = [line for line in result.output.strip().splitlines() if line.startswith("error:")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.slow          # twelve worlds, 36 builds (a few minutes)
@pytest.mark.parametrize("people, days", GRID)
def test_every_suite_builds_or_says_in_one_line_what_was_short(tmp_path, people, days):
    runner = CliRunner()
    world = tmp_path / "world"
    made = runner.invoke(cli, ["simulate", "--people", str(people), "--days", str(days), "--seed", "5",
                               "--out", str(world)])
    if people < 16:
        _one_error_line(made)
        assert "--people: must be an integer from 16 (two per team) to 100000" in made.output
        return
    assert made.exit_code == 0, made.output
    builds = {
        "cargo": (["build", "cargo", "--world", str(world)], "items.jsonl"),
        "trajectories": (["build", "trajectories", "--world", str(world)], "trajectories.jsonl"),
        "groundeval": (["build", "groundeval", "--world", str(world)], "contracts.jsonl"),
    }
    for name, (args, rows) in builds.items():
        out = tmp_path / name
        result = runner.invoke(cli, [*args, "--out", str(out)])
        assert result.exit_code in (0, 2), (name, result.output, result.exception)
        if result.exit_code == 2:
            _one_error_line(result)
            assert (people, days) not in MUST_BUILD, (name, result.output)
            assert not (out / "MANIFEST.json").exists()
        else:
            assert (out / rows).read_text(encoding="utf-8").strip(), name
            if name == "cargo":
                suite = json.loads((out / "suite.json").read_text(encoding="utf-8"))
                assert suite["items"] > 0
