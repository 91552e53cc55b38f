"""Shared pytest configuration: temporary folders in memory where the machine has a memory-backed /dev/shm, and
property tests that never fail on time (no deadline, no too-slow health check: the suite runs on loaded machines).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("orgbench", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("orgbench")

#: pytest's documented variable for the root of ``tmp_path`` folders (read when the first one is made).
TEMPROOT = "PYTEST_DEBUG_TEMPROOT"


def pytest_configure(config) -> None:
    """Put ``tmp_path`` under /dev/shm unless told otherwise (``--basetemp`` or the variable set already).

    The stages under test write their outputs durably, fsyncing every file and folder; on a disk shared with
    other work each fsync waits for it, on tmpfs it costs nothing. ``orgbench reproduce`` keeps its throwaway
    assurance workspaces there for the same reason.
    """
    if config.option.basetemp is None and TEMPROOT not in os.environ and \
            os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        os.environ[TEMPROOT] = "/dev/shm"
