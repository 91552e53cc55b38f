"""docs/cargo.md's margin 0: retrieval sees no runbook nearer than another, and a gate above 0 abstains on it."""

import numpy as np

from benchmark_builders.cargo.retrieval import GoldenIndex, best_per_group, margin
from judges.metrics import risk_coverage

GOLDEN = {"g1": ("rb-router", "How do I restart the router after a firmware update?"),
          "g2": ("rb-router", "The router keeps dropping the connection after the update"),
          "g3": ("rb-billing", "Why was my invoice charged twice this month?"),
          "g4": ("rb-billing", "How do I get a refund for a duplicate invoice charge?")}


def _margin(index: GoldenIndex, question: str) -> float:
    return margin(best_per_group(index.rank(question), {g: rb for g, (rb, _) in GOLDEN.items()}))


def test_a_question_sharing_no_word_has_margin_0_and_every_positive_threshold_abstains_on_it():
    index = GoldenIndex.build(list(GOLDEN), [q for _, q in GOLDEN.values()])
    unrelated = "password reset please"                  # an out-of-scope plain phrasing
    assert all(sim == 0 for _, sim in index.rank(unrelated))          # no runbook nearer than another
    assert _margin(index, unrelated) == 0
    near = _margin(index, "router dropping connection")
    assert near > 0
    curve = risk_coverage(np.array([0.0, near]), np.array([1.0, 0.0]))
    for tau, coverage in zip(curve.thresholds, curve.coverage):
        assert coverage == (1.0 if tau == 0 else 0.5)                # judged only at τ = 0: any τ > 0 abstains on it
    assert curve.thresholds.min() == 0 and (curve.thresholds > 0).any()
