"""CARGO-Bench: perturbation suites for reference-based judges, built from simulated worlds.

``build_suite`` turns completed support cases into items whose label is known
by construction (P1 entity transplant, P3 benign divergence, P2 contradiction,
P4 procedural corruption); ``write_suite`` writes them with their truth, golden
set, gating set and manifest.

The names are imported when first used: reading a suite (``records``) does not
load the builder, the simulator and faker.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Each public name and the module that defines it.
_WHERE = {
    "FAMILIES": "records", "SHOULD_PENALIZE": "records",
    "Suite": "build", "SuiteConfig": "build", "build_suite": "build", "suite_from_world_objects": "build",
    "write_suite": "build", "write_suite_files": "build",
    "SupportCase": "cases", "case_from_facts": "cases", "cases_from_world": "cases",
}

if TYPE_CHECKING:
    from benchmark_builders.cargo.build import (
        Suite, SuiteConfig, build_suite, suite_from_world_objects, write_suite, write_suite_files,
    )
    from benchmark_builders.cargo.cases import SupportCase, case_from_facts, cases_from_world
    from benchmark_builders.cargo.records import FAMILIES, SHOULD_PENALIZE


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "FAMILIES", "SHOULD_PENALIZE", "Suite", "SuiteConfig", "SupportCase", "build_suite", "case_from_facts",
    "cases_from_world", "suite_from_world_objects", "write_suite", "write_suite_files",
]
