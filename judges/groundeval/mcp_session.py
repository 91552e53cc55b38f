"""What an MCP session holds: the contracts it started, each with its own gated runtime and trace, and the writes.

A ``SuiteSession`` is one client connection's state: ``start_contract``
opens a contract (or returns to one the session opened and has not
submitted), and ``search_artifacts`` / ``fetch_artifact`` / ``submit_answer``
act on the contract opened last. Each contract gets its own ``GatedRuntime``
for its actor and ``as_of``, so its trace holds only its own calls; nothing is
shared between sessions but the read-only corpus. ``submit_answer`` writes the
answer and the trace with ``write_submission``: both files are rewritten under
one exclusive lock (``fcntl.flock`` on ``OUT/.submissions.lock``), so any
number of sessions and processes may submit into one directory at once and no
row is lost. Tool arguments reach the runtime exactly as the client sent them
(``GatedRuntime.call``), so every call is traced with the outcome it has
in-process.
"""

from __future__ import annotations

import fcntl
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from benchmark_builders.groundeval.contracts import Contract
from judges.groundeval.call_args import recordable
from judges.groundeval.runtime import Corpus, GatedRuntime
from orgbench.core.storage import dumps, write_text_atomic

SHOWN = ("question_id", "track", "question", "actor", "role", "subsystems", "as_of", "answer_schema", "options")
LOCK = ".submissions.lock"
RUNTIME_TOOLS = ("search_artifacts", "fetch_artifact")


def shown(contract: Contract) -> dict[str, Any]:
    """What an agent is told of a contract (never its truth)."""
    full = contract.to_json()
    return {k: full[k] for k in SHOWN}


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / LOCK, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _merge_line(path: Path, row: dict[str, Any]) -> None:
    """Rewrite ``path`` with ``row`` in place of any line of the same question, agent and mode (call under the lock)."""
    key = (row["question_id"], row["agent"], row["mode"])
    lines = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(obj, dict) or (obj.get("question_id"), obj.get("agent"), obj.get("mode")) != key:
                lines.append(dumps(obj))
    lines.append(dumps(row))
    lines.sort()
    write_text_atomic(path, "".join(line + "\n" for line in lines))


def write_submission(out: Path, trace: dict[str, Any], answer: dict[str, Any]) -> None:
    """Merge one trace line and one answer line into ``out`` under the directory's lock."""
    out = Path(out)
    with _locked(out):
        _merge_line(out / "traces.jsonl", trace)
        _merge_line(out / "answers.jsonl", answer)


@dataclass
class OpenContract:
    """One contract a session started: its runtime (and so its trace) and whether it was submitted."""

    contract: Contract
    runtime: GatedRuntime
    submitted: bool = False


def closed() -> dict[str, Any]:
    """The reply to a call on a contract whose answer was already submitted."""
    return {"error": "closed", "message": "the answer was already submitted"}


@dataclass
class SuiteSession:
    """One connection's contracts: started, current, submitted; writes into ``out`` under ``agent``."""

    corpus: Corpus
    contracts: dict[str, Contract]
    out: Path
    agent: str
    record_latency: bool = True
    opened: dict[str, OpenContract] = field(default_factory=dict)
    current: OpenContract | None = None

    def list_contracts(self) -> dict[str, Any]:
        """Every contract of the suite, in suite order: id, track, actor, role, as_of, submitted in this session.

        Not the question texts: they state facts (a case's priority, an incident's change) that another
        contract's actor may not see; each is shown by ``start_contract`` when its contract is opened.
        """
        rows = []
        for qid, contract in self.contracts.items():
            view = shown(contract)
            rows.append({k: view[k] for k in ("question_id", "track", "actor", "role", "as_of")}
                        | {"submitted": qid in self.opened and self.opened[qid].submitted})
        return {"contracts": rows, "count": len(rows)}

    def start_contract(self, question_id: Any) -> dict[str, Any]:
        """Make ``question_id`` the current contract (a new runtime, or the one this session already opened)."""
        contract = self.contracts.get(question_id) if isinstance(question_id, str) else None
        if contract is None:
            return {"error": "unknown_contract", "message": "no such question_id in this suite (see list_contracts)"}
        entry = self.opened.get(question_id)
        if entry is not None and entry.submitted:
            return closed()
        resumed = entry is not None
        if entry is None:
            runtime = GatedRuntime(self.corpus, contract.actor, contract.as_of, record_latency=self.record_latency)
            entry = self.opened[question_id] = OpenContract(contract, runtime)
        self.current = entry
        return {"contract": shown(contract), "resumed": resumed, "calls_so_far": len(entry.runtime.calls)}

    def get_contract(self) -> dict[str, Any]:
        """The current contract as shown to the agent."""
        if self.current is None:
            return _none_started()
        return shown(self.current.contract)

    def runtime_call(self, tool: str, arguments: Any) -> dict[str, Any]:
        """search_artifacts / fetch_artifact on the current contract, arguments as sent (every call traced)."""
        if self.current is None:
            return _none_started()
        if self.current.submitted:
            return closed()
        return self.current.runtime.call(tool, arguments)

    def submit_answer(self, answer: Any) -> dict[str, Any]:
        """Write the current contract's answer and trace (once); the contract is closed afterwards."""
        entry = self.current
        if entry is None:
            return _none_started()
        if entry.submitted:
            return closed()
        entry.submitted = True
        contract = entry.contract
        base = {"question_id": contract.question_id, "agent": self.agent, "mode": "tool"}
        trace = {**base, "actor": contract.actor, "as_of": shown(contract)["as_of"], "calls": entry.runtime.trace()}
        write_submission(self.out, trace, {**base, "answer": recordable(answer)})
        return {"status": "submitted", "question_id": contract.question_id, "calls_recorded": len(entry.runtime.calls)}


def _none_started() -> dict[str, Any]:
    return {"error": "no_contract", "message": "no contract started: call list_contracts, then start_contract"}
