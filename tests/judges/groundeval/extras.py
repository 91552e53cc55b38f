"""Skip a test, naming the extra to install, when an optional package is not installed."""

from __future__ import annotations

import importlib.util

import pytest


def require(extra: str, *modules: str) -> None:
    """pytest.skip unless every module (dotted names allowed) can be imported."""
    for name in modules:
        try:
            missing = importlib.util.find_spec(name) is None
        except ModuleNotFoundError:      # a parent package is missing
            missing = True
        if missing:
            pytest.skip(f"{name} not installed (pip install 'orgbench[{extra}]')")
