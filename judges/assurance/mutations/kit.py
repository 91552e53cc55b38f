"""Independent mutation cases, part 1: the victim, the case record and source edits.

Written by a helper who had not read issue 15, from ASSURANCE.md, the paper and the code
(first as ``tests/judges/assurance/independent_cases.py``); moved here unchanged but for the
split into modules so that the mutation study can run them. See ``runner`` for how a case runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ContextManager, Mapping

from benchmark_builders.trajectories.records import LABELS_FILE, TRAJECTORIES_FILE, read_suite
from judges.assurance.pipeline import PipelineConfig
from judges.assurance.render import PacketSpec
from orgbench.core.storage import dumps, write_manifest
from orgbench.core.jsonl import read_jsonl


LEVEL = "P3"

LEVEL = "P3"


# -- the victim ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ctx:
    """What a case needs to aim: the run's source, the victim trajectory and its targets and packet names."""

    source: Path
    tid: str
    error: int
    comparison: int

    def name(self, kind: str = "error", extent: str = "full") -> str:
        """A victim packet's file name."""
        return f"{self.tid}.{kind}.{extent}.restored.txt"

    def rel(self, kind: str = "error", extent: str = "full") -> str:
        """A victim packet's manifest key."""
        return f"packets/{self.name(kind, extent)}"

    def trajectory(self):
        """The victim trajectory as the run's source holds it now."""
        trajectories, _ = read_suite(self.source, verify=False)
        return next(t for t in trajectories if t.trajectory_id == self.tid)


@dataclass(frozen=True)
class Case:
    """One independent mutation case."""

    name: str
    does: str
    obligation: int
    attacks: str
    injection_point: str
    source_edit: Callable[[Ctx], None] | None = None
    render_hook: Callable[[Ctx], Callable[[PacketSpec, bytes], bytes]] | None = None
    hooks: Mapping[str, Callable[[PipelineConfig, Ctx], None]] = field(default_factory=dict)
    setup: Callable[[PipelineConfig, Ctx], None] | None = None
    patches: Mapping[str, Callable[[Ctx], ContextManager]] = field(default_factory=dict)
    controls: Mapping[str, str] = field(default_factory=dict)
    skip: tuple[str, ...] = ()
    control: bool = False
    neutralise_ok: bool = False     # source content cases: rendering the text harmlessly is as good as stopping


# -- source edits (the run's own copy of the cohort) ---------------------------------------------------------------

def _rows(path: Path) -> list[dict]:
    return read_jsonl(path).values


def _write_rows(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(dumps(row) + "\n" for row in rows), encoding="utf-8")


def _reseal(source: Path) -> None:
    write_manifest(source, extra={})


def edit_victim(change: Callable[[dict, Ctx], None], *, reseal: bool = True) -> Callable[[Ctx], None]:
    """A source edit of the victim's trajectory row (resealed unless told otherwise)."""
    def edit(ctx: Ctx) -> None:
        path = ctx.source / TRAJECTORIES_FILE
        rows = _rows(path)
        for row in rows:
            if row["trajectory_id"] == ctx.tid:
                change(row, ctx)
        _write_rows(path, rows)
        if reseal:
            _reseal(ctx.source)
    return edit


def _last_with_content(row: dict, role: str, before: int) -> dict:
    return next(m for m in reversed(row["messages"][:before]) if m["role"] == role and m.get("content"))


def append_to(role: str, text: str) -> Callable[[dict, Ctx], None]:
    """Append text to the last ``role`` message with content before the error target."""
    def change(row: dict, ctx: Ctx) -> None:
        _last_with_content(row, role, ctx.error)["content"] += text
    return change


def target_call(row: dict, ctx: Ctx) -> dict:
    """The error target's first call (OpenAI shape)."""
    return row["messages"][ctx.error]["tool_calls"][0]


def _set_target_arguments(make: Callable[[str], str]) -> Callable[[dict, Ctx], None]:
    def change(row: dict, ctx: Ctx) -> None:
        fn = target_call(row, ctx)["function"]
        fn["arguments"] = make(fn["arguments"])
    return change


def _forged_call_id_and_result(new_id: str) -> Callable[[dict, Ctx], None]:
    def change(row: dict, ctx: Ctx) -> None:
        call = target_call(row, ctx)
        old = call["id"]
        call["id"] = new_id
        for m in row["messages"]:
            if m.get("tool_call_id") == old:
                m["tool_call_id"] = new_id
    return change


def _empty_tool_name(row: dict, ctx: Ctx) -> None:
    target_call(row, ctx)["function"]["name"] = ""


def _duplicate_parallel_id(row: dict, ctx: Ctx) -> None:
    message = next(m for m in row["messages"] if len(m.get("tool_calls") or ()) > 1)
    first, second = message["tool_calls"][:2]
    old = second["id"]
    second["id"] = first["id"]
    for m in row["messages"]:
        if m.get("tool_call_id") == old:
            m["tool_call_id"] = first["id"]


def _drop_target_result(row: dict, ctx: Ctx) -> None:
    call_id = target_call(row, ctx)["id"]
    row["messages"] = [m for m in row["messages"] if m.get("tool_call_id") != call_id]


def _append_unknown_result(row: dict, ctx: Ctx) -> None:
    row["messages"].append({"role": "tool", "content": '{"status":"ok"}', "tool_call_id": "call_nobody0001"})


def _bom_on_trajectories(ctx: Ctx) -> None:
    path = ctx.source / TRAJECTORIES_FILE
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    _reseal(ctx.source)


def _crlf_trajectories_file(ctx: Ctx) -> None:
    path = ctx.source / TRAJECTORIES_FILE
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    _reseal(ctx.source)


def _duplicate_victim_record(ctx: Ctx) -> None:
    path = ctx.source / TRAJECTORIES_FILE
    rows = _rows(path)
    rows.append(next(r for r in rows if r["trajectory_id"] == ctx.tid))
    _write_rows(path, rows)
    _reseal(ctx.source)


def _rename_victim(new_id: str) -> Callable[[Ctx], None]:
    def edit(ctx: Ctx) -> None:
        for name in (TRAJECTORIES_FILE, LABELS_FILE):
            path = ctx.source / name
            rows = _rows(path)
            for row in rows:
                if row["trajectory_id"] == ctx.tid:
                    row["trajectory_id"] = new_id
            _write_rows(path, rows)
        _reseal(ctx.source)
    return edit


def _move_victim_error_label(ctx: Ctx) -> None:
    """Relabel so the error run starts two steps later (the agent's next call): other targets are now required."""
    path = ctx.source / LABELS_FILE
    rows = _rows(path)
    for row in rows:
        if row["trajectory_id"] == ctx.tid:
            labels = row["labels"]
            labels[str(ctx.error)] = 1
            labels[str(ctx.error + 2)] = -1
            row["notes"] = {str(ctx.error + 2): "wrong_tool"}
    _write_rows(path, rows)
    _reseal(ctx.source)


def _source_edit_hook(edit: Callable[[Ctx], None]) -> Callable[[PipelineConfig, Ctx], None]:
    def hook(cfg: PipelineConfig, ctx: Ctx) -> None:
        edit(ctx)
    return hook
