"""``orgbench observe``: run a user's framework agent over a suite through an adapter; write a run directory.

The factory is named ``package.module:function``; it is called once per
contract with that contract's native tools and the ``ModelConfig``. The run
directory is the same as ``run-agent``'s (``run.json``, ``answers.jsonl``,
``traces.jsonl``, ``MANIFEST.json``), staged: a factory that raises, a
framework that is not installed or a broken hook leave nothing behind. On a
task suite the agent gets the task contract's tools (``task_tools.TaskTools``)
and task instructions, and the answer lines carry their calls, as
``run-agent``'s task runs do.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from judges.groundeval.adapters import FRAMEWORKS
from judges.groundeval.adapters.base import ContractTools, ModelConfig, assemble_trace
from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.traces import load_corpus_world, load_suite
from orgbench.core.errors import InputError
from orgbench.core.storage import sha256_file, staged_directory, write_json, write_jsonl, write_manifest


def load_adapter(framework: str) -> Any:
    """The adapter module of ``framework`` (InputError naming the extra when it is not installed)."""
    if framework not in FRAMEWORKS:
        raise InputError(f"--framework: expected one of {', '.join(FRAMEWORKS)}, got {framework!r}")
    return importlib.import_module(FRAMEWORKS[framework])


def load_factory(spec: str) -> Callable[..., Any]:
    """The agent factory named ``package.module:function`` (InputError, one line, when it cannot be had)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InputError(f"--agent {spec!r}: expected package.module:function")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:       # the user's module: any error importing it is theirs to see, in one line
        raise InputError(f"--agent {spec!r}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise InputError(f"--agent {spec!r}: {module_name} has no function {attr!r}")
    return factory


def run_header(suite: Path, framework: str, spec: str, model: ModelConfig) -> dict[str, Any]:
    """What the run directory binds (the keys orgbench/outdir.py compares for an agent run)."""
    contracts = Path(suite) / "contracts.jsonl"
    return {"suite_contracts_sha256": sha256_file(contracts) if contracts.is_file() else None,
            "agent": f"{framework}:{spec}", "mode": "tool", "context_budget": None, "base_url": model.base_url}


def observe(suite: Path, framework: str, spec: str, out: Path, model: ModelConfig, *, record_latency: bool = True,
            limit: int | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Answer every contract (the first ``limit``) with the user's agent through ``framework``; write ``out``."""
    from judges.groundeval.task_track import is_task_suite

    adapter = load_adapter(framework)
    factory = load_factory(spec)
    suite = Path(suite)
    if is_task_suite(suite):
        return _observe_tasks(suite, adapter, factory, framework, spec, out, model, limit=limit, progress=progress)
    contracts = load_suite(suite)[1]
    contracts = contracts[:limit] if limit else contracts
    corpus = Corpus(load_corpus_world(suite))
    agent_name = f"{framework}:{spec}"
    answers, traces = [], []
    for number, contract in enumerate(contracts, start=1):
        runtime = GatedRuntime(corpus, contract.actor, contract.as_of, record_latency=record_latency)
        tools = ContractTools(contract, runtime)
        final, seen = _answer(adapter, factory, tools, model, spec, contract.question_id)
        calls = assemble_trace(seen, tools.served(), f"--framework {framework} on {contract.question_id}")
        answer = tools.answer if tools.submitted else final
        answers.append({"question_id": contract.question_id, "agent": agent_name, "mode": "tool", "answer": answer})
        traces.append({"question_id": contract.question_id, "agent": agent_name, "mode": "tool",
                       "actor": contract.actor, "as_of": contract.to_json()["as_of"], "calls": calls})
        if progress is not None:
            progress(number, len(contracts))
    info = {**run_header(suite, framework, spec, model), "suite": str(suite), "framework": framework,
            "model": model.model, "max_turns": model.max_turns, "questions": len(contracts),
            "record_latency": record_latency}
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "run.json", info)
        write_jsonl(tmp / "answers.jsonl", answers)
        write_jsonl(tmp / "traces.jsonl", traces)
        write_manifest(tmp)
    return info


def _answer(adapter: Any, factory: Callable[..., Any], tools: Any, model: ModelConfig, spec: str,
            question_id: str) -> tuple[Any, list[Any]]:
    """The adapter's run of the user's agent on one contract (a failure of theirs: one line, nothing written)."""
    try:
        return adapter.answer(factory, tools, model)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"--agent {spec!r}: failed on {question_id}: {type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")) from None


def _observe_tasks(suite: Path, adapter: Any, factory: Callable[..., Any], framework: str, spec: str, out: Path,
                   model: ModelConfig, *, limit: int | None,
                   progress: Callable[[int, int], None] | None) -> dict[str, Any]:
    """``observe`` on a task suite: each contract through its ``TaskTools``; answers.jsonl lines carry the calls."""
    from judges.groundeval.adapters.task_tools import TaskTools
    from judges.groundeval.llm_agent import SYSTEM
    from judges.groundeval import task_model
    from judges.groundeval.task_track import TaskRuntime
    from orgbench.core.jsonl import read_jsonl

    if model.instructions == SYSTEM:            # the default instructions are the other tracks'
        model = replace(model, instructions=task_model.SYSTEM)
    contracts = read_jsonl(suite / "contracts.jsonl").values
    contracts = contracts[:limit] if limit else contracts
    corpus = {r["id"]: r for r in read_jsonl(suite / "corpus.jsonl").values}
    agent_name = f"{framework}:{spec}"
    answers = []
    for number, contract in enumerate(contracts, start=1):
        tools = TaskTools(contract, TaskRuntime(corpus, contract))
        final, seen = _answer(adapter, factory, tools, model, spec, contract["question_id"])
        calls = assemble_trace(seen, tools.served(), f"--framework {framework} on {contract['question_id']}",
                               tools.gated)
        answers.append({"question_id": contract["question_id"], "agent": agent_name, "mode": "tool",
                        "answer": tools.answer if tools.submitted else final, "calls": calls})
        if progress is not None:
            progress(number, len(contracts))
    info = {**run_header(suite, framework, spec, model), "suite": str(suite), "framework": framework,
            "model": model.model, "max_turns": model.max_turns, "questions": len(contracts)}
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "run.json", info)
        write_jsonl(tmp / "answers.jsonl", answers)
        write_manifest(tmp)
    return info
