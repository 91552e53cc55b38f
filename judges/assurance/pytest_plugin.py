"""Opt-in pytest plugin: the recording stub, packet mutators and the four obligation tests as fixtures.

Load it with ``pytest -p judges.assurance.pytest_plugin`` (or ``pytest_plugins = ["judges.assurance.pytest_plugin"]``
in a conftest); it registers nothing unless loaded, and it needs pytest (the ``test`` extra). Fixtures:

- ``recording_stub``: a fresh ``RecordingStub`` (hashes every byte string it is handed).
- ``packet_mutators``: ``{name: mutate(packet, trajectory, target) -> bytes | None}``.
- ``assure``: the obligations; ``assure(renderer, trajectories[, checker])`` runs all four and fails the
  test with every failure listed, or call ``assure.obligation_1(...)`` .. ``obligation_4(...)`` one by one.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from judges.assurance import api
from judges.backends.stub import RecordingStub


@pytest.fixture
def recording_stub() -> RecordingStub:
    """A recording stub in place of the judge."""
    return RecordingStub()


@pytest.fixture
def packet_mutators() -> dict:
    """The packet mutators (the paper's faults as byte edits)."""
    return dict(api.MUTATORS)


def _run_all(renderer: api.Renderer, trajectories, checker: api.Checker = api.content_problems) -> list:
    evidence = api.all_obligations(renderer, trajectories, checker)
    failed = [e for e in evidence if not e.ok]
    if failed:
        lines = [f"obligation {e.obligation}: {e.held} of {e.tried} held" for e in failed]
        lines += [f"  {f}" for e in failed for f in e.failures[:10]]
        pytest.fail("\n".join(lines), pytrace=False)
    return evidence


@pytest.fixture
def assure() -> SimpleNamespace:
    """Run the four obligations against a renderer: ``assure(renderer, trajectories)``."""
    namespace = SimpleNamespace(obligation_1=api.obligation_1, obligation_2=api.obligation_2,
                                obligation_3=api.obligation_3, obligation_4=api.obligation_4,
                                content_problems=api.content_problems, CheckedGate=api.CheckedGate)
    return type("Assure", (SimpleNamespace,), {"__call__": staticmethod(_run_all)})(**vars(namespace))
