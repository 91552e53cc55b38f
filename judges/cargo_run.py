"""CARGO judging as a library: jobs from a suite's items, and one resumable run bound to the suite.

``make_jobs`` makes one job per (item, condition, judge seed), its request rendered when the runner takes it;
``run_cargo_jobs`` runs them through the backend a spec names (the registry)
into a run directory whose ``run.json`` binds the suite's digest and every
answer-changing setting (``judges.runner``), with the response cache beside it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Iterable, Sequence

from benchmark_builders.cargo.records import CargoItem
from judges.backends import EndpointConfig, make_backend
from judges.cache import ResponseCache
from judges.conditions import Condition, check_item, render
from judges.judgments import JUDGMENTS, load_judgments
from judges.runner import Job, RunSummary, run_jobs_sync
from orgbench.core.errors import InputError

__all__ = ["every_request_failed", "make_jobs", "run_cargo_jobs"]


def make_jobs(items: Sequence[CargoItem], conditions: Iterable[Condition], seeds: Iterable[int], *,
              temperature: float = 0.0, max_tokens: int | None = None) -> list[Job]:
    """One job per (condition, item, judge seed), in that order; each item checked now, rendered when asked."""
    seeds = list(seeds)
    shown = [item.to_json() for item in items]
    for fields in shown:
        check_item(fields)
    return [Job(item.item_id, cond.name, seed, render=partial(render, cond, fields, seed, temperature=temperature,
                                                              max_tokens=max_tokens))
            for cond in conditions for item, fields in zip(items, shown) for seed in seeds]


def run_cargo_jobs(jobs: list[Job], spec: str, out: Path, *, suite: Path, conditions: list[str], seeds,
                   endpoint: EndpointConfig | None = None, temperature: float = 0.0, max_tokens: int | None = None,
                   cache_path: Path | None = None, progress: bool = False, totals: Any = None,
                   structured: str | None = None, slots: int = 1) -> RunSummary:
    """Run jobs made from ``suite`` through the judge named by ``spec`` into run directory ``out``.

    run.json binds the run to the suite's digest and the answer-changing settings (see ``judges.runner``);
    the suite's absolute path is recorded so that ``tables cargo`` can find it. Responses are cached in
    ``cache_path`` (default ``out/cache.sqlite``) unless the backend is not ``cacheable`` (a procedural judge).
    """
    from judges.cargo_binding import cargo_line, suite_binding

    endpoint = endpoint or EndpointConfig(concurrency=16)
    binding, locations = suite_binding(suite)
    backend = make_backend(spec, endpoint=endpoint, temperature=temperature, max_tokens=max_tokens,
                           structured=structured, slots=slots)
    parameters = {**binding, "conditions": list(conditions), "seeds": list(seeds),
                  "temperature": temperature, "max_tokens": max_tokens, "extra": dict(endpoint.extra)}
    options = {"concurrency": endpoint.concurrency, "progress": progress, "parameters": parameters,
               "locations": locations, "line": cargo_line}
    if not backend.cacheable:
        summary = run_jobs_sync(jobs, backend, out, **options)
    else:
        with ResponseCache(Path(cache_path) if cache_path else Path(out) / "cache.sqlite") as cache:
            summary = run_jobs_sync(jobs, backend, out, cache=cache, **options)
    if totals is not None:
        totals.add_backend(backend, summary.requested)
        totals.usage += summary.usage
    return summary


def every_request_failed(out: Path) -> None:
    """Stop with the first error when no request of a run got an answer (a wrong endpoint, model or key)."""
    first = next(row.error for row in load_judgments(out) if row.error)
    raise InputError(f"{out / JUDGMENTS}: every request failed, e.g. {first}; check --judge and --base-url "
                     f"and run again (failed requests are retried)")
