"""Judge backends, prompt conditions, the runner, metrics, the GroundEval scorer and input assurance.

The subpackages (``judges.backends``, ``judges.groundeval``, ``judges.assurance``) have their own ``__all__``
and are imported as such; the names here are imported from their modules on first use.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from judges.conditions import Condition as Condition, condition as condition, parse_conditions as parse_conditions
    from judges.verdict import Verdict as Verdict, parse_verdict as parse_verdict
    from judges.metrics import (
        ConditionScore as ConditionScore, PenaltyTable as PenaltyTable, discrimination_index as discrimination_index,
        penalty_table as penalty_table, score_condition as score_condition,
    )
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
