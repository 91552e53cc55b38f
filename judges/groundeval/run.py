"""Run an agent over a suite (tool or context mode) and score runs: the two halves of an evaluation.

``run_agent`` writes a run directory (``run.json``, ``answers.jsonl``,
``traces.jsonl``, ``contexts.jsonl`` in context mode, ``MANIFEST.json``),
staged so an interrupted run leaves nothing that looks finished. An
``openai:MODEL`` run journals each finished question beside the output
(``.NAME.journal.jsonl``); the same command resumes from it, asking the model
nothing twice.
``score_submissions`` scores every suite question for every (agent, mode)
found in the answers and writes ``questions.jsonl`` and ``summary.json``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from benchmark_builders.groundeval.contracts import TRACKS, Contract
from judges.groundeval.agents import AGENTS, BUILTIN_AGENTS, make_leaky, make_oracle
from judges.groundeval.context import DEFAULT_BUDGET, build_context, check_citations
from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.scoring import CompiledTruth, score_question, summarize, unanswered, unknown_question
from judges.groundeval.traces import Submission, load_corpus_world, load_submissions, load_suite, load_truth
from judges.groundeval.verify import TraceVerifier, rederive
from orgbench.core.errors import InputError
from orgbench.core.storage import (
    dumps, sha256_file, staged_directory, write_json, write_jsonl, write_manifest, write_text_atomic,
)

MODES = ("tool", "context")


def _builtin(spec: str, suite: Path, corpus_world) -> Callable[..., dict[str, Any]]:
    if spec == "oracle":
        return make_oracle(load_truth(suite))
    if spec == "leaky":
        return make_leaky(corpus_world)
    if spec in AGENTS:
        return AGENTS[spec]
    if spec == "follow":
        from judges.groundeval.follow_agent import follow_agent

        return follow_agent
    raise InputError(f"--agent: unknown agent {spec!r} (built-in: {', '.join(BUILTIN_AGENTS)}; or openai:MODEL, local:MODEL)")


def run_agent(suite: Path, spec: str, mode: str, out: Path, *, record_latency: bool = True,
              budget: int = DEFAULT_BUDGET, base_url: str | None = None, api_key: str | None = None,
              concurrency: int = 8, max_turns: int = 12, corpus: Corpus | None = None,
              world=None, progress: Callable[[int, int], None] | None = None,
              limit: int | None = None) -> dict[str, Any]:
    """Answer every contract of ``suite`` (the first ``limit``) with agent ``spec`` in ``mode``; write ``out``.

    ``corpus`` and ``world`` may be passed in when several runs share one suite (they must be the suite's own).
    A ``local:MODEL`` agent gets a llama.cpp server with a function-calling chat format for the run.
    """
    if mode not in MODES:
        raise InputError(f"--mode: expected tool or context, got {mode!r}")
    suite = Path(suite)
    meta, contracts = load_suite(suite)
    contracts = contracts[:limit] if limit else contracts
    if world is None:
        world = load_corpus_world(suite)
    if corpus is None:
        corpus = Corpus(world)

    def session(contract: Contract) -> tuple[GatedRuntime, Any]:
        runtime = GatedRuntime(corpus, contract.actor, contract.as_of, record_latency=record_latency)
        context = build_context(contract, runtime, budget) if mode == "context" else None
        return runtime, context

    def finish(contract: Contract, runtime: GatedRuntime, context, answer: Any) -> dict[str, Any]:
        row: dict[str, Any] = {"question_id": contract.question_id, "context": None}
        if context is not None:
            check_citations(runtime, answer.get("evidence_artifacts") if isinstance(answer, dict) else None)
            row["context"] = {"question_id": contract.question_id, "ids": list(context.ids()), "used": context.used,
                              "searches": [{"id": x["id"], "query": x["query"], "ids": x["ids"]} for x in context.searches],
                              "budget": context.budget}
        row["answer"] = {"question_id": contract.question_id, "agent": spec, "mode": mode, "answer": answer}
        row["trace"] = {"question_id": contract.question_id, "agent": spec, "mode": mode, "actor": contract.actor,
                        "as_of": contract.to_json()["as_of"], "calls": runtime.trace()}
        return row

    done: dict[str, dict[str, Any]] = {}
    usage: dict[str, int] | None = None
    if spec.startswith(("openai:", "local:")):
        from judges.groundeval.llm_agent import LLMAgent

        model = spec.split(":", 1)[1]
        if not model:
            raise InputError(f"--agent {spec!r}: name the model, e.g. openai:gpt-4o-mini")
        server = contextlib.ExitStack()
        if spec.startswith("local:"):      # a llama.cpp server with a function-calling chat format, for this run
            from judges.backends.local_server import local_endpoint

            model, base_url, concurrency = server.enter_context(local_endpoint(spec, tools=True))
        agent = LLMAgent(model=model, base_url=base_url, api_key=api_key, max_turns=max_turns)
        header = {"journal": 1, "suite_contracts_sha256": sha256_file(suite / "contracts.jsonl"), "agent": spec,
                  "mode": mode, "budget": budget, "max_turns": max_turns}
        journal = Path(out).parent / f".{Path(out).name}.journal.jsonl"
        done = _read_journal(journal, header)

        async def run_all() -> None:
            in_flight = asyncio.Semaphore(max(1, concurrency))
            with open(journal, "a", encoding="utf-8") as log:
                if journal.stat().st_size == 0:
                    log.write(dumps(header) + "\n")
                    log.flush()

                async def one(contract: Contract) -> None:
                    async with in_flight:
                        runtime, context = session(contract)
                        answer = await agent.answer(contract, None if context is not None else runtime, context)
                        row = finish(contract, runtime, context, answer)
                        log.write(dumps(row) + "\n")      # finished work survives an interruption
                        log.flush()
                        done[contract.question_id] = row
                        if progress is not None:
                            progress(len(done), len(contracts))
                tasks = [asyncio.ensure_future(one(c)) for c in contracts if c.question_id not in done]
                try:
                    await asyncio.gather(*tasks)
                finally:                # one failure (e.g. an unreachable endpoint) stops the others first
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    await agent.close()

        with server:
            asyncio.run(run_all())
        usage = agent.usage()
        failed = [row for row in done.values() if str(row["answer"]["answer"]).startswith("backend error: ")]
        if failed and len(failed) == len(done):     # nothing answered: a wrong endpoint or model, not a result
            journal.unlink()
            raise InputError(f"--base-url: every question failed, e.g. {failed[0]['answer']['answer'][15:]}; "
                             f"nothing written")
    else:
        journal = None
        agent_fn = _builtin(spec, suite, world)
        for contract in contracts:
            runtime, context = session(contract)
            answer = agent_fn(contract, runtime if context is None else None, context)
            done[contract.question_id] = finish(contract, runtime, context, answer)
            if progress is not None:
                progress(len(done), len(contracts))
    rows = [done[c.question_id] for c in contracts]
    answers = [r["answer"] for r in rows]
    traces = [r["trace"] for r in rows]
    contexts = [r["context"] for r in rows if r["context"] is not None]

    info = {"suite": str(suite), "suite_contracts_sha256": sha256_file(suite / "contracts.jsonl"), "agent": spec,
            "mode": mode, "questions": len(contracts), "context_budget": budget if mode == "context" else None,
            "record_latency": record_latency, "base_url": base_url if spec.startswith("openai:") else None}
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "run.json", info)
        write_jsonl(tmp / "answers.jsonl", answers)
        write_jsonl(tmp / "traces.jsonl", traces)
        if mode == "context":
            write_jsonl(tmp / "contexts.jsonl", contexts)
        write_manifest(tmp)
    if journal is not None and journal.exists():
        journal.unlink()
    return info if usage is None else {**info, "usage": usage}     # usage: printed, never written to the run


def _read_journal(path: Path, header: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The finished questions of an interrupted run with the same inputs (empty, and the journal reset, otherwise)."""
    if not path.is_file():
        return {}
    rows: dict[str, dict[str, Any]] = {}
    lines = path.read_bytes().splitlines()
    try:
        if not lines or json.loads(lines[0].decode("utf-8")) != header:
            path.unlink()
            return {}
        for line in lines[1:]:
            row = json.loads(line.decode("utf-8"))
            if not {"question_id", "context", "answer", "trace"} <= set(row):
                break
            rows[row["question_id"]] = row
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        pass   # a line cut short by the interruption (even inside a character): keep what came before it
    write_text_atomic(path, "".join(dumps(x) + "\n" for x in [header, *rows.values()]))
    return rows


def score_submissions(suite: Path, submissions: list[Submission], *, answered_only: bool = False,
                      corpus: Corpus | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Score every suite question for each (agent, mode) present; unknown ids and missing answers score 0.

    Every call's gate outcome is re-derived from the suite's corpus and policy for the contract's actor and
    as_of (``judges.groundeval.verify``) and scored as re-derived; the claims stay in the diagnostics.
    With ``answered_only`` the questions an agent did not answer are left out (e.g. a few contracts over MCP).
    ``corpus`` may be passed in when it is the suite's own (it is built from ``world/`` otherwise).
    """
    suite = Path(suite)
    truths = {qid: CompiledTruth.of(t) for qid, t in load_truth(suite).items()}
    contracts = {c.question_id: c for c in load_suite(suite)[1]}
    if corpus is None:
        corpus = Corpus(load_corpus_world(suite))
    verifiers: dict[tuple[str, Any], TraceVerifier] = {}
    order = {t: i for i, t in enumerate(TRACKS)}
    groups: dict[tuple[str, str], dict[Any, Submission]] = defaultdict(dict)
    extra_rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for sub in submissions:
        key = (sub.agent, sub.mode)
        qid = sub.question_id
        if not isinstance(qid, str) or qid not in truths:
            extra_rows[key].append(unknown_question(qid if isinstance(qid, (str, int)) else str(qid), sub.mode))
            continue
        if qid in groups[key]:
            row = unknown_question(qid, sub.mode)
            row["malformed"] = "duplicate answer (the first one is scored)"
            row["track"] = truths[qid].track
            extra_rows[key].append(row)
            continue
        groups[key][qid] = sub
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    for key in sorted(set(groups) | set(extra_rows)):
        agent, mode = key
        answered = groups.get(key, {})
        mine = []
        for qid in sorted(truths, key=lambda q: (order[truths[q].track], q)):
            sub = answered.get(qid)
            if sub is None and answered_only:
                continue
            if sub is None:
                row = unanswered(truths[qid], mode)
            else:
                contract = contracts.get(qid)
                if contract is None:
                    raise InputError(f"{suite / 'contracts.jsonl'}: no contract for question {qid} of truth.jsonl")
                moment = (contract.actor, contract.as_of)
                verifier = verifiers.get(moment)
                if verifier is None:   # one per actor and as_of, shared by every contract, agent and mode there
                    verifier = verifiers[moment] = TraceVerifier(corpus, contract.actor, contract.as_of)
                calls, check = rederive(corpus, contract.actor, contract.as_of, sub.calls, verifier=verifier)
                row = score_question(truths[qid], sub.answer, calls, mode, trace_problems_found=list(check.malformed))
                row["trace_tampered"] = check.tampered
                row["diagnostics"]["trace_check"] = check.to_json()
                if check.malformed and "malformed_calls" not in row["diagnostics"]:   # the answer was malformed too
                    row["diagnostics"]["malformed_calls"] = list(check.malformed)
            mine.append({"agent": agent, **row})
        scored = list(mine)
        mine.extend({"agent": agent, **r} for r in sorted(extra_rows.get(key, []), key=lambda r: str(r["question_id"])))
        rows.extend(mine)
        per_track = {t: summarize([r for r in scored if r["track"] == t]) for t in TRACKS}
        per_track["all"] = summarize(scored)
        per_track["rejected_lines"] = len(extra_rows.get(key, []))
        summary.setdefault(agent, {})[mode] = per_track
    return rows, summary


def score_run(suite: Path, answers: Path, out: Path, *, answered_only: bool = False,
              corpus: Corpus | None = None) -> dict[str, Any]:
    """Score answers (a run directory or JSONL) against a suite; write questions.jsonl and summary.json."""
    submissions, notes = load_submissions(answers)
    rows, summary = score_submissions(Path(suite), submissions, answered_only=answered_only, corpus=corpus)
    with staged_directory(Path(out)) as tmp:
        write_jsonl(tmp / "questions.jsonl", rows)
        write_json(tmp / "summary.json", {"suite": str(suite), "answers": str(answers), "unreadable_lines": notes,
                                          "agents": summary})
        write_manifest(tmp)
    return summary
