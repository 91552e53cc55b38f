"""What binds a run directory to what it was made with: run.json's record, and the checks a resume must pass.

``run.json`` records the judge, the backend's identity (kind, model, base URL
or model file, response_format dialect) and the caller's ``parameters``; a
resume with any of them different, or with a job whose request differs from
the one its logged judgment answered, is refused before anything in the run
is touched (see ``judges.runner``). It also records how many judgments the
latest call asked for (``jobs``, free to change with --limit); readers refuse
a log holding fewer (``check_finished``): the run was stopped before the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from judges.backends.base import JudgeBackend
from judges.cache import backend_identity
from judges.judgments import JUDGMENTS, RESUME, JobKey, Judgment
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps, read_json, write_json

FORMAT_VERSION = 2
RUN_JSON = "run.json"
RUN_STATS = "run_stats.json"


def _first_difference(old: Any, new: Any, where: str) -> str | None:
    """The dotted name of the first field that differs between two JSON values (None if equal)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            found = _first_difference(old.get(key), new.get(key), f"{where}.{key}")
            if found:
                return found
        return None
    return None if old == new else where


def _field(record: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        record = record.get(part) if isinstance(record, dict) else None
    return record


def run_record(backend: JudgeBackend, parameters: Mapping[str, Any] | None,
               locations: Mapping[str, Any] | None, jobs: int | None = None) -> dict[str, Any]:
    """What run.json says about a run: the judge, its identity, the caller's parameters and locations, and how many
    judgments this call of the run asks for (``jobs``: not bound, a resume with --limit may change it)."""
    record = {"format_version": FORMAT_VERSION, "judge": backend.name, "backend": backend_identity(backend),
              "parameters": json.loads(dumps(dict(parameters or {}))), "locations": dict(locations or {})}
    return record if jobs is None else {**record, "jobs": jobs}


def unfinished(run_dir: Path, judgments: Sequence[Judgment]) -> str | None:
    """Why a run's log is not finished (it holds fewer judgments than its run.json's ``jobs``: killed before the
    end), saying to resume it; None when it is, or when run.json records no ``jobs`` (an older run, an inspect log)."""
    path = Path(run_dir) / RUN_JSON
    record = read_json(path) if path.is_file() else None
    jobs = record.get("jobs") if isinstance(record, dict) else None
    if jobs is None:
        return None
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
        raise InputError(f"{path}: field jobs: not a count of judgments")
    done = len({judgment.key for judgment in judgments})
    if done >= jobs:
        return None
    return (f"{Path(run_dir) / JUDGMENTS}: {done} of the {jobs} judgments {path} asks for (the run stopped before "
            f"the end); {RESUME}")


def check_finished(run_dir: Path, judgments: Sequence[Judgment]) -> None:
    """Refuse (InputError) a run that is ``unfinished``."""
    problem = unfinished(run_dir, judgments)
    if problem:
        raise InputError(problem)


def check_run_json(path: Path, record: Mapping[str, Any]) -> bool:
    """Refuse (InputError naming run.json and the field) a run.json made differently; True if it must be written."""
    if not path.exists():
        return True
    old = read_json(path)
    if not isinstance(old, dict) or old.get("format_version") != FORMAT_VERSION:
        version = old.get("format_version") if isinstance(old, dict) else None
        raise InputError(f"{path}: format_version {version!r}, not {FORMAT_VERSION}: it does not record what the"
                         " run was made with, so it cannot be resumed safely; choose a new run directory")
    for name in ("judge", "backend", "parameters"):
        field = _first_difference(old.get(name), record[name], name)
        if field:
            raise InputError(f"{path}: {field} is {dumps(_field(old, field))} in this run, "
                             f"{dumps(_field(record, field))} now; resume with the same settings or choose a"
                             " new run directory")
    return old != record


def check_requests(path: Path, done: Mapping[JobKey, Judgment], hashes: Mapping[JobKey, str]) -> None:
    """Refuse a resume whose jobs are not the requests that the logged judgments answered."""
    for key, req_hash in hashes.items():
        row = done.get(key)
        if row is not None and row.request_hash != req_hash:
            raise InputError(f"{path}: item {key[0]} condition {key[1]} seed {key[2]} was judged from another"
                             " request than this run makes now (request_hash differs: other suite, prompt or"
                             " settings); choose a new run directory")


def record_wall_time(run_dir: Path, backend: JudgeBackend, seconds: float, requested: int,
                     by_condition: Mapping[str, Sequence[float]] | None = None) -> None:
    """Add this call's wall time and requests to RUN_DIR/run_stats.json (model backends only; not an input).

    Wall time varies from run to run, so it lives apart from run.json and
    the log, and only for backends that call a model (whose ``pacing()`` is not None).
    ``by_condition`` (condition: requests, seconds) is each condition's requests and the time they were in
    flight, measured per request (under concurrency they overlap: their sum exceeds the wall time).
    """
    pacing = backend.pacing()
    if pacing is None:
        return
    path = Path(run_dir) / RUN_STATS
    old = read_json(path) if path.is_file() else {}
    old = old if isinstance(old, dict) else {}
    calls = list(old.get("calls") or [])
    conditions = {c: {"requests": int(n), "request_s": round(t, 3)} for c, (n, t) in sorted((by_condition or {}).items())}
    calls.append({"wall_s": round(seconds, 3), "requested": requested, "pacing": pacing, "conditions": conditions})
    write_json(path, {"judge": backend.name, "wall_s": round(sum(c["wall_s"] for c in calls), 3),
                      "calls": calls})
