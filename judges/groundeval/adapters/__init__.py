"""Framework adapters: score a user's own agent (OpenAI Agents SDK, LangGraph) on a GroundEval suite, unchanged.

``base`` holds the one interface; ``openai_agents`` and ``langgraph`` (each an
optional extra) the frameworks; ``observe`` runs a user's agent factory over
a suite and writes a run directory that ``score groundeval`` scores.
"""

FRAMEWORKS = {"openai-agents": "judges.groundeval.adapters.openai_agents",
              "langgraph": "judges.groundeval.adapters.langgraph"}

__all__ = ["FRAMEWORKS"]
