"""CARGO-Bench: perturbation suites for reference-based judges, built from simulated worlds.

``build_suite`` turns completed support cases into items whose label is known
by construction (P1 entity transplant, P3 benign divergence, P2 contradiction,
P4 procedural corruption); ``write_suite`` writes them with their truth, golden
set, gating set and manifest.

The names here are imported from their modules on first use, so reading a
suite (``records``, as ``orgbench judge`` does) does not load the builder, the
simulator and faker.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from benchmark_builders.cargo.build import (
        Suite as Suite, SuiteConfig as SuiteConfig, build_suite as build_suite,
        suite_from_world_objects as suite_from_world_objects, write_suite as write_suite,
        write_suite_files as write_suite_files,
    )
    from benchmark_builders.cargo.cases import (
        SupportCase as SupportCase, case_from_facts as case_from_facts, cases_from_world as cases_from_world,
    )
    from benchmark_builders.cargo.records import FAMILIES as FAMILIES, SHOULD_PENALIZE as SHOULD_PENALIZE
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
