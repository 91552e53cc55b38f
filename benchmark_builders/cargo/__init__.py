"""CARGO-Bench: perturbation suites for reference-based judges, built from simulated worlds.

``build_suite`` turns completed support cases into items whose label is known
by construction (P1 entity transplant, P3 benign divergence, P2 contradiction,
P4 procedural corruption); ``write_suite`` writes them with their truth, golden
set, gating set and manifest.
"""

from benchmark_builders.cargo.records import FAMILIES, SHOULD_PENALIZE
from benchmark_builders.cargo.build import (
    Suite, SuiteConfig, build_suite, suite_from_world_objects, write_suite,
    write_suite_files,
)
from benchmark_builders.cargo.cases import SupportCase, case_from_facts, cases_from_world

__all__ = [
    "FAMILIES", "SHOULD_PENALIZE", "Suite", "SuiteConfig", "SupportCase", "build_suite", "case_from_facts",
    "cases_from_world", "suite_from_world_objects", "write_suite", "write_suite_files",
]
