"""GroundEval evaluation: the gated runtime, context mode, agents, the MCP server and the deterministic scorer.

The names here are imported from their modules on first use, so a light module
of this package (``agent_registry``) does not pull in the scorer.
"""

from orgbench.core.exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "Corpus": "judges.groundeval.runtime", "GatedRuntime": "judges.groundeval.runtime",
    "QuestionScore": "judges.groundeval.question_score", "summarize": "judges.groundeval.question_score",
    "CompiledTruth": "judges.groundeval.scoring", "score_question": "judges.groundeval.scoring",
})
