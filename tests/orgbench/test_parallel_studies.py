"""`orgbench reproduce --jobs N`: studies in child processes, their lines and totals handed back, errors one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orgbench.commands.parallel_studies import run_in_parallel, usable_cores
from orgbench.commands.progress import Stages, Totals
from orgbench.commands.reproduce import run_study
from orgbench.core.errors import InputError
from orgbench.stages import run_stage
from orgbench.studies import ReproduceOptions
from orgbench.studies.descriptor import Study

REPO = Path(__file__).resolve().parents[2]


def toy_study(out: Path, options: ReproduceOptions) -> None:
    """A study of one stage shared by every toy study (built once, under its lock) and one file of its own."""
    shared = options.work_dir / "shared"
    run_stage(shared, {"v": 1}, lambda tmp: (tmp / "data.txt").write_text("shared\n"))
    (out / "table.csv").write_text(f"table,{(shared / 'data.txt').read_text().strip()}\n")
    options.extra["totals"].requests += 3


def bad_study(out: Path, options: ReproduceOptions) -> None:
    raise InputError(f"{options.work_dir / 'x.toml'}: field 'seed': not a number")


def _study(name: str, function: str = "toy_study") -> Study:
    return Study(name=name, title=name, reproduce=f"tests.orgbench.test_parallel_studies:{function}", serves="judge",
                 builtin="")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_usable_cores_is_at_least_one():
    assert usable_cores() >= 1


def test_parallel_studies_write_what_serial_ones_do_and_their_totals_are_added(tmp_path):
    studies = [_study(n) for n in ("one", "two", "three")]
    trees, echoed = {}, {}
    for jobs in (1, 3):
        out, totals, lines = tmp_path / f"out{jobs}", Totals(), []
        options = ReproduceOptions(work_dir=tmp_path / f"work{jobs}", extra={"totals": totals})
        with Stages(lines.append):
            got = (run_in_parallel(run_study, studies, out, options, jobs, lines.append) if jobs > 1
                   else [run_study(s, out, options, lines.append) for s in studies])
        assert [line.split(":")[0] for line in got] == ["one", "two", "three"]
        assert totals.requests == 9
        trees[jobs], echoed[jobs] = _tree(out), lines
    assert trees[1] == trees[3] and trees[1]["two/table.csv"] == b"table,shared\n"
    for jobs in (1, 3):                    # every study's lines, each whole; the shared stage built once
        assert sorted(line for line in echoed[jobs] if line.endswith("running")) == \
            ["one: running", "three: running", "two: running"]
        built = [line for line in echoed[jobs] if "shared" in line]
        assert len(built) == 3 and sum(": built (" in line for line in built) == 1, built


def test_a_study_s_bad_input_in_its_process_is_one_input_error(tmp_path):
    studies = [_study("good"), _study("bad", "bad_study")]
    options = ReproduceOptions(work_dir=tmp_path / "work", extra={"totals": Totals()})
    with pytest.raises(InputError, match=r"x\.toml: field 'seed': not a number"):
        run_in_parallel(run_study, studies, tmp_path / "out", options, 2, lambda line: None)
    assert not (tmp_path / "out" / "bad").exists()


def slow_study(out: Path, options: ReproduceOptions) -> None:
    """A finished stage shared by the studies, then a stage of this process that never finishes by itself."""
    import time

    run_stage(options.work_dir / "done", {"v": 1}, lambda tmp: (tmp / "data.txt").write_text("done\n"))
    (out / "table.csv").write_text("half a table\n")

    def forever(tmp: Path) -> None:
        (tmp / "half.txt").write_text("half\n")
        time.sleep(600)

    run_stage(options.work_dir / f"slow-{os.getpid()}", {"v": 1}, forever)


_PARENT = """
import sys
from pathlib import Path
from orgbench.commands.parallel_studies import run_in_parallel
from orgbench.commands.progress import Stages, Totals
from orgbench.commands.reproduce import run_study
from orgbench.studies import ReproduceOptions
from tests.orgbench.test_parallel_studies import _study
root = Path(sys.argv[1])
options = ReproduceOptions(work_dir=root / "work", extra={"totals": Totals()})
try:
    with Stages(lambda line: None):
        run_in_parallel(run_study, [_study("a", "slow_study"), _study("b", "slow_study")], root / "out", options, 2,
                        lambda line: None)
except KeyboardInterrupt:
    sys.exit(130)
"""


@pytest.mark.parametrize("signum, to_group", [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)])
def test_a_parallel_run_stopped_by_a_signal_stops_its_studies_and_leaves_no_partial_folder(tmp_path, signum, to_group):
    proc = subprocess.Popen([sys.executable, "-c", _PARENT, str(tmp_path)], cwd=REPO, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while len(list((tmp_path / "work").glob(".slow-*.partial"))) < 2:    # both studies inside their slow stage
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    if to_group:
        os.killpg(proc.pid, signum)                  # parent and studies at once, as Ctrl-C in a terminal does
    else:
        proc.send_signal(signum)                     # to the parent only, as `kill PID` does
    assert proc.wait(timeout=120) == 130           # stopped as Ctrl-C stops it
    left = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.name.endswith(".partial")]
    assert left == []                                # the studies' half-built stages and folders are gone
    assert (tmp_path / "work" / "done" / "data.txt").read_text() == "done\n"   # a finished stage is kept
    assert not (tmp_path / "out" / "a").exists() and not (tmp_path / "out" / "b").exists()


def test_partial_folders_of_a_killed_study_process_are_removed_and_no_others(tmp_path):
    from orgbench.commands.parallel_studies import _remove_partials

    for name in (".suite.4242.ab_c1.partial", "cargo/.runs.4242.x9.partial", "cargo/.runs.77.x9.partial",
                 "cargo/suite.4242.x.partial.d", "cargo/runs"):
        (tmp_path / name).mkdir(parents=True)
    _remove_partials([tmp_path], {4242})
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == \
        ["cargo", "cargo/.runs.77.x9.partial", "cargo/runs", "cargo/suite.4242.x.partial.d"]
