"""A package's public names, imported from their modules only when first used.

A top-level package (``simulator``, ``judges``, ``benchmark_builders``)
names its API in ``__all__`` without importing it, so ``import
simulator.model`` does not pull in the whole simulator.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, table: Mapping[str, str]) -> tuple[list[str], Callable[[str], Any]]:
    """``__all__`` and a module ``__getattr__`` for ``package``: each public name -> the module defining it (or itself)."""
    def __getattr__(name: str) -> Any:
        if name in table:
            module = importlib.import_module(table[name])
            return module if module.__name__ == f"{package}.{name}" else getattr(module, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return sorted(table), __getattr__
