"""Independent mutation cases, part 2: packet byte edits, workspace and record edits, buggy emitters and
builders (written by the independent helper; see ``kit``)."""

from __future__ import annotations

import json
import shutil
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Callable, ContextManager, Mapping
from unittest import mock

from benchmark_builders.trajectories.records import TRAJECTORIES_FILE, StepLabels, Trajectory
from judges.assurance import pipeline as pipeline_module
from judges.assurance.manifest import StepRecord, read_record, write_record
from judges.assurance.pack import read_pack, write_pack
from judges.assurance.pipeline import Controls, PipelineConfig, run_pipeline
from judges.assurance.render import PacketSpec, render_packet
from judges.assurance.targets import Targets
from judges.assurance.workspace import Workspace
from judges.backends.stub import RecordingStub
from judges.assurance.mutations.kit import Ctx, _reseal, _rows, _write_rows


# -- packet byte edits ---------------------------------------------------------------------------------------------

def _header_at(lines: list[bytes], index: int) -> int:
    heads = (f"[MESSAGE {index} ".encode(), f"[TOOL RESULT {index} ".encode())
    return next(k for k, line in enumerate(lines) if line.startswith(heads))


def _next_header(lines: list[bytes], start: int) -> int:
    for k in range(start + 1, len(lines)):
        if lines[k].startswith((b"[MESSAGE ", b"[TOOL RESULT ", b"[BEGIN TARGET STEP]", b"[END TARGET STEP]")):
            return k
    return len(lines) - 1            # the empty string after the final newline


def block(data: bytes, index: int) -> bytes:
    """The lines of message ``index`` (header to the next structure line), with a final newline."""
    lines = data.split(b"\n")
    k = _header_at(lines, index)
    return b"\n".join(lines[k:_next_header(lines, k)]) + b"\n"


def _target_call_k(lines: list[bytes]) -> int:
    begin = lines.index(b"[BEGIN TARGET STEP]")
    return next(k for k in range(begin, len(lines)) if lines[k].startswith(b"[TOOL CALL "))


def rewrite_target_call(make: Callable[[bytes], bytes], *, count: Callable[[bytes], int] | None = None
                        ) -> Callable[[bytes, Ctx], bytes]:
    """Replace the target call's arguments (one line) and its ``bytes=`` count (true length unless ``count``)."""
    def edit(data: bytes, ctx: Ctx) -> bytes:
        lines = data.split(b"\n")
        k = _target_call_k(lines)
        line = lines[k]
        head, _, rest = line.partition(b"] ")
        name, _, args = rest.partition(b"(")
        new = make(args[:-1])
        n = count(new) if count else len(new)
        prefix = head.rsplit(b" bytes=", 1)[0]
        lines[k] = prefix + b" bytes=" + str(n).encode() + b"] " + name + b"(" + new + b")"
        return b"\n".join(lines)
    return edit


def _insert_label_line(data: bytes, ctx: Ctx) -> bytes:
    return data.replace(b"[END TARGET STEP]\n", b"label: -1\n[END TARGET STEP]\n", 1)


def _move_markers(data: bytes, ctx: Ctx) -> bytes:
    lines = [line for line in data.split(b"\n") if line not in (b"[BEGIN TARGET STEP]", b"[END TARGET STEP]")]
    k = _header_at(lines, ctx.error + 2)
    end = _next_header(lines, k)
    lines[end:end] = [b"[END TARGET STEP]"]
    lines[k:k] = [b"[BEGIN TARGET STEP]"]
    return b"\n".join(lines)


def _swap_blocks(a: int, b: int) -> Callable[[bytes, Ctx], bytes]:
    def edit(data: bytes, ctx: Ctx) -> bytes:
        first, second = block(data, a), block(data, b)
        return data.replace(first + second, second + first, 1)
    return edit


def _drop_block(index: Callable[[Ctx], int]) -> Callable[[bytes, Ctx], bytes]:
    def edit(data: bytes, ctx: Ctx) -> bytes:
        return data.replace(block(data, index(ctx)), b"", 1)
    return edit


def _duplicate_target_call(data: bytes, ctx: Ctx) -> bytes:
    lines = data.split(b"\n")
    k = _target_call_k(lines)
    lines.insert(k + 1, lines[k])
    return b"\n".join(lines)


def _unescape(marker: bytes) -> Callable[[bytes, Ctx], bytes]:
    """A renderer that forgets to escape ``marker`` (its leading backslash, or its keyword's escaped ``[``)."""
    def edit(data: bytes, ctx: Ctx) -> bytes:
        escaped = "\u27e6U+005B\u27e7".encode("utf-8") + marker[1:]
        return data.replace(b"\\" + marker, marker).replace(escaped, marker)
    return edit


def _nfc(data: bytes, ctx: Ctx) -> bytes:
    return unicodedata.normalize("NFC", data.decode("utf-8")).encode("utf-8")


def render_edit(edit: Callable[[bytes, Ctx], bytes], kind: str = "error", extent: str = "full"
                ) -> Callable[[Ctx], Callable[[PacketSpec, bytes], bytes]]:
    """A buggy renderer: ``edit`` applied to one victim packet during build."""
    def make(ctx: Ctx):
        def hook(spec: PacketSpec, data: bytes) -> bytes:
            return edit(data, ctx) if spec.filename == ctx.name(kind, extent) else data
        return hook
    return make


def _render_with(change: Callable[[PacketSpec], PacketSpec], kind: str = "error", extent: str = "full"):
    """A buggy renderer rendering one victim packet from another spec (other rendering or extent)."""
    def make(ctx: Ctx):
        trajectory = ctx.trajectory()

        def hook(spec: PacketSpec, data: bytes) -> bytes:
            return render_packet(trajectory, change(spec)) if spec.filename == ctx.name(kind, extent) else data
        return hook
    return make


def _prefix_with_target_result(ctx: Ctx):
    trajectory = ctx.trajectory()

    def hook(spec: PacketSpec, data: bytes) -> bytes:
        if spec.filename != ctx.name("error", "prefix"):
            return data
        full = render_packet(trajectory, replace(spec, extent="full"))
        return data + block(full, ctx.error + 1)
    return hook


# -- workspace edits and rewritten records -------------------------------------------------------------------------

def _pack(cfg: PipelineConfig, folder: str) -> Path:
    return cfg.work / folder / "packets.pack"


def edit_members(folder: str, edit: Callable[[dict[str, bytes], Ctx], None], *, manifest: bool = False,
                 reseal: tuple[str, ...] = ()) -> Callable[[PipelineConfig, Ctx], None]:
    """Edit a stage's pack members; optionally rewrite its manifest to the new hashes and reseal records."""
    def hook(cfg: PipelineConfig, ctx: Ctx) -> None:
        members = read_pack(_pack(cfg, folder))
        edit(members, ctx)
        write_pack(_pack(cfg, folder), members)
        if manifest:
            rehash_manifest(cfg, folder, members)
        for step in reseal:
            reseal_record(cfg, step)
    return hook


def rehash_manifest(cfg: PipelineConfig, folder: str, members: Mapping[str, bytes]) -> None:
    """Rewrite ``<folder>/manifest.json`` so it vouches for ``members`` as they are now."""
    path = cfg.work / folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["packets"] = {f"packets/{n}": cfg.hasher(d) for n, d in sorted(members.items())}
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def _ran(cfg: PipelineConfig, step: str) -> StepRecord:
    """The record of a step that has run (a mutation edits only those)."""
    record = read_record(cfg.work, step)
    if record is None:
        raise ValueError(f"{cfg.work}: step {step} has not run")
    return record


def reseal_record(cfg: PipelineConfig, step: str) -> None:
    """Rewrite a step record so its materials and products describe the workspace as it is now (records are unsigned)."""
    record = _ran(cfg, step)
    ws = Workspace(cfg.work, cfg.hasher)

    def fresh(entries: Mapping[str, str]) -> dict[str, str]:
        out = {k: v for k, v in entries.items() if k.startswith("source:")}
        for folder in sorted({k.split("/", 1)[0] for k in entries if not k.startswith("source:")}):
            out.update(ws.products(folder))
        return out

    write_record(cfg.work, replace(record, materials=fresh(record.materials), products=fresh(record.products)))


def _delete_target_call_member(members: dict[str, bytes], ctx: Ctx) -> None:
    data = members[ctx.name()]
    lines = data.split(b"\n")
    del lines[_target_call_k(lines)]
    members[ctx.name()] = b"\n".join(lines)


def _swap_targets(members: dict[str, bytes], ctx: Ctx) -> None:
    a, b = ctx.name("error"), ctx.name("comparison")
    members[a], members[b] = members[b], members[a]


def _other_packet_for_victim(members: dict[str, bytes], ctx: Ctx) -> None:
    members[ctx.name("error")] = members[ctx.name("comparison")]


def _edit_jobs(cfg: PipelineConfig, ctx: Ctx) -> None:
    path = cfg.work / "build" / "jobs.jsonl"
    rows = _rows(path)
    for row in rows:
        if row["packet_id"] == ctx.name()[:-len(".txt")]:
            row["target_index"] = ctx.comparison
    _write_rows(path, rows)


def _shadow_staged_member(cfg: PipelineConfig, ctx: Ctx) -> None:
    plain = cfg.work / "staged" / "packets" / ctx.name()
    plain.parent.mkdir(parents=True, exist_ok=True)
    members = read_pack(_pack(cfg, "staged"))
    lines = members[ctx.name()].split(b"\n")
    del lines[_target_call_k(lines)]
    plain.write_bytes(b"\n".join(lines))


def _relabel_build_controls(cfg: PipelineConfig, ctx: Ctx) -> None:
    write_record(cfg.work, replace(_ran(cfg, "build"), controls="P3"))


def _older_run(cfg: PipelineConfig, ctx: Ctx) -> None:
    """A complete, successful earlier run (P3) from an older export of the cohort, in the same workspace."""
    older = cfg.work.parent / "older-source"
    shutil.copytree(cfg.source, older)
    path = older / TRAJECTORIES_FILE
    rows = _rows(path)
    for row in rows:
        row["messages"][1]["content"] += " (older export)"
    _write_rows(path, rows)
    _reseal(older)
    outcome = run_pipeline(PipelineConfig(older, cfg.work, Controls(3), cfg.draws, hasher=cfg.hasher), RecordingStub())
    assert not outcome.stopped_at, outcome.reason


def _earlier_run_other_options(cfg: PipelineConfig, ctx: Ctx) -> None:
    """A complete, successful earlier run (P3) from the same source with other options (full packets, one draw)."""
    outcome = run_pipeline(PipelineConfig(cfg.source, cfg.work, Controls(3), 1, extents=("full",), hasher=cfg.hasher),
                           RecordingStub())
    assert not outcome.stopped_at, outcome.reason


def _add_build_member(cfg: PipelineConfig, ctx: Ctx) -> None:
    members = read_pack(_pack(cfg, "build"))
    members["zz-extra.txt"] = members[ctx.name()]
    write_pack(_pack(cfg, "build"), members)


# -- buggy emitters: scripts rewritten, emit record describing them honestly ---------------------------------------

def edit_scripts(change: Callable[[list[dict], PipelineConfig, Ctx], list[dict]]
                 ) -> Callable[[PipelineConfig, Ctx], None]:
    """Rewrite the emitted jobs with ``change`` and reseal the emit record (an emitter bug with an honest record)."""
    def hook(cfg: PipelineConfig, ctx: Ctx) -> None:
        for path in sorted((cfg.work / "emit" / "scripts").glob("*.jsonl")):
            _write_rows(path, change(_rows(path), cfg, ctx))
        reseal_record(cfg, "emit")
    return hook


def _job_name(ctx: Ctx, kind: str = "error") -> str:
    return ctx.name(kind)[:-len(".txt")]


def _drop_job(jobs, cfg, ctx):
    return [j for j in jobs if j["job_id"] != _job_name(ctx)]


def _duplicate_job(jobs, cfg, ctx):
    return jobs + [j for j in jobs if j["job_id"] == _job_name(ctx)]


def _job_to_other_packet(jobs, cfg, ctx):
    other = next((j for j in jobs if j["job_id"] == _job_name(ctx, "comparison")), None)
    for j in jobs:
        if j["job_id"] == _job_name(ctx) and other is not None:
            j["packet"], j["sha256"] = other["packet"], other["sha256"]
    return jobs


def _zero_draws(jobs, cfg, ctx):
    for j in jobs:
        if j["job_id"] == _job_name(ctx):
            j["draws"] = 0
    return jobs


def _job_for_missing_packet(jobs, cfg, ctx):
    if jobs and jobs[0]["job_id"] == sorted(j["job_id"] for j in jobs)[0]:
        return jobs + [{"job_id": "zz-ghost", "packet": "staged/packets/zz-ghost.txt", "sha256": None,
                        "draws": cfg.draws}]
    return jobs


def _job_sha_of_other(jobs, cfg, ctx):
    other = next((j for j in jobs if j["job_id"] == _job_name(ctx, "comparison")), None)
    for j in jobs:
        if j["job_id"] == _job_name(ctx) and other is not None:
            j["sha256"] = other["sha256"]
    return jobs


# -- buggy builders: target selection patched during build only ----------------------------------------------------

def buggy_targets(change: Callable[[Targets, Ctx], Targets | None]) -> Callable[[Ctx], ContextManager]:
    """Patch the builder's target selection for the victim (its record stays honest about what it built).

    The patch covers both ways a builder may find its selector: the module's ``select_targets`` and a
    ``PipelineConfig.selector`` default (``run_case`` also passes the fake as ``selector`` when that field exists).
    """
    return _TargetPatch(change)


class _TargetPatch:
    """``buggy_targets``' patch: called with a case's context, it patches ``select_targets`` with ``fake``, which
    ``run_case`` reads afterwards to pass as ``selector``."""

    def __init__(self, change: Callable[[Targets, Ctx], Targets | None]) -> None:
        self.change = change
        self.fake: Callable[[Trajectory, StepLabels], Targets | None] | None = None

    def __call__(self, ctx: Ctx) -> ContextManager:
        from judges.assurance.targets import select_targets as real

        def fake(trajectory: Trajectory, labels: StepLabels) -> Targets | None:
            targets = real(trajectory, labels)
            if targets is not None and trajectory.trajectory_id == ctx.tid:
                return self.change(targets, ctx)
            return targets
        self.fake = fake
        return mock.patch.object(pipeline_module, "select_targets", fake)
