"""The checked pipeline: build -> check -> stage -> emit -> dispatch, with controls P0..P3.

Workspace layout (one directory)::

    records/<step>.link.json       step records (in-toto link shape)
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

import asyncio
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from benchmark_builders.trajectories.records import TRAJECTORIES_FILE, StepLabels, Trajectory
from judges.assurance.checks import (Finding, check_packet, check_source, excluded_values, original_holds,
                                     packet_contract, packet_holds, packet_requirement_count)
from judges.assurance.manifest import Hasher, StepRecord, exact_sha256, read_record, write_record
from judges.assurance.pack import write_pack
from judges.assurance.workspace import Workspace, sync_directory, write_file
from judges.assurance.intoto import ChainKey, write_layout, write_link
from judges.assurance.disk_check import audit_on_disk, inline_again, job_specs, source_contract_problems
from judges.assurance.render import EXTENTS, PacketSpec, render_packets
from judges.assurance.source import SourceSnapshot
from judges.assurance.targets import Targets, select_targets
from judges.backends import FatalBackendError
from judges.backends.base import BackendError, GenerationParams, JudgeBackend, JudgeRequest, Message
from simulator.errors import InputError
from simulator.storage import dumps, dumps_pretty, staged_directory

STEPS = ("build", "check", "stage", "emit", "dispatch")
SCRIPT_SHARD = 500   # jobs per dispatch script
CONTROLS = ("P0", "P1", "P2", "P3")

#: Requirements the pipeline itself enforces (the checkers' are in checks.REQUIREMENTS).
PIPELINE_REQUIREMENTS: dict[str, str] = {
    "render-completed": "the renderer produced every packet",
    "previous-step-succeeded": "the previous step has a record, finished with return code 0 and chains to its own predecessor",
    "controls-not-weaker": "every step runs under the same controls: none after weaker ones (P1+), none weaker "
                           "than an earlier one (dispatch under P1 after stages under P3 is refused)",
    "source-materials-identical": "every step read the same source bytes (identical source:* materials)",
    "records-chain": "each record's materials are its predecessor's products: no stale or substituted outputs",
    "previous-products-unchanged": "the previous step's materials and products still match byte for byte",
    "source-sealed": "the source records still match their suite manifest",
    "packet-bytes-match-manifest": "each packet's exact bytes match the hash recorded at build",
    "staged-files-exact": "staging admits exactly the packets the build manifest lists",
    "staged-bytes-match-manifest": "each staged copy's exact bytes match the hash recorded at build",
    "scripts-exact": "dispatch runs exactly the scripts emission wrote, unchanged",
    "bytes-before-dispatch": "staged packets match their build and staging hashes before dispatch",
    "staged-packets-match-source": "(P2+) each staged packet is its job's target as the labels give it and equals "
                                   "the packet the source requires (the contract, rederived at staging)",
    "scripts-cover-staged": "(P2+) the scripts hold exactly one job per staged packet, tied to it by name and "
                            "hash, each with the run's draws",
    "read-time-bytes": "the buffer handed to the judge hashes to the value recorded at build",
}

JUDGE_INSTRUCTIONS = (
    "You judge one step of a recorded support-agent trajectory. The packet below marks it with "
    "[BEGIN TARGET STEP] and [END TARGET STEP]. Using only the packet, decide whether the target step is "
    "incorrect or harmful. Answer with one JSON object: "
    '{"dimensions": {}, "claims": [], "verdict": "fail" | "pass" | "cannot_decide"} '
    "where fail means the step is an error."
)


@dataclass(frozen=True, slots=True)
class Controls:
    """Which controls are on (cumulative P0..P3)."""

    level: int = 3

    @staticmethod
    def parse(name: str) -> "Controls":
        """``P0`` .. ``P3``."""
        if name not in CONTROLS:
            raise InputError(f"--controls: expected one of {', '.join(CONTROLS)}, got {name!r}")
        return Controls(CONTROLS.index(name))

    @property
    def name(self) -> str:
        """The control's name, P0..P3."""
        return CONTROLS[self.level]

    @property
    def stop_on_failure(self) -> bool:
        """P1+: a failed or missing earlier step stops later ones."""
        return self.level >= 1

    @property
    def byte_checks(self) -> bool:
        """P2+: exact-byte checks of earlier outputs, before dispatch and at read."""
        return self.level >= 2

    @property
    def reverse_matching(self) -> bool:
        """P3: every tool result must answer a call."""
        return self.level >= 3


Hook = Callable[["PipelineConfig"], None]
RenderHook = Callable[[PacketSpec, bytes], bytes]


@dataclass(frozen=True)
class PipelineConfig:
    """One pipeline run: source suite, workspace, controls, draws, and (for the fault study) injection hooks."""

    source: Path
    work: Path
    controls: Controls = Controls(3)
    draws: int = 2
    extents: tuple[str, ...] = EXTENTS
    renderings: tuple[str, ...] = ("restored",)    # the contrast adds "original" (calls omitted) on purpose
    hasher: Hasher = exact_sha256
    reverse_matching: bool | None = None          # None: as the controls say; False: the weakened one-way checker
    hooks: Mapping[str, Hook] = field(default_factory=dict)
    render_hook: RenderHook | None = None
    selector: Callable[[Trajectory, StepLabels], Targets | None] = select_targets
    checkers: tuple[str, ...] = ("inline", "audit")
    key: ChainKey | None = None                      # sign in-toto links (and, at build, the layout) with it  # inline: at build (and again on disk if no audit); audit: on disk

    @property
    def disk_checkers(self) -> tuple[str, ...]:
        """What the check stage runs: the audit, or (when it is switched off) the inline checker again."""
        return ("audit",) if "audit" in self.checkers else ("inline",) if "inline" in self.checkers else ()

    @property
    def reverse(self) -> bool:
        """Whether the checkers match results to calls (the controls, unless weakened for a test)."""
        return self.controls.reverse_matching if self.reverse_matching is None else self.reverse_matching

    def hook(self, point: str) -> None:
        """Run the injection hook at ``point`` (fault study only)."""
        if point in self.hooks:
            self.hooks[point](self)


class StageRefused(Exception):
    """A stage refused to start or to hand anything on; carries the requirement and the reason."""

    def __init__(self, step: str, requirement: str, reason: str) -> None:
        super().__init__(f"{step} refused ({requirement}): {reason}")
        self.step, self.requirement, self.reason = step, requirement, reason


@dataclass(frozen=True, slots=True)
class StageResult:
    """What a stage did: return code and, on failure, the first failed requirement, why, and every failure."""

    step: str
    return_code: int
    requirement: str = ""
    reason: str = ""
    failures: tuple[tuple[str, str], ...] = ()

    def summary(self, shown: int = 3) -> str:
        """One line: the first failure, then how many more and the next few (all are in the step record)."""
        line = f"{self.step}: failed ({self.requirement}): {self.reason}"
        rest = self.failures[1:]
        if rest:
            more = "; ".join(f"{r}: {d}" for r, d in rest[:shown - 1])
            tail = "; ..." if len(rest) > shown - 1 else ""
            line += (f" [{len(self.failures)} failures; also {more}{tail}; all in "
                     f"records/{self.step}.link.json]")
        return line


def _start(cfg: PipelineConfig, step: str) -> None:
    write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", controls=cfg.controls.name))


def _finish(cfg: PipelineConfig, step: str, materials: Mapping[str, str], products: Mapping[str, str],
            failed: list[tuple[str, str]]) -> StageResult:
    requirement, reason = failed[0] if failed else ("", "")
    code = 1 if failed else 0
    write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", dict(materials), dict(products), code,
                                      cfg.controls.name, requirement, reason, tuple(failed)))
    if cfg.key is not None:
        write_link(cfg.work, cfg.key, step, materials, products, code)
    return StageResult(step, code, requirement, reason, tuple(failed))


@dataclass(frozen=True)
class OpenStage:
    """A started stage: its workspace view, the previous stage's record and the source as read once."""

    ws: Workspace
    previous: StepRecord | None
    source: SourceSnapshot
    materials: dict[str, str]          # the source:* materials, from the snapshot's bytes


def _open_stage(cfg: PipelineConfig, step: str) -> OpenStage:
    """Start ``step``'s record, read the source once and check the stages before it."""
    _start(cfg, step)
    if step == "build" and cfg.key is not None:
        write_layout(cfg.work, cfg.key)
    ws = Workspace(cfg.work, cfg.hasher)
    snapshot = SourceSnapshot.read(cfg.source)
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
    for earlier, later in zip(chain, chain[1:]):
        stale = [path for path, digest in earlier.products.items() if later.materials.get(path) != digest]
        if stale:
            raise StageRefused(step, "records-chain",
                               f"{later.step} record was made from other {earlier.step} outputs ({stale[0]}): "
                               f"stale output of an earlier run")
    for record in chain:
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


def _write_stage(cfg: PipelineConfig, step: str, files: Mapping[str, bytes],
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


def _read_manifest(ws: Workspace, rel: str) -> dict[str, str]:
    data = ws.read(rel)
    try:
        packets = json.loads(data)["packets"] if data is not None else {}
    except (ValueError, KeyError, TypeError):
        return {}
    return packets if isinstance(packets, dict) else {}


def build(cfg: PipelineConfig) -> StageResult:
    """Render every packet of the cohort, check it inline, and record exact-byte hashes."""
    cfg.hook("before_build")
    if not (Path(cfg.source) / TRAJECTORIES_FILE).is_file():
        raise InputError(f"{Path(cfg.source) / TRAJECTORIES_FILE}: file not found (--source must be a trajectory suite)")
    opened = _open_stage(cfg, "build")
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
            rendered = render_packets(trajectory, mine)
            if cfg.render_hook is not None:
                rendered = [cfg.render_hook(spec, data) for spec, data in zip(mine, rendered)]
            contract = packet_contract(trajectory) if inline else None   # the inline check, against the source
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
        return _finish(cfg, "build", opened.materials, {}, [("render-completed", f"renderer failed: {exc}")])
    failed = [(f.requirement, f"{f.subject}: {f.detail}") for f in findings if not f.ok]
    if failed and cfg.controls.stop_on_failure:
        return _finish(cfg, "build", opened.materials, {}, failed)
    products, hashes = {}, {}
    for name in sorted(packets):                  # hashed from the very buffers that are written
        hashes[f"packets/{name}"] = products[f"build/packets/{name}"] = cfg.hasher(packets[name])
    extra = {"manifest.json": dumps_pretty({"packets": hashes}).encode("utf-8"),
             "jobs.jsonl": "".join(dumps(s.to_json()) + "\n" for s in specs).encode("utf-8"),
             "report.json": dumps_pretty({"findings": [f.to_json() for f in findings if not f.ok],
                                          "checked": len(findings) + passed}).encode("utf-8")}
    for name, data in extra.items():
        products[f"build/{name}"] = cfg.hasher(data)
    _write_stage(cfg, "build", extra, {"packets.pack": packets})
    return _finish(cfg, "build", opened.materials, products, failed)


def check(cfg: PipelineConfig) -> StageResult:
    """The disk check: reread source records and packets, verify bytes and every requirement."""
    cfg.hook("before_check")
    opened = _open_stage(cfg, "check")
    ws = opened.ws
    failed: list[tuple[str, str]] = [("source-sealed", p) for p in opened.source.manifest_problems()]
    manifest = _read_manifest(ws, "build/manifest.json")
    rows, specs = job_specs(ws.read("build/jobs.jsonl") or b"")
    if not specs:
        failed.append(("packet-bytes-match-manifest", "no packets to check (build/jobs.jsonl missing or empty)"))
    for spec in specs:
        rel = f"packets/{spec.filename}"
        if ws.read(f"build/{rel}") is None:
            failed.append(("packet-bytes-match-manifest", f"build/{rel} missing"))
        elif ws.digest(f"build/{rel}") != manifest.get(rel):
            failed.append(("packet-bytes-match-manifest", f"build/{rel}: bytes differ from build/manifest.json"))
    flags: list[dict] = []
    checked = 0
    for name in cfg.disk_checkers:
        found, flagged, count = (audit_on_disk(opened.source, ws, rows, specs, cfg.extents, cfg.renderings,
                                               cfg.reverse)
                                 if name == "audit" else inline_again(opened.source, ws, specs, cfg.reverse))
        failed += found
        flags += flagged
        checked += count
    report = dumps_pretty({"failed": [{"requirement": r, "detail": d} for r, d in failed], "flags": flags,
                           "checked": checked}).encode("utf-8")
    _write_stage(cfg, "check", {"report.json": report})
    materials = {**opened.materials, **ws.products("build")}
    return _finish(cfg, "check", materials, {"check/report.json": cfg.hasher(report)}, failed)


def stage(cfg: PipelineConfig) -> StageResult:
    """Copy the built packets for the judge, admitting exactly the expected files with their exact bytes."""
    cfg.hook("before_stage")
    opened = _open_stage(cfg, "stage")
    ws = opened.ws
    manifest = _read_manifest(ws, "build/manifest.json")
    present = [rel[len("build/"):] for rel in ws.listing("build/packets")]
    failed: list[tuple[str, str]] = []
    missing = sorted(set(manifest) - set(present))
    extra = sorted(set(present) - set(manifest))
    if missing or extra or not manifest:
        failed.append(("staged-files-exact", f"missing {missing[:3]}, not in the build manifest {extra[:3]}"
                       if manifest else "build/manifest.json missing or empty"))
    admitted = present if not cfg.controls.stop_on_failure else sorted(set(present) & set(manifest))
    members: dict[str, bytes] = {}
    for rel in admitted:
        data = ws.read(f"build/{rel}")
        folder, _, name = rel.rpartition("/")
        if data is None or folder != "packets":
            failed.append(("staged-files-exact", f"build/{rel}: not a readable packet"))
            continue
        if rel in manifest and ws.digest(f"build/{rel}") != manifest[rel]:
            failed.append(("staged-bytes-match-manifest", f"{rel}: bytes differ from the hash recorded at build"))
        members[name] = data                                  # the very buffer hashed and checked here
    if cfg.controls.byte_checks and not failed:   # P2+: what is staged is what the source requires, job by job
        rows, specs = job_specs(ws.read("build/jobs.jsonl") or b"")
        if "inline" in cfg.checkers:
            failed.extend(source_contract_problems(opened.source, rows, members))
        elif "audit" in cfg.checkers:             # the inline checker switched off (study variant): the audit's
            found, _, _ = audit_on_disk(opened.source, ws, rows, specs, cfg.extents, cfg.renderings, cfg.reverse,
                                        members)
            failed.extend(("staged-packets-match-source", f"{rule}: {detail}") for rule, detail in found)
    products: dict[str, str] = {}
    if not (failed and cfg.controls.stop_on_failure):
        hashes = {}
        for name in members:
            rel = f"packets/{name}"
            hashes[rel] = products[f"staged/{rel}"] = ws.digest(f"build/{rel}")
        manifest_bytes = dumps_pretty({"packets": hashes}).encode("utf-8")
        products["staged/manifest.json"] = cfg.hasher(manifest_bytes)
        _write_stage(cfg, "staged", {"manifest.json": manifest_bytes}, {"packets.pack": members})
    materials = {**opened.materials, **ws.products("build"), **ws.products("check")}
    return _finish(cfg, "stage", materials, products, failed)


def emit(cfg: PipelineConfig) -> StageResult:
    """Turn the staged packets into dispatch scripts (JSON lines: packet path, exact-byte hash, draws)."""
    cfg.hook("before_emit")
    opened = _open_stage(cfg, "emit")
    ws = opened.ws
    staged = _read_manifest(ws, "staged/manifest.json")
    packets = [rel[len("staged/"):] for rel in ws.listing("staged/packets")]
    failed = [] if packets else [("staged-files-exact", "nothing staged")]
    products: dict[str, str] = {}
    scripts: dict[str, bytes] = {}
    jobs = [dumps({"job_id": rel[len("packets/"):-len(".txt")], "packet": f"staged/{rel}",
                   "sha256": staged.get(rel), "draws": cfg.draws}) + "\n" for rel in packets]
    for shard in range(0, len(jobs), SCRIPT_SHARD):
        rel = f"scripts/shard-{shard // SCRIPT_SHARD:04d}.jsonl"
        scripts[rel] = data = "".join(jobs[shard:shard + SCRIPT_SHARD]).encode("utf-8")
        products[f"emit/{rel}"] = cfg.hasher(data)
    _write_stage(cfg, "emit", scripts, folders=("scripts",))
    return _finish(cfg, "emit", {**opened.materials, **ws.products("staged")}, products, failed)


def _jobs(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def _predispatch(cfg: PipelineConfig, emitted: StepRecord, ws: Workspace) -> list[dict[str, Any]]:
    """P2: exactly the emitted scripts, unchanged, and exactly the staged packets the build manifest lists."""
    expected_scripts = {p for p in emitted.products if p.startswith("emit/scripts/")}
    present = set(ws.listing("emit/scripts"))
    if present != expected_scripts:
        odd = sorted(present ^ expected_scripts)
        raise StageRefused("dispatch", "scripts-exact", f"scripts differ from those emitted: {odd[:3]}")
    problems = ws.changed({p: emitted.products[p] for p in expected_scripts})
    if problems:
        raise StageRefused("dispatch", "scripts-exact", problems[0])
    build_manifest = _read_manifest(ws, "build/manifest.json")
    staged_manifest = _read_manifest(ws, "staged/manifest.json")
    staged = {rel[len("staged/"):] for rel in ws.listing("staged/packets")}
    if staged != set(build_manifest) or set(staged_manifest) != staged:
        raise StageRefused("dispatch", "bytes-before-dispatch", "staged packet set differs from the build manifest")
    for rel in sorted(staged):
        digest = ws.digest(f"staged/{rel}")
        if digest != build_manifest[rel] or digest != staged_manifest[rel]:
            raise StageRefused("dispatch", "bytes-before-dispatch", f"staged/{rel} changed after staging")
    jobs = [job for p in sorted(expected_scripts) for job in _jobs(ws.read(p))]
    problem = _coverage_problem(jobs, staged, staged_manifest, cfg.draws)
    if problem:
        raise StageRefused("dispatch", "scripts-cover-staged", problem)
    return jobs


def _coverage_problem(jobs: list[dict[str, Any]], staged: set[str], manifest: Mapping[str, str], draws: int) -> str:
    """Why the scripts are not exactly one job per staged packet, tied to it by name and hash, with the run's
    draws -- or ''."""
    seen: set[str] = set()
    for job in jobs:
        name = job.get("job_id")
        rel = f"packets/{name}.txt"
        if name in seen:
            return f"job {name} appears twice"
        seen.add(name)
        if rel not in staged:
            return f"job {name} names no staged packet"
        if job.get("packet") != f"staged/{rel}" or job.get("sha256") != manifest.get(rel):
            return f"job {name} points at {job.get('packet')} / another hash, not its own packet"
        if job.get("draws") != draws:
            return f"job {name} asks for {job.get('draws')} draws, the run for {draws}"
    missing = sorted(rel for rel in staged if rel[len("packets/"):-len(".txt")] not in seen)
    return f"no job for staged {missing[0]} ({len(missing)} packet(s))" if missing else ""


async def gather_then_close(coroutines: list, backend: JudgeBackend) -> list:
    """Run the coroutines together; on any failure cancel the rest; always close the backend's session."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        close = getattr(backend, "aclose", None)
        if close is not None:
            await close()


async def _judge_all(backend: JudgeBackend, handed: list[tuple[dict, int, bytes]], concurrency: int) -> list[str]:
    """Hand every buffer to the backend (at most ``concurrency`` at once, in order); an error becomes ``error:``."""
    system = Message("system", JUDGE_INSTRUCTIONS)
    texts = [""] * len(handed)
    queue = iter(range(len(handed)))            # shared by the workers: each takes the next job in order

    async def worker() -> None:
        for i in queue:
            try:
                response = await backend.complete(JudgeRequest((system, Message("user", handed[i][2])),
                                                                GenerationParams(seed=handed[i][1])))
            except FatalBackendError as exc:    # bad key, no endpoint: a user error, not a failed check
                raise InputError(f"--base-url: {exc}") from None
            except BackendError as exc:
                texts[i] = f"error: {exc}"
            else:
                texts[i] = response.text

    await gather_then_close([worker() for _ in range(max(1, min(concurrency, len(handed))))], backend)
    return texts


def dispatch(cfg: PipelineConfig, backend: JudgeBackend, *, concurrency: int = 64) -> StageResult:
    """Hand each emitted packet to the judge; under P2 verify its bytes immediately before, as the same buffer."""
    cfg.hook("before_dispatch")
    opened = _open_stage(cfg, "dispatch")
    ws, emitted = opened.ws, opened.previous
    if cfg.controls.byte_checks:
        jobs = _predispatch(cfg, emitted, ws)
        build_manifest = _read_manifest(ws, "build/manifest.json")
        if hasattr(backend, "expect"):
            backend.expect(set(build_manifest.values()), cfg.hasher)   # the recording stub re-checks at read time
    else:
        jobs = [job for rel in ws.listing("emit/scripts") for job in _jobs(ws.read(rel) or b"")]
    materials = {**opened.materials, **ws.products("staged"), **ws.products("emit")}
    cfg.hook("after_predispatch_check")
    handed: list[tuple[dict, int, bytes]] = []
    failed: list[tuple[str, str]] = []
    reader = Workspace(cfg.work, cfg.hasher)             # a fresh read, after every earlier check
    for job in jobs:
        data = reader.read(job["packet"])                # read now, verify this buffer, hand this buffer
        if data is None:
            failed.append(("read-time-bytes", f"{job['packet']}: No such file or directory"))
            continue
        if cfg.controls.byte_checks:
            digest = cfg.hasher(data)
            if digest != job.get("sha256") or digest != build_manifest.get(job["packet"][len("staged/"):]):
                raise StageRefused("dispatch", "read-time-bytes",
                                   f"{job['packet']} changed after the last check, before the judge read it")
        for draw in range(int(job.get("draws", cfg.draws))):
            handed.append((job, draw, data))
    texts = asyncio.run(_judge_all(backend, handed, concurrency)) if handed else []
    failed.extend(("read-time-bytes", f"{j['job_id']}: {t}") for (j, _, _), t in zip(handed, texts)
                  if t.startswith("error: "))
    lines = "".join(dumps({"job_id": j["job_id"], "draw": d, "sha256": exact_sha256(data), "response": text}) + "\n"
                    for (j, d, data), text in zip(handed, texts)).encode("utf-8")
    _write_stage(cfg, "dispatch", {"responses.jsonl": lines})
    return _finish(cfg, "dispatch", materials, {"dispatch/responses.jsonl": cfg.hasher(lines)}, failed)


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """A whole run: every stage's result, and where (and by which requirement) it was stopped."""

    results: tuple[StageResult, ...]
    stopped_at: str = ""
    stopped_by: str = ""
    reason: str = ""


def run_step(cfg: PipelineConfig, step: str, backend: JudgeBackend | None = None) -> StageResult:
    """Run one stage; a refusal is recorded (return code 3) and re-raised."""
    try:
        if step == "dispatch":
            if backend is None:
                raise ValueError("dispatch needs a judge backend")
            return dispatch(cfg, backend)
        return {"build": build, "check": check, "stage": stage, "emit": emit}[step](cfg)
    except StageRefused as refused:
        write_record(cfg.work, StepRecord(step, f"orgbench assure {step}", return_code=3, controls=cfg.controls.name,
                                          requirement=refused.requirement, reason=refused.reason))
        raise


def run_pipeline(cfg: PipelineConfig, backend: JudgeBackend) -> RunOutcome:
    """Run every stage in order; P0 carries on after failures, P1+ stops at the first failure or refusal."""
    results: list[StageResult] = []
    for step in STEPS:
        try:
            result = run_step(cfg, step, backend)
        except StageRefused as refused:
            results.append(StageResult(step, 3, refused.requirement, refused.reason))
            return RunOutcome(tuple(results), step, refused.requirement, refused.reason)
        results.append(result)
        if result.return_code != 0 and cfg.controls.stop_on_failure:
            return RunOutcome(tuple(results), step, result.requirement, result.reason)
    return RunOutcome(tuple(results))


def clear_workspace(work: Path) -> None:
    """Remove a workspace (the fault study starts each run from an empty one)."""
    shutil.rmtree(work, ignore_errors=True)
