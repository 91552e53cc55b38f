"""The judge-input assurance contrast as an inspect_ai task: verified packets judged, G computed by orgbench.

The checked pipeline builds, checks, stages and emits the cohort's eight
packets per trajectory under P3 (prefix and full, error and comparison target,
original and restored rendering) exactly as ``orgbench tables assurance``
does; a failing check stops the task. The staged buffers become the samples:
one per packet and draw, whose messages are dispatch's (``JUDGE_INSTRUCTIONS``
and the packet's bytes as UTF-8), generated with the draw as ``seed``. The
verdicts go back to ``judges.assurance.contrast`` (consensus flag per packet,
G per rendering and its cluster-bootstrap interval).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from orgbench.core.errors import InputError
from orgbench.harness.inspect_cargo import VERDICT_EPOCHS, judge_request


def contrast_task(suite_dir: Path, draws: int) -> Task:
    """The task over a trajectory suite's contrast cohort, ``draws`` answers per packet."""
    from benchmark_builders.trajectories.records import read_suite
    from judges.assurance.contrast import _blank
    from judges.assurance.dispatch import JUDGE_INSTRUCTIONS
    from judges.assurance.pack import read_pack
    from judges.assurance.pipeline import Controls, PipelineConfig, run_step
    from judges.assurance.pipeline_config import STEPS
    from judges.assurance.render import RENDERINGS
    from orgbench.core.jsonl import read_jsonl

    trajectories, _ = read_suite(suite_dir)
    clusters = {t.trajectory_id: t.cluster for t in trajectories}
    with tempfile.TemporaryDirectory(prefix="orgbench-inspect-contrast-") as tmp:
        cfg = PipelineConfig(Path(suite_dir), Path(tmp) / "work", Controls(3), draws=draws, renderings=RENDERINGS)
        for step in STEPS[:-1]:                       # build, check, stage, emit; inspect dispatches
            result = run_step(cfg, step)
            if result.return_code != 0:
                raise InputError(f"{suite_dir}: the contrast stopped at {step} ({result.requirement}): {result.reason}")
        jobs = read_jsonl(cfg.work / "build" / "jobs.jsonl").values
        staged = read_pack(cfg.work / "staged" / "packets.pack")
    samples = []
    for job in jobs:
        data = staged[f"{job['packet_id']}.txt"]
        for draw in range(draws):
            samples.append(Sample(
                id=f"{job['packet_id']}/{draw}",
                input=[ChatMessageSystem(content=JUDGE_INSTRUCTIONS), ChatMessageUser(content=data.decode("utf-8"))],
                metadata={"packet_id": job["packet_id"], "trajectory_id": job["trajectory_id"],
                          "cluster": clusters[job["trajectory_id"]], "target_kind": job["target_kind"],
                          "extent": job["extent"], "rendering": job["rendering"], "seed": draw, "blank": _blank(data)}))
    return Task(dataset=MemoryDataset(samples, name="assurance-contrast"), solver=judge_request(),
                scorer=packet_verdict(), metrics=[contrast_metric()], name="assurance_contrast",
                config=GenerateConfig(temperature=0.0), epochs=VERDICT_EPOCHS,
                metadata={"orgbench_contrast": {"suite": str(Path(suite_dir).resolve()), "draws": draws}})


@scorer(metrics=[])
def packet_verdict() -> Scorer:
    """The judge's verdict on one packet and draw (orgbench's parser)."""
    from judges.verdict import parse_verdict

    async def score(state: TaskState, target: Target) -> Score:
        verdict = parse_verdict(state.output.completion).verdict
        return Score(value=verdict, answer=verdict, explanation=state.output.completion,
                     metadata={**state.metadata, "verdict": verdict})

    return score


def judged_packets(scores: list[SampleScore]) -> list[Any]:
    """The packets' ``Judged`` records (verdicts in draw order) from the sample scores."""
    from judges.assurance.contrast import Judged

    packets: dict[str, dict[str, Any]] = {}
    for sample in scores:
        meta = sample.score.metadata or {}
        packets.setdefault(str(meta["packet_id"]), {**meta, "verdicts": {}})["verdicts"][int(meta["seed"])] = \
            str(meta["verdict"])
    return [Judged(m["trajectory_id"], m["cluster"], m["target_kind"], m["extent"], m["rendering"],
                   tuple(m["verdicts"][d] for d in sorted(m["verdicts"])), bool(m["blank"]), ())
            for _, m in sorted(packets.items())]


@metric(name="contrast")
def contrast_metric() -> Metric:
    """G per rendering (original, restored) and the reduction, each with its 95% cluster-bootstrap interval."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        from judges.assurance.contrast import contrast_summary

        if not scores:
            return {}
        summary = contrast_summary(judged_packets(scores))
        out: dict[str, float] = {}
        for name in ("original", "restored", "reduction"):
            out[f"G_{name}"] = float(summary["G"][name])
            low, high = summary["G_ci95"][name]
            out[f"G_{name}_ci_low"], out[f"G_{name}_ci_high"] = float(low), float(high)
        return out

    return compute
