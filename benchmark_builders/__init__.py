"""Suites derived from worlds, with ground truth by construction: CARGO-Bench, GroundEval, trajectories.

Each suite kind is a subpackage (``cargo``, ``groundeval``, ``trajectories``) with its own ``__all__``;
the names here are imported from them on first use.
"""

from orgbench.core.exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "cargo": "benchmark_builders.cargo", "groundeval": "benchmark_builders.groundeval",
    "trajectories": "benchmark_builders.trajectories",
})
