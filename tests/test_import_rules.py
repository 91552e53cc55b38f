"""The layers import one way: the ground floor nothing of ours, the simulator only the ground floor, and only
the front door (orgbench/cli.py, commands/, studies/, report/, sweep/, prose/) the layers above the ground floor.

Imports are read from the source (imports inside functions count too), so a lazy import cannot hide.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("simulator", "benchmark_builders", "judges", "orgbench")
FRONT_DOOR = ("orgbench/cli.py", "orgbench/__main__.py", "orgbench/commands/", "orgbench/studies/", "orgbench/report/",
              "orgbench/sweep/", "orgbench/prose/", "orgbench/harness/")  # sweep/: a grid of the studies' stages,
# run serially or on Ray; prose/: the model rewrite hook that simulate hands to the simulator; harness/: the suites
# as inspect_ai tasks (inspect's entry point) and inspect logs read back as runs


def _modules(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Every module of ours that ``path`` imports, at any depth."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return {n for n in names if n.split(".")[0] in LAYERS}


def _breaches(folder: str, allowed) -> list[str]:
    return [f"{path.relative_to(ROOT).as_posix()} imports {name}"
            for path in _modules(folder) for name in sorted(_imports(path)) if not allowed(path, name)]


def _ground_floor(name: str) -> bool:
    return name == "orgbench.core" or name.startswith("orgbench.core.")


def test_the_ground_floor_imports_nothing_else_of_ours():
    assert _breaches("orgbench/core", lambda path, name: _ground_floor(name)) == []


def test_orgbench_package_imports_nothing():
    assert _imports(ROOT / "orgbench" / "__init__.py") == set()
    tree = ast.parse((ROOT / "orgbench" / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_the_simulator_imports_only_itself_and_the_ground_floor():
    allowed = lambda path, name: name.split(".")[0] == "simulator" or _ground_floor(name)  # noqa: E731
    assert _breaches("simulator", allowed) == []


def test_builders_import_no_judges_and_no_front_door():
    allowed = lambda path, name: name.split(".")[0] in ("simulator", "benchmark_builders") or _ground_floor(name)  # noqa: E731
    assert _breaches("benchmark_builders", allowed) == []


def test_judges_import_no_front_door():
    allowed = lambda path, name: name.split(".")[0] != "orgbench" or _ground_floor(name)  # noqa: E731
    assert _breaches("judges", allowed) == []


def test_only_the_front_door_imports_the_layers_above_the_ground_floor():
    def allowed(path: Path, name: str) -> bool:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(FRONT_DOOR):
            return True
        return name.split(".")[0] == "orgbench" and not name.startswith(
            tuple(f"orgbench.{door.removeprefix('orgbench/').removesuffix('.py').rstrip('/')}" for door in FRONT_DOOR))

    assert _breaches("orgbench", allowed) == []


@pytest.mark.parametrize("package", ["simulator", "benchmark_builders", "judges"])
def test_importing_a_layer_pulls_in_no_cli(package):
    import subprocess
    import sys

    code = (f"import sys, {package}, orgbench.core; "
            "print(sorted(m for m in sys.modules if m.startswith(('orgbench.cli', 'orgbench.commands', 'click'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"
