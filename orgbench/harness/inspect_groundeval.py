"""GroundEval as an inspect_ai task: the model answers through the gated runtime's tools, scored by orgbench's rules.

One sample per question contract (tool mode). The messages are the ones
``orgbench run-agent --agent openai:MODEL`` starts with (``llm_agent.SYSTEM``
and the contract as the agent may see it); the tools are the gated runtime's
``search_artifacts`` and ``fetch_artifact`` and ``submit_answer``, each call
executed on the contract's ``GatedRuntime`` (so it is recorded and gated as
the contract's actor at the contract's moment). The scorer hands the answer
and the recorded calls to ``judges.groundeval.run.score_submissions``, which
re-derives every gate from the suite's corpus and policy and scores the answer
as ``orgbench score groundeval`` does: S_answer, S_traj, the violation rate v
and S_adj. The metric gives their means per track (``question_score.summarize``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolDef, ToolParams
from inspect_ai.util import store

from orgbench.core.errors import InputError

AGENT_KEY = "orgbench_groundeval"
#: Model turns per contract before its last message counts as the answer (``-T max_turns``).
MAX_TURNS = 12


def groundeval_task(suite_dir: Path, limit: int | None, max_turns: int) -> Task:
    """The task over ``suite_dir``'s question contracts (the first ``limit``)."""
    from judges.groundeval.corpus_store import open_corpus
    from judges.groundeval.llm_agent import SYSTEM, contract_prompt
    from judges.groundeval.traces import load_suite
    from orgbench.harness.suites import cache_dir

    meta, contracts = load_suite(suite_dir)
    if meta.get("format") == "groundeval-tasks":
        raise InputError(f"suite: {suite_dir} is a task-contract suite; orgbench/groundeval runs question contracts")
    chosen = contracts[:limit] if limit else contracts
    corpus = open_corpus(suite_dir, cache_dir() / "groundeval-index")     # the suite's index, kept once built
    by_id = {c.question_id: c for c in chosen}
    samples = [Sample(id=c.question_id, input=[ChatMessageSystem(content=SYSTEM),
                                               ChatMessageUser(content=contract_prompt(c))],
                      metadata={"question_id": c.question_id, "track": c.track}) for c in chosen]
    return Task(dataset=MemoryDataset(samples, name="groundeval"), solver=gated_agent(corpus, by_id, max_turns),
                scorer=groundeval_rules(str(suite_dir), corpus), metrics=[groundeval_metric()], name="groundeval",
                config=GenerateConfig(temperature=0.0),
                metadata={AGENT_KEY: {"suite": str(Path(suite_dir).resolve())}})


def _tools(runtime: Any, track_name: str) -> list[Tool]:
    """The gated runtime's tools as inspect tools, offered with the schemas ``run-agent`` offers (``llm_agent.TOOLS``
    and the track's ``submit_tool``), their arguments passed to the runtime as the model sent them and their results
    unshortened (so the trace and what the model reads are ``run-agent``'s); submit_answer records the answer in the
    store."""
    from judges.groundeval.llm_agent import TOOLS, submit_tool

    def run(tool: str, arguments: dict[str, Any]) -> str:
        if store().get("submitted", False):     # run-agent stops at submit_answer: later calls of its turn never run
            return json.dumps({"error": "answer_submitted", "message": "the answer was already submitted"})
        return json.dumps(runtime.call(tool, arguments), ensure_ascii=False)

    async def search_artifacts(**kwargs: Any) -> str:
        return run("search_artifacts", kwargs)

    async def fetch_artifact(**kwargs: Any) -> str:
        return run("fetch_artifact", kwargs)

    async def submit_answer(**kwargs: Any) -> str:
        store().set("answer", kwargs.get("answer"))
        store().set("submitted", True)
        return "answer recorded"

    def define(function: Any, spec: dict[str, Any]) -> Tool:
        # additionalProperties None: left out of the schema sent, as run-agent leaves it out
        params = ToolParams.model_validate({**spec["parameters"], "additionalProperties": None})
        return ToolDef(function, name=spec["name"], description=str(spec["description"]), parameters=params,
                       max_output=0).as_tool()

    functions = {"search_artifacts": search_artifacts, "fetch_artifact": fetch_artifact,
                 "submit_answer": submit_answer}
    return [define(functions[spec["function"]["name"]], spec["function"])
            for spec in [*TOOLS, submit_tool(track_name)]]


@solver
def gated_agent(corpus: Any, contracts: dict[str, Any], max_turns: int = MAX_TURNS) -> Solver:
    """Turns of the model until it submits (or answers without a call), every call run on the gated runtime; as
    ``run-agent``'s loop (``LLMAgent.converse``), what it answers when the turns run out."""
    from judges.groundeval.llm_agent import TURN_LIMIT_ANSWER
    from judges.groundeval.runtime import GatedRuntime

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        contract = contracts[str(state.metadata["question_id"])]
        runtime = GatedRuntime(corpus, contract.actor, contract.as_of, record_latency=False)
        state.tools = _tools(runtime, contract.track)
        for _ in range(max_turns):
            state = await generate(state, tool_calls="single")
            if store().get("submitted", False):
                break
            if not state.output.message.tool_calls:          # it answered in words: that text is the answer
                store().set("answer", state.output.completion)
                break
        else:
            store().set("answer", TURN_LIMIT_ANSWER)
        store().set("calls", runtime.trace())
        return state

    return solve


@scorer(metrics=[])
def groundeval_rules(suite: str, corpus: Any) -> Scorer:
    """S_answer, S_traj, v and S_adj of the answer and its calls, as ``orgbench score groundeval`` gives them."""
    from judges.groundeval.run import score_submissions
    from judges.groundeval.traces import Submission

    async def score(state: TaskState, target: Target) -> Score:
        answer: Any = store().get("answer")
        calls: list[dict[str, Any]] = store().get("calls", [])
        submission = Submission(str(state.metadata["question_id"]), f"inspect:{state.model}", "tool", answer, calls)
        rows, _ = score_submissions(Path(suite), [submission], answered_only=True, corpus=corpus)
        row = rows[0]
        return Score(value={"s_answer": row.s_answer, "s_traj": row.s_traj, "v": row.v, "s_adj": row.s_adj},
                     answer=json.dumps(answer, ensure_ascii=False, sort_keys=True),
                     metadata={"question_score": row.to_json(), "answer": answer, "calls": calls})

    return score


@metric(name="groundeval")
def groundeval_metric() -> Metric:
    """Per track and over all: mean S_answer, S_traj, S_adj and the violation rate (``summarize``)."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        from benchmark_builders.groundeval.tracks import track_names
        from judges.groundeval.question_score import QuestionScore, summarize

        rows = [QuestionScore.from_json((s.score.metadata or {})["question_score"], "inspect log") for s in scores]
        out: dict[str, float] = {}
        for track in (*track_names(r.track for r in rows), "all"):
            mine = [r for r in rows if track == "all" or r.track == track]
            if not mine:
                continue
            summary = summarize(mine)
            for name in ("s_answer", "s_traj", "s_adj", "violation_rate"):
                out[f"{track}/{name}"] = float(summary[name])
        return out

    return compute
