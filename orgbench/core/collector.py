"""Python's cyclic garbage collector around long runs that make many objects and almost no cycles.

Simulating a world, parsing a suite, scoring submissions and dispatching packets each make hundreds of thousands
of long-lived objects; each full collection would walk them all again (a tenth to a third of those runs' CPU).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused(*, promote: bool = False) -> Iterator[None]:
    """The collector off for the block, then as it was. With ``promote``, what the block made goes straight to the
    oldest generation (``gc.freeze`` then ``gc.unfreeze`` moves it there unscanned), so the first collection after
    does not scan it all only to move it up; not when a caller froze objects of its own, which unfreeze would
    release."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if promote and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was:
            gc.enable()


@contextmanager
def heap_frozen() -> Iterator[None]:
    """Every object alive as the block starts left out of the collector's walks for the block (``gc.freeze``), then
    handed back: for a block that must keep collecting what it makes (dispatch waits on a judge for as long as it
    takes) beside a large heap it never frees. Nothing is frozen when a caller froze objects of its own."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
