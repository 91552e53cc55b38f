"""The later-context contrast: how moving from prefix to full packets changes error flags.

For each trajectory of a cohort, the error and comparison targets are judged
in prefix and full packets, in the original rendering (calls omitted) and the
restored one. A consensus flag needs every draw to answer ``fail``. Per
rendering, G = (F_E - P_E) - (F_C - P_C), where F and P count consensus flags
in full and prefix packets and E and C are error and comparison targets.
Uncertainty comes from a cluster bootstrap over trajectories (resampling
trajectories with replacement, all of a trajectory's packets together).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from benchmark_builders.trajectories.records import StepLabels, Trajectory
from judges.assurance.checks import check_packet, failures, parse_packet
from judges.assurance.pipeline import JUDGE_INSTRUCTIONS, gather_then_close
from judges.assurance.render import EXTENTS, RENDERINGS, PacketSpec, render_packet
from judges.assurance.targets import TARGET_KINDS, select_targets
from judges.backends import FatalBackendError
from judges.backends.base import BackendError, GenerationParams, JudgeBackend, JudgeRequest, Message
from judges.verdict import parse_verdict
from simulator.errors import InputError


@dataclass(frozen=True, slots=True)
class Judged:
    """One packet's judgement: its cell, its verdicts per draw, and the consensus flag."""

    trajectory_id: str
    cluster: str
    target_kind: str
    extent: str
    rendering: str
    verdicts: tuple[str, ...]
    blank_target: bool
    checks_failed: tuple[str, ...]
    packet: bytes = b""

    @property
    def flag(self) -> bool:
        """Consensus error flag: every draw answered fail."""
        return bool(self.verdicts) and all(v == "fail" for v in self.verdicts)


def _blank(data: bytes) -> bool:
    """True when the target step shows neither text nor a call."""
    blocks, _ = parse_packet(data)
    kinds = [b.kind for b in blocks]
    if "begin" not in kinds:
        return False
    inner = blocks[kinds.index("begin") + 1:kinds.index("end")] if "end" in kinds else []
    return not any(b.kind in ("text", "call") and (b.kind == "call" or b.payload.strip()) for b in inner)


def cohort(trajectories: Sequence[Trajectory], labels: dict[str, StepLabels]) -> list[tuple[Trajectory, dict]]:
    """Trajectories with both targets, each with {target kind: message index}."""
    out = []
    for trajectory in trajectories:
        if trajectory.trajectory_id not in labels:
            continue
        targets = select_targets(trajectory, labels[trajectory.trajectory_id])
        if targets is not None:
            out.append((trajectory, {"error": targets.error, "comparison": targets.comparison}))
    return out


async def _judge(backend: JudgeBackend, packets: list[bytes], draws: int, concurrency: int) -> list[list[str]]:
    gate = asyncio.Semaphore(concurrency)
    system = Message("system", JUDGE_INSTRUCTIONS)

    async def one(data: bytes, draw: int) -> str:
        async with gate:
            try:
                response = await backend.complete(JudgeRequest((system, Message("user", data)),
                                                               GenerationParams(seed=draw)))
            except FatalBackendError as exc:    # bad key, no endpoint: no other packet would fare better
                raise InputError(f"--base-url: {exc}") from None
            except BackendError:
                return "error"          # recorded, never counted as a flag
            return parse_verdict(response.text).verdict

    flat = await gather_then_close([one(data, d) for data in packets for d in range(draws)], backend)
    return [list(flat[i * draws:(i + 1) * draws]) for i in range(len(packets))]


def judge_cohort(trajectories: Sequence[Trajectory], labels: dict[str, StepLabels], backend: JudgeBackend,
                 *, draws: int = 2, concurrency: int = 32) -> list[Judged]:
    """Render all eight packets per trajectory, check them, and judge each ``draws`` times."""
    specs, packets, meta = [], [], []
    for trajectory, targets in cohort(trajectories, labels):
        for kind in TARGET_KINDS:
            for extent in EXTENTS:
                for rendering in RENDERINGS:
                    spec = PacketSpec(trajectory.trajectory_id, targets[kind], kind, extent, rendering)
                    data = render_packet(trajectory, spec)
                    failed = tuple(sorted({f.requirement for f in failures(check_packet(data, trajectory, spec))}))
                    specs.append(spec)
                    packets.append(data)
                    meta.append((trajectory.cluster, _blank(data), failed))
    verdicts = asyncio.run(_judge(backend, packets, draws, concurrency)) if packets else []
    return [Judged(s.trajectory_id, cluster, s.target_kind, s.extent, s.rendering, tuple(v), blank, failed, data)
            for s, v, (cluster, blank, failed), data in zip(specs, verdicts, meta, packets)]


def _per_trajectory(judged: Sequence[Judged], rendering: str) -> tuple[list[str], np.ndarray]:
    """Trajectory ids and each one's (F_E - P_E) - (F_C - P_C) contribution for a rendering."""
    ids = sorted({j.trajectory_id for j in judged})
    sign = {("error", "full"): 1, ("error", "prefix"): -1, ("comparison", "full"): -1, ("comparison", "prefix"): 1}
    contrib = {t: 0 for t in ids}
    for j in judged:
        if j.rendering == rendering and j.flag:
            contrib[j.trajectory_id] += sign[(j.target_kind, j.extent)]
    return ids, np.array([contrib[t] for t in ids], dtype=float)


def contrast_summary(judged: Sequence[Judged], *, resamples: int = 2000, seed: int = 0) -> dict:
    """Flags per cell, G per rendering, the reduction, and cluster-bootstrap 95% intervals per trajectory."""
    cells = {}
    for rendering in RENDERINGS:
        for kind in TARGET_KINDS:
            for extent in EXTENTS:
                chosen = [j for j in judged if (j.rendering, j.target_kind, j.extent) == (rendering, kind, extent)]
                cells[f"{rendering}.{kind}.{extent}"] = {
                    "flags": sum(j.flag for j in chosen), "targets": len(chosen),
                    "blank_targets": sum(j.blank_target for j in chosen),
                    "abstained_any_draw": sum("cannot_decide" in j.verdicts for j in chosen),
                    "packets_failing_checks": sum(bool(j.checks_failed) for j in chosen)}
    ids, original = _per_trajectory(judged, "original")
    _, restored = _per_trajectory(judged, "restored")
    n = len(ids)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(resamples, n)) if n else np.zeros((0, 0), dtype=int)

    def interval(values: np.ndarray) -> list[float]:
        if n == 0:
            return [0.0, 0.0]
        means = values[draws].mean(axis=1)
        return [round(float(np.quantile(means, 0.025)), 4), round(float(np.quantile(means, 0.975)), 4)]

    def g(rendering: str) -> int:
        c = lambda kind, extent: cells[f"{rendering}.{kind}.{extent}"]["flags"]
        return (c("error", "full") - c("error", "prefix")) - (c("comparison", "full") - c("comparison", "prefix"))

    return {
        "trajectories": n,
        "clusters_by_request": len({j.cluster for j in judged}),
        "cells": cells,
        "G": {"original": g("original"), "restored": g("restored"), "reduction": g("original") - g("restored")},
        "per_trajectory": {
            "original": {"mean": round(float(original.mean()), 4) if n else 0.0, "ci95": interval(original)},
            "restored": {"mean": round(float(restored.mean()), 4) if n else 0.0, "ci95": interval(restored)},
            "reduction": {"mean": round(float((original - restored).mean()), 4) if n else 0.0,
                          "ci95": interval(original - restored)},
        },
        "bootstrap": {"resamples": resamples, "seed": seed, "cluster": "trajectory"},
    }


def contrast_table(summary: dict) -> str:
    """The contrast as Markdown: flags per cell (original -> restored) and G with intervals."""
    cells = summary["cells"]
    lines = ["| target | extent | flags original | flags restored | blank targets (original) |",
             "|---|---|---|---|---|"]
    for kind in TARGET_KINDS:
        for extent in EXTENTS:
            o, r = cells[f"original.{kind}.{extent}"], cells[f"restored.{kind}.{extent}"]
            lines.append(f"| {kind} | {extent} | {o['flags']} / {o['targets']} | {r['flags']} / {r['targets']} | "
                         f"{o['blank_targets']} |")
    g, per = summary["G"], summary["per_trajectory"]
    lines += ["", f"G = (F_E - P_E) - (F_C - P_C) over {summary['trajectories']} trajectories:", "",
              "| rendering | G | per trajectory | 95% cluster-bootstrap CI |", "|---|---|---|---|"]
    for name in ("original", "restored", "reduction"):
        lo, hi = per[name]["ci95"]
        lines.append(f"| {name} | {g[name]} | {per[name]['mean']:.3f} | {lo:.3f} to {hi:.3f} |")
    return "\n".join(lines) + "\n"


def flags_csv(judged: Sequence[Judged]) -> str:
    """One row per judged packet: cell, draws' verdicts, consensus flag, blank target, failed checks."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["trajectory_id", "cluster", "target_kind", "extent", "rendering", "verdicts", "flag",
                     "blank_target", "checks_failed"])
    for j in sorted(judged, key=lambda j: (j.trajectory_id, j.target_kind, j.extent, j.rendering)):
        writer.writerow([j.trajectory_id, j.cluster, j.target_kind, j.extent, j.rendering, "|".join(j.verdicts),
                         str(j.flag).lower(), str(j.blank_target).lower(), "|".join(j.checks_failed)])
    return buffer.getvalue()


#: The paper's J0 figures (30 trajectories): G per rendering and per-trajectory 95% cluster-bootstrap intervals.
PAPER_J0 = (("original", 13, round(13 / 30, 3), "", ""), ("restored", 2, round(2 / 30, 3), -0.05, 0.21),
            ("reduction", 11, round(11 / 30, 3), 0.17, 0.53))


def contrast_csv(summary: dict, judge: str) -> str:
    """G per rendering, ours beside the paper's J0, as CSV."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["source", "rendering", "G", "per_trajectory", "ci95_low", "ci95_high", "trajectories"])
    for name in ("original", "restored", "reduction"):
        per = summary["per_trajectory"][name]
        writer.writerow([f"orgbench ({judge})", name, summary["G"][name], f"{per['mean']:.3f}",
                         f"{per['ci95'][0]:.3f}", f"{per['ci95'][1]:.3f}", summary["trajectories"]])
    for name, g, mean, lo, hi in PAPER_J0:
        writer.writerow(["paper (J0)", name, g, f"{mean:.3f}", lo, hi, 30])
    return buffer.getvalue()


def contrast_latex(summary: dict, judge: str) -> str:
    """G per rendering, ours beside the paper's J0, as a booktabs LaTeX table (the style of the CARGO tables)."""
    def tex(text: str) -> str:
        return str(text).replace("&", "\\&").replace("%", "\\%").replace("_", "\\_").replace("#", "\\#")

    rows = []
    for name in ("original", "restored", "reduction"):
        per = summary["per_trajectory"][name]
        rows.append([f"orgbench ({judge})", name, summary["G"][name], f"{per['mean']:.3f}",
                     f"{per['ci95'][0]:.3f} to {per['ci95'][1]:.3f}", summary["trajectories"]])
    for name, g, mean, lo, hi in PAPER_J0:
        rows.append(["paper (J0)", name, g, f"{mean:.3f}", f"{lo} to {hi}" if lo != "" else "--", 30])
    lines = ["\\begin{table}[t]", "\\centering", "\\small", "\\begin{tabular}{llrrlr}", "\\toprule",
             "source & rendering & G & per trajectory & 95\\% cluster-bootstrap CI & trajectories \\\\", "\\midrule"]
    lines += [" & ".join(tex(c) for c in row) + " \\\\" for row in rows]
    lines += ["\\bottomrule", "\\end{tabular}",
              f"\\caption{{Later-context contrast G = (F\\_E - P\\_E) - (F\\_C - P\\_C) over "
              f"{summary['trajectories']} trajectories, original (calls omitted) and restored packets; "
              f"ours ({tex(judge)}, {summary.get('draws', '?')} draws) beside the paper's J0}}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def drilldown_records(judged: Sequence[Judged]) -> list[dict]:
    """Report drill-down rows for prefix packets: the cell, the verdicts, and the packet text the judge read."""
    rows = []
    for j in sorted(judged, key=lambda j: (j.trajectory_id, j.target_kind, j.extent, j.rendering)):
        if j.extent != "prefix":
            continue
        rows.append({
            "id": f"{j.trajectory_id}.{j.target_kind}.{j.extent}.{j.rendering}",
            "title": f"{j.trajectory_id}: {j.target_kind} target, {j.extent} packet, {j.rendering} rendering",
            "fields": {"kind": "packet", "case": j.trajectory_id, "control": j.rendering,
                       "mode": f"{j.target_kind} {j.extent}",
                       "outcome": "flag" if j.flag else "|".join(j.verdicts)},
            "sections": [{"heading": "Verdicts per draw", "text": ", ".join(j.verdicts)},
                         {"heading": "Target step blank", "text": str(j.blank_target).lower()},
                         {"heading": "Checks failed", "text": ", ".join(j.checks_failed) or "none"},
                         {"heading": "Packet", "text": j.packet.decode("utf-8", "replace")}],
        })
    return rows
