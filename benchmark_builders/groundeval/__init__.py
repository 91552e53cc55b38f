"""GroundEval question contracts from worlds and GroundEval-format domains: Perspective, Counterfactual, Silence.

``build_suite`` writes a suite (contracts, truth kept apart, the corpus and a
manifest); ``load_domain`` imports a domain in the public GroundEval format.
"""

from benchmark_builders.groundeval.build import (
    WORLD_RULES, BuildSummary, assemble_questions, build_questions, build_suite, load_build_config,
)
from benchmark_builders.groundeval.contracts import (
    COUNTERFACTUAL, PERSPECTIVE, SILENCE, TRACKS, BuildConfig, CausalRule, Contract, Question, Rules, SilenceRule,
    Truth,
)
from benchmark_builders.groundeval.importer import load_domain

__all__ = [
    "COUNTERFACTUAL", "PERSPECTIVE", "SILENCE", "TRACKS", "WORLD_RULES", "BuildConfig", "BuildSummary", "CausalRule",
    "Contract", "Question", "Rules", "SilenceRule", "Truth", "assemble_questions", "build_questions", "build_suite",
    "load_build_config", "load_domain",
]
