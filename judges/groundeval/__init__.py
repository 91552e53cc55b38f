"""GroundEval evaluation: the gated runtime, context mode, agents, the MCP server and the deterministic scorer."""

from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.question_score import QuestionScore, summarize
from judges.groundeval.scoring import CompiledTruth, score_question

__all__ = ["CompiledTruth", "Corpus", "GatedRuntime", "QuestionScore", "score_question", "summarize"]
