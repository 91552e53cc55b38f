"""``orgbench simulate`` and ``orgbench inspect`` end to end, including a tampered world."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from orgbench.cli import cli


def test_simulate_prints_a_summary_and_writes_a_world(tmp_path):
    out = tmp_path / "w"
    result = CliRunner().invoke(cli, ["simulate", "--out", str(out), "--days", "7", "--people", "16", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out}: ") and "events" in result.output and "seed 2" in result.output
    assert (out / "MANIFEST.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging leftovers


def test_inspect_summarises_a_verified_world(small_world_dir):
    result = CliRunner().invoke(cli, ["inspect", str(small_world_dir)])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "manifest verified" in text
    for needle in ("events by subsystem:", "events by type:", "people by current role", "policy changes during the run:",
                   "sample artifacts:", "case.step_completed", "support_l1", "SP-SRE-ONCALL", "support cases by runbook", "never answered"):
        assert needle in text, needle


def test_edited_world_fails_inspect_naming_the_file(small_world_dir, tmp_path):
    copy = tmp_path / "edited"
    shutil.copytree(small_world_dir, copy)
    events = copy / "events.jsonl"
    lines = events.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3] = lines[3].replace("case.", "case_")  if "case." in lines[3] else lines[3].replace('"ts"', '"ts" ')
    events.write_text("".join(lines), encoding="utf-8")
    result = CliRunner().invoke(cli, ["inspect", str(copy)])
    assert result.exit_code == 2
    message = result.stderr.strip().splitlines()
    assert len(message) == 1 and str(events) in message[0] and "sha256" in message[0]


def test_inspect_of_a_missing_world(tmp_path):
    result = CliRunner().invoke(cli, ["inspect", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "not a world directory" in result.stderr


def test_simulate_refuses_to_replace_something_that_is_not_a_world(tmp_path):
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "todo.txt").write_text("keep me", encoding="utf-8")
    result = CliRunner().invoke(cli, ["simulate", "--out", str(precious), "--days", "2", "--people", "16"])
    assert result.exit_code == 2 and "not a world written by orgbench" in result.stderr
    assert (precious / "todo.txt").read_text(encoding="utf-8") == "keep me"


def test_simulate_replaces_an_earlier_world_only_when_asked(tmp_path):
    out = tmp_path / "w"
    args = ["simulate", "--out", str(out), "--days", "2", "--people", "16", "--seed"]
    for seed in ("1", "1"):                                         # the same world: rewritten
        result = CliRunner().invoke(cli, [*args, seed])
        assert result.exit_code == 0, result.output
    refused = CliRunner().invoke(cli, [*args, "2"])                 # another world: refused, the first kept
    assert refused.exit_code == 2 and "holds a world made from other inputs" in refused.output
    assert '"seed": 1' in (out / "world.json").read_text(encoding="utf-8")
    result = CliRunner().invoke(cli, [*args, "2", "--overwrite"])
    assert result.exit_code == 0, result.output
    assert '"seed": 2' in (out / "world.json").read_text(encoding="utf-8")
