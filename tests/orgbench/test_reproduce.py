"""`orgbench reproduce` regenerates results/ byte for byte, survives being killed, and reuses finished stages."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "results"


def _orgbench(*args: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONHASHSEED="1")
    return subprocess.Popen([sys.executable, "-m", "orgbench", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a shell's background job inherits SIGINT ignored; a user's Ctrl-C does not
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kwargs)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def _assert_whole_lines(stdout: str, work: Path) -> None:
    """Every line whole, however many study processes wrote at once: a study's, a stage's (naming its folder),
    then the report's and the total's."""
    lines = stdout.splitlines()
    studies = [line for line in lines if not line.startswith("  ")]
    assert sorted(line.split(":")[0] for line in studies if line.endswith(": running")) == \
        ["assurance", "cargo", "groundeval"], lines
    assert all(f"{work}/" in line and line.rstrip().endswith(" s)") for line in lines if line.startswith("  "))
    assert lines[-2].startswith("report: ") and lines[-1].startswith("total: ")


@pytest.mark.slow              # runs the whole of ``orgbench reproduce`` (minutes)
@pytest.mark.skipif(not COMMITTED.is_dir(), reason="results/ not committed")
def test_killed_reproduce_resumes_and_regenerates_results_byte_for_byte(tmp_path: Path) -> None:
    out, work = tmp_path / "results", tmp_path / "build"
    first = _orgbench("reproduce", "--out", str(out), "--work-dir", str(work))
    suite_manifest = work / "cargo" / "suite" / "MANIFEST.json"
    _wait_for(suite_manifest, first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    # Killed mid-run: a study directory that exists is complete (it is renamed into place only when
    # finished); work in progress lives in hidden ".NAME.PID.*.partial" folders.
    for study in ("cargo", "groundeval", "assurance"):
        if (out / study).exists():
            assert _tree(out / study) == _tree(COMMITTED / study)
    assert not (out / "index.html").exists()
    suite_stat = suite_manifest.stat()

    second = _orgbench("reproduce", "--out", str(out), "--work-dir", str(work))
    stdout, stderr = second.communicate(timeout=2400)      # the rest of a fresh run, on a busy machine
    assert second.returncode == 0, stderr
    assert suite_manifest.stat().st_mtime_ns == suite_stat.st_mtime_ns  # the finished stage was reused
    assert "report:" in stdout
    _assert_whole_lines(stdout, work)                          # one study after another (--jobs 1, the default)

    assert [p.name for p in out.glob(".*.partial")] == []  # the killed run's leftovers were cleared
    ours, committed = _tree(out), _tree(COMMITTED)
    assert sorted(ours) == sorted(committed)
    changed = [name for name in committed if ours[name] != committed[name]]
    assert changed == [], f"results differ from the committed ones: {changed[:5]}"

    # Nothing changed: every stage is reused, the studies' tables among them (copied from their stages), and
    # the results are the same bytes. (A changed input rebuilding such a stage: tests/orgbench/test_stages.py.)
    third = _orgbench("reproduce", "--out", str(out), "--work-dir", str(work))
    stdout, stderr = third.communicate(timeout=2400)
    assert third.returncode == 0, stderr
    stages = [line.strip() for line in stdout.splitlines() if line.startswith("  ") and str(work) in line]
    for published in ("cargo/tables/", "groundeval/tables/", "assurance/results-"):
        assert any(f"{work}/{published}" in line for line in stages), published
    assert stages and all(": reused (" in line for line in stages), [s for s in stages if ": reused (" not in s]
    assert _tree(out) == ours


@pytest.mark.slow              # two runs of ``orgbench reproduce --jobs 2`` (minutes)
@pytest.mark.skipif(not COMMITTED.is_dir(), reason="results/ not committed")
def test_parallel_reproduce_interrupted_leaves_no_partial_and_a_rerun_writes_the_same_bytes(tmp_path: Path) -> None:
    out, work = tmp_path / "results", tmp_path / "build"
    first = _orgbench("reproduce", "--jobs", "2", "--out", str(out), "--work-dir", str(work))
    suite_manifest = work / "cargo" / "suite" / "MANIFEST.json"
    _wait_for(suite_manifest, first)             # mid-way: a stage finished, the studies still running
    first.send_signal(signal.SIGINT)             # to the parent only, as `kill -INT PID` does
    try:
        stdout, stderr = first.communicate(timeout=300)
    finally:
        first.kill() if first.poll() is None else None
    assert first.returncode == 130, stderr
    assert "interrupted: every stage listed above as built is kept under --work-dir" in stderr
    assert "Traceback" not in stderr
    left = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.name.endswith(".partial")]
    assert left == []                            # every study process unwound its half-built folders
    for study in ("cargo", "groundeval", "assurance"):   # a study folder present is a finished one
        if (out / study).exists():
            assert _tree(out / study) == _tree(COMMITTED / study)
    suite_stat = suite_manifest.stat()

    # the rest of the run with the studies in parallel (--jobs 3: as many processes as the machine has cores, up
    # to the three studies) writes the bytes a serial run writes (the killed-run test above: --jobs 1)
    second = _orgbench("reproduce", "--jobs", "3", "--out", str(out), "--work-dir", str(work))
    try:
        stdout, stderr = second.communicate(timeout=2400)      # the rest of a fresh run, on a busy machine
    finally:
        second.kill() if second.poll() is None else None
    assert second.returncode == 0, stderr
    _assert_whole_lines(stdout, work)
    assert suite_manifest.stat().st_mtime_ns == suite_stat.st_mtime_ns     # the finished stage was reused
    assert [p.name for p in tmp_path.rglob("*") if p.name.endswith(".partial")] == []
    ours, committed = _tree(out), _tree(COMMITTED)
    assert sorted(ours) == sorted(committed)
    assert [name for name in committed if ours[name] != committed[name]] == []


@pytest.mark.slow          # `orgbench reproduce cargo` in a subprocess (12-33 s, loaded machine)
def test_interrupted_reproduce_says_so_and_leaves_no_finished_looking_study(tmp_path: Path) -> None:
    out, work = tmp_path / "results", tmp_path / "build"
    proc = _orgbench("reproduce", "cargo", "--out", str(out), "--work-dir", str(work))
    _wait_for(work / "cargo" / "suite" / "MANIFEST.json", proc)  # the suite is built; the judges are running
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted: every stage listed above as built is kept under --work-dir" in stderr
    assert "Traceback" not in stderr
    assert f"{work / 'cargo' / 'suite'}: built (" in stdout     # the finished stage's line was shown, not lost
    assert not (out / "cargo").exists()
    assert (work / "cargo" / "suite" / "MANIFEST.json").is_file()  # finished stages are kept
