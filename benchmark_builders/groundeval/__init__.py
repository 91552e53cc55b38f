"""GroundEval question contracts from worlds and GroundEval-format domains: Perspective, Counterfactual, Silence.

``build_suite`` writes a suite (contracts, truth kept apart, the corpus and a
manifest); ``load_domain`` imports a domain in the public GroundEval format.

The names here are imported from their modules on first use, so a light module
of this package (``contracts``, which ``orgbench list`` reads) does not load
the builder.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from benchmark_builders.groundeval.build import (
        WORLD_RULES as WORLD_RULES, BuildSummary as BuildSummary, assemble_questions as assemble_questions,
        build_questions as build_questions, build_suite as build_suite, load_build_config as load_build_config,
    )
    from benchmark_builders.groundeval.contracts import (
        COUNTERFACTUAL as COUNTERFACTUAL, PERSPECTIVE as PERSPECTIVE, SILENCE as SILENCE, TRACKS as TRACKS,
        BuildConfig as BuildConfig, CausalRule as CausalRule, Contract as Contract, Question as Question,
        Rules as Rules, SilenceRule as SilenceRule, Truth as Truth,
    )
    from benchmark_builders.groundeval.importer import load_domain as load_domain
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
