"""GroundEval evaluation: the gated runtime, context mode, agents, the MCP server and the deterministic scorer."""

from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.scoring import CompiledTruth, score_question, summarize

__all__ = ["CompiledTruth", "Corpus", "GatedRuntime", "score_question", "summarize"]
