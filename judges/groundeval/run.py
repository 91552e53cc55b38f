"""Run an agent over a suite (tool or context mode) and score runs: the two halves of an evaluation.

``run_agent`` writes a run directory (``run.json``, ``answers.jsonl``,
``traces.jsonl``, ``contexts.jsonl`` in context mode, ``MANIFEST.json``),
staged so an interrupted run leaves nothing that looks finished. A model
agent's run (``openai:MODEL``, ``local:MODEL`` or a plugin's ``KIND:MODEL``,
made by the backend registry) journals each finished question beside the
output (``.NAME.journal.jsonl``, ``judges.journal``); the same command resumes
from it, asking the model nothing twice. Its turns go through the judges'
response cache when ``cache_path`` is given (``judges.groundeval.turns``) and
are written to ``turns.jsonl``, which ``replay:RUN`` answers from.
``score_submissions`` scores every suite question for every (agent, mode)
found in the answers and writes ``questions.jsonl`` and ``summary.json``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from benchmark_builders.groundeval.contracts import Contract
from benchmark_builders.groundeval.tracks import track_names
from judges.groundeval.agent_registry import AGENTS, BUILTIN_AGENTS, MODES
from judges.groundeval.context import DEFAULT_BUDGET, build_context, check_citations
from judges.groundeval.corpus_store import DEFAULT_CACHE, open_corpus
from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.question_score import QuestionScore, summarize
from judges.groundeval.scoring import CompiledTruth, score_question, unanswered, unknown_question
from judges.groundeval.scoring_profile import DEFAULT_PROFILE, ScoringProfile, profile_named
from judges.groundeval.traces import Submission, load_corpus_world, load_submissions, load_suite, load_truth
from judges.backends import BackendError, EndpointConfig, make_backend
from judges.cache import ResponseCache
from judges.groundeval.model_runs import answer_all, refuse_if_all_failed
from judges.groundeval.requested_ids import RequestedIds
from judges.groundeval.verify import TraceVerifier, rederive
from judges.journal import Journal
from orgbench.core.collector import collector_paused
from orgbench.core.errors import FormatError, InputError
from orgbench.core.storage import (MANIFEST, manifest_digests, sha256_file, staged_directory, write_json, write_jsonl,
                                   write_manifest)


def _builtin(spec: str, suite: Path, corpus_world) -> Callable[..., dict[str, Any]]:
    """The procedure of the agent registered as ``spec`` (orgbench's or a plugin's)."""
    named = AGENTS.get(spec)
    if named is not None and named.make is not None and "contracts" in named.suites:
        return named.procedure(suite, corpus_world)
    raise InputError(f"--agent: unknown agent {spec!r} (built-in: {', '.join(BUILTIN_AGENTS)}; or openai:MODEL, "
                     "local:MODEL or another backend's KIND:MODEL)")


@dataclass(frozen=True)
class _Sessions:
    """How one question is set up (its gated runtime, and its context in context mode) and recorded."""

    corpus: Corpus
    spec: str
    mode: str
    budget: int
    record_latency: bool

    def open(self, contract: Contract) -> tuple[GatedRuntime, Any]:
        """The contract's runtime and (context mode) its context."""
        runtime = GatedRuntime(self.corpus, contract.actor, contract.as_of, record_latency=self.record_latency)
        return runtime, build_context(contract, runtime, self.budget) if self.mode == "context" else None

    def row(self, contract: Contract, runtime: GatedRuntime, context, answer: Any,
            error: str | None = None, turns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The journal row of a finished question: its context, answer and trace (the request's error, the turns)."""
        row: dict[str, Any] = {"question_id": contract.question_id, "context": None}
        if turns is not None:
            row["turns"] = turns
        if context is not None:
            check_citations(runtime, answer.get("evidence_artifacts") if isinstance(answer, dict) else None)
            row["context"] = {"question_id": contract.question_id, "ids": list(context.ids()), "used": context.used,
                              "searches": [{"id": x["id"], "query": x["query"], "ids": x["ids"]}
                                           for x in context.searches], "budget": context.budget}
        row["answer"] = {"question_id": contract.question_id, "agent": self.spec, "mode": self.mode, "answer": answer}
        if error is not None:
            row["answer"]["error"] = error
        row["trace"] = {"question_id": contract.question_id, "agent": self.spec, "mode": self.mode,
                        "actor": contract.actor, "as_of": contract.to_json()["as_of"], "calls": runtime.trace()}
        return row


def agent_endpoint(base_url: str | None = None, concurrency: int = 8) -> EndpointConfig:
    """The endpoint a model agent calls by default: ``base_url``, 120 s per turn, 3 retries, questions in flight."""
    return EndpointConfig(base_url=base_url, timeout=120.0, max_retries=3, concurrency=concurrency)


def run_agent(suite: Path, spec: str, mode: str, out: Path, *, record_latency: bool = True,
              budget: int = DEFAULT_BUDGET, base_url: str | None = None, concurrency: int = 8, max_turns: int = 12,
              corpus: Corpus | None = None, world=None, progress: Callable[[int, int], None] | None = None,
              limit: int | None = None, endpoint: EndpointConfig | None = None,
              cache_path: Path | None = None, overwrite: bool = False) -> dict[str, Any]:
    """Answer every contract of ``suite`` (the first ``limit``) with agent ``spec`` in ``mode``; write ``out``.

    ``spec`` is a built-in agent's name, or ``KIND:MODEL`` for a model agent made by the backend registry
    (``openai:``, ``local:`` or a plugin's kind) reached through ``endpoint`` (default:
    ``agent_endpoint(base_url, concurrency)``), its turns kept in the response cache ``cache_path`` if given.
    ``corpus`` and ``world`` may be passed in when several runs share one suite (they must be the suite's own).
    A model agent's journal left by a run of other settings is refused, or with ``overwrite`` started afresh.
    """
    if mode not in MODES:
        raise InputError(f"--mode: expected tool or context, got {mode!r}")
    suite = Path(suite)
    meta, contracts = load_suite(suite)
    contracts = contracts[:limit] if limit else contracts
    world = load_corpus_world(suite) if world is None else world
    sessions = _Sessions(Corpus(world) if corpus is None else corpus, spec, mode, budget, record_latency)
    usage: dict[str, int] | None = None
    journal: Journal | None = None
    called: str | None = None
    if ":" in spec:     # KIND:MODEL: a model agent from the backend registry
        endpoint = endpoint or agent_endpoint(base_url, concurrency)
        header = {"journal": 1, "suite_contracts_sha256": sha256_file(suite / "contracts.jsonl"), "agent": spec,
                  "mode": mode, "budget": budget, "max_turns": max_turns}
        journal = _journal(Path(out), header, overwrite)
        done, usage, called = _answer_with_model(sessions, contracts, spec, endpoint, journal, max_turns, progress,
                                                 cache_path)
    else:
        done = _answer_builtin(sessions, contracts, _builtin(spec, suite, world), progress)
    rows = [done[c.question_id] for c in contracts]
    info = {"suite": str(suite), "suite_contracts_sha256": sha256_file(suite / "contracts.jsonl"), "agent": spec,
            "mode": mode, "questions": len(contracts), "context_budget": budget if mode == "context" else None,
            "record_latency": record_latency, "base_url": called}
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "run.json", info)
        write_jsonl(tmp / "answers.jsonl", [r["answer"] for r in rows])
        write_jsonl(tmp / "traces.jsonl", [r["trace"] for r in rows])
        if mode == "context":
            write_jsonl(tmp / "contexts.jsonl", [r["context"] for r in rows if r["context"] is not None])
        if journal is not None:
            write_jsonl(tmp / "turns.jsonl", [{"question_id": r["question_id"], "turn": number, **turn}
                                              for r in rows for number, turn in enumerate(r["turns"])])
        write_manifest(tmp)
    if journal is not None and journal.path.exists():
        journal.path.unlink()
    return info if usage is None else {**info, "usage": usage}     # usage: printed, never written to the run


def _answer_builtin(sessions: _Sessions, contracts: list[Contract], agent_fn: Callable[..., Any],
                    progress: Callable[[int, int], None] | None) -> dict[str, dict[str, Any]]:
    """Every contract answered by a procedural agent, in order."""
    done: dict[str, dict[str, Any]] = {}
    for contract in contracts:
        runtime, context = sessions.open(contract)
        answer = agent_fn(contract, runtime if context is None else None, context)
        done[contract.question_id] = sessions.row(contract, runtime, context, answer)
        if progress is not None:
            progress(len(done), len(contracts))
    return done


def _journal(out: Path, header: dict[str, Any], overwrite: bool) -> Journal:
    """The run's journal beside its output, ``.NAME.journal.jsonl``: keyed by question; another run's is refused
    (its answers were paid for), or with ``overwrite`` started afresh."""
    path = out.parent / f".{out.name}.journal.jsonl"

    def key(row: Any, number: int) -> str:
        if not isinstance(row, dict) or not {"question_id", "context", "answer", "trace"} <= set(row):
            raise FormatError(path, "not a journal row (question_id, context, answer, trace)", line=number)
        return str(row["question_id"])

    return Journal(path, key, header=header, resumable=lambda row: "turns" in row, restart_on_other_header=overwrite)


def _answer_with_model(sessions: _Sessions, contracts: list[Contract], spec: str, endpoint: EndpointConfig,
                       journal: Journal, max_turns: int, progress: Callable[[int, int], None] | None,
                       cache_path: Path | None = None) -> tuple[dict[str, dict[str, Any]], dict[str, int], str | None]:
    """Every contract answered by a model agent, resuming from and appending to ``journal``.

    Returns the rows by question, what the run spent, and the base URL it called (None for a local server).
    A request that failed for good is recorded as that question's error; when every question failed
    (a wrong endpoint or model, not a result) nothing is written and the journal goes.
    """
    from judges.groundeval.llm_agent import LLMAgent

    backend = make_backend(spec, role="agent", endpoint=endpoint)
    sessions = replace(sessions, spec=backend.recorded_agent(spec))     # replay:RUN answers as the recorded agent
    cache = ResponseCache(Path(cache_path)) if cache_path is not None and backend.cacheable else None
    agent = LLMAgent(backend, max_turns=max_turns, cache=cache)
    done, appender = journal.open()

    async def one(contract: Contract) -> None:
        runtime, context = sessions.open(contract)
        turns: list[dict[str, Any]] = []
        try:
            answer = await agent.answer(contract, None if context is not None else runtime, context, turns)
        except BackendError as exc:
            row = sessions.row(contract, runtime, context, None, error=str(exc), turns=turns)
        else:
            row = sessions.row(contract, runtime, context, answer, turns=turns)
        appender.add(row, flush=True)       # finished work survives an interruption
        done[contract.question_id] = row
        if progress is not None:
            progress(len(done), len(contracts))

    answer_all([c for c in contracts if c.question_id not in done], one, backend=backend,
               concurrency=endpoint.concurrency, closing=(appender, cache))
    refuse_if_all_failed([row["answer"]["error"] for row in done.values() if "error" in row["answer"]], len(done),
                         journal, backend, "question")
    return done, agent.usage(), endpoint.base_url if "base_url" in backend.identity() else None


def score_submissions(suite: Path, submissions: list[Submission], *, answered_only: bool = False,
                      corpus: Corpus | None = None, index_cache: Path | None = DEFAULT_CACHE,
                      profile: str = DEFAULT_PROFILE) -> tuple[list[QuestionScore], dict[str, Any]]:
    """Score every suite question for each (agent, mode) present; unknown ids and missing answers score 0.

    Every call's gate outcome is re-derived from the suite's corpus and policy for the contract's actor and
    as_of (``judges.groundeval.verify``) and scored as re-derived; the claims stay in the diagnostics.
    With ``answered_only`` the questions an agent did not answer are left out (e.g. a few contracts over MCP).
    ``corpus`` may be passed in when it is the suite's own; otherwise the suite's index is loaded from
    ``index_cache`` (built from ``world/``'s artifacts and policy and kept there the first time;
    ``judges.groundeval.corpus_store``). ``profile`` names the scoring profile (``scoring_profile.py``);
    every row records its label.
    """
    with collector_paused(promote=True):   # scoring makes many small objects, none in cycles
        return _score_submissions(Path(suite), submissions, answered_only, corpus, index_cache, profile)


def _score_submissions(suite: Path, submissions: list[Submission], answered_only: bool, corpus: Corpus | None,
                       index_cache: Path | None, profile: str) -> tuple[list[QuestionScore], dict[str, Any]]:
    scoring = profile_named(profile)
    contracts = {c.question_id: c for c in load_suite(suite)[1]}
    truths = {qid: CompiledTruth.of(t, contracts[qid].subject if qid in contracts else None)
              for qid, t in load_truth(suite).items()}
    if corpus is None:
        digests = manifest_digests(suite) if (suite / MANIFEST).is_file() else None     # verified by load_suite
        corpus = open_corpus(suite, index_cache, digests)
    tracks = track_names(t.track for t in truths.values())
    order = {t: i for i, t in enumerate(tracks)}
    groups: dict[tuple[str, str], dict[Any, Submission]] = defaultdict(dict)
    extra_rows: dict[tuple[str, str], list[QuestionScore]] = defaultdict(list)
    for sub in submissions:
        key = (sub.agent, sub.mode)
        qid = sub.question_id
        if not isinstance(qid, str) or qid not in truths:
            extra_rows[key].append(unknown_question(qid if isinstance(qid, (str, int)) else str(qid), sub.mode))
            continue
        if qid in groups[key]:
            extra_rows[key].append(replace(unknown_question(qid, sub.mode), track=truths[qid].track,
                                           malformed="duplicate answer (the first one is scored)"))
            continue
        groups[key][qid] = sub
    keys = sorted(set(groups) | set(extra_rows))
    questions = sorted(truths, key=lambda q: (order[truths[q].track], q))
    for key in keys:
        missing = next((q for q in questions if q in groups.get(key, {}) and q not in contracts), None)
        if missing is not None:
            raise InputError(f"{suite / 'contracts.jsonl'}: no contract for question {missing} of truth.jsonl")
    answers = _answers_scored(corpus, contracts, truths, questions, [(key, groups.get(key, {})) for key in keys],
                              scoring)
    rows: list[QuestionScore] = []
    summary: dict[str, Any] = {}
    for key in keys:
        agent, mode = key
        answered = groups.get(key, {})
        mine = []
        for qid in questions:
            if qid in answered:
                mine.append(answers[key, qid])
            elif not answered_only:
                mine.append(replace(unanswered(truths[qid], mode), agent=agent, scoring=scoring.label))
        scored = list(mine)
        mine.extend(replace(r, agent=agent, scoring=scoring.label) for r in sorted(extra_rows.get(key, []), key=lambda r: str(r.question_id)))
        rows.extend(mine)
        per_track: dict[str, Any] = {t: summarize([r for r in scored if r.track == t]) for t in tracks}
        per_track["all"] = summarize(scored)
        per_track["rejected_lines"] = len(extra_rows.get(key, []))
        summary.setdefault(agent, {})[mode] = per_track
    return rows, summary


def _answers_scored(corpus: Corpus, contracts: dict[str, Contract], truths: dict[str, CompiledTruth],
                    questions: list[str], answered: list[tuple[tuple[str, str], dict[Any, Submission]]],
                    scoring: ScoringProfile) -> dict[tuple[tuple[str, str], str], QuestionScore]:
    """Every answer of ``answered`` (per agent and mode, by question) scored with its calls re-derived.

    Question by question, every agent and mode in turn: a contract's actor and as_of (its moment) get one
    ``TraceVerifier``, shared by every contract, agent and mode there and dropped after the moment's last
    question, so what it keeps is reused while it is in use and its memory after.
    """
    ids = RequestedIds(corpus)        # what each requested id names, shared by every verifier
    asked = [qid for qid in questions if any(qid in by_question for _, by_question in answered)]
    left = Counter((contracts[qid].actor, contracts[qid].as_of) for qid in asked)
    verifiers: dict[tuple[str, Any], TraceVerifier] = {}
    scored: dict[tuple[tuple[str, str], str], QuestionScore] = {}
    for qid in asked:
        contract, truth = contracts[qid], truths[qid]
        moment = (contract.actor, contract.as_of)
        verifier = verifiers.get(moment)
        if verifier is None:
            verifier = verifiers[moment] = TraceVerifier(corpus, contract.actor, contract.as_of, ids=ids)
        for key, by_question in answered:
            submitted = by_question.get(qid)
            if submitted is None:
                continue
            calls, check = rederive(corpus, contract.actor, contract.as_of, submitted.calls, verifier=verifier)
            row = score_question(truth, submitted.answer, calls, key[1], trace_problems_found=list(check.malformed),
                                 profile=scoring)
            diagnostics = {**row.diagnostics, "trace_check": check.to_json()}
            if check.malformed and "malformed_calls" not in diagnostics:   # the answer was malformed too
                diagnostics["malformed_calls"] = list(check.malformed)
            scored[key, qid] = replace(row, trace_tampered=check.tampered, diagnostics=diagnostics, agent=key[0],
                                       scoring=scoring.label)
        left[moment] -= 1
        if not left[moment]:
            del verifiers[moment]
    return scored


def suite_questions(suite: Path) -> set[str]:
    """The question ids of a suite's contracts."""
    return {contract.question_id for contract in load_suite(Path(suite))[1]}


def score_run(suite: Path, answers: Path, out: Path, *, answered_only: bool = False,
              corpus: Corpus | None = None, index_cache: Path | None = DEFAULT_CACHE,
              profile: str = DEFAULT_PROFILE) -> dict[str, Any]:
    """Score answers (a run directory or JSONL) against a suite; write questions.jsonl and summary.json."""
    submissions, notes = load_submissions(answers)
    rows, summary = score_submissions(Path(suite), submissions, answered_only=answered_only, corpus=corpus,
                                      index_cache=index_cache, profile=profile)
    with staged_directory(Path(out)) as tmp:
        write_jsonl(tmp / "questions.jsonl", (row.to_json() for row in rows))
        write_json(tmp / "summary.json", {"suite": str(suite), "answers": str(answers), "unreadable_lines": notes,
                                          "scoring": profile_named(profile).label, "agents": summary})
        write_manifest(tmp)
    return summary
