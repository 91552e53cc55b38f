"""Every exception class of the four packages descends from the one root, ``OrgbenchError``.

Read from the source: a class whose base is a built-in exception (``Exception``, ``ValueError``, …) must be
the root itself, so every other error class reaches a built-in only through it.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from orgbench.core.errors import EndpointError, FormatError, InputError, OrgbenchError

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("orgbench", "simulator", "benchmark_builders", "judges")
BUILTIN_ERRORS = {name for name, value in vars(builtins).items()
                  if isinstance(value, type) and issubclass(value, BaseException)}


def _classes_on_a_builtin_exception() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
                if isinstance(node, ast.ClassDef):
                    bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
                    if bases & BUILTIN_ERRORS:
                        found.append(f"{path.relative_to(ROOT).as_posix()}:{node.name}")
    return found


def test_only_the_root_derives_from_a_builtin_exception():
    assert _classes_on_a_builtin_exception() == ["orgbench/core/errors.py:OrgbenchError"]


def test_user_errors_and_backend_errors_share_the_root():
    from judges.assurance.pipeline import StageRefused
    from judges.backends import BackendError, FatalBackendError
    from judges.groundeval.otlp_import import SpanRefused

    for kind in (InputError, FormatError, EndpointError, BackendError, FatalBackendError, StageRefused):
        assert issubclass(kind, OrgbenchError), kind
    assert issubclass(SpanRefused, InputError)          # a span that cannot be imported is bad input: exit 2
    assert not issubclass(BackendError, InputError)     # a failed request is recorded, not a user error
