"""Suites derived from worlds, with ground truth by construction: CARGO-Bench, GroundEval, trajectories.

Each suite kind is a subpackage (``cargo``, ``groundeval``, ``trajectories``) with its own ``__all__``;
the names here are imported from them on first use.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from benchmark_builders import cargo as cargo, groundeval as groundeval, trajectories as trajectories
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
