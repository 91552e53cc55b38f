"""How a stage of the checked pipeline opens and finishes.

A stage opens by starting its record, reading the source once and checking
the stages before it (P1: each finished, succeeded and chains; P2: the
previous one's files unchanged); it writes its output folder durably and
finishes with its record (and, with a key, its signed link). The stages
themselves are ``judges.assurance.pipeline``'s and ``judges.assurance.dispatch``'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Sequence

from judges.assurance.checks import Finding
from judges.assurance.intoto import start_chain, write_layout, write_link
from judges.assurance.manifest import StepRecord, read_record, write_record
from judges.assurance.pack import write_pack
from judges.assurance.pipeline_config import CONTROLS, SCRIPT_SHARD, STEPS, PipelineConfig, StageRefused, StageResult
from judges.assurance.source import SourceSnapshot
from judges.assurance.workspace import Workspace, sync_directory, write_file
from orgbench.core.storage import staged_directory

__all__ = ["OpenStage", "finish_stage", "open_over", "open_stage", "read_manifest", "write_stage"]


def _start(cfg: PipelineConfig, step: str) -> None:
    write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", controls=cfg.controls.name))


def finish_stage(cfg: PipelineConfig, step: str, materials: Mapping[str, str], products: Mapping[str, str],
            failed: Sequence[Finding]) -> StageResult:
    result = StageResult(step, 1 if failed else 0, tuple(failed))
    write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", dict(materials), dict(products),
                                      result.return_code, cfg.controls.name, result.requirement, result.reason,
                                      tuple((f.requirement, f.detail) for f in failed)))
    if cfg.key is not None:
        if step == "build":
            write_layout(cfg.work, cfg.key, _required_files(products))
        write_link(cfg.work, cfg.key, step, materials, products, result.return_code)
    return result


def _required_files(build_products: Mapping[str, str]) -> tuple[str, ...]:
    """Every file a finished chain leaves in the workspace, as the build's products fix them (the layout's
    inspection requires each on disk)."""
    packets = sum(p.startswith("build/packets/") for p in build_products)
    shards = tuple(f"emit/scripts/shard-{i:04d}.jsonl" for i in range(-(-packets // SCRIPT_SHARD)))
    return ("build/packets.pack", "build/manifest.json", "build/jobs.jsonl", "build/report.json", "check/report.json",
            "staged/packets.pack", "staged/manifest.json", *shards, "dispatch/responses.jsonl",
            *(f"records/{s}.record.json" for s in STEPS), "journal/dispatch.jsonl",
            "journal/dispatch.seals.jsonl")


@dataclass(frozen=True)
class OpenStage:
    """A started stage: its workspace view, the previous stage's record and the source as read once."""

    ws: Workspace
    previous: StepRecord | None
    source: SourceSnapshot
    materials: dict[str, str]          # the source:* materials, from the snapshot's bytes


def open_stage(cfg: PipelineConfig, step: str) -> OpenStage:
    """Start ``step``'s record, read the source once and check the stages before it."""
    _start(cfg, step)
    if step == "build" and cfg.key is not None:
        start_chain(cfg.work)
    ws = Workspace(cfg.work, cfg.hasher, cfg.parsed)
    snapshot = SourceSnapshot.read(cfg.source, cfg.parsed)
    materials = snapshot.materials(cfg.hasher)
    return OpenStage(ws, _require_previous(cfg, step, ws, snapshot, materials), snapshot, materials)


def _require_previous(cfg: PipelineConfig, step: str, ws: Workspace, snapshot: SourceSnapshot,
                      materials: Mapping[str, str]) -> StepRecord | None:
    """Refuse (P1+) unless every earlier stage succeeded and chains; (P2+) unless the previous one is unchanged.

    Under every control a stage refuses to run under weaker controls than an earlier stage did.
    """
    index = STEPS.index(step)
    if index == 0:
        if cfg.controls.byte_checks:
            problems = snapshot.manifest_problems()
            if problems:
                raise StageRefused(step, "source-sealed", problems[0])
        return None
    previous = read_record(cfg.work, STEPS[index - 1])
    chain = [read_record(cfg.work, s) for s in STEPS[:index]]
    for record in chain:
        if record is not None and record.controls in CONTROLS and \
                CONTROLS.index(record.controls) > cfg.controls.level:
            raise StageRefused(step, "controls-not-weaker",
                               f"{record.step} ran under {record.controls}; {step} under the weaker "
                               f"{cfg.controls.name} would skip its checks: run {step} under {record.controls}")
    if not cfg.controls.stop_on_failure:
        return previous
    for name, record in zip(STEPS, chain):
        if record is None:
            raise StageRefused(step, "previous-step-succeeded", f"no {name} record: run {name} first")
        if record.return_code is None:
            raise StageRefused(step, "previous-step-succeeded", f"{name} started but never finished")
        if record.return_code != 0:
            raise StageRefused(step, "previous-step-succeeded",
                               f"{name} failed (return_code {record.return_code}, {record.requirement}: "
                               f"{record.reason}); refusing its outputs and any stale outputs of an earlier run")
        if (CONTROLS.index(record.controls) if record.controls in CONTROLS else -1) < cfg.controls.level:
            raise StageRefused(step, "controls-not-weaker",
                               f"{name} ran under {record.controls or 'unrecorded controls'}, weaker than "
                               f"{cfg.controls.name}: run it again under {cfg.controls.name}")
    records = [record for record in chain if record is not None]     # all of them: a missing one was refused above
    assert previous is not None and len(records) == len(chain)
    for earlier, later in zip(records, records[1:]):
        stale = [path for path, digest in earlier.products.items() if later.materials.get(path) != digest]
        if stale:
            raise StageRefused(step, "records-chain",
                               f"{later.step} record was made from other {earlier.step} outputs ({stale[0]}): "
                               f"stale output of an earlier run")
    for record in records:
        theirs = {k: v for k, v in record.materials.items() if k.startswith("source:")}
        if theirs != dict(materials):
            changed = sorted(k for k in set(theirs) | set(materials) if theirs.get(k) != materials.get(k))
            raise StageRefused(step, "source-materials-identical",
                               f"{record.step} read other source bytes ({changed[0]} differs): the source changed "
                               f"after {record.step} ran")
    if cfg.controls.byte_checks:
        listed = {p: d for p, d in {**previous.materials, **previous.products}.items() if not p.startswith("source:")}
        problems = ws.changed(listed)
        if problems:
            raise StageRefused(step, "previous-products-unchanged",
                               f"{previous.step} outputs changed since it ran: {problems[0]}")
    return previous


def write_stage(cfg: PipelineConfig, step: str, files: Mapping[str, bytes],
                 packs: Mapping[str, Mapping[str, bytes]] = {}, folders: tuple[str, ...] = ()) -> None:
    """Write a stage's output folder durably: files and packs fsynced, then renamed into place."""
    with staged_directory(cfg.work / step) as tmp:
        for folder in folders:
            (tmp / folder).mkdir()
        for rel, data in files.items():
            write_file(tmp, rel, data)
        for rel, members in packs.items():
            write_pack(tmp / rel, members, durable=True)
        sync_directory(tmp)
    sync_directory(cfg.work)


def read_manifest(ws: Workspace, rel: str) -> dict[str, str]:
    data = ws.read(rel)
    try:
        packets = json.loads(data)["packets"] if data is not None else {}
    except (ValueError, KeyError, TypeError):
        return {}
    return packets if isinstance(packets, dict) else {}


def open_over(cfg: PipelineConfig, step: str, folder: str) -> tuple[OpenStage, dict[str, str], list[str]]:
    """Run ``step``'s hook and open it over ``folder``: the stage, that folder's manifest and its packets' paths."""
    cfg.hook(f"before_{step}")
    opened = open_stage(cfg, step)
    manifest = read_manifest(opened.ws, f"{folder}/manifest.json")
    return opened, manifest, [rel[len(folder) + 1:] for rel in opened.ws.listing(f"{folder}/packets")]
