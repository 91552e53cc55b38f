"""Suites derived from worlds, with ground truth by construction: CARGO-Bench, GroundEval, trajectories.

Each suite kind is a subpackage (``benchmark_builders.cargo``, ``.groundeval``, ``.trajectories``) with its own
``__all__``; the package itself exports no names.
"""

__all__: list[str] = []
