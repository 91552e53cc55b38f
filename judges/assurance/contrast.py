"""The later-context contrast: how moving from prefix to full packets changes error flags.

For each trajectory of a cohort, the error and comparison targets are judged
in prefix and full packets, in the original rendering (calls omitted) and the
restored one. A consensus flag needs every draw to answer ``fail``. Per
rendering, G = (F_E - P_E) - (F_C - P_C), where F and P count consensus flags
in full and prefix packets and E and C are error and comparison targets.
Uncertainty comes from a cluster bootstrap over shared user requests
(resampling clusters with replacement, all of a cluster's trajectories and
packets together). The packets are built, checked, staged, emitted and
dispatched by the checked pipeline under P3: the judge reads only verified
buffers, and a failing packet stops the contrast with the failure named.

The contrast resumes: dispatch journals every answer (``judges.journal``) at
``journal`` -- kept beside the contrast's output, not in its workspace, which
is rebuilt from nothing each run -- bound by its header to the judge, the
controls and the SHA-256 of every buffer handed. A killed contrast run again
rebuilds the same packets, asks the judge only what the journal does not
hold, and writes what an uninterrupted run writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from benchmark_builders.trajectories.records import StepLabels, Trajectory, read_suite
from judges.assurance.checks import parse_packet
from judges.assurance.pack import read_pack
from judges.assurance.pipeline import Controls, PipelineConfig, RenderHook, clear_workspace, run_pipeline
from judges.assurance.render import EXTENTS, RENDERINGS
from judges.assurance.targets import TARGET_KINDS, select_targets
from judges.backends.base import JudgeBackend
from judges.bootstrap import cluster_interval, draws
from judges.verdict import parse_verdict
from orgbench.core.jsonl import read_jsonl
from orgbench.core.tables import Table
from orgbench.core.errors import OrgbenchError


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


class ContrastStopped(OrgbenchError):
    """The checked pipeline stopped the contrast: a packet (or a stage) failed; carries the step and requirement."""

    def __init__(self, step: str, requirement: str, reason: str) -> None:
        super().__init__(f"contrast stopped at {step} ({requirement}): {reason}")
        self.step, self.requirement, self.reason = step, requirement, reason


def judge_cohort(source: Path, work: Path, backend: JudgeBackend, *, draws: int = 2,
                 render_hook: RenderHook | None = None, journal: Path | None = None) -> list[Judged]:
    """Build, check, stage, emit and dispatch all eight packets per trajectory under P3, then read the verdicts.

    The judge reads only staged buffers that were verified; any failed check or refusal stops the contrast
    (``ContrastStopped``), so no number is computed from a packet that failed. ``render_hook`` alters packets
    during build (tests only). The answers are journaled at ``journal`` (default: beside ``work``) until dispatch
    writes them all, so a rerun after a kill asks only what was not answered.
    """
    clear_workspace(work)
    cfg = PipelineConfig(Path(source), Path(work), Controls(3), draws=draws, renderings=RENDERINGS,
                         render_hook=render_hook, journal=journal)
    outcome = run_pipeline(cfg, backend)
    if outcome.stopped_at:
        raise ContrastStopped(outcome.stopped_at, outcome.stopped_by, outcome.reason)
    trajectories, _ = read_suite(source)
    clusters = {t.trajectory_id: t.cluster for t in trajectories}
    jobs = read_jsonl(Path(work) / "build" / "jobs.jsonl").values
    staged = read_pack(Path(work) / "staged" / "packets.pack")
    verdicts: dict[str, list[str]] = {}
    for row in read_jsonl(Path(work) / "dispatch" / "responses.jsonl").values:
        verdicts.setdefault(row["job_id"], []).append(parse_verdict(row["response"]).verdict)
    out = []
    for job in jobs:
        data = staged[f"{job['packet_id']}.txt"]
        out.append(Judged(job["trajectory_id"], clusters[job["trajectory_id"]], job["target_kind"], job["extent"],
                          job["rendering"], tuple(verdicts.get(job["packet_id"], ())), _blank(data), (), data))
    return out


#: How a cell's flags enter G = (F_E - P_E) - (F_C - P_C), by (target kind, extent).
CELL_SIGN = {("error", "full"): 1, ("error", "prefix"): -1, ("comparison", "full"): -1, ("comparison", "prefix"): 1}


def _per_cluster(judged: Sequence[Judged], rendering: str) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster (shared user request, sorted): the summed (F_E - P_E) - (F_C - P_C) and its trajectory count."""
    members: dict[str, set[str]] = {}
    for j in judged:
        members.setdefault(j.cluster, set()).add(j.trajectory_id)
    clusters = sorted(members)
    contrib = {c: 0 for c in clusters}
    for j in judged:
        if j.rendering == rendering and j.flag:
            contrib[j.cluster] += CELL_SIGN[(j.target_kind, j.extent)]
    return (np.array([contrib[c] for c in clusters], dtype=float),
            np.array([len(members[c]) for c in clusters], dtype=float))


def contrast_summary(judged: Sequence[Judged], *, resamples: int = 2000, seed: int = 0) -> dict:
    """Flags per cell, G per rendering, the reduction, and 95% intervals from a bootstrap over clusters.

    A resample draws clusters (shared user requests) with replacement and keeps every trajectory of a drawn
    cluster together; the statistic is G per trajectory of the resample (and G scaled to the cohort's size).
    """
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
    original, sizes = _per_cluster(judged, "original")
    restored, _ = _per_cluster(judged, "restored")
    n = int(sizes.sum())
    k = len(sizes)
    drawn = draws(k, resamples, seed)

    def interval(values: np.ndarray, scale: float = 1.0) -> list[float]:
        return cluster_interval(values, sizes, drawn, scale)

    def g(rendering: str) -> int:
        c = lambda kind, extent: cells[f"{rendering}.{kind}.{extent}"]["flags"]
        return (c("error", "full") - c("error", "prefix")) - (c("comparison", "full") - c("comparison", "prefix"))

    def mean(values: np.ndarray) -> float:
        return round(float(values.sum() / n), 4) if n else 0.0

    return {
        "trajectories": n,
        "clusters_by_request": k,
        "cells": cells,
        "G": {"original": g("original"), "restored": g("restored"), "reduction": g("original") - g("restored")},
        "G_ci95": {"original": interval(original, n), "restored": interval(restored, n),
                   "reduction": interval(original - restored, n)},
        "per_trajectory": {
            "original": {"mean": mean(original), "ci95": interval(original)},
            "restored": {"mean": mean(restored), "ci95": interval(restored)},
            "reduction": {"mean": mean(original - restored), "ci95": interval(original - restored)},
        },
        "bootstrap": {"resamples": resamples, "seed": seed, "cluster": "shared user request",
                      "clusters": k},
    }


def contrast_table(summary: dict) -> str:
    """The contrast as Markdown: flags per cell (original -> restored) and G with intervals."""
    cells = summary["cells"]
    flags = []
    for kind in TARGET_KINDS:
        for extent in EXTENTS:
            o, r = cells[f"original.{kind}.{extent}"], cells[f"restored.{kind}.{extent}"]
            flags.append([kind, extent, f"{o['flags']} / {o['targets']}", f"{r['flags']} / {r['targets']}",
                          o["blank_targets"]])
    g, per = summary["G"], summary["per_trajectory"]
    rows = []
    for name in ("original", "restored", "reduction"):
        lo, hi = per[name]["ci95"]
        glo, ghi = summary["G_ci95"][name]
        rows.append([name, g[name], f"{glo:.1f} to {ghi:.1f}", f"{per[name]['mean']:.3f}", f"{lo:.3f} to {hi:.3f}"])
    title = (f"G = (F_E - P_E) - (F_C - P_C) over {summary['trajectories']} trajectories in "
             f"{summary['clusters_by_request']} clusters (shared user requests):")
    cell_table = Table.from_lists(("target", "extent", "flags original", "flags restored", "blank targets (original)"),
                                  flags)
    g_table = Table.from_lists(("rendering", "G", "G 95% CI", "per trajectory", "95% CI per trajectory"), rows,
                               title=title)
    return cell_table.to_markdown() + "\n" + g_table.to_markdown(heading="")


def flags_csv(judged: Sequence[Judged]) -> str:
    """One row per judged packet: cell, draws' verdicts, consensus flag, blank target, failed checks."""
    rows = [[j.trajectory_id, j.cluster, j.target_kind, j.extent, j.rendering, "|".join(j.verdicts),
             str(j.flag).lower(), str(j.blank_target).lower(), "|".join(j.checks_failed)]
            for j in sorted(judged, key=lambda j: (j.trajectory_id, j.target_kind, j.extent, j.rendering))]
    return Table(("trajectory_id", "cluster", "target_kind", "extent", "rendering", "verdicts", "flag",
                  "blank_target", "checks_failed"), tuple(map(tuple, rows))).to_csv()


#: The paper's J0 figures (30 trajectories): G per rendering and per-trajectory 95% cluster-bootstrap intervals.
PAPER_J0 = (("original", 13, round(13 / 30, 3), "", ""), ("restored", 2, round(2 / 30, 3), -0.05, 0.21),
            ("reduction", 11, round(11 / 30, 3), 0.17, 0.53))


def _g_rows(summary: dict, judge: str, ci: Callable[[Any, Any], str | tuple[str, str]]) -> list[list[str]]:
    """G per rendering, ours then the paper's J0, with the interval as ``ci(low, high)`` gives it."""
    rows = []
    for name in ("original", "restored", "reduction"):
        per = summary["per_trajectory"][name]
        low, high = f"{per['ci95'][0]:.3f}", f"{per['ci95'][1]:.3f}"
        rows.append([f"orgbench ({judge})", name, str(summary["G"][name]), f"{per['mean']:.3f}", *_cells(ci(low, high)),
                     str(summary["trajectories"])])
    for name, g, mean, lo, hi in PAPER_J0:
        rows.append(["paper (J0)", name, str(g), f"{mean:.3f}", *_cells(ci(lo, hi)), "30"])
    return rows


def _cells(value: str | tuple[str, str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


def contrast_csv(summary: dict, judge: str) -> str:
    """G per rendering, ours beside the paper's J0, as CSV."""
    rows = _g_rows(summary, judge, lambda lo, hi: (str(lo), str(hi)))
    return Table(("source", "rendering", "G", "per_trajectory", "ci95_low", "ci95_high", "trajectories"),
                 tuple(map(tuple, rows))).to_csv()


def contrast_latex(summary: dict, judge: str) -> str:
    """G per rendering, ours beside the paper's J0, as a booktabs LaTeX table (the style of the CARGO tables)."""
    rows = _g_rows(summary, judge, lambda lo, hi: f"{lo} to {hi}" if lo != "" else "--")
    title = (f"Later-context contrast G = (F_E - P_E) - (F_C - P_C) over {summary['trajectories']} trajectories, "
             f"original (calls omitted) and restored packets; ours ({judge}, {summary.get('draws', '?')} draws) "
             "beside the paper's J0")
    return Table(("source", "rendering", "G", "per trajectory", "95% cluster-bootstrap CI", "trajectories"),
                 tuple(map(tuple, rows)), title=title, align="llrrlr").to_latex()


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
