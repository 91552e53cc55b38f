"""CARGO-Bench as an inspect_ai task: the requests ``orgbench judge`` makes, scored with orgbench's metrics.

One sample per (item, judge seed) of one condition. A sample's input is the
exact system and user messages ``judges.conditions.render`` gives (the ones
``orgbench judge`` sends); the solver generates with temperature, the judge
seed as ``seed`` and max tokens as given, so an OpenAI-compatible provider is
sent the same messages and parameters. The scorer parses the verdict with
``judges.verdict.parse_verdict``; the metric builds the judgments and scores
them with ``judges.metrics`` (per-family penalty rates, TP, FP, DI with its
item-level bootstrap CI), exactly as ``orgbench tables cargo`` does. Each
score's metadata keeps what a judgments.jsonl line holds, so
``orgbench.harness.inspect_log`` turns the log into a run that ``tables cargo``
and ``compare`` read.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

#: The task metadata key that binds an eval log to its suite (read back by inspect_log).
SUITE_KEY = "orgbench_cargo"
#: A verdict is a word, not a number: epochs keep the most common one (inspect's default mean would warn on
#: every sample that "pass" is no float). Judge seeds, not epochs, repeat a judgment.
VERDICT_EPOCHS = Epochs(1, "mode")


def cargo_task(suite_dir: Path, condition: str, seeds: tuple[int, ...], limit: int | None, temperature: float,
               max_tokens: int | None, resamples: int) -> Task:
    """The task over ``suite_dir`` (its first ``limit`` items) under ``condition`` with judge ``seeds``."""
    from benchmark_builders.cargo.records import read_items
    from judges.cargo_scores import SuiteTruth, suite_binding
    from judges.cache import request_hash
    from judges.conditions import condition as named_condition, render

    cond = named_condition(condition)
    truth = SuiteTruth.load(suite_dir)
    samples = []
    for item in read_items(suite_dir, limit):
        for seed in seeds:
            request = render(cond, item.to_json(), seed, temperature=temperature, max_tokens=max_tokens)
            system, user = (m.text() for m in request.messages)
            samples.append(Sample(
                id=f"{item.item_id}/{seed}", input=[ChatMessageSystem(content=system), ChatMessageUser(content=user)],
                target="fail" if _should_penalize(truth.families[item.item_id]) else "pass",
                metadata={"item_id": item.item_id, "condition": cond.name, "seed": seed,
                          "family": truth.families[item.item_id], "request_hash": request_hash(request)}))
    binding, locations = suite_binding(suite_dir)
    parameters: dict[str, Any] = {**binding, "conditions": [cond.name], "seeds": list(seeds), "temperature": temperature,
                  "max_tokens": max_tokens, "extra": {}}
    return Task(dataset=MemoryDataset(samples, name=f"cargo-{cond.name}"), solver=judge_request(max_tokens),
                scorer=cargo_verdict(), metrics=[cargo_metric(resamples)], name="cargo_bench",
                config=GenerateConfig(temperature=temperature), epochs=VERDICT_EPOCHS,
                metadata={SUITE_KEY: {"parameters": parameters, "locations": locations}})


def _should_penalize(family: str) -> bool:
    from judges.metrics import SHOULD_PENALIZE

    return bool(SHOULD_PENALIZE[family])


@solver
def judge_request(max_tokens: int | None = None) -> Solver:
    """Generate once with the sample's judge seed (temperature comes from the task's generation config)."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        options: dict[str, Any] = {"seed": int(state.metadata["seed"])}
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        return await generate(state, tool_calls="none", **options)

    return solve


def judgment_of(score_metadata: dict[str, Any]) -> Any:
    """The ``judges.judgments.Judgment`` a score's metadata records."""
    from judges.backends.base import JudgeResponse, Usage
    from judges.judgments import Judgment

    key = (str(score_metadata["item_id"]), str(score_metadata["condition"]), int(score_metadata["seed"]))
    if score_metadata.get("error"):
        return Judgment.failed(key, score_metadata["request_hash"], score_metadata["error"])
    response = JudgeResponse(score_metadata.get("response") or "", Usage.from_json(score_metadata.get("usage")),
                             str(score_metadata.get("model") or ""))
    return Judgment.answered(key, score_metadata["request_hash"], response)


@scorer(metrics=[])
def cargo_verdict() -> Scorer:
    """The judge's verdict (pass, fail, cannot_decide, unparsed), with what a judgments.jsonl line holds."""
    async def score(state: TaskState, target: Target) -> Score:
        output = state.output
        usage = output.usage
        meta = {**{k: state.metadata[k] for k in ("item_id", "condition", "seed", "family", "request_hash")},
                "response": output.completion, "model": output.model,
                "usage": {"prompt_tokens": usage.input_tokens if usage else 0,
                          "completion_tokens": usage.output_tokens if usage else 0},
                "error": output.error if getattr(output, "error", None) else None}
        judgment = judgment_of(meta)
        verdict = "error" if judgment.error else judgment.verdict.verdict if judgment.verdict else "unparsed"
        return Score(value=verdict, answer=verdict, explanation=output.completion, metadata=meta)

    return score


def condition_score(scores: list[SampleScore], resamples: int = 10_000) -> Any:
    """The ``judges.metrics.ConditionScore`` of one condition's sample scores (over the samples' items)."""
    from judges.metrics import penalty_table, score_condition

    metas = [s.score.metadata or {} for s in scores]
    families = {str(m["item_id"]): str(m["family"]) for m in metas}
    conditions = {str(m["condition"]) for m in metas}
    if len(conditions) != 1:
        raise ValueError(f"one condition per CARGO task, got {sorted(conditions)}")
    table = penalty_table([judgment_of(m) for m in metas], families, conditions.pop())
    return score_condition(table, resamples=resamples)


def _num(x: float | None) -> float:
    return float("nan") if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@metric(name="cargo")
def cargo_metric(resamples: int = 10_000) -> Metric:
    """Per-family penalty rates, TP, FP and DI with its 95% bootstrap CI (mean of judge seeds); nothing before
    the first scored sample."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:
            return {}
        mean = condition_score(scores, resamples).to_json()["mean_of_seeds"]
        out = {f"penalty_rate_{family}": _num(rate) for family, rate in mean["rates"].items()}
        out.update(TP=_num(mean["tp"]), FP=_num(mean["fp"]), DI=_num(mean["di"]),
                   DI_ci_low=_num(mean["ci"][0]), DI_ci_high=_num(mean["ci"][1]))
        return out

    return compute
