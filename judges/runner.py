"""The judgment runner: many requests through one backend, logged so a killed run resumes exactly.

A run directory holds ``run.json`` (which judge, and the caller's parameters)
and ``judgments.jsonl``, one line per (item_id, condition, seed)::

    {"item_id", "condition", "seed", "request_hash", "model", "response",
     "verdict": {"verdict", "dimensions", "claims"} | null,
     "usage": {"prompt_tokens", "completion_tokens"}, "error": null | "one line"}

(a ``judges.judgments.Judgment``; a study may add fields through ``line``:
CARGO's ``penalized``, ``judges.cargo_scores.cargo_line``).

How it stays exact:

- The log is append-only while the run works: completed judgments are
  buffered and written with one ``write`` + ``flush`` per batch (every
  ``flush_interval`` seconds or ``flush_size`` lines), together with one cache
  transaction. A SIGKILL loses at most the unflushed batch and can tear only
  the last line, which the next start truncates.
- On start the log is read; finished keys are skipped, so nothing is asked
  twice and no key is written twice. Lines that ended in a per-request error
  are dropped (atomic rewrite) and those keys are asked again.
- When every job is done the log is rewritten once, atomically, sorted by
  key, so the same inputs give a byte-identical file however requests
  interleaved.
- A run is bound to what it was started with. ``run.json`` records the judge,
  the backend's identity (kind, model, base URL) and the caller's
  ``parameters`` (everything that changes an answer: for CARGO the suite's
  digest, conditions, judge seeds, temperature, max tokens, extra parameters).
  Resuming with any of them different, or with a job whose request differs
  from the one its logged judgment answered, is refused before anything in
  the run is touched. ``locations`` (where the inputs were found, e.g. the
  suite's path) are recorded too but may change. Concurrency, progress,
  timeouts, retries and the cache are not recorded.
- A fatal backend error (bad key, unreachable endpoint, unrecorded replay),
  or a long streak of failed requests, stops the run with an ``InputError``
  after the batch in hand is written.

Reading, recovering and sorting the log live in ``judges.judgments``.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from judges.backends import FatalBackendError
from judges.backends.base import BackendError, JudgeBackend, JudgeRequest, Usage
from judges.cache import ResponseCache, backend_identity, cache_key, request_hash
from judges.judgments import JUDGMENTS, JobKey, Judgment, scan_log, sort_log, write_log
from judges.run_log import Progress, RunLog, Tally
from judges.run_record import RUN_JSON, check_requests, check_run_json, record_wall_time, run_record
from orgbench.core.errors import InputError
from orgbench.core.storage import write_json

@dataclass(frozen=True, slots=True)
class Job:
    """One judgment to make: an item under a condition with a judge seed, and its request or how to render it.

    A job made with ``render`` (and no ``request``) is rendered when the runner takes it, so a run starts
    asking before every prompt is rendered; its inputs are checked when it is made.
    """

    item_id: str
    condition: str
    seed: int
    request: JudgeRequest | None = None
    render: Callable[[], JudgeRequest] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.request is None) == (self.render is None):
            raise ValueError(f"job {self.key}: give a request or a render, one of them")

    @property
    def key(self) -> JobKey:
        """The (item_id, condition, seed) that names this judgment in the log."""
        return (self.item_id, self.condition, self.seed)

    def rendered(self) -> JudgeRequest:
        """The request: the one given, or rendered now (not kept; the runner renders each job once)."""
        if self.request is not None:
            return self.request
        assert self.render is not None
        return self.render()


@dataclass(frozen=True)
class RunSummary:
    """What a run holds after this call, and what this call did."""

    run_dir: Path
    jobs: int
    already_done: int
    requested: int
    from_cache: int
    written: int
    judgments: int
    penalized: int
    passed: int
    cannot_decide: int
    unparsed: int
    errors: int
    usage: Usage
    elapsed_s: float

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON object."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["run_dir"], out["usage"] = str(self.run_dir), self.usage.to_json()
        return out


async def run_jobs(
    jobs: Iterable[Job],
    backend: JudgeBackend,
    run_dir: Path,
    *,
    concurrency: int = 16,
    progress: bool = True,
    cache: ResponseCache | None = None,
    parameters: Mapping[str, Any] | None = None,
    locations: Mapping[str, Any] | None = None,
    flush_interval: float = 0.05,
    flush_size: int = 512,
    max_consecutive_errors: int | None = None,
    line: Callable[[Judgment], Mapping[str, Any]] = Judgment.to_json,
) -> RunSummary:
    """Judge every job not already in RUN_DIR/judgments.jsonl; resumable, bounded concurrency.

    ``parameters`` are what the jobs were made from and that changes answers
    (a resume with different ones is refused); ``locations`` are recorded
    where the inputs were found and may change (see the module docstring).

    ``max_consecutive_errors`` (default max(20, 2 × concurrency); 0 disables)
    stops the run when that many requests fail in a row after their retries —
    an endpoint that answers nothing — keeping what was written. ``line`` writes a Judgment as its log
    line (a study adds its own fields there).
    """
    started = time.perf_counter()
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    jobs = _unique(jobs, concurrency)
    path = run_dir / JUDGMENTS
    rows = await _open_run(backend, jobs, run_dir, parameters, locations)
    tally = Tally()
    for row in rows.values():
        tally.add(row)
    already = sum(1 for job in jobs if job.key in rows)
    log = RunLog(path, cache, backend_identity(backend), tally, line)
    remaining, asked, from_cache = _answer_from_cache(log, backend, [job for job in jobs if job.key not in rows])
    bar = Progress(progress, len(jobs), already + from_cache, backend.name)
    backend.ensure_pool(concurrency)
    error_limit = max(20, 2 * concurrency) if max_consecutive_errors is None else max_consecutive_errors
    workers = _Workers(backend, log, remaining, asked, error_limit, flush_size)
    try:
        await workers.run(concurrency, flush_interval, lambda: bar.update(already + log.written))
    finally:
        log.close()
        bar.update(already + log.written)
        bar.close()
        await backend.aclose()
        record_wall_time(run_dir, backend, time.perf_counter() - started, asked, workers.timed)
    if workers.fatal:
        raise InputError(workers.fatal[0])
    sort_log(path)
    return RunSummary(
        run_dir=run_dir, jobs=len(jobs), already_done=already, requested=asked,
        from_cache=from_cache, written=log.written, judgments=tally.judgments, penalized=tally.penalized,
        passed=tally.passed, cannot_decide=tally.cannot_decide, unparsed=tally.unparsed, errors=tally.errors,
        usage=tally.usage, elapsed_s=round(time.perf_counter() - started, 6),
    )


Prepared = tuple[Job, JudgeRequest, str]


def _unique(jobs: Iterable[Job], concurrency: int) -> list[Job]:
    """The jobs as a list; InputError if a key repeats or the concurrency is below 1."""
    jobs = list(jobs)
    seen: set[JobKey] = set()
    for job in jobs:
        if job.key in seen:
            raise InputError(f"job {job.key}: given twice (item_id, condition, seed must be unique)")
        seen.add(job.key)
    if concurrency < 1:
        raise InputError(f"concurrency: must be at least 1, got {concurrency}")
    return jobs


def _prepared(backend: JudgeBackend, job: Job) -> Prepared:
    """The job, its request as the backend sends it, and that request's hash."""
    request = backend.prepare(job.rendered())
    return job, request, request_hash(request)


async def _open_run(backend: JudgeBackend, jobs: list[Job], run_dir: Path, parameters: Mapping[str, Any] | None,
                    locations: Mapping[str, Any] | None) -> dict[JobKey, Judgment]:
    """Check the run can resume (every check before the first write), then write run.json and recover the log.

    Returns the judgments already finished by key (each checked against its job's request).
    """
    path = run_dir / JUDGMENTS
    try:
        await backend.settle()      # e.g. which response_format dialect the endpoint accepts
        record = run_record(backend, parameters, locations, len(jobs))
        write_record = check_run_json(run_dir / RUN_JSON, record)
        done, dirty = scan_log(path)
        rows = {key: Judgment.from_json(json.loads(raw), path) for key, raw in done.items()}
        check_requests(path, rows, {job.key: _prepared(backend, job)[2] for job in jobs if job.key in rows})
    except BaseException:
        await backend.aclose()
        raise
    if write_record:
        write_json(run_dir / RUN_JSON, record)
    if dirty:
        write_log(path, done)
    return rows


def _answer_from_cache(log: RunLog, backend: JudgeBackend,
                       jobs: list[Job]) -> tuple[Iterable[Prepared], int, int]:
    """Log the jobs the cache answers; the jobs left to ask (prepared as taken, when no cache can answer any),
    how many there are, and how many the cache answered."""
    if log.cache is None or not jobs or not len(log.cache):
        return (_prepared(backend, job) for job in jobs), len(jobs), 0
    todo = [_prepared(backend, job) for job in jobs]
    hits = log.cache.get_many(cache_key(log.identity, h) for _, _, h in todo)
    if not hits:
        return todo, len(todo), 0
    remaining = []
    for job, request, h in todo:
        hit = hits.get(cache_key(log.identity, h))
        if hit is None:
            remaining.append((job, request, h))
        else:
            log.record(job.key, h, hit, None, cacheable=False)
    log.flush()
    return remaining, len(remaining), len(todo) - len(remaining)


class _Workers:
    """Workers that share one queue of jobs, log each answer, and stop the run on a fatal or a streak of errors."""

    def __init__(self, backend: JudgeBackend, log: RunLog, remaining: Iterable[Prepared], count: int,
                 error_limit: int, flush_size: int) -> None:
        self.backend, self.log, self.queue = backend, log, iter(remaining)
        self.count = count
        self.error_limit, self.flush_size = error_limit, flush_size
        self.fatal: list[str] = []
        self.failing = 0            # requests failed in a row
        self.timed: dict[str, list[float]] = {}     # condition: [requests, seconds they were in flight]

    def _time(self, condition: str, started: float) -> None:
        spent = self.timed.setdefault(condition, [0, 0.0])
        spent[0] += 1
        spent[1] += time.perf_counter() - started

    async def worker(self) -> None:
        """Take the next job until none is left or the run stops."""
        for job, request, h in self.queue:
            if self.fatal:
                return
            started = time.perf_counter()
            try:
                response = await self.backend.complete(request)
            except FatalBackendError as exc:
                if not self.fatal:
                    self.fatal.append(f"item {job.item_id} condition {job.condition} seed {job.seed}: {exc}")
                return
            except BackendError as exc:
                self._time(job.condition, started)
                message = str(exc).replace("\n", " ")
                self.log.record(job.key, h, None, message, cacheable=False)
                self.failing += 1
                if self.error_limit and self.failing >= self.error_limit and not self.fatal:
                    self.fatal.append(f"{self.failing} requests in a row failed, stopping (they are retried on"
                                      f" resume); last: {message}")
                    return
            else:
                self._time(job.condition, started)
                self.failing = 0
                self.log.record(job.key, h, response, None, cacheable=True)
            if self.log.pending >= self.flush_size:
                self.log.flush()

    async def run(self, concurrency: int, flush_interval: float, progress: Callable[[], None]) -> None:
        """Run ``concurrency`` workers (at most one per job), flushing the log every ``flush_interval`` seconds."""

        async def flusher() -> None:
            while True:
                await asyncio.sleep(flush_interval)
                self.log.flush()
                progress()

        flush_task = asyncio.create_task(flusher())
        workers = [asyncio.create_task(self.worker()) for _ in range(min(concurrency, self.count))]
        try:
            if workers:
                await asyncio.gather(*workers)
        finally:
            for task in workers:
                task.cancel()
            flush_task.cancel()
            await asyncio.gather(flush_task, *workers, return_exceptions=True)


def run_jobs_sync(jobs: Iterable[Job], backend: JudgeBackend, run_dir: Path, **options: Any) -> RunSummary:
    """Blocking wrapper around run_jobs (see there for the options)."""
    return asyncio.run(run_jobs(jobs, backend, run_dir, **options))


def job_to_json(job: Job) -> dict[str, Any]:
    """A job as a JSON object (message content must be text)."""
    request = job.rendered()
    return {"item_id": job.item_id, "condition": job.condition, "seed": job.seed,
            "messages": [{"role": m.role, "content": m.text()} for m in request.messages],
            "params": request.params.to_json()}
