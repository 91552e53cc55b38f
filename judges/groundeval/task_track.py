"""The task track: a gated runtime over a task suite's corpus, its built-in agents, and its scorer.

Tool mode: ``search_artifacts(query, subsystem?, limit)`` (ids, subsystems
and field names of the records the actor may read that hold a query term),
``fetch_artifact(id)`` and the contract's fixture tools (each returns its
record) for the contract's actor; the subsystem gate comes from
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
from typing import Any, Callable, Mapping

from orgbench.core.clock import parse_ts
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, sha256_file, staged_directory, write_json, write_jsonl, write_manifest
from orgbench.core.jsonl import read_jsonl
from judges.groundeval.agent_registry import MODES, TASK_AGENTS
from judges.groundeval.call_args import DEFAULT_LIMIT, MAX_LIMIT
from judges.groundeval.runtime import tokenize
from judges.groundeval.question_score import QuestionScore
from judges.groundeval.task_context import DEFAULT_BUDGET, TaskContext, build_task_context, cite

NO_ANSWER = "no answer submitted"


def is_task_suite(suite: Path) -> bool:
    """True if the suite was built from task contracts."""
    path = Path(suite) / "suite.json"
    return path.is_file() and read_json(path).get("format") == "groundeval-tasks"


def _rows(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path).values


class TaskRuntime:
    """The corpus as one contract's actor may read it; records every call with its gates."""

    def __init__(self, corpus: Mapping[str, Mapping[str, Any]], contract: Mapping[str, Any]) -> None:
        self.corpus, self.contract = corpus, contract
        self.calls: list[dict[str, Any]] = []

    def gates(self, artifact_id: str) -> dict[str, bool]:
        """Which gates reading this artifact breaks (all false for an unknown id)."""
        record = self.corpus.get(artifact_id)
        if record is None:
            return {"horizon": False, "subsystem": False}
        late = (self.contract["horizon"] == "applies" and record.get("created_at") is not None
                and parse_ts(record["created_at"]) > parse_ts(self.contract["as_of"]))
        return {"horizon": bool(late), "subsystem": record["subsystem"] not in self.contract["subsystems"]}

    def search_artifacts(self, query: str, subsystem: str | None = None,
                         limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
        """Records the actor may read whose id, field names or values hold a query term, most terms first (then by
        id): each as ``{id, subsystem, fields: [names]}`` — never a value, so a field counts as read only through
        ``fetch_artifact`` or its fixture tool. Gates apply before ranking; filtering to a subsystem outside the
        role returns nothing and breaks the subsystem gate."""
        outside = subsystem is not None and subsystem not in self.contract["subsystems"]
        terms = set(tokenize(query))
        ranked = []
        for artifact_id, record in sorted(self.corpus.items()):
            if outside or (subsystem is not None and record["subsystem"] != subsystem):
                continue
            if any(self.gates(artifact_id).values()):
                continue
            words = set(tokenize(" ".join([artifact_id, *record["fields"], *map(str, record["fields"].values())])))
            if terms & words:
                ranked.append((-len(terms & words), artifact_id))
        hits = [artifact_id for _, artifact_id in sorted(ranked)[:limit]]
        self.calls.append({"seq": len(self.calls) + 1, "tool": "search_artifacts",
                           "args": {"query": query, "subsystem": subsystem, "limit": limit}, "returned_ids": hits,
                           "outcome": "ok" if hits else "empty", "gates": {"horizon": False, "subsystem": outside}})
        return [{"id": h, "subsystem": self.corpus[h]["subsystem"], "fields": sorted(self.corpus[h]["fields"])}
                for h in hits]

    def call(self, tool: Any, arguments: Any) -> dict[str, Any]:
        """One tool call as an agent sends it (a model's or an MCP client's): ``search_artifacts``,
        ``fetch_artifact`` or a fixture tool of the contract; ill-formed arguments or an unknown tool are recorded
        as an invalid call and answered with an error."""
        args = arguments if isinstance(arguments, dict) else None
        if tool == "fetch_artifact" and args is not None and isinstance(args.get("artifact_id"), str):
            fields = self.fetch_artifact(args["artifact_id"])
            return {"artifact": {"id": args["artifact_id"], "fields": fields}} if fields is not None else {
                "error": "not_found", "message": "no artifact with that id is visible to you"}
        limit = _limit(args) if args is not None else None
        if tool == "search_artifacts" and args is not None and isinstance(args.get("query"), str) and (
                args.get("subsystem") is None or isinstance(args.get("subsystem"), str)) and limit is not None:
            return {"results": self.search_artifacts(args["query"], args.get("subsystem"), limit)}
        if isinstance(tool, str) and tool in self.contract["tools"] and args is not None:
            fields = self.fetch_artifact(self.contract["tools"][tool], tool)
            return {"returns": fields} if fields is not None else {"error": "not_found", "message": "no result"}
        self.calls.append({"seq": len(self.calls) + 1, "tool": str(tool), "args": args if args is not None else {},
                           "returned_ids": [], "outcome": "invalid", "gates": {"horizon": False, "subsystem": False}})
        return {"error": "invalid_call", "message": f"unknown tool or bad arguments for {tool!r} (tools: "
                f"{', '.join(self.tool_names())})"}

    def tool_names(self) -> list[str]:
        """The tools this contract's agent may call (besides submitting its answer)."""
        return ["search_artifacts", "fetch_artifact", *sorted(self.contract["tools"])]

    def fetch_artifact(self, artifact_id: str, tool: str = "fetch_artifact") -> dict[str, Any] | None:
        """The record's fields if no gate withholds it (withheld and unknown ids look the same)."""
        gates = self.gates(artifact_id)
        record = self.corpus.get(artifact_id)
        ok = record is not None and not any(gates.values())
        self.calls.append({"seq": len(self.calls) + 1, "tool": tool, "args": {"artifact_id": artifact_id},
                           "returned_ids": [artifact_id] if ok else [], "outcome": "ok" if ok else "not_found",
                           "gates": gates})
        return dict(record["fields"]) if ok and record is not None else None


def _limit(args: Mapping[str, Any]) -> int | None:
    limit = args.get("limit", DEFAULT_LIMIT)
    ok = isinstance(limit, int) and not isinstance(limit, bool) and 1 <= limit <= MAX_LIMIT
    return limit if ok else None


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
        verified.append({"check": pc["check"], "passed": value == pc["value"], "facts_found": facts,
                         "evidence_artifacts": [pc["artifact"]]})
    # wrong-field decides on what it read: a value that differs from the named field's makes its check fail
    decision = bool(truth["decision"]) and all(v["passed"] for v in verified)
    return {"preconditions_verified": verified, "all_preconditions_pass": all(v["passed"] for v in verified),
            contract["decision_field"]: decision,
            "reasoning": f"{kind}: checked {', '.join(v['check'] for v in verified) or 'nothing'}"}


def run_task_agent(suite: Path, spec: str, out: Path, mode: str = "tool", budget: int = DEFAULT_BUDGET, *,
                   base_url: str | None = None, max_turns: int = 12, concurrency: int = 8, limit: int | None = None,
                   cache_path: Path | None = None, endpoint: Any = None,
                   progress: Callable[[int, int], None] | None = None, overwrite: bool = False) -> dict[str, Any]:
    """Answer every task contract (the first ``limit``) with agent ``spec`` in tool or context mode: a built-in task
    agent, a model (``KIND:MODEL``, judges.groundeval.task_model: journaled beside ``out`` and resumed from it,
    ``concurrency`` contracts at a time, turns through the response cache ``cache_path`` if given) or a plugin agent
    registered for task suites; write answers.jsonl (with calls), run.json, MANIFEST.json and, in context mode,
    contexts.jsonl, and for a model turns.jsonl. A model's run returns what it spent under ``usage``."""
    if mode not in MODES:
        raise InputError(f"--mode: expected tool or context, got {mode!r}")
    contracts = _rows(Path(suite) / "contracts.jsonl")
    contracts = contracts[:limit] if limit else contracts
    corpus = {r["id"]: r for r in _rows(Path(suite) / "corpus.jsonl")}
    prepared = []
    for contract in contracts:
        runtime = TaskRuntime(corpus, contract)
        prepared.append((contract, runtime, build_task_context(contract, runtime, budget) if mode == "context"
                         else None))

    def line(contract: Mapping[str, Any], runtime: TaskRuntime, context: TaskContext | None, answer: Any,
             error: str | None) -> dict[str, Any]:
        if context is not None:
            cite(runtime, _cited(answer, contract["decision_field"]))
        return {"question_id": contract["question_id"], "agent": spec, "mode": mode, "answer": answer,
                "calls": runtime.calls, **({"budget": budget} if context is not None else {}),
                **({"error": error} if error else {})}

    digest = sha256_file(Path(suite) / "contracts.jsonl")
    usage, called, journal = None, None, None
    if ":" in spec:
        from judges.groundeval.run import agent_endpoint
        from judges.groundeval.task_model import model_lines, task_journal

        journal = task_journal(Path(out), {"journal": 1, "suite_contracts_sha256": digest, "agent": spec,
                                           "mode": mode, "budget": budget, "max_turns": max_turns}, overwrite)
        done, usage, called = model_lines(spec, prepared, line, journal, max_turns=max_turns, cache_path=cache_path,
                                          endpoint=endpoint or agent_endpoint(base_url, concurrency),
                                          progress=progress)
        rows = [done[c["question_id"]] for c in contracts]
    else:
        procedure = _procedure(Path(suite), spec)
        rows = []
        for contract, runtime, context in prepared:
            rows.append({"line": line(contract, runtime, context, procedure(contract, runtime, context), None),
                         "context": None if context is None else {
                             "question_id": context.question_id, "ids": list(context.ids()), "used": context.used,
                             "budget": budget}})
            if progress is not None:
                progress(len(rows), len(prepared))
    info = {"agent": rows[0]["line"]["agent"] if rows else spec, "mode": mode, "suite": str(suite),
            "suite_contracts_sha256": digest, "questions": len(rows),
            "context_budget": budget if mode == "context" else None, "base_url": called}
    with staged_directory(Path(out)) as tmp:
        write_jsonl(tmp / "answers.jsonl", [r["line"] for r in rows])
        if mode == "context":
            write_jsonl(tmp / "contexts.jsonl", [r["context"] for r in rows])
        if journal is not None:
            write_jsonl(tmp / "turns.jsonl", [{"question_id": r["question_id"], "turn": number, **turn}
                                              for r in rows for number, turn in enumerate(r["turns"])])
        write_json(tmp / "run.json", info)
        write_manifest(tmp)
    if journal is not None and journal.path.exists():
        journal.path.unlink()
    return info if usage is None else {**info, "usage": usage}


def _procedure(suite: Path, spec: str) -> Any:
    """A named task agent's ``procedure(contract, runtime, context) -> answer``: built-in, or a plugin's."""
    if spec in TASK_AGENTS:
        truth = {t["question_id"]: t for t in _rows(suite / "truth.jsonl")}
        return lambda contract, runtime, context: _agent_answer(spec, contract, truth[contract["question_id"]],
                                                                runtime, context)
    from judges.groundeval.agent_registry import AGENTS, agent_names

    plugin = AGENTS.get(spec)
    if plugin is not None and plugin.make is not None and "tasks" in plugin.suites:
        return plugin.procedure(suite, None)
    raise InputError(f"--agent: {spec!r} does not run task contracts (task agents: "
                     f"{', '.join(agent_names('tasks'))}; or openai:MODEL, local:MODEL or another backend's "
                     "KIND:MODEL)")


#: A check's keys in an answer: upstream main's code reads ``facts_found`` / ``evidence_artifacts``, its docs show
#: ``facts`` / ``evidence``; each pair is one key under two names.
CHECK_KEYS = {"check": "check", "passed": "passed", "facts_found": "facts", "facts": "facts",
              "evidence_artifacts": "evidence", "evidence": "evidence"}
#: Top-level keys of upstream main's task answer schema beside the contract's decision field.
ANSWER_KEYS = ("preconditions_verified", "all_preconditions_pass", "should_act", "reasoning", "evidence_artifacts")


def read_checks(answer: Mapping[str, Any], decision_field: str) -> list[dict[str, Any]]:
    """The answer's checks as ``{check, passed, facts, evidence}``; ValueError naming any key upstream's schema and
    orgbench do not know (so a misspelt key is refused, never read as an empty one) or one given twice."""
    unknown = sorted(str(k) for k in answer if k not in (*ANSWER_KEYS, decision_field))
    if unknown:
        raise ValueError(f"unknown answer key(s) {', '.join(unknown)} (known: {', '.join(ANSWER_KEYS)}, "
                         f"{decision_field})")
    checks = answer.get("preconditions_verified") or []
    if not isinstance(checks, list):
        raise ValueError("preconditions_verified: expected a list")
    out = []
    for i, claim in enumerate(checks):
        if not isinstance(claim, dict):
            raise ValueError(f"preconditions_verified[{i}]: expected an object")
        read: dict[str, Any] = {}
        for key, value in claim.items():
            name = CHECK_KEYS.get(str(key))
            if name is None:
                raise ValueError(f"preconditions_verified[{i}]: unknown key {key!r} (known: check, passed, "
                                 "facts_found or facts, evidence_artifacts or evidence)")
            if name in read:
                raise ValueError(f"preconditions_verified[{i}]: {key!r} repeats {name!r} under another name")
            read[name] = value
        out.append(read)
    return out


def _cited(answer: Any, decision_field: str) -> list[str]:
    """Every id an answer lists as a check's evidence, each once, in order (none when its keys are unknown)."""
    try:
        checks = read_checks(answer, decision_field) if isinstance(answer, dict) else []
    except ValueError:
        return []
    ids = [ref for p in checks if isinstance(p.get("evidence"), list) for ref in p["evidence"] if isinstance(ref, str)]
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
                             agent=agent, scoring=TASK_SCORING)


def _read_in_tool_mode(runtime: TaskRuntime, contract: Mapping[str, Any], calls: list[Any]) -> list[str]:
    """Re-derive the submitted calls up to the first action; the ids read gate-clean before it."""
    read: list[str] = []
    for call in calls:
        tool = call.get("tool") if isinstance(call, dict) else None
        args: dict[str, Any] = call["args"] if isinstance(call, dict) and isinstance(call.get("args"), dict) else {}
        if tool in contract["tools"]:
            artifact_id = str(contract["tools"][tool])
        elif tool == "fetch_artifact":
            artifact_id = str(args.get("artifact_id", ""))
        elif tool == "search_artifacts":            # re-run for its gates; a search reads no field value
            subsystem = args.get("subsystem") if isinstance(args.get("subsystem"), str) else None
            runtime.search_artifacts(str(args.get("query", "")), subsystem, _limit(args) or DEFAULT_LIMIT)
            continue
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
    if answer is None:
        return TaskScore(0.0, 0.0, 0.0, 0.0, 0, NO_ANSWER)
    if not isinstance(answer, dict) or (budget is None and not isinstance(calls, list)):
        return TaskScore(0.0, 0.0, 0.0, 0.0, 0, "answer or calls malformed")
    try:
        listed = {str(p.get("check")): p for p in read_checks(answer, contract["decision_field"])}
    except ValueError as exc:
        return TaskScore(0.0, 0.0, 0.0, 0.0, 0, f"answer malformed: {exc}")
    runtime = TaskRuntime(corpus, contract)
    if budget is None:
        read = _read_in_tool_mode(runtime, contract, calls)
    else:
        read = list(build_task_context(contract, runtime, budget).ids())
        cite(runtime, _cited(answer, contract["decision_field"]))
    n = len(runtime.calls)
    v = sum(1 for c in runtime.calls if any(c["gates"].values())) / n if n else 0.0
    parts = []
    for pc in truth["preconditions"]:
        claim = listed.get(pc["check"], {})
        facts: dict[str, Any] = claim["facts"] if isinstance(claim.get("facts"), dict) else {}
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


#: The task scorer's rules as every task score output records them (S_adj = (S_decision + S_verify) / 2 * (1 - v)^2).
TASK_SCORING = "task-1"


def score_task_run(suite: Path, answers: Path, out: Path) -> dict[str, Any]:
    """Score a task run directory (or answers JSONL); write questions.jsonl and summary.json (with the scoring)."""
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
    for agent in agents:                 # answers scored 0 unread (e.g. an unknown key), counted where they show
        refused = [f"{r.question_id}: {r.malformed}" for r in sorted(
            (r for r in rows if r.agent == agent and r.malformed), key=lambda r: r.malformed == NO_ANSWER)]
        summary[agent] |= {"malformed": len(refused), **({"first_malformed": refused[0]} if refused else {})}
    with staged_directory(Path(out)) as tmp:
        write_jsonl(tmp / "questions.jsonl", (r.to_json() for r in rows))
        write_json(tmp / "summary.json", {"track": "task", "scoring": TASK_SCORING, "agents": summary})
    return summary
