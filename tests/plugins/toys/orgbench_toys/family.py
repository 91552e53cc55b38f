"""CARGO family P5, "verbatim reference": the golden reference's text given back as the answer.

The reference is another case's resolution, so its values are not the live
case's: a judge should penalise it.
"""

from __future__ import annotations

import random
from typing import Any

from benchmark_builders.cargo.family import Family


def verbatim(answer: Any, reference: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """The candidate is the reference, word for word."""
    return reference, {"kind": "verbatim_reference"}


VERBATIM = Family("P5", "verbatim reference", True, 8,
                  "the golden reference's text given as the answer (another case's values). Should be penalised.",
                  perturb="orgbench_toys.family:verbatim")
