"""The 32-world sweep, serial against Ray, and a sweep killed halfway and resumed.

Prints one JSON object. The grid (``--seeds``, default 32): the default world
config over seeds 0..N-1; each world built into a GroundEval suite run by
every built-in agent in both modes and scored; every 8 worlds into one CARGO
suite judged by the four built-in judges (all eight conditions, the rubric
swap and cargo+kinds). Each repeat runs the whole sweep from nothing, once
with ``--executor serial`` and once on a local Ray with ``--workers 2``, as
``orgbench sweep`` subprocesses with BLAS/OpenMP threads set to 1, in the
same directory path (the serial tree is moved aside first, since run.json
records the suite's absolute path), and compares both trees (work directory
and output) byte for byte. ``ratio`` is the best Ray wall time over the best
serial wall time; the machine's 1-minute load average is recorded before and
after each run, because other processes share it.

Then a Ray sweep in a fresh directory is killed with SIGKILL (its whole
process group, Ray's processes included) once half its stages are built,
and run again: ``resume.redone`` lists stages that had finished before the
kill and were built again (it should be empty), ``resume.replaced`` those
whose directory is not the same one (inode) after the resume.

    python benchmarks/bench_sweep.py                 # 32 worlds, best of 3
    python benchmarks/bench_sweep.py --seeds 4 --per-suite 2 --repeats 1 --resume-seeds 8
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SWEEP = """[sweep]
name = "bench-{seeds}"

[worlds.default]
seeds = "0-{last}"

[groundeval]

[cargo]
worlds_per_suite = {per_suite}
"""
PER_SUITE = [8]  # worlds per CARGO suite (--per-suite)
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _sweep_text(seeds: int) -> str:
    return SWEEP.format(seeds=seeds, last=seeds - 1, per_suite=PER_SUITE[0])


def _command(root: Path, executor: str) -> list[str]:
    return [sys.executable, "-m", "orgbench", "sweep", str(root / "SWEEP.toml"), "--out", str(root / "out"),
            "--work-dir", str(root / "work"), "--executor", executor, "--workers", "2"]


def _env() -> dict[str, str]:
    env = {**os.environ, **THREADS}
    env.pop("RAY_ADDRESS", None)
    return env


def run_once(root: Path, executor: str) -> dict:
    """One whole sweep from nothing; wall seconds and the load average around it."""
    before = os.getloadavg()[0]
    started = time.perf_counter()
    proc = subprocess.run(_command(root, executor), capture_output=True, text=True, env=_env())
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{executor} sweep failed:\n{proc.stderr[-3000:]}")
    return {"seconds": round(seconds, 2), "load_before": round(before, 2), "load_after": round(os.getloadavg()[0], 2),
            "summary": proc.stdout.strip().splitlines()[-1]}


def _differences(a: Path, b: Path) -> list[str]:
    """Files that differ, or exist on one side only, between two trees."""
    found = []
    compare = filecmp.dircmp(a, b)
    found += [str(a / n) for n in compare.left_only + compare.right_only + compare.funny_files]
    found += [str(a / n) for n in compare.common_files if not filecmp.cmp(a / n, b / n, shallow=False)]
    for sub in compare.common_dirs:
        found += _differences(a / sub, b / sub)
    return found


def compare_executors(base: Path, seeds: int, repeats: int) -> dict:
    """Serial and Ray sweeps, ``repeats`` times each; best wall times and whether their bytes agree."""
    runs: dict[str, list[dict]] = {"serial": [], "ray": []}
    differences: list[str] = []
    for repeat in range(repeats):
        root = base / "grid"
        for executor in ("serial", "ray"):
            if root.exists():
                shutil.rmtree(root)
            root.mkdir(parents=True)
            (root / "SWEEP.toml").write_text(_sweep_text(seeds), encoding="utf-8")
            runs[executor].append(run_once(root, executor))
            if executor == "serial":
                shutil.rmtree(base / "serial", ignore_errors=True)
                os.replace(root, base / "serial")
        differences += _differences(base / "serial", root)
        print(json.dumps({"repeat": repeat, **{k: v[-1] for k, v in runs.items()}}), file=sys.stderr)
    best = {k: min(r["seconds"] for r in v) for k, v in runs.items()}
    return {"runs": runs, "best_serial_seconds": best["serial"], "best_ray_seconds": best["ray"],
            "ratio": round(best["ray"] / best["serial"], 3), "byte_identical": not differences,
            "differences": differences[:20]}


def _finished(work: Path) -> dict[str, int]:
    """Stage directories that are complete (have MANIFEST.json), with their inode."""
    return {str(p.parent.relative_to(work)): p.parent.stat().st_ino for p in work.rglob("MANIFEST.json")
            if not any(part.endswith(".partial") for part in p.parts)
            and not (p.parent.parent / "MANIFEST.json").exists()}


def kill_and_resume(base: Path, seeds: int, executor: str) -> dict:
    """Kill a sweep with SIGKILL once half its stages are built; run it again; what was redone."""
    root = base / "killed"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "SWEEP.toml").write_text(_sweep_text(seeds), encoding="utf-8")
    total = _stage_count(root)
    proc = subprocess.Popen(_command(root, executor), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=_env(), start_new_session=True)
    built = 0
    for line in proc.stdout:
        built += line.startswith("built ")
        if built >= total // 2:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(2)  # let the killed Ray processes go
    before = _finished(root / "work")
    again = subprocess.run(_command(root, executor), capture_output=True, text=True, env=_env())
    if again.returncode != 0:
        raise SystemExit(f"resumed sweep failed:\n{again.stderr[-3000:]}")
    rebuilt = {line.split()[1] for line in again.stdout.splitlines() if line.startswith("built ")}
    after = _finished(root / "work")
    return {"executor": executor, "stages": total, "built_before_kill_seen": built,
            "finished_before_kill": len(before), "built_on_resume": len(rebuilt),
            "redone": sorted(rebuilt & set(before)),
            "replaced": sorted(name for name, inode in before.items() if after.get(name) != inode),
            "summary": again.stdout.strip().splitlines()[-1]}


def _stage_count(root: Path) -> int:
    from orgbench.sweep.graph import expand
    from orgbench.sweep.spec import load_sweep

    return len(expand(load_sweep(root / "SWEEP.toml"), root / "work", root / "out"))


def main() -> None:
    """Measure and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--per-suite", type=int, default=8, help="worlds per CARGO suite")
    parser.add_argument("--skip-compare", action="store_true", help="only the kill-and-resume part")
    parser.add_argument("--resume-seeds", type=int, default=None, help="worlds of the killed sweep (default: --seeds)")
    parser.add_argument("--dir", type=Path, default=None, help="scratch directory (default: a temp dir)")
    args = parser.parse_args()
    PER_SUITE[0] = args.per_suite
    base = args.dir or Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    result: dict = {"seeds": args.seeds, "per_suite": args.per_suite, "repeats": args.repeats,
                    "cpus": os.cpu_count(), "threads": THREADS}
    if not args.skip_compare:
        result["serial_vs_ray"] = compare_executors(base, args.seeds, args.repeats)
    result["resume"] = kill_and_resume(base, args.resume_seeds or args.seeds, "ray")
    if args.dir is None:
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
