"""orgbench's suites as inspect_ai tasks, registered through inspect's entry point (``orgbench/cargo_bench``, …).

``pyproject.toml`` names this module under ``[project.entry-points.inspect_ai]``,
so once orgbench is installed ``inspect eval orgbench/cargo_bench --model
PROVIDER/MODEL`` finds the tasks. Task parameters come with ``-T name=value``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from inspect_ai import Task, task

from orgbench.commands.options import parse_seeds
from orgbench.core.errors import InputError
from orgbench.harness.inspect_cargo import cargo_task
from orgbench.harness.inspect_contrast import contrast_task
from orgbench.harness.inspect_groundeval import MAX_TURNS, groundeval_task
from orgbench.harness.suites import cargo_suite, groundeval_suite, trajectory_suite


def _seeds(seeds: str | int | list[str | int]) -> tuple[int, ...]:
    """Judge seeds from ``-T seeds=0,1,2`` (inspect gives a list), ``-T seeds=0-9`` or ``-T seeds=3``."""
    text = ",".join(str(s) for s in seeds) if isinstance(seeds, (list, tuple)) else str(seeds)
    return parse_seeds(text, "seeds")


def _count(value: Any, name: str, least: int = 1) -> int:
    """A whole-number task parameter of at least ``least`` (InputError naming ``-T name`` otherwise)."""
    try:
        number = int(str(value))
    except ValueError:
        raise InputError(f"{name}: expected a whole number, got {value!r}") from None
    if number < least:
        raise InputError(f"{name}: expected at least {least}, got {number}")
    return number


def _condition(name: Any) -> str:
    """A prompt condition's name (InputError naming ``condition`` and the known ones otherwise)."""
    from judges.conditions import ALL_CONDITIONS

    if str(name) not in ALL_CONDITIONS:
        raise InputError(f"condition: unknown condition {str(name)!r}; known: {', '.join(ALL_CONDITIONS)}")
    return str(name)


@contextlib.contextmanager
def _one_line() -> Iterator[None]:
    """A bad task parameter or suite as inspect shows a prerequisite: its one line, no traceback."""
    try:
        yield
    except InputError as exc:
        from inspect_ai._util.error import PrerequisiteError    # inspect prints its message alone

        raise PrerequisiteError(f"orgbench: -T {exc}") from None


@task
def cargo_bench(suite: str | None = None, condition: str = "cargo", seeds: str | int | list[str | int] = "0",
                limit: int | None = None,
                temperature: float = 0.0, max_tokens: int | None = None, resamples: int = 10_000) -> Task:
    """CARGO-Bench: a judge sees each item under ``condition`` (orgbench's prompts, byte for byte) once per judge
    seed; scored as ``orgbench tables cargo`` scores it (per-family penalty rates, DI with its bootstrap CI).

    Args:
        suite: a CARGO suite folder (default: the default suite, seeds 0-9, built once and cached).
        condition: one prompt condition (noref, direct, direct+ctx, cargo, cargo+auth, cargo-ctx, cargo-exemplar,
            cargo-unv, cargo+kinds, or a rubric-swap cell such as cargo/golden-ref).
        seeds: judge seeds, e.g. 0 or 0,1,2 (each goes to the model as the request's seed).
        limit: judge only the first N items (in id order), as ``orgbench judge --limit``.
        temperature: sampling temperature (orgbench judge's default 0).
        max_tokens: the request's max_tokens (none by default, as orgbench judge).
        resamples: bootstrap resamples for DI's CI.
    """
    with _one_line():
        return cargo_task(cargo_suite(suite), _condition(condition), _seeds(seeds),
                          None if limit is None else _count(limit, "limit"), float(temperature),
                          None if max_tokens is None else _count(max_tokens, "max_tokens"),
                          _count(resamples, "resamples"))


@task
def groundeval(suite: str | None = None, limit: int | None = None, max_turns: int = MAX_TURNS) -> Task:
    """GroundEval: the model answers each question contract through the gated runtime's tools (search_artifacts,
    fetch_artifact, submit_answer) as the contract's actor at its moment; scored by orgbench's rules, no judge
    model (S_answer, S_traj, the violation rate, S_adj; means per track).

    Args:
        suite: a GroundEval suite folder (default: the default world of seed 0's suite, built once and cached).
        limit: answer only the first N contracts.
        max_turns: model turns per contract before its last message counts as the answer.
    """
    with _one_line():
        return groundeval_task(groundeval_suite(suite), None if limit is None else _count(limit, "limit"),
                               _count(max_turns, "max_turns"))


@task
def assurance_contrast(suite: str, draws: int = 2) -> Task:
    """The judge-input assurance later-context contrast: the checked pipeline builds and verifies the cohort's
    packets (prefix and full, error and comparison target, original and restored rendering); the model judges
    each one ``draws`` times (the draw as seed); G per rendering with its cluster-bootstrap interval, as
    ``orgbench tables assurance`` computes it.

    Args:
        suite: a trajectory suite folder (orgbench build trajectories).
        draws: answers per packet (a consensus flag needs every draw to say fail).
    """
    with _one_line():
        return contrast_task(trajectory_suite(suite), _count(draws, "draws"))
