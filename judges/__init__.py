"""Judge backends, prompt conditions, the runner, metrics, the GroundEval scorer and input assurance.

The subpackages (``backends``, ``groundeval``, ``assurance``) have their own ``__all__``;
the names here are imported from their modules on first use.
"""

from orgbench.core.exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "assurance": "judges.assurance", "backends": "judges.backends", "groundeval": "judges.groundeval",
    "Condition": "judges.conditions", "condition": "judges.conditions", "parse_conditions": "judges.conditions",
    "Verdict": "judges.verdict", "parse_verdict": "judges.verdict",
    "ConditionScore": "judges.metrics", "PenaltyTable": "judges.metrics", "discrimination_index": "judges.metrics",
    "penalty_table": "judges.metrics", "score_condition": "judges.metrics",
})
