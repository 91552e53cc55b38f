"""What an MCP session holds: the contracts it started, each with its own gated runtime and trace, and the writes.

A ``SuiteSession`` is one client connection's state: ``start_contract``
opens a contract (or returns to one the session opened and has not
submitted), and ``search_artifacts`` / ``fetch_artifact`` / ``submit_answer``
act on the contract opened last. Each contract gets its own ``GatedRuntime``
for its actor and ``as_of``, so its trace holds only its own calls; nothing is
shared between sessions but the read-only corpus and the server's
``SubmissionLog``. ``submit_answer`` refuses an answer that is not an object of
the contract's answer schema (``parse_answer``, the scorer's own reading) or is
over ``MAX_ANSWER_CHARS`` as JSON, leaving the contract open; otherwise it
appends the answer and the trace (``judges.groundeval.submissions``: under one
lock, a second answer of the same agent to one question refused, which closes
the contract in this session too) and frees the contract's runtime. Tool arguments reach the runtime exactly as the client
sent them (``GatedRuntime.call``), so every call is traced with the outcome it
has in-process.

In context mode (``mode="context"``) the session does what ``run-agent
--mode context`` does: ``start_contract`` builds the contract's context
through its runtime (``judges.groundeval.context``) and shows it with the
contract; the agent makes no calls of its own, and at submit each cited
artifact is checked through the same gates (``cite_artifact`` calls), so the
trace is the builder's calls and the citations, written with mode ``context``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark_builders.groundeval.contracts import Contract
from judges.groundeval.call_args import recordable
from judges.groundeval.context import DEFAULT_BUDGET, Context, build_context, check_citations
from judges.groundeval.runtime import GatedRuntime
from judges.groundeval.scoring import parse_answer
from judges.groundeval.submissions import SubmissionLog, SubmissionRefused

SHOWN = ("question_id", "track", "question", "actor", "role", "subsystems", "as_of", "answer_schema", "options")
MAX_ANSWER_CHARS = 65536
RUNTIME_TOOLS = ("search_artifacts", "fetch_artifact")
MODES = ("tool", "context")


def shown(contract: Contract) -> dict[str, Any]:
    """What an agent is told of a contract (never its truth)."""
    full = contract.to_json()
    return {k: full[k] for k in SHOWN}


@dataclass
class OpenContract:
    """One contract a session started: its runtime (and so its trace) and whether it was submitted."""

    contract: Contract
    runtime: GatedRuntime | None
    submitted: bool = False
    context: Context | None = None      # context mode: the evidence the contract is shown with


def closed() -> dict[str, Any]:
    """The reply to a call on a contract whose answer was already submitted."""
    return {"error": "closed", "message": "the answer was already submitted"}


@dataclass
class SuiteSession:
    """One connection's contracts: started, current, submitted; writes into ``out`` under ``agent``."""

    corpus: Any                 # a Corpus; a task suite's session (task_session) holds its records by id
    contracts: dict[str, Contract]
    out: Path
    agent: str
    record_latency: bool = True
    log: SubmissionLog | None = None
    opened: dict[str, OpenContract] = field(default_factory=dict)
    current: OpenContract | None = None
    mode: str = "tool"          # or "context": each contract shown with its context, no calls of the agent's own
    budget: int = DEFAULT_BUDGET

    def list_contracts(self) -> dict[str, Any]:
        """Every contract of the suite, in suite order: id, track, actor, role, as_of, submitted in this session.

        Not the question texts: they state facts (a case's priority, an incident's change) that another
        contract's actor may not see; each is shown by ``start_contract`` when its contract is opened.
        """
        rows = []
        for qid, contract in self.contracts.items():
            view = self.show(contract)
            rows.append({k: view[k] for k in ("question_id", "track", "actor", "role", "as_of")}
                        | {"submitted": qid in self.opened and self.opened[qid].submitted})
        return {"contracts": rows, "count": len(rows)}

    def start_contract(self, question_id: Any) -> dict[str, Any]:
        """Make ``question_id`` the current contract (a new runtime, or the one this session already opened).

        One contract at a time: while the current one is unsubmitted, starting another is refused, so no
        question's text (which may state what another contract's actor may not see) is read mid-answer.
        """
        contract = self.contracts.get(question_id) if isinstance(question_id, str) else None
        if contract is None:
            return {"error": "unknown_contract", "message": "no such question_id in this suite (see list_contracts)"}
        entry = self.opened.get(question_id)
        if entry is not None and entry.submitted:
            return closed()
        held = self.current
        if held is not None and not held.submitted and held.contract.question_id != question_id:
            return still_open(held.contract.question_id)
        resumed = entry is not None
        if entry is None:
            runtime = self.open_runtime(contract)
            context = build_context(contract, runtime, self.budget) if self.mode == "context" else None
            entry = self.opened[question_id] = OpenContract(contract, runtime, context=context)
        self.current = entry
        assert entry.runtime is not None
        return {"contract": self.show_open(entry), "resumed": resumed, "calls_so_far": len(entry.runtime.calls)}

    def get_contract(self) -> dict[str, Any]:
        """The current contract as shown to the agent (in context mode with its context)."""
        if self.current is None:
            return _none_started()
        return self.show_open(self.current)

    def show_open(self, entry: OpenContract) -> dict[str, Any]:
        """What the agent is told of an opened contract: ``show``, and in context mode its context."""
        view = self.show(entry.contract)
        if entry.context is not None:
            view["context"] = context_view(entry.context)
        return view

    # -- what differs between a question suite and a task suite (judges.groundeval.task_session) --

    def show(self, contract: Any) -> dict[str, Any]:
        """What the agent is told of ``contract``."""
        return shown(contract)

    def open_runtime(self, contract: Any) -> Any:
        """A new gated runtime for ``contract`` (its calls are the contract's trace)."""
        return GatedRuntime(self.corpus, contract.actor, contract.as_of, record_latency=self.record_latency)

    def answer_problem(self, contract: Any, answer: Any) -> str | None:
        """Why ``answer`` is not one of the contract's answer schema (None: it is)."""
        parsed, problem = parse_answer(answer, contract.track)
        return problem if parsed is None else None

    def submission(self, contract: Any, runtime: Any, answer: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The trace and answer rows to append for a submitted answer (context mode: citations checked first)."""
        if self.mode == "context":
            parsed, _ = parse_answer(answer, contract.track)
            check_citations(runtime, (parsed or {}).get("evidence_artifacts"))
        base = {"question_id": contract.question_id, "agent": self.agent, "mode": self.mode}
        return ({**base, "actor": contract.actor, "as_of": shown(contract)["as_of"], "calls": runtime.trace()},
                {**base, "answer": recordable(answer)})

    def runtime_call(self, tool: str, arguments: Any) -> dict[str, Any]:
        """search_artifacts / fetch_artifact on the current contract, arguments as sent (every call traced)."""
        if self.current is None:
            return _none_started()
        if self.current.submitted:
            return closed()
        if self.mode == "context":
            return {"error": "context_mode", "message": "context mode: the contract's context is the evidence; "
                    "cite its artifact ids and searches in submit_answer"}
        assert self.current.runtime is not None
        return self.current.runtime.call(tool, arguments)

    def submit_answer(self, answer: Any) -> dict[str, Any]:
        """Write the current contract's answer and trace (once); the contract is closed afterwards."""
        entry = self.current
        if entry is None:
            return _none_started()
        if entry.submitted:
            return closed()
        contract, runtime = entry.contract, entry.runtime
        assert runtime is not None
        problem = self.answer_problem(contract, answer)
        if problem is not None:
            return {"error": "invalid_answer", "message": f"{problem} (see answer_schema); nothing was written"}
        text = json.dumps(recordable(answer), ensure_ascii=False)
        if len(text) > MAX_ANSWER_CHARS:
            return {"error": "invalid_answer", "message": f"the answer is {len(text)} characters of JSON, over "
                    f"{MAX_ANSWER_CHARS}; nothing was written"}
        before = len(runtime.calls)
        trace, row = self.submission(contract, runtime, answer)
        if self.log is None:
            self.log = SubmissionLog(Path(self.out), self.agent)
        try:
            self.log.submit(trace, row)
        except SubmissionRefused as refused:
            if refused.code == "already_answered":       # nothing this session can add: closed, so it may go on
                entry.submitted, entry.runtime = True, None
            del runtime.calls[before:]                   # a context-mode answer's citations, checked again on retry
            return {"error": refused.code, "message": str(refused)}
        entry.submitted, entry.runtime = True, None         # the trace is written: the session keeps no calls
        return {"status": "submitted", "question_id": contract.question_id, "agent": self.agent,
                "calls_recorded": len(runtime.calls)}


def context_view(context: Context) -> dict[str, Any]:
    """A context as an MCP reply shows it: the rendered text, the artifact versions and the searches to cite."""
    return {"text": context.render(), "items": list(context.items),
            "searches": [{"id": s["id"], "subsystem": s["subsystem"], "query": s["query"], "ids": list(s["ids"])}
                         for s in context.searches], "budget": context.budget, "used": context.used}


def still_open(question_id: str) -> dict[str, Any]:
    """The reply to ``start_contract`` while another contract is open: one contract at a time per session."""
    return {"error": "contract_open",
            "message": f"submit the answer to {question_id} first: one contract at a time per session"}


def _none_started() -> dict[str, Any]:
    return {"error": "no_contract", "message": "no contract started: call list_contracts, then start_contract"}
