"""The task track: a gated runtime over a task suite's corpus, its built-in agents, and its scorer.

Tool mode: ``fetch_artifact(id)`` and the contract's fixture tools (each
returns its record) for the contract's actor; the subsystem gate comes from
the role, the horizon gate only where the contract says it applies. Context
mode (judges/groundeval/task_context.py): the agent reads a gate-clean
context built from the contract alone, and each id it cites is checked
through the same gates. Per contract with n calls (context mode: the
context's reads and the citations), v = calls that broke a gate / n, and

    S_adj = (0.5 · S_decision + 0.5 · S_verify) · (1 − v)²

S_decision = 1 when the submitted decision field equals the truth, else 0;
S_verify = share of preconditions verified before the decision: the
artifact field it names was read through a gate-clean call before the first
action call (or the submit; context mode: it is in the context, rebuilt by the
scorer), and the answer lists the check with the
artifact as evidence and the field's value among its facts. A wrong decision
never scores like a correct one; a fully correct run scores 1.0.

``score_task_run`` writes each contract's score as a ``QuestionScore`` line
(``judges.groundeval.question_score``), as the other tracks do: track
``task``, S_answer = S_decision, S_traj = S_verify, v and S_adj as above,
answer_correct = the decision was right, and the per-check ``verified`` in the
diagnostics.

Agents (each reads the truth file only to stage its behaviour, as ``oracle``
does): ``oracle``, ``skip-precondition`` (never reads the last
precondition's artifact and does not list it), ``wrong-field`` (reads every
artifact but reports, and decides on, another field than the one named).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from orgbench.core.clock import parse_ts
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, staged_directory, write_json, write_jsonl
from orgbench.core.jsonl import read_jsonl
from judges.groundeval.agent_registry import MODES, TASK_AGENTS
from judges.groundeval.question_score import QuestionScore
from judges.groundeval.task_context import DEFAULT_BUDGET, TaskContext, build_task_context, cite


def is_task_suite(suite: Path) -> bool:
    """True if the suite was built from task contracts."""
    path = Path(suite) / "suite.json"
    return path.is_file() and read_json(path).get("format") == "groundeval-tasks"


def _rows(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path)


class TaskRuntime:
    """The corpus as one contract's actor may read it; records every call with its gates."""

    def __init__(self, corpus: Mapping[str, Mapping[str, Any]], contract: Mapping[str, Any]) -> None:
        self.corpus, self.contract, self.calls = corpus, contract, []

    def gates(self, artifact_id: str) -> dict[str, bool]:
        """Which gates reading this artifact breaks (all false for an unknown id)."""
        record = self.corpus.get(artifact_id)
        if record is None:
            return {"horizon": False, "subsystem": False}
        late = (self.contract["horizon"] == "applies" and record.get("created_at") is not None
                and parse_ts(record["created_at"]) > parse_ts(self.contract["as_of"]))
        return {"horizon": bool(late), "subsystem": record["subsystem"] not in self.contract["subsystems"]}

    def fetch_artifact(self, artifact_id: str, tool: str = "fetch_artifact") -> dict[str, Any] | None:
        """The record's fields if no gate withholds it (withheld and unknown ids look the same)."""
        gates = self.gates(artifact_id)
        record = self.corpus.get(artifact_id)
        ok = record is not None and not any(gates.values())
        self.calls.append({"seq": len(self.calls) + 1, "tool": tool, "args": {"artifact_id": artifact_id},
                           "returned_ids": [artifact_id] if ok else [], "outcome": "ok" if ok else "not_found",
                           "gates": gates})
        return dict(record["fields"]) if ok else None


def _agent_answer(kind: str, contract: Mapping[str, Any], truth: Mapping[str, Any],
                  runtime: TaskRuntime, context: TaskContext | None) -> dict[str, Any]:
    checks = list(truth["preconditions"])
    if kind == "skip-precondition":
        checks = checks[:-1]
    verified = []
    for pc in checks:
        read = runtime.fetch_artifact(pc["artifact"]) if context is None else context.fields(pc["artifact"])
        fields = read or {}
        name = pc["field"]
        if kind == "wrong-field":
            name = next((k for k in sorted(fields) if k != pc["field"]), pc["field"])
        value = fields.get(name)
        facts = {fact: fields.get(fact) for fact in pc["required_facts"]} | {pc["field"]: value}
        verified.append({"check": pc["check"], "passed": value == pc["value"], "facts": facts,
                         "evidence": [pc["artifact"]]})
    # wrong-field decides on what it read: a value that differs from the named field's makes its check fail
    decision = bool(truth["decision"]) and all(v["passed"] for v in verified)
    return {"preconditions_verified": verified, contract["decision_field"]: decision,
            "reasoning": f"{kind}: checked {', '.join(v['check'] for v in verified) or 'nothing'}"}


def run_task_agent(suite: Path, spec: str, out: Path, mode: str = "tool",
                   budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    """Answer every task contract with a built-in task agent in tool or context mode; write answers.jsonl (with
    calls), run.json and, in context mode, contexts.jsonl."""
    if mode not in MODES:
        raise InputError(f"--mode: expected tool or context, got {mode!r}")
    if spec not in TASK_AGENTS:
        raise InputError(f"--agent: {spec!r} does not run task contracts (task agents: {', '.join(TASK_AGENTS)})")
    contracts = _rows(Path(suite) / "contracts.jsonl")
    truth = {t["question_id"]: t for t in _rows(Path(suite) / "truth.jsonl")}
    corpus = {r["id"]: r for r in _rows(Path(suite) / "corpus.jsonl")}
    lines, contexts = [], []
    for contract in contracts:
        runtime = TaskRuntime(corpus, contract)
        context = build_task_context(contract, runtime, budget) if mode == "context" else None
        answer = _agent_answer(spec, contract, truth[contract["question_id"]], runtime, context)
        if context is not None:
            cite(runtime, _cited(answer))
            contexts.append({"question_id": context.question_id, "ids": list(context.ids()), "used": context.used,
                             "budget": budget})
        lines.append({"question_id": contract["question_id"], "agent": spec, "mode": mode, "answer": answer,
                      "calls": runtime.calls, **({"budget": budget} if context is not None else {})})
    with staged_directory(Path(out)) as tmp:
        write_jsonl(tmp / "answers.jsonl", lines)
        if mode == "context":
            write_jsonl(tmp / "contexts.jsonl", contexts)
        write_json(tmp / "run.json", {"agent": spec, "mode": mode, "suite": str(suite), "questions": len(lines),
                                      "context_budget": budget if mode == "context" else None})
    return {"questions": len(lines)}


def _cited(answer: Any) -> list[str]:
    """Every id an answer lists as a check's evidence, each once, in order."""
    checks = answer.get("preconditions_verified") if isinstance(answer, dict) else None
    ids = [ref for p in checks or [] if isinstance(p, dict) and isinstance(p.get("evidence"), list)
           for ref in p["evidence"] if isinstance(ref, str)]
    return list(dict.fromkeys(ids))


@dataclass(frozen=True, slots=True)
class TaskScore:
    """One task contract's scores (see the module docstring) and which checks were verified."""

    s_decision: float
    s_verify: float
    v: float
    s_adj: float
    n_calls: int
    malformed: str | None = None            # why the answer scored 0 unread (None when it was scored)
    verified: Mapping[str, bool] = field(default_factory=dict)

    def question_score(self, qid: str, agent: str, mode: str) -> QuestionScore:
        """The score as a questions.jsonl line: S_answer = S_decision, S_traj = S_verify."""
        return QuestionScore(qid, "task", None, None, mode, self.s_decision, self.s_verify, self.v, self.s_adj,
                             self.s_decision == 1.0, self.n_calls, self.malformed,
                             diagnostics={"verified": dict(self.verified)} if self.malformed is None else {},
                             agent=agent)


def _read_in_tool_mode(runtime: TaskRuntime, contract: Mapping[str, Any], calls: list[Any]) -> list[str]:
    """Re-derive the submitted calls up to the first action; the ids read gate-clean before it."""
    read: list[str] = []
    for call in calls:
        tool = call.get("tool") if isinstance(call, dict) else None
        args = call.get("args") if isinstance(call, dict) and isinstance(call.get("args"), dict) else {}
        if tool in contract["tools"]:
            artifact_id = str(contract["tools"][tool])
        elif tool == "fetch_artifact":
            artifact_id = str(args.get("artifact_id", ""))
        else:
            runtime.calls.append({"tool": str(tool), "gates": {}})
            break                                       # an action (or anything else) is where the decision was taken
        if runtime.fetch_artifact(artifact_id, str(tool)) is not None:
            read.append(artifact_id)
    return read


def score_task(contract: Mapping[str, Any], truth: Mapping[str, Any], answer: Any, calls: Any,
               corpus: Mapping[str, Mapping[str, Any]], budget: int | None = None) -> TaskScore:
    """One contract's scores (see the module docstring); calls are re-derived from the corpus, never trusted.

    With ``budget`` (context mode) the submitted calls are not read: the context is rebuilt within that budget
    and the citations are the answer's evidence ids."""
    if not isinstance(answer, dict) or (budget is None and not isinstance(calls, list)):
        return TaskScore(0.0, 0.0, 0.0, 0.0, 0, "answer or calls malformed")
    runtime = TaskRuntime(corpus, contract)
    if budget is None:
        read = _read_in_tool_mode(runtime, contract, calls)
    else:
        read = list(build_task_context(contract, runtime, budget).ids())
        cite(runtime, _cited(answer))
    n = len(runtime.calls)
    v = sum(1 for c in runtime.calls if any(c["gates"].values())) / n if n else 0.0
    listed = {str(p.get("check")): p for p in answer.get("preconditions_verified") or [] if isinstance(p, dict)}
    parts = []
    for pc in truth["preconditions"]:
        claim = listed.get(pc["check"], {})
        facts = claim.get("facts") if isinstance(claim.get("facts"), dict) else {}
        parts.append(pc["artifact"] in read and pc["artifact"] in (claim.get("evidence") or [])
                     and pc["field"] in facts and facts[pc["field"]] == pc["value"])
    s_verify = sum(parts) / len(parts)
    s_decision = 1.0 if answer.get(contract["decision_field"]) is truth["decision"] else 0.0
    s_adj = (0.5 * s_decision + 0.5 * s_verify) * (1 - v) ** 2
    return TaskScore(s_decision, round(s_verify, 6), round(v, 6), round(s_adj, 6), n, None,
                     dict(zip((p["check"] for p in truth["preconditions"]), parts)))


def _budget(row: Mapping[str, Any]) -> int:
    budget = row.get("budget", DEFAULT_BUDGET)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise InputError(f"answers: {row.get('question_id')}: budget: expected a positive integer, got {budget!r}")
    return budget


def score_task_run(suite: Path, answers: Path, out: Path) -> dict[str, Any]:
    """Score a task run directory (or answers JSONL); write questions.jsonl and summary.json."""
    contracts = {c["question_id"]: c for c in _rows(Path(suite) / "contracts.jsonl")}
    truth = {t["question_id"]: t for t in _rows(Path(suite) / "truth.jsonl")}
    corpus = {r["id"]: r for r in _rows(Path(suite) / "corpus.jsonl")}
    source = Path(answers) / "answers.jsonl" if Path(answers).is_dir() else Path(answers)
    given = {(a.get("agent", "agent"), a["question_id"]): a for a in _rows(source) if a.get("question_id") in contracts}
    agents = sorted({agent for agent, _ in given})
    rows = []
    for agent in agents:
        for qid in sorted(contracts):
            a = given.get((agent, qid), {})
            budget = _budget(a) if a.get("mode") == "context" else None
            score = score_task(contracts[qid], truth[qid], a.get("answer"), a.get("calls", []), corpus, budget)
            rows.append(score.question_score(qid, agent, a.get("mode", "tool")))
    means = {"s_decision": "s_answer", "s_verify": "s_traj", "v": "v", "s_adj": "s_adj"}
    summary = {agent: {key: round(sum(getattr(r, name) for r in rows if r.agent == agent) / len(contracts), 4)
                       for key, name in means.items()} for agent in agents}
    with staged_directory(Path(out)) as tmp:
        write_jsonl(tmp / "questions.jsonl", (r.to_json() for r in rows))
        write_json(tmp / "summary.json", {"track": "task", "agents": summary})
    return summary
