"""What ``orgbench --help`` and ``orgbench list`` import, by module name (their CPU time against ``import click``
is measured by ``benchmarks/bench_startup.py``, not here).

``list`` reads declarations: the registries' records and the tables that name things. The modules that do the
work (backends and the seams they implement, builders, the simulator, jinja2, numpy, aiohttp, ...) stay unimported
until a command uses them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OURS = ("orgbench", "judges", "simulator", "benchmark_builders")

#: What --help may import of ours: the front door, its commands, the ground floor, and the agent registry (a
#: declaration: --agent's choices).
HELP = {"orgbench", "orgbench.cli", "orgbench.outdir", "judges", "judges.groundeval",
        "judges.groundeval.agent_registry"}
#: What list may import beyond that: the registries and tables it prints, each a declaration module.
DECLARATIONS = {"orgbench.commands.registry", "orgbench.studies", "orgbench.studies.descriptor", "judges.backends",
                "judges.backends.registry", "judges.conditions", "benchmark_builders", "benchmark_builders.cargo",
                "benchmark_builders.cargo.family", "benchmark_builders.export", "benchmark_builders.export.formats",
                "benchmark_builders.groundeval", "benchmark_builders.groundeval.tracks"}
#: The standard library list may import beyond --help: the TOML reader of orgbench/studies/studies.toml.
TOML = ("tomllib", "string", "_string")


def _imported(tmp_path: Path, *args: str) -> set[str]:
    """Every module loaded by the end of ``orgbench ARGS`` (run as the console script runs it)."""
    listing = tmp_path / "modules.txt"
    code = ("import sys\nlisting, sys.argv = sys.argv[1], ['orgbench', *sys.argv[2:]]\n"
            "try:\n    from orgbench.cli import main\n    main()\nexcept SystemExit:\n    pass\n"
            "open(listing, 'w').write('\\n'.join(sorted(sys.modules)))\n")
    subprocess.run([sys.executable, "-c", code, str(listing), *args], capture_output=True, cwd=REPO, check=True)
    return set(listing.read_text().split("\n"))


def _ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in OURS}


def _help_may(module: str) -> bool:
    return module in HELP or module.split(".")[:2] in (["orgbench", "commands"], ["orgbench", "core"])


def test_help_imports_the_front_door_and_the_ground_floor_only(tmp_path):
    assert sorted(m for m in _ours(_imported(tmp_path, "--help")) if not _help_may(m)) == []


@pytest.mark.parametrize("args", [("list",), ("list", "--json")])
def test_list_imports_declarations_only(tmp_path, args):
    listed, helped = _imported(tmp_path, *args), _imported(tmp_path, "--help")
    assert sorted(m for m in _ours(listed) if not (_help_may(m) or m in DECLARATIONS)) == []
    assert sorted(m for m in listed - helped - _ours(listed) if m.split(".")[0] not in TOML) == []
    assert not {"judges.backends.base", "benchmark_builders.cargo.records", "jinja2", "numpy"} & listed
