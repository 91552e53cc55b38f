"""How a GroundEval model run drives its agent: every pending item answered concurrently, resumable by journal.

Shared by the question runs (``run.py``) and the task-contract runs (``task_model.py``): each says how one item is
answered and journaled; this module bounds the requests in flight, stops the others on the first failure, closes
what the run opened, and refuses a run where every item failed (a wrong endpoint or model, not a result).
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Iterable, Sequence, TypeVar

from judges.journal import Journal
from orgbench.core.errors import EndpointError

Item = TypeVar("Item")


def answer_all(pending: Sequence[Item], answer: Callable[[Item], Awaitable[None]], *, backend: Any,
               concurrency: int, closing: Iterable[Any] = ()) -> None:
    """``answer`` each pending item, at most ``concurrency`` at once; one failure (an unreachable endpoint) stops
    the others first; the backend, then every ``closing`` resource that is not None, are closed whatever happens."""

    async def run_all() -> None:
        in_flight = asyncio.Semaphore(max(1, concurrency))

        async def bounded(item: Item) -> None:
            async with in_flight:
                await answer(item)

        tasks = [asyncio.ensure_future(bounded(item)) for item in pending]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await backend.aclose()

    try:
        asyncio.run(run_all())
    finally:
        for resource in closing:
            if resource is not None:
                resource.close()


def refuse_if_all_failed(errors: Sequence[str], answered: int, journal: Journal, backend: Any, what: str) -> None:
    """When every one of ``answered`` items failed, drop the journal and raise EndpointError naming the first."""
    if errors and len(errors) == answered:
        journal.path.unlink()
        raise EndpointError(backend.endpoint_option, f"every {what} failed, e.g. {errors[0]}; nothing written")
