"""GroundEval evaluation: the gated runtime, context mode, agents, the MCP server and the deterministic scorer.

The names here are imported from their modules on first use, so a light module
of this package (``agent_registry``) does not pull in the scorer.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from judges.groundeval.runtime import Corpus as Corpus, GatedRuntime as GatedRuntime
    from judges.groundeval.question_score import QuestionScore as QuestionScore, summarize as summarize
    from judges.groundeval.scoring import CompiledTruth as CompiledTruth, score_question as score_question
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
