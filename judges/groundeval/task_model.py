"""Model and plugin agents on task contracts: any ``KIND:MODEL`` backend, or an agent registered for task suites.

A model agent (``openai:MODEL``, ``local:MODEL``, ``stub:``, a plugin's
kind) gets the contract as shown (``contracts.jsonl`` holds no truth) and,
in tool mode, the tools of the contract's ``TaskRuntime``:
``search_artifacts``, ``fetch_artifact`` and one function per fixture tool,
then ``submit_answer``; every call goes through the runtime's gates and is
recorded. In context mode it reads the gate-clean context and submits; each
id it cites is checked as a ``cite_artifact`` call. The conversation is
``LLMAgent.converse``, the loop the other tracks' model agent runs, and the
run is kept as theirs is (``judges.groundeval.run``): each finished contract
is journaled beside the output (``.NAME.journal.jsonl``) so the same command
resumes asking the model nothing twice, contracts run ``concurrency`` at a
time, turns go through the response cache when one is given and are written
to ``turns.jsonl``, which ``replay:RUN`` answers from. A plugin agent
registered with ``suites=("tasks",)`` answers through
``procedure(contract, runtime, context)`` like the built-in ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from judges.backends import EndpointConfig
from judges.groundeval.model_runs import answer_all, refuse_if_all_failed
from judges.groundeval.task_context import TaskContext
from judges.journal import Journal
from orgbench.core.errors import FormatError

SYSTEM = ("You act for the person a task contract names. Before deciding, verify every precondition: find the "
          "record it concerns (search_artifacts gives ids, subsystems and field names; fetch_artifact or the "
          "contract's own tools read a record), report each check with the facts you read and the ids of the "
          "records you read them from, then decide. Submit once with submit_answer, a JSON object following "
          "answer_schema.")


def task_tools(contract: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The function-calling tools of a contract in tool mode (``submit_answer`` included)."""
    from judges.groundeval.llm_agent import SUBMIT, TOOLS

    fixture = [{"type": "function", "function": {
        "name": name, "description": f"A tool of this task: returns its record ({contract['task'][:80]}).",
        "parameters": {"type": "object", "properties": {}}}} for name in sorted(contract["tools"])]
    return [*TOOLS, *fixture, SUBMIT]


def task_messages(contract: Mapping[str, Any], context: TaskContext | None) -> list[dict[str, Any]]:
    """The opening messages: the contract as shown, and (context mode) the context."""
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": json.dumps(dict(contract), ensure_ascii=False, indent=1)}]
    if context is not None:
        messages.append({"role": "user", "content": "Records you may use:\n\n" + context.render()})
    return messages


def model_lines(spec: str, prepared: Sequence[tuple[Mapping[str, Any], Any, TaskContext | None]],
                line: Callable[[Mapping[str, Any], Any, TaskContext | None, Any, str | None], dict[str, Any]],
                journal: Journal, *, endpoint: EndpointConfig, max_turns: int, cache_path: Path | None = None,
                progress: Callable[[int, int], None] | None = None
                ) -> tuple[dict[str, dict[str, Any]], dict[str, int], str | None]:
    """Each prepared (contract, runtime, context) answered by the model agent ``spec``, resuming from and appending
    to ``journal``: the rows by question id (``{question_id, line, context, turns}``, ``line`` the answers.jsonl
    line ``line(contract, runtime, context, answer, error)`` makes), what the run spent, and the base URL called.

    A request that failed for good is that contract's error; when every contract failed (a wrong endpoint or model,
    not a result) the journal goes and EndpointError says so, nothing written."""
    from judges.backends import BackendError, make_backend
    from judges.cache import ResponseCache
    from judges.groundeval.llm_agent import SUBMIT, LLMAgent

    backend = make_backend(spec, role="agent", endpoint=endpoint)
    cache = ResponseCache(Path(cache_path)) if cache_path is not None and backend.cacheable else None
    agent = LLMAgent(backend, max_turns=max_turns, cache=cache)
    recorded = backend.recorded_agent(spec)             # replay:RUN answers as the recorded agent
    done, appender = journal.open()

    async def one(item: tuple[Mapping[str, Any], Any, TaskContext | None]) -> None:
        contract, runtime, context = item
        turns: list[dict[str, Any]] = []
        tools = task_tools(contract) if context is None else [SUBMIT]
        try:
            answer, error = await agent.converse(task_messages(contract, context), tools, runtime.call,
                                                 turns), None
        except BackendError as exc:
            answer, error = None, str(exc)
        row = {"question_id": contract["question_id"], "line": line(contract, runtime, context, answer, error)
               | {"agent": recorded}, "context": _context_line(context), "turns": turns}
        appender.add(row, flush=True)           # finished work survives an interruption
        done[contract["question_id"]] = row
        if progress is not None:
            progress(len(done), len(prepared))

    answer_all([item for item in prepared if item[0]["question_id"] not in done], one, backend=backend,
               concurrency=endpoint.concurrency, closing=(appender, cache))
    refuse_if_all_failed([row["line"]["error"] for row in done.values() if "error" in row["line"]], len(done),
                         journal, backend, "contract")
    return done, agent.usage(), endpoint.base_url if "base_url" in backend.identity() else None


def _context_line(context: TaskContext | None) -> dict[str, Any] | None:
    return None if context is None else {"question_id": context.question_id, "ids": list(context.ids()),
                                         "used": context.used, "budget": context.budget}


def task_journal(out: Path, header: Mapping[str, Any], overwrite: bool = False) -> Journal:
    """A task run's journal beside its output, ``.NAME.journal.jsonl``: keyed by question; another run's is refused,
    or with ``overwrite`` restarted."""
    path = Path(out).parent / f".{Path(out).name}.journal.jsonl"

    def key(row: Any, number: int) -> str:
        if not isinstance(row, dict) or not {"question_id", "line", "context", "turns"} <= set(row):
            raise FormatError(path, "not a task journal row (question_id, line, context, turns)", line=number)
        return str(row["question_id"])

    return Journal(path, key, header=dict(header), restart_on_other_header=overwrite)
