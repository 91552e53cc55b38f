"""The fault study: 19 constructed fault cases, the CRLF case and two fault-free controls under P0..P3.

Each case injects one fault at a named point (the renderer during build, the
build output, the source records, the manifest, the staged copies, the
scripts) into a fresh workspace and runs the whole pipeline with the
recording stub as the judge. ``reached_judge`` is true when the stub accepted
a byte string that is not one of the fault-free reference packets (altered or
stale bytes) or that this run's own build manifest does not vouch for (bytes
read although their check failed). The claim under test: under P0 every
injected fault reaches the stub, under P3 none does, and the fault-free
controls complete under every control.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from benchmark_builders.trajectories.records import TRAJECTORIES_FILE, read_suite
from judges.assurance.manifest import Hasher, exact_sha256
from judges.assurance.pack import add_member, edit_member, read_pack
from judges.assurance.packet_edits import (change_target_arguments, delete_first_call, delete_target_call,
                                           rename_target_call, swap_parallel_calls)
from judges.assurance.pipeline import CONTROLS, Controls, PipelineConfig, RenderHook, run_pipeline
from judges.assurance.render import PacketSpec
from judges.assurance.targets import select_targets
from judges.backends.stub import RecordingStub
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import dumps, write_manifest

FIELDS = ("case", "injection_point", "control", "reached_judge", "stopped_at", "stopped_by")


#: The packet (and its trajectory) a case alters: a full, restored packet around an error target.
Victim = PacketSpec


@dataclass(frozen=True)
class FaultCase:
    """One constructed case: what is injected where, and how."""

    case: str
    fault: str
    injection_point: str
    injected: bool = True
    source_edit: Callable[[Path, Victim], None] | None = None
    setup: Callable[[PipelineConfig, Victim], None] | None = None
    hooks: Mapping[str, Callable[[PipelineConfig, Victim], None]] = field(default_factory=dict)
    render_hook: Callable[[Victim], RenderHook] | None = None


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One (case, control) row of the study."""

    case: str
    fault: str
    injection_point: str
    control: str
    injected: bool
    reached_judge: bool
    completed: bool
    stopped_at: str
    stopped_by: str
    reads: int
    detail: str
    altered: bool = False

    def row(self) -> dict[str, str]:
        """The faults.csv row."""
        return {"case": self.case, "injection_point": self.injection_point, "control": self.control,
                "reached_judge": "true" if self.reached_judge else "false", "stopped_at": self.stopped_at,
                "stopped_by": self.stopped_by}


def _render_fault(edit: Callable[[bytes], bytes]) -> Callable[[Victim], RenderHook]:
    def make(victim: Victim) -> RenderHook:
        def hook(spec: PacketSpec, data: bytes) -> bytes:
            return edit(data) if spec.filename == victim.filename else data
        return hook
    return make


def _crash(victim: Victim) -> RenderHook:
    def hook(spec: PacketSpec, data: bytes) -> bytes:
        if spec.filename == victim.filename:
            raise RuntimeError("renderer crashed while writing " + spec.filename)
        return data
    return hook


def _on(folder: str, edit: Callable[[bytes], bytes]) -> Callable[[PipelineConfig, Victim], None]:
    def hook(cfg: PipelineConfig, victim: Victim) -> None:
        edit_member(cfg.work / folder / "packets.pack", victim.filename, edit)
    return hook


def _manifest_edit(change: Callable[[dict, str], None]) -> Callable[[PipelineConfig, Victim], None]:
    def hook(cfg: PipelineConfig, victim: Victim) -> None:
        path = cfg.work / "build" / "manifest.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))
        change(manifest["packets"], f"packets/{victim.filename}")
        path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return hook


def _flip_digit(packets: dict, rel: str) -> None:
    digest = packets[rel]
    packets[rel] = ("1" if digest[0] != "1" else "2") + digest[1:]


def _empty_hash(packets: dict, rel: str) -> None:
    packets[rel] = exact_sha256(b"")


def _drop_entry(packets: dict, rel: str) -> None:
    del packets[rel]


# -- source edits --------------------------------------------------------------------------------------------------

def _edit_trajectory(source: Path, victim: Victim, change: Callable[[dict], None], *, reseal: bool) -> None:
    path = source / TRAJECTORIES_FILE
    rows = read_jsonl(path).values
    for row in rows:
        if row["trajectory_id"] == victim.trajectory_id:
            change(row)
    path.write_text("".join(dumps(row) + "\n" for row in rows), encoding="utf-8")
    if reseal:
        write_manifest(source, extra={})


def _invalid_json(source: Path, victim: Victim) -> None:
    def change(row: dict) -> None:
        call = row["messages"][2]["tool_calls"][0]["function"]
        call["arguments"] = call["arguments"][:-3]
    _edit_trajectory(source, victim, change, reseal=False)


def _append_result(call_id: Callable[[dict], str]) -> Callable[[Path, Victim], None]:
    def edit(source: Path, victim: Victim) -> None:
        def change(row: dict) -> None:
            row["messages"].append({"role": "tool", "content": '{"status":"ok"}', "tool_call_id": call_id(row)})
        _edit_trajectory(source, victim, change, reseal=True)
    return edit


def _last_call_id(row: dict) -> str:
    return [c["id"] for m in row["messages"] for c in m.get("tool_calls", [])][-1]


def _result_before_user_call(source: Path, victim: Victim) -> None:
    def change(row: dict) -> None:
        messages = row["messages"]
        k = next(i for i, m in enumerate(messages) if m["role"] == "user" and m.get("tool_calls"))
        messages[k], messages[k + 1] = messages[k + 1], messages[k]
    _edit_trajectory(source, victim, change, reseal=True)


# -- workspace edits -----------------------------------------------------------------------------------------------

def _older_source(source: Path, older: Path) -> None:
    shutil.copytree(source, older)
    path = older / TRAJECTORIES_FILE
    rows = read_jsonl(path).values
    for row in rows:
        row["messages"][1]["content"] += " (sent again from an older export)"
    path.write_text("".join(dumps(row) + "\n" for row in rows), encoding="utf-8")
    write_manifest(older, extra={})


def _previous_run(cfg: PipelineConfig, victim: Victim) -> None:
    older = cfg.work.parent / "older-source"
    _older_source(Path(cfg.source), older)
    run_pipeline(PipelineConfig(older, cfg.work, Controls(3), cfg.draws, hasher=cfg.hasher), RecordingStub())


def _extra_packet(cfg: PipelineConfig, victim: Victim) -> None:
    pack = cfg.work / "build" / "packets.pack"
    add_member(pack, "zz-extra." + victim.filename, delete_target_call(read_pack(pack)[victim.filename]))


def _stale_script(cfg: PipelineConfig, victim: Victim) -> None:
    old = cfg.work / "old" / "packets" / victim.filename
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(delete_first_call(read_pack(cfg.work / "staged" / "packets.pack")[victim.filename]))
    script = {"job_id": "zz-stale", "packet": f"old/packets/{victim.filename}", "sha256": exact_sha256(
        old.read_bytes()), "draws": cfg.draws}
    (cfg.work / "emit" / "scripts" / "zz-stale.jsonl").write_text(dumps(script) + "\n", encoding="utf-8")


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _unrelated_file(cfg: PipelineConfig, victim: Victim) -> None:
    path = cfg.work / "notes" / "unrelated.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("an unrelated note outside the staged folder\n", encoding="utf-8")


CASES: tuple[FaultCase, ...] = (
    FaultCase("build-delete-target-call", "restored call deleted or changed during build", "renderer, during build",
              render_hook=_render_fault(delete_target_call)),
    FaultCase("build-change-target-arguments", "restored call deleted or changed during build",
              "renderer, during build", render_hook=_render_fault(change_target_arguments)),
    FaultCase("build-rename-target-call", "restored call deleted or changed during build", "renderer, during build",
              render_hook=_render_fault(rename_target_call)),
    FaultCase("build-delete-earlier-call", "restored call deleted or changed during build", "renderer, during build",
              render_hook=_render_fault(delete_first_call)),
    FaultCase("build-reorder-parallel-calls", "restored call deleted or changed during build",
              "renderer, during build", render_hook=_render_fault(swap_parallel_calls)),
    FaultCase("after-build-delete-call", "restored call deleted after build", "build output, after the disk check",
              hooks={"before_stage": _on("build", delete_target_call)}),
    FaultCase("source-invalid-argument-json", "invalid argument JSON in a source record",
              "source record, after sealing", source_edit=_invalid_json),
    FaultCase("source-result-unknown-id", "unmatched tool result added to a source record",
              "source record, sealed", source_edit=_append_result(lambda row: "call_unknown0000")),
    FaultCase("source-result-answers-twice", "unmatched tool result added to a source record",
              "source record, sealed", source_edit=_append_result(_last_call_id)),
    FaultCase("source-result-before-user-call", "unmatched tool result added to a source record",
              "source record, sealed", source_edit=_result_before_user_call),
    FaultCase("manifest-hash-digit-flipped", "manifest hash corrupted after build", "build manifest, after build",
              hooks={"before_stage": _manifest_edit(_flip_digit)}),
    FaultCase("manifest-hash-replaced", "manifest hash corrupted after build", "build manifest, after build",
              hooks={"before_stage": _manifest_edit(_empty_hash)}),
    FaultCase("manifest-entry-dropped", "manifest hash corrupted after build", "build manifest, after build",
              hooks={"before_stage": _manifest_edit(_drop_entry)}),
    FaultCase("failed-build-previous-outputs", "failed build with previous outputs present",
              "renderer, with an earlier run's outputs in the workspace", setup=_previous_run, render_hook=_crash),
    FaultCase("staged-delete-call-before-emit", "packet changed after staging", "staged packet, before emission",
              hooks={"before_emit": _on("staged", delete_target_call)}),
    FaultCase("staged-change-arguments-before-dispatch", "packet changed after staging",
              "staged packet, before dispatch", hooks={"before_dispatch": _on("staged", change_target_arguments)}),
    FaultCase("staged-truncated-after-last-check", "packet changed after staging",
              "staged packet, after the pre-dispatch check",
              hooks={"after_predispatch_check": _on("staged", _truncate)}),
    FaultCase("extra-file-before-staging", "extra file present before staging", "build packets folder, before staging",
              hooks={"before_stage": _extra_packet}),
    FaultCase("extra-stale-script", "extra stale script", "scripts folder, before dispatch",
              hooks={"before_dispatch": _stale_script}),
    FaultCase("crlf-before-staging", "line endings changed to CRLF before staging", "build packet, before staging",
              hooks={"before_stage": _on("build", _crlf)}),
    FaultCase("control-unaltered", "no fault (control)", "none", injected=False),
    FaultCase("control-unrelated-file", "no fault (control)", "file outside the staged folder", injected=False,
              hooks={"before_stage": _unrelated_file}),
)

CASES_BY_NAME = {c.case: c for c in CASES}


def choose_victim(source: Path) -> Victim:
    """The first trajectory with parallel calls before its error target; its full restored error packet."""
    trajectories, labels = read_suite(source)
    for t in trajectories:
        targets = select_targets(t, labels[t.trajectory_id]) if t.trajectory_id in labels else None
        if targets and any(len(m.tool_calls) > 1 for m in t.messages[:targets.error]) and \
                any(m.role == "user" and m.tool_calls for m in t.messages):
            return Victim(t.trajectory_id, targets.error, "error", "full", "restored")
    raise ValueError(f"{source}: no trajectory with parallel calls before an error target")


@dataclass(frozen=True)
class StudySetup:
    """The clean cohort, its victim packet and the fault-free reference hashes."""

    source: Path
    victim: Victim
    reference: frozenset[str]


def prepare(root: Path, *, cohort: Path | None = None, hasher: Hasher = exact_sha256) -> StudySetup:
    """The cohort (``root/cohort``, copied from ``cohort`` if given) and a fault-free reference run under ``root``.

    The cohort is built by ``benchmark_builders.trajectories.cohort.fault_cohort``; a judge builds no suite.
    """
    root = Path(root)
    source = root / "cohort"
    if not source.is_dir():
        if cohort is None:
            raise InputError(f"{source}: no trajectory cohort; build one with "
                             "benchmark_builders.trajectories.cohort.fault_cohort")
        shutil.copytree(cohort, source)
    victim = choose_victim(source)
    work = root / "reference"
    shutil.rmtree(work, ignore_errors=True)
    stub = RecordingStub()
    outcome = run_pipeline(PipelineConfig(source, work, Controls(3), hasher=hasher), stub)
    if outcome.stopped_at:
        raise RuntimeError(f"the fault-free reference run stopped at {outcome.stopped_at}: {outcome.reason}")
    manifest = json.loads((work / "build" / "manifest.json").read_text(encoding="utf-8"))["packets"]
    return StudySetup(source, victim, frozenset(manifest.values()))


def run_case(setup: StudySetup, case: FaultCase, control: str, root: Path, *, hasher: Hasher = exact_sha256,
             reverse_matching: bool | None = None, checkers: tuple[str, ...] = ("inline", "audit")) -> CaseOutcome:
    """Run one case under one control in a fresh workspace under ``root``; report what reached the stub."""
    run_root = Path(root) / f"{case.case}.{control}"
    shutil.rmtree(run_root, ignore_errors=True)
    source = run_root / "source"
    shutil.copytree(setup.source, source)
    if case.source_edit:
        case.source_edit(source, setup.victim)
    hooks = {point: (lambda cfg, h=hook: h(cfg, setup.victim)) for point, hook in case.hooks.items()}
    cfg = PipelineConfig(source, run_root / "work", Controls.parse(control), hasher=hasher,
                         reverse_matching=reverse_matching, hooks=hooks, checkers=checkers,
                         render_hook=case.render_hook(setup.victim) if case.render_hook else None)
    if case.setup:
        case.setup(cfg, setup.victim)
    stub = RecordingStub()
    outcome = run_pipeline(cfg, stub)
    manifest_path = cfg.work / "build" / "manifest.json"
    vouched = set(json.loads(manifest_path.read_text(encoding="utf-8")).get("packets", {}).values()) \
        if manifest_path.is_file() else set()
    bad = [h for h in stub.accepted_hashes if h not in setup.reference or h not in vouched]
    altered = any(h not in setup.reference for h in stub.accepted_hashes)
    detail = outcome.reason.replace(str(run_root), "<run>")
    shutil.rmtree(run_root, ignore_errors=True)
    return CaseOutcome(case.case, case.fault, case.injection_point, control, case.injected, bool(bad),
                       not outcome.stopped_at and all(r.return_code == 0 for r in outcome.results),
                       outcome.stopped_at, outcome.stopped_by, len(stub.accepted_hashes), detail, altered)


def run_study(root: Path, *, cohort: Path | None = None, cases: tuple[FaultCase, ...] = CASES,
              controls: tuple[str, ...] = CONTROLS) -> list[CaseOutcome]:
    """Every case under every control (the cohort as ``prepare`` takes it)."""
    setup = prepare(root, cohort=cohort)
    return [run_case(setup, case, control, root / "runs") for case in cases for control in controls]
