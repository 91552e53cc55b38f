"""Every benchmark record under benchmarks/measured/ names a commit of this repository's history.

A record's ``commit`` (written by ``--record``, benchmarks/bench_record.py) says which code was measured; a record
made on a branch that was rebased afterwards names a commit main never held, so no one can check out what it
measured. Needs git and a full clone (CI's fresh clone of main is one); skipped otherwise, saying why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORDS = sorted((ROOT / "benchmarks" / "measured").glob("*.json"))


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def history() -> None:
    """Skips unless git can read this copy's full history."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: a record's commit cannot be looked up")
    shallow = _git("rev-parse", "--is-shallow-repository")
    if shallow.returncode != 0:
        pytest.skip(f"not a git clone (an export?): {shallow.stderr.strip()}")
    if shallow.stdout.strip() != "false":
        pytest.skip("a shallow clone: the commits records name may lie beyond its depth")


def test_there_are_records() -> None:
    assert RECORDS, "no benchmarks/measured/*.json"


@pytest.mark.parametrize("record", RECORDS, ids=lambda path: path.name)
def test_a_records_commit_is_an_ancestor_of_head(record: Path, history: None) -> None:
    commit = json.loads(record.read_text(encoding="utf-8"))["commit"]
    assert not commit.endswith("+changes"), f"{record.name} measured uncommitted code ({commit})"
    found = _git("cat-file", "-e", f"{commit}^{{commit}}")
    assert found.returncode == 0, f"{record.name} names {commit}, no commit of this repository (a rebased branch's?)"
    ancestor = _git("merge-base", "--is-ancestor", commit, "HEAD")
    assert ancestor.returncode == 0, f"{record.name} names {commit}, which is not an ancestor of HEAD"
