"""The checked pipeline: build -> check -> stage -> emit -> dispatch, with controls P0..P3.

Workspace layout (one directory)::

    records/<step>.record.json     step records (in-toto link shape)
    build/packets.pack             rendered packets (member NAME = build/packets/NAME; see pack.py)
    build/manifest.json            exact-byte hashes recorded at build
    build/jobs.jsonl               packet specs       build/report.json    inline-check findings
    check/report.json              the disk check: source records and packets reread from disk
    staged/packets.pack            copies for the judge (staged/packets/NAME), staged/manifest.json
    emit/scripts/shard-NNNN.jsonl  dispatch scripts: one job per line (packet path, hash, draws)
    dispatch/responses.jsonl       what the judge was handed (hash) and answered

Controls are cumulative. P0: every stage runs whatever the earlier ones did
(the unguarded pipeline). P1: a stage refuses unless every earlier record
exists, finished with return code 0 under controls at least as strong as its
own, and chains to its predecessor (its materials are the predecessor's
products); a failed check stops the stage and writes nothing but its record,
which lists every failure found. P2: a stage also refuses if the previous stage's materials or
products changed on disk; dispatch admits exactly the emitted scripts and
staged files, verifies each packet's exact bytes immediately before handing
that same buffer to the backend, and the recording stub re-checks at read.
P3: reverse call/result matching (every result answers a call, user calls
included). Packets are always hashed as exact bytes.

Durability: a stage writes its outputs into a temporary folder, fsyncs each
file (a pack is one file) and the folder, renames it into place, fsyncs the
workspace, and only then writes its finishing record (atomically, fsynced).
A crash therefore leaves at worst a record with no return code, which later
stages refuse, never a record claiming products that are not on disk.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from benchmark_builders.trajectories.records import TRAJECTORIES_FILE
from judges.assurance.dispatch import JUDGE_INSTRUCTIONS, dispatch
from judges.assurance.checks import (Finding, check_packet, check_source, excluded_values, original_holds,
                                     packet_contract, packet_holds, packet_requirement_count)
from judges.assurance.manifest import StepRecord, read_record, write_record
from judges.assurance.disk_check import audit_on_disk, inline_again, job_specs, source_contract_problems
from judges.assurance.render import PACKET_FORMAT, PacketSpec, render_packets
from judges.assurance.targets import select_targets  # noqa: F401  (the mutation cases patch it here)
from judges.assurance.stage_protocol import finish_stage, open_over, open_stage, read_manifest, write_stage
from orgbench.core.collector import collector_paused
from judges.assurance.pipeline_config import (CONTROLS, PIPELINE_REQUIREMENTS, SCRIPT_SHARD, STEPS, Controls, Hook,
                                              PipelineConfig, RenderHook, StageRefused, StageResult, TAMPER_CHECKS)
from judges.backends.base import JudgeBackend
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps, dumps_pretty

__all__ = ["CONTROLS", "JUDGE_INSTRUCTIONS", "PIPELINE_REQUIREMENTS", "SCRIPT_SHARD", "STEPS", "Controls", "Hook",
           "PipelineConfig", "RenderHook", "RunOutcome", "StageRefused", "StageResult", "build", "check",
           "clear_workspace", "dispatch", "emit", "run_pipeline", "run_step", "stage"]

@collector_paused()
def build(cfg: PipelineConfig) -> StageResult:
    """Render every packet of the cohort, check it inline, and record exact-byte hashes."""
    cfg.hook("before_build")
    if not (Path(cfg.source) / TRAJECTORIES_FILE).is_file():
        raise InputError(f"{Path(cfg.source) / TRAJECTORIES_FILE}: file not found (--source must be a trajectory suite)")
    opened = open_stage(cfg, "build")
    trajectories, labels = opened.source.trajectories(), opened.source.labels()
    specs, packets = [], {}
    findings: list[Finding] = []
    passed = 0                                     # requirements that held on packets equal to the contract's
    inline = "inline" in cfg.checkers
    try:
        for trajectory in trajectories:
            targets = cfg.selector(trajectory, labels[trajectory.trajectory_id]) \
                if trajectory.trajectory_id in labels else None
            if targets is None:
                continue
            if inline:
                findings.extend(check_source(trajectory, reverse=cfg.reverse))
            mine = [PacketSpec(trajectory.trajectory_id, index, kind, extent, rendering)
                    for kind, index in (("error", targets.error), ("comparison", targets.comparison))
                    for extent in cfg.extents for rendering in cfg.renderings]
            rendered = render_packets(trajectory, mine, opened.source.derived("packets", trajectory.trajectory_id, dict))
            if cfg.render_hook is not None:
                rendered = [cfg.render_hook(spec, data) for spec, data in zip(mine, rendered)]
            contract = opened.source.derived("contract", trajectory.trajectory_id,      # the inline check's,
                                             lambda: packet_contract(trajectory)) if inline else None  # from the source
            for spec, data in zip(mine, rendered):
                if not inline:
                    pass
                elif spec.rendering == "original":       # asked for: held to the calls-omitted contract
                    if original_holds(data, trajectory, spec):
                        passed += 1
                    else:
                        findings.append(Finding("messages-in-order", False, "original packet differs from its "
                                                "contract (every message as the source, calls omitted)",
                                                spec.packet_id))
                elif packet_holds(data, trajectory, spec, contract):
                    passed += packet_requirement_count()
                else:
                    findings.extend(check_packet(data, trajectory, spec, contract,
                                                 excluded_values(labels[trajectory.trajectory_id])))
                specs.append(spec)
                packets[spec.filename] = data
    except Exception as exc:  # a renderer crash is a failed build that writes nothing
        return finish_stage(cfg, "build", opened.materials, {}, [Finding.failed("render-completed", f"renderer failed: {exc}")])
    failed = [Finding.failed(f.requirement, f"{f.subject}: {f.detail}") for f in findings if not f.ok]
    if failed and cfg.controls.stop_on_failure:
        return finish_stage(cfg, "build", opened.materials, {}, failed)
    products, hashes = {}, {}
    for name in sorted(packets):                  # hashed from the very buffers that are written
        hashes[f"packets/{name}"] = products[f"build/packets/{name}"] = cfg.hasher(packets[name])
    extra = {"manifest.json": dumps_pretty({"packets": hashes, "packet_format": PACKET_FORMAT}).encode("utf-8"),
             "jobs.jsonl": "".join(dumps(s.to_json()) + "\n" for s in specs).encode("utf-8"),
             "report.json": dumps_pretty({"findings": [f.to_json() for f in findings if not f.ok],
                                          "checked": len(findings) + passed}).encode("utf-8")}
    for name, data in extra.items():
        products[f"build/{name}"] = cfg.hasher(data)
    write_stage(cfg, "build", extra, {"packets.pack": packets})
    return finish_stage(cfg, "build", opened.materials, products, failed)


@collector_paused()
def check(cfg: PipelineConfig) -> StageResult:
    """The disk check: reread source records and packets, verify bytes and every requirement."""
    cfg.hook("before_check")
    opened = open_stage(cfg, "check")
    ws = opened.ws
    failed = [Finding.failed("source-sealed", p) for p in opened.source.manifest_problems()]
    manifest = read_manifest(ws, "build/manifest.json")
    rows, specs = job_specs(ws.read("build/jobs.jsonl") or b"", cfg.parsed)
    if not specs:
        failed.append(Finding.failed("packet-bytes-match-manifest",
                                     "no packets to check (build/jobs.jsonl missing or empty)"))
    for spec in specs:
        rel = f"packets/{spec.filename}"
        if ws.read(f"build/{rel}") is None:
            failed.append(Finding.failed("packet-bytes-match-manifest", f"build/{rel} missing"))
        elif ws.digest(f"build/{rel}") != manifest.get(rel):
            failed.append(Finding.failed("packet-bytes-match-manifest",
                                         f"build/{rel}: bytes differ from build/manifest.json"))
    flags: list[Finding] = []
    checked = 0
    for name in cfg.disk_checkers:
        found, flagged, count = (audit_on_disk(opened.source, ws, rows, specs, cfg.extents, cfg.renderings,
                                               cfg.reverse)
                                 if name == "audit" else inline_again(opened.source, ws, specs, cfg.reverse))
        failed += found
        flags += flagged
        checked += count
    report = dumps_pretty({"failed": [{"requirement": f.requirement, "detail": f.detail} for f in failed],
                           "flags": [f.to_json() for f in flags], "checked": checked}).encode("utf-8")
    write_stage(cfg, "check", {"report.json": report})
    materials = {**opened.materials, **ws.products("build")}
    return finish_stage(cfg, "check", materials, {"check/report.json": cfg.hasher(report)}, failed)


@collector_paused()
def stage(cfg: PipelineConfig) -> StageResult:
    """Copy the built packets for the judge, admitting exactly the expected files with their exact bytes."""
    opened, manifest, present = open_over(cfg, "stage", "build")
    ws = opened.ws
    failed: list[Finding] = []
    missing = sorted(set(manifest) - set(present))
    extra = sorted(set(present) - set(manifest))
    if missing or extra or not manifest:
        failed.append(Finding.failed("staged-files-exact", f"missing {missing[:3]}, not in the build manifest "
                                     f"{extra[:3]}" if manifest else "build/manifest.json missing or empty"))
    admitted = present if not cfg.controls.stop_on_failure else sorted(set(present) & set(manifest))
    members: dict[str, bytes] = {}
    for rel in admitted:
        data = ws.read(f"build/{rel}")
        folder, _, name = rel.rpartition("/")
        if data is None or folder != "packets":
            failed.append(Finding.failed("staged-files-exact", f"build/{rel}: not a readable packet"))
            continue
        if rel in manifest and ws.digest(f"build/{rel}") != manifest[rel]:
            failed.append(Finding.failed("staged-bytes-match-manifest",
                                         f"{rel}: bytes differ from the hash recorded at build"))
        members[name] = data                                  # the very buffer hashed and checked here
    if cfg.controls.byte_checks and not failed:   # P2+: what is staged is what the source requires, job by job
        rows, specs = job_specs(ws.read("build/jobs.jsonl") or b"", cfg.parsed)
        if "inline" in cfg.checkers:
            failed.extend(source_contract_problems(opened.source, rows, members))
        elif "audit" in cfg.checkers:             # the inline checker switched off (study variant): the audit's
            found, _, _ = audit_on_disk(opened.source, ws, rows, specs, cfg.extents, cfg.renderings, cfg.reverse,
                                        members)
            failed.extend(Finding.failed("staged-packets-match-source", f"{f.requirement}: {f.detail}")
                          for f in found)
    products: dict[str, str] = {}
    if not (failed and cfg.controls.stop_on_failure):
        hashes = {}
        for name in members:
            rel = f"packets/{name}"
            digest = ws.digest(f"build/{rel}")
            assert digest is not None, rel      # the build stage staged every member it lists
            hashes[rel] = products[f"staged/{rel}"] = digest
        manifest_bytes = dumps_pretty({"packets": hashes}).encode("utf-8")
        products["staged/manifest.json"] = cfg.hasher(manifest_bytes)
        write_stage(cfg, "staged", {"manifest.json": manifest_bytes}, {"packets.pack": members})
    materials = {**opened.materials, **ws.products("build"), **ws.products("check")}
    return finish_stage(cfg, "stage", materials, products, failed)


@collector_paused()
def emit(cfg: PipelineConfig) -> StageResult:
    """Turn the staged packets into dispatch scripts (JSON lines: packet path, exact-byte hash, draws)."""
    opened, staged, packets = open_over(cfg, "emit", "staged")
    ws = opened.ws
    failed = [] if packets else [Finding.failed("staged-files-exact", "nothing staged")]
    products: dict[str, str] = {}
    scripts: dict[str, bytes] = {}
    jobs = [dumps({"job_id": rel[len("packets/"):-len(".txt")], "packet": f"staged/{rel}",
                   "sha256": staged.get(rel), "draws": cfg.draws}) + "\n" for rel in packets]
    for shard in range(0, len(jobs), SCRIPT_SHARD):
        rel = f"scripts/shard-{shard // SCRIPT_SHARD:04d}.jsonl"
        scripts[rel] = data = "".join(jobs[shard:shard + SCRIPT_SHARD]).encode("utf-8")
        products[f"emit/{rel}"] = cfg.hasher(data)
    write_stage(cfg, "emit", scripts, folders=("scripts",))
    return finish_stage(cfg, "emit", {**opened.materials, **ws.products("staged")}, products, failed)


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """A whole run: every stage's result, and where (and by which requirement) it was stopped."""

    results: tuple[StageResult, ...]
    stopped_at: str = ""
    stopped_by: str = ""
    reason: str = ""


def run_step(cfg: PipelineConfig, step: str, backend: JudgeBackend | None = None) -> StageResult:
    """Run one stage; a refusal is recorded (return code 3, or 4 when tampering was found) and re-raised, and so is
    bad input met after the stage started (return code 2)."""
    try:
        if step == "dispatch":
            if backend is None:
                raise ValueError("dispatch needs a judge backend")
            return dispatch(cfg, backend)
        return {"build": build, "check": check, "stage": stage, "emit": emit}[step](cfg)
    except StageRefused as refused:
        code = 4 if refused.requirement in TAMPER_CHECKS else 3
        write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", return_code=code, controls=cfg.controls.name,
                                          requirement=refused.requirement, reason=refused.reason))
        raise
    except InputError as bad:               # a started stage that met bad input says so, never left unfinished
        started = read_record(cfg.work, step) if (cfg.work / "records").is_dir() else None
        if started is not None and started.return_code is None:
            write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", return_code=2,
                                              controls=cfg.controls.name, requirement="bad-input", reason=str(bad)))
        raise


def run_pipeline(cfg: PipelineConfig, backend: JudgeBackend) -> RunOutcome:
    """Run every stage in order; P0 carries on after failures, P1+ stops at the first failure or refusal."""
    results: list[StageResult] = []
    for step in STEPS:
        try:
            result = run_step(cfg, step, backend)
        except StageRefused as refused:
            code = 4 if refused.requirement in TAMPER_CHECKS else 3
            results.append(StageResult(step, code, (Finding.failed(refused.requirement, refused.reason),)))
            return RunOutcome(tuple(results), step, refused.requirement, refused.reason)
        results.append(result)
        if result.return_code != 0 and cfg.controls.stop_on_failure:
            return RunOutcome(tuple(results), step, result.requirement, result.reason)
    return RunOutcome(tuple(results))


def clear_workspace(work: Path) -> None:
    """Remove a workspace (the fault study starts each run from an empty one)."""
    shutil.rmtree(work, ignore_errors=True)
