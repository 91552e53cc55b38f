"""An MCP session over a task-contract suite: the suite session's rules, a task contract's runtime and answers.

``TaskSession`` keeps ``SuiteSession``'s rules (one contract at a time,
one answer per contract, writes under the server's lock) and changes what is
per-contract: the agent is shown the contract line itself (``contracts.jsonl``
holds no truth), its runtime is a ``TaskRuntime`` (``search_artifacts``,
``fetch_artifact`` and the contract's fixture tools, through the role's and
the horizon's gates), and an answer whose keys neither orgbench nor upstream
main knows is refused at submit, the contract left open. The answer line
carries the calls, as ``score groundeval`` reads a task run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from judges.groundeval.call_args import recordable
from judges.groundeval.mcp_session import SuiteSession
from judges.groundeval.task_track import TaskRuntime, read_checks


@dataclass(frozen=True)
class TaskView:
    """One task contract as the session holds it: its id and the contract line."""

    question_id: str
    body: Mapping[str, Any]


class TaskSession(SuiteSession):
    """One connection's task contracts (``contracts`` maps ids to ``TaskView``; ``corpus`` is id → record)."""

    def show(self, contract: Any) -> dict[str, Any]:
        return dict(contract.body)

    def open_runtime(self, contract: Any) -> Any:
        return TaskRuntime(self.corpus, contract.body)

    def answer_problem(self, contract: Any, answer: Any) -> str | None:
        if not isinstance(answer, dict):
            return "the answer must be a JSON object"
        try:
            read_checks(answer, contract.body["decision_field"])
        except ValueError as exc:
            return str(exc)
        return None

    def submission(self, contract: Any, runtime: Any, answer: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        base = {"question_id": contract.question_id, "agent": self.agent, "mode": "tool"}
        return ({**base, "actor": contract.body["actor"], "as_of": contract.body["as_of"], "calls": runtime.calls},
                {**base, "answer": recordable(answer), "calls": runtime.calls})
