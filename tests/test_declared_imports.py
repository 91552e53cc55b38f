"""Every third-party module the four packages import (inside functions too) comes from a distribution that
pyproject.toml declares, as a dependency or in an extra, not only through another package's requirements.

A module whose distribution is not installed here (an extra left out) cannot be mapped and is not checked.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("orgbench", "simulator", "benchmark_builders", "judges")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = [*project["dependencies"], *(s for extra in project["optional-dependencies"].values() for s in extra)]
    return {_normal(re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0]) for spec in specs}


def _imported() -> dict[str, str]:
    """Each top-level module name imported -> the first file importing it."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                         else [])
                for name in names:
                    found.setdefault(name.split(".")[0], path.relative_to(ROOT).as_posix())
    return found


def test_every_third_party_import_is_declared():
    declared, owners = _declared(), packages_distributions()
    undeclared = []
    for module, where in sorted(_imported().items()):
        if module in PACKAGES or module in sys.stdlib_module_names or module == "__future__":
            continue
        dists = owners.get(module)
        if dists and not any(_normal(d) in declared for d in dists):
            undeclared.append(f"{module} ({', '.join(dists)}) imported by {where}")
    assert undeclared == []
