"""A package's public names, imported from their modules only when first used.

A top-level package (``simulator``, ``judges``, ``benchmark_builders``) lists
its API once, as imports under ``if TYPE_CHECKING:`` in its ``__init__.py``:
type checkers read them and see each name's real type, and ``lazy_exports``
reads the same lines to build ``__all__`` and a module ``__getattr__`` that
imports a name's module on first use, so ``import simulator.model`` does not
pull in the whole simulator. Every name is a function, class or constant of a
module, never a module: a subpackage is imported as one.

A public function may share its name with the module defining it
(``simulator.simulate``): the import system binds a submodule on its package
when the submodule is first imported, and the package keeps the function.
So ``from simulator.simulate import simulate_to`` reaches the module, but
``import simulator.simulate as m`` gives the function (Python reads that
form as an attribute of the package): import such a module with ``from``.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

__all__ = ["lazy_exports"]


class _Facade(ModuleType):
    """A package whose public names win over its submodules of the same name."""

    _exports: dict[str, str]

    def __setattr__(self, name: str, value: Any) -> None:
        source = self.__dict__.get("_exports", {}).get(name)
        if isinstance(value, ModuleType) and source is not None and value.__name__ == source:
            return              # the submodule ``name`` defines the public ``name``: the package keeps the latter
        super().__setattr__(name, value)


def declared_exports(init: Path) -> dict[str, str]:
    """Each name imported under ``if TYPE_CHECKING:`` in ``init`` -> the module it comes from."""
    table: dict[str, str] = {}
    for node in ast.parse(init.read_bytes(), filename=str(init)).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for line in node.body:
                if isinstance(line, ast.ImportFrom) and line.module and not line.level:
                    table.update({(alias.asname or alias.name): f"{line.module}:{alias.name}" for alias in line.names})
    return table


def lazy_exports(package: str) -> tuple[list[str], Callable[[str], Any]]:
    """``__all__`` and a module ``__getattr__`` for ``package``, from its ``if TYPE_CHECKING:`` imports."""
    module = sys.modules[package]
    assert module.__file__ is not None, package
    table = declared_exports(Path(module.__file__))

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        source, attribute = table[name].split(":")
        value = getattr(importlib.import_module(source), attribute)
        ModuleType.__setattr__(module, name, value)
        return value

    module.__class__ = _Facade
    ModuleType.__setattr__(module, "_exports", {name: ref.split(":")[0] for name, ref in table.items()})
    return sorted(table), __getattr__
