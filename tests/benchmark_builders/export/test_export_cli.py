"""``orgbench export``: byte-identical under any PYTHONHASHSEED, the output-directory rule, one-line errors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmark_builders.export import FORMATS
from orgbench.cli import cli

EXPORT_ALL = """
import sys
from pathlib import Path
from benchmark_builders.export import FORMATS, export_world
from simulator.world import load_world
world_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
world = load_world(world_dir)
for fmt in FORMATS:
    export_world(world, world_dir, fmt, out / fmt)
"""


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow          # exports in subprocesses (5 s, loaded machine)
def test_every_export_is_byte_identical_under_any_hash_seed(world_dir, tmp_path):
    trees = []
    for seed in ("0", "4242"):
        out = tmp_path / f"seed{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", EXPORT_ALL, str(world_dir), str(out)], check=True, env=env,
                       cwd=Path(__file__).resolve().parents[3])
        trees.append(_tree(out))
    assert trees[0] == trees[1]
    assert {name.split("/", 1)[0] for name in trees[0]} == set(FORMATS)
    assert len(trees[0]) > 200


def test_export_follows_the_output_directory_rule(world_dir, tmp_path):
    out = tmp_path / "slack"
    args = ["export", str(world_dir), "--format", "slack", "--out", str(out)]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "slack export of" in first.output and (out / "channels.json").is_file()
    again = CliRunner().invoke(cli, args)                      # the same export: rewritten
    assert again.exit_code == 0, again.output
    other = CliRunner().invoke(cli, ["export", str(world_dir), "--format", "jira", "--out", str(out)])
    assert other.exit_code == 2
    assert other.output.strip().startswith(f"error: --out {out}: holds an orgbench export made from other inputs")
    assert (out / "channels.json").is_file() and not (out / "issues.json").exists()
    replaced = CliRunner().invoke(cli, ["export", str(world_dir), "--format", "jira", "--out", str(out), "--overwrite"])
    assert replaced.exit_code == 0 and (out / "issues.json").is_file() and not (out / "channels.json").exists()


def test_export_refuses_a_folder_of_other_files_and_an_edited_world(world_dir, tmp_path):
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "todo.txt").write_text("keep me", encoding="utf-8")
    result = CliRunner().invoke(cli, ["export", str(world_dir), "--format", "mbox", "--out", str(precious)])
    assert result.exit_code == 2
    assert result.output.strip() == (f"error: --out {precious}: holds other files, not an orgbench export; choose "
                                     "another directory (or add --overwrite to replace it)")
    assert (precious / "todo.txt").read_text(encoding="utf-8") == "keep me"
    edited = tmp_path / "edited"
    edited.mkdir()
    for path in world_dir.iterdir():
        (edited / path.name).write_bytes(path.read_bytes())
    (edited / "actors.jsonl").write_bytes((edited / "actors.jsonl").read_bytes().replace(b"Support", b"Sales", 1))
    result = CliRunner().invoke(cli, ["export", str(edited), "--format", "eml", "--out", str(tmp_path / "eml")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "actors.jsonl" in result.output and not (tmp_path / "eml").exists()
