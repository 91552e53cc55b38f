"""The 32-world sweep, serial against Ray, and a sweep killed halfway and resumed: one JSON object.

The grid (``--seeds N``, default 32): the default world config over seeds
0..N-1; each world built into a GroundEval suite run by every built-in
agent in both modes and scored; every 8 worlds (``--per-suite``) into one
CARGO suite judged by the four built-in judges (all eight conditions, the
rubric swap and cargo+kinds). Each of ``--repeats`` rounds (default 3) runs
the whole sweep from nothing, once with ``--executor serial`` and once on a
local Ray with ``--workers 2``, as ``orgbench sweep`` subprocesses with
BLAS/OpenMP threads set to 1, in the same directory path (the serial tree
is moved aside first, since run.json records the suite's absolute path),
and compares both trees (work directory and output) byte for byte.

``ratio`` is the best Ray wall time over the best serial wall time, each
the whole command (Python start, Ray's start-up and shut-down included);
``ratio_without_ray_startup`` takes the Ray start-up the command reports
("ray: ... in X s") off each Ray run first. Every run records the 1-minute
load average before and after it, because other processes share the machine.

Then a Ray sweep (``--resume-seeds``, default ``--seeds``) is killed with
SIGKILL (its whole process group, Ray's processes included) once half its
stages are built, and run again in the same place: ``resume.redone`` lists
stages that had finished before the kill and were built again (it should be
empty), ``resume.replaced`` those whose directory is not the same one
(inode) after the resume, and ``resume.identical_to_serial`` whether the
resumed tree has the serial run's bytes. Scratch files (Ray's session
directories too) live in one temporary directory that is removed at the
end, also on failure or Ctrl-C (``--dir`` keeps them); no Ray process is left.

    python benchmarks/bench_sweep.py                          # 32 worlds, best of 3 (hours: docs/sweeps.md)
    python benchmarks/bench_sweep.py --seeds 4 --per-suite 2 --repeats 2
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from bench_record import add_record_option, print_result

SWEEP = """[sweep]
name = "bench-{seeds}"

[worlds.default]
seeds = "0-{last}"

[groundeval]

[cargo]
worlds_per_suite = {per_suite}
"""
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_STARTUP = re.compile(r"^ray: .* in ([0-9.]+) s$", re.MULTILINE)
_CHILDREN: list[subprocess.Popen] = []   # sweeps running now: killed (process group) if the bench stops


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _write_grid(root: Path, seeds: int, per_suite: int) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    text = SWEEP.format(seeds=seeds, last=seeds - 1, per_suite=per_suite)
    (root / "SWEEP.toml").write_text(text, encoding="utf-8")


def _command(root: Path, executor: str) -> list[str]:
    return [sys.executable, "-m", "orgbench", "sweep", str(root / "SWEEP.toml"), "--out", str(root / "out"),
            "--work-dir", str(root / "work"), "--executor", executor, "--workers", "2"]


def _env(base: Path) -> dict[str, str]:
    env = {**os.environ, **THREADS, "RAY_TMPDIR": str(base / "ray")}   # Ray's session files: removed with base
    env.pop("RAY_ADDRESS", None)   # always the local Ray this command starts, never a cluster
    return env


def _start(root: Path, executor: str, base: Path) -> subprocess.Popen:
    """The sweep as a subprocess in its own process group; its output goes to files (a pipe could fill up)."""
    logs = base / "logs"
    logs.mkdir(exist_ok=True)
    with open(logs / "stdout.txt", "w") as out, open(logs / "stderr.txt", "w") as err:
        proc = subprocess.Popen(_command(root, executor), stdout=out, stderr=err, text=True, env=_env(base),
                                start_new_session=True)
    _CHILDREN.append(proc)
    return proc


def _stop(proc: subprocess.Popen) -> None:
    """SIGKILL the sweep's process group (Ray's processes with it) and wait until none of it is left."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    for _ in range(100):
        if not _group_alive(proc.pid):
            break
        time.sleep(0.1)
    if proc in _CHILDREN:
        _CHILDREN.remove(proc)


def _group_alive(pgid: int) -> bool:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def run_once(root: Path, executor: str, base: Path, keep_lines: bool = False) -> dict:
    """One whole sweep from nothing; wall seconds (and Ray's start-up) and the load average around it."""
    before = _load()
    started = time.perf_counter()
    proc = _start(root, executor, base)
    proc.wait()
    seconds = time.perf_counter() - started
    out, err = ((base / "logs" / name).read_text() for name in ("stdout.txt", "stderr.txt"))
    _stop(proc)   # nothing of it may outlive the run (a Ray worker that did not exit)
    if proc.returncode != 0:
        raise SystemExit(f"{executor} sweep failed:\n{err[-3000:]}")
    found = _STARTUP.search(out)
    lines = out.strip().splitlines()
    return {"seconds": round(seconds, 2), "ray_startup_seconds": float(found.group(1)) if found else None,
            "load_before": before, "load_after": _load(), "summary": lines[-1], **({"lines": lines} if keep_lines else {})}


def _differences(a: Path, b: Path) -> list[str]:
    """Files that differ, or exist on one side only, between two trees."""
    found = []
    compare = filecmp.dircmp(a, b)
    found += [str(a / n) for n in compare.left_only + compare.right_only + compare.funny_files]
    found += [str(a / n) for n in compare.common_files if not filecmp.cmp(a / n, b / n, shallow=False)]
    for sub in compare.common_dirs:
        found += _differences(a / sub, b / sub)
    return found


def compare_executors(base: Path, seeds: int, per_suite: int, repeats: int) -> dict:
    """Serial and Ray sweeps, ``repeats`` rounds; best wall times (with and without Ray's start-up), same bytes?"""
    runs: dict[str, list[dict]] = {"serial": [], "ray": []}
    differences: list[str] = []
    root = base / "grid"
    for repeat in range(repeats):
        for executor in ("serial", "ray"):
            _write_grid(root, seeds, per_suite)
            runs[executor].append(run_once(root, executor, base))
            if executor == "serial":
                shutil.rmtree(base / "serial", ignore_errors=True)
                os.replace(root, base / "serial")
        differences += _differences(base / "serial", root)
        print(json.dumps({"repeat": repeat, **{k: v[-1] for k, v in runs.items()}}), file=sys.stderr, flush=True)
    shutil.rmtree(root)
    serial = min(r["seconds"] for r in runs["serial"])
    ray = min(r["seconds"] for r in runs["ray"])
    ray_net = min(r["seconds"] - (r["ray_startup_seconds"] or 0.0) for r in runs["ray"])
    return {"runs": runs, "best_serial_seconds": serial, "best_ray_seconds": ray,
            "ratio": round(ray / serial, 3), "ratio_without_ray_startup": round(ray_net / serial, 3),
            "byte_identical": not differences, "differences": differences[:20]}


def _finished(work: Path) -> dict[str, int]:
    """Stage directories that are complete (have MANIFEST.json), with their inode."""
    return {str(p.parent.relative_to(work)): p.parent.stat().st_ino for p in work.rglob("MANIFEST.json")
            if not any(part.endswith(".partial") for part in p.parts)
            and not (p.parent.parent / "MANIFEST.json").exists()}


def kill_and_resume(base: Path, seeds: int, per_suite: int, executor: str = "ray") -> dict:
    """Kill a sweep with SIGKILL once half its stages are built; run it again; what was redone."""
    root = base / "grid"   # where the serial tree was built: the resumed tree can be compared with it
    _write_grid(root, seeds, per_suite)
    total = _stage_count(root)
    proc = _start(root, executor, base)
    while len(_finished(root / "work")) < total // 2 and proc.poll() is None:   # stages done on disk, not lines:
        time.sleep(0.5)                                                         # a Ray chain reports them at its end
    _stop(proc)
    before = _finished(root / "work")
    again = run_once(root, executor, base, keep_lines=True)
    rebuilt = {line.split()[1] for line in again.pop("lines") if line.startswith("built ")}
    after = _finished(root / "work")
    serial = base / "serial"
    comparable = (serial / "SWEEP.toml").is_file() and (serial / "SWEEP.toml").read_bytes() == (
        root / "SWEEP.toml").read_bytes()
    return {"executor": executor, "stages": total, "killed_at_stages_finished": total // 2,
            "finished_before_kill": len(before), "built_on_resume": len(rebuilt),
            "redone": sorted(rebuilt & set(before)), "redone_count": len(rebuilt & set(before)),
            "replaced": sorted(name for name, inode in before.items() if after.get(name) != inode),
            "complete_after_resume": len(after) + (root / "out" / "MANIFEST.json").is_file() == total,
            "identical_to_serial": (not _differences(serial, root)) if comparable else None, **again}


def _stage_count(root: Path) -> int:
    from orgbench.sweep.graph import expand
    from orgbench.sweep.spec import load_sweep

    return len(expand(load_sweep(root / "SWEEP.toml"), root / "work", root / "out"))


def main() -> None:
    """Measure and print the JSON report; the scratch directory goes and no sweep outlives the bench."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=32, help="worlds of the grid (default 32)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of serial + Ray; best of them (default 3)")
    parser.add_argument("--per-suite", type=int, default=8, help="worlds per CARGO suite (default 8)")
    parser.add_argument("--skip-compare", action="store_true", help="only the kill-and-resume part")
    parser.add_argument("--skip-resume", action="store_true", help="only serial against Ray")
    parser.add_argument("--resume-seeds", type=int, default=None, help="worlds of the killed sweep (default: --seeds)")
    parser.add_argument("--dir", type=Path, default=None, help="scratch directory, kept (default: a temp dir, removed)")
    add_record_option(parser)
    args = parser.parse_args()
    if min(args.seeds, args.repeats, args.per_suite, args.resume_seeds or 1) < 1:
        parser.error("--seeds, --repeats, --per-suite and --resume-seeds must be at least 1")
    base = args.dir.resolve() if args.dir else Path(tempfile.mkdtemp(prefix="bs-", dir="/tmp"))
    base.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    result: dict = {"seeds": args.seeds, "per_suite": args.per_suite, "repeats": args.repeats,
                    "cpus": os.cpu_count(), "threads": THREADS, "loadavg_start": Path("/proc/loadavg").read_text().strip()}
    try:
        if not args.skip_compare:
            result["serial_vs_ray"] = compare_executors(base, args.seeds, args.per_suite, args.repeats)
        if not args.skip_resume:
            result["resume"] = kill_and_resume(base, args.resume_seeds or args.seeds, args.per_suite)
    finally:
        for proc in list(_CHILDREN):
            _stop(proc)
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    result["loadavg_end"] = Path("/proc/loadavg").read_text().strip()
    result["bench_seconds"] = round(time.perf_counter() - started, 1)
    print_result(result, args.record, indent=2)


if __name__ == "__main__":
    main()
