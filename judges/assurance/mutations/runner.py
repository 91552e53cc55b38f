"""Independent mutation cases, part 4: running a case through the real stages at P3 with the recording stub.

P3 with the recording stub as the judge. Unlike ``run_pipeline`` it keeps
going after a failure or refusal, as an operator who runs every stage by hand
would, so a case is only *stopped* when the stages that follow also refuse.
The outcome says whether the run was stopped before the stub received any
bytes at all, where and by which requirement it was first stopped, and --
for information -- how many byte strings the stub accepted that are not the
fault-free packet of the job they were handed for, and how many fault-free
jobs the judge never read.

Source cases whose content or arguments forge packet structure are marked
``neutralise_ok``: rendering the text harmlessly is as good as stopping it.
For them ``misread`` reads every accepted packet as a lenient judge would
(``str.splitlines`` line breaks, NFKC-folded lookalikes, leading blanks and
invisible format characters ignored, an id ending at the first ``]``) and
counts the packets whose visible structure differs from the source's;
``Outcome.defended`` is "stopped before the stub read anything, or
(``neutralise_ok``) no packet read is misread".

Fault-free controls (``control=True``) must complete with the judge reading
every reference packet, none of them misread.

complete
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from benchmark_builders.trajectories.records import read_suite
from judges.assurance.faults import prepare as faults_prepare
from judges.assurance.pipeline import STEPS, Controls, PipelineConfig, StageRefused, run_step
from judges.backends.stub import RecordingStub
from orgbench.core.errors import InputError
from orgbench.core.tables import Table
from judges.assurance.mutations.kit import Case, Ctx, LEVEL, _rows
from judges.assurance.mutations.cases import CASES, CASES_BY_NAME


# -- running a case ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Setup:
    """The clean cohort, the victim and what a fault-free P3 run hands the judge: {job id: (sha256, draws)}."""

    source: Path
    tid: str
    reference: Mapping[str, tuple[str, int]]


def _judged(work: Path) -> list[dict]:
    path = work / "dispatch" / "responses.jsonl"
    return _rows(path) if path.is_file() else []


def prepare(root: Path, *, cohort: Path | None = None) -> Setup:
    """The cohort (the fault study's) and a fault-free reference run under ``root`` (``faults.prepare``)."""
    study = faults_prepare(Path(root), cohort=cohort)
    reference: dict[str, tuple[str, int]] = {}
    for row in _judged(Path(root) / "reference"):
        digest, draws = reference.get(row["job_id"], (row["sha256"], 0))
        reference[row["job_id"]] = (digest, draws + 1)
    return Setup(study.source, study.victim.trajectory_id, reference)


@dataclass(frozen=True)
class Outcome:
    """What one case did: where it was first stopped and what the stub received."""

    case: str
    stopped_at: str
    stopped_by: str
    reason: str
    received: int          # byte strings the stub received (accepted or refused)
    accepted: int
    wrong: int             # accepted byte strings that are not the fault-free packet of their job
    missing: int           # fault-free jobs whose packet the judge did not read as often as the reference
    completed: bool
    misread: int = 0       # accepted packets whose structure a lenient reader would see otherwise than the source
    neutralise_ok: bool = False

    @property
    def defended(self) -> bool:
        """Stopped before the stub read anything, or (content cases) every packet read shows no forged structure."""
        return self.stopped_before_read or (self.neutralise_ok and self.misread == 0)

    @property
    def stopped_before_read(self) -> bool:
        """Stopped by some check before the stub received anything."""
        return bool(self.stopped_at) and self.received == 0


_STRUCTURE = ("[MESSAGE", "[TOOL", "[BEGIN", "[END")


def _reader_line(line: str) -> str | None:
    """How a lenient reader takes one line: NFKC-folded, leading blanks and invisible format characters dropped.

    Returns the structure it would see (``MESSAGE i role``, ``RESULT i id``, ``CALL id``, ``BEGIN``, ``END``,
    ``ODD ...``) or None for text. An id runs to the first ``]`` or blank, as a reader would take it.
    """
    n = unicodedata.normalize("NFKC", line)
    while n and (n[0].isspace() or unicodedata.category(n[0]) == "Cf"):
        n = n[1:]
    if not n.startswith(_STRUCTURE):
        return None
    if n.rstrip() == "[BEGIN TARGET STEP]":
        return "BEGIN"
    if n.rstrip() == "[END TARGET STEP]":
        return "END"
    if (m := re.match(r"\[TOOL CALL id=([^\]\s]*)", n)):
        return f"CALL {m.group(1)}"
    if (m := re.match(r"\[TOOL RESULT (\d+) id=([^\]\s]*)", n)):
        return f"RESULT {m.group(1)} {m.group(2)}"
    if (m := re.match(r"\[MESSAGE (\d+) (\w+)\]", n)):
        return f"MESSAGE {m.group(1)} {m.group(2)}"
    return f"ODD {n[:40]}"


def misread(packet: bytes, trajectory, target: int, extent: str) -> Counter:
    """Structure a lenient reader sees in ``packet`` that the source does not have, and the reverse (a Counter
    of differences; empty when the reader sees exactly the source's messages, calls and one target pair)."""
    expected: Counter = Counter(["BEGIN", "END"])
    last = target if extent == "prefix" else len(trajectory.messages) - 1
    for i, m in enumerate(trajectory.messages[:last + 1]):
        expected[f"RESULT {i} {m.tool_call_id}" if m.role == "tool" else f"MESSAGE {i} {m.role}"] += 1
        for call in m.tool_calls:
            expected[f"CALL {call.id}"] += 1
    seen = Counter(x for x in map(_reader_line, packet.decode("utf-8", "replace").splitlines()) if x)
    return (seen - expected) + (expected - seen)


def _misread_packets(work: Path, source: Path, judged: list[dict], received: list[bytes]) -> int:
    """How many distinct accepted packets a lenient reader would misread (see ``misread``)."""
    by_hash = {hashlib.sha256(b).hexdigest(): b for b in received}
    jobs_path = work / "build" / "jobs.jsonl"
    specs = {r["packet_id"]: r for r in _rows(jobs_path)} if jobs_path.is_file() else {}
    try:
        trajectories = {t.trajectory_id: t for t in read_suite(source, verify=False)[0]}
    except InputError:
        return 0
    bad = set()
    for row in judged:
        spec, data = specs.get(row["job_id"]), by_hash.get(row["sha256"])
        if spec is None or data is None or spec["trajectory_id"] not in trajectories:
            continue
        if misread(data, trajectories[spec["trajectory_id"]], spec["target_index"], spec["extent"]):
            bad.add(row["sha256"])
    return len(bad)


def run_case(setup: Setup, case: Case, root: Path, level: str = LEVEL,
             checkers: tuple[str, ...] = ("inline", "audit")) -> Outcome:
    """Run ``case`` in a fresh workspace under ``root`` through every stage (refusals do not end the run);
    ``checkers`` switches the inline checker or the disk audit off (the mutation study's variants)."""
    run_root = Path(root) / case.name
    shutil.rmtree(run_root, ignore_errors=True)
    source = run_root / "source"
    shutil.copytree(setup.source, source)
    trajectories, labels = read_suite(setup.source)
    victim = next(t for t in trajectories if t.trajectory_id == setup.tid)
    from judges.assurance.targets import select_targets
    targets = select_targets(victim, labels[setup.tid])
    if targets is None:
        raise InputError(f"{setup.source}: trajectory {setup.tid} has no error and comparison target to mutate")
    ctx = Ctx(source, setup.tid, targets.error, targets.comparison)
    if case.source_edit:
        case.source_edit(ctx)
    hooks = {point: (lambda cfg, h=hook: h(cfg, ctx)) for point, hook in case.hooks.items()}
    cfg = PipelineConfig(source, run_root / "work", Controls.parse(level), hooks=hooks,
                         render_hook=case.render_hook(ctx) if case.render_hook else None, checkers=checkers)
    if case.setup:
        case.setup(cfg, ctx)
    stub = RecordingStub()
    first: tuple[str, str, str] | None = None
    codes = []
    dispatched = False
    for step in STEPS:
        if step in case.skip:
            continue
        step_cfg = replace(cfg, controls=Controls.parse(case.controls.get(step, level)))
        patch = case.patches.get(step)
        manager = patch(ctx) if patch else contextlib.nullcontext()
        fake = getattr(patch, "fake", None)
        if fake is not None and "selector" in PipelineConfig.__dataclass_fields__:
            step_cfg = replace(step_cfg, selector=fake)
        with manager:
            try:
                result = run_step(step_cfg, step, stub)
                codes.append(result.return_code)
                dispatched = dispatched or step == "dispatch"
                if result.return_code != 0 and first is None:
                    first = (step, result.requirement, result.reason)
            except StageRefused as refused:
                codes.append(3)
                first = first or (step, refused.requirement, refused.reason)
            except InputError as exc:
                codes.append(2)
                first = first or (step, "bad-input", str(exc))
            except Exception as exc:  # a crash stops the run as well; say so
                codes.append(-1)
                first = first or (step, f"crash ({type(exc).__name__})", str(exc))
    judged = _judged(cfg.work) if dispatched else []      # never an earlier run's responses
    accepted_rows = [r for r in judged if not str(r.get("response", "")).startswith("error: ")]
    wrong = sum(1 for r in accepted_rows if setup.reference.get(r["job_id"], ("",))[0] != r["sha256"])
    counts: dict[str, int] = {}
    for r in accepted_rows:
        if setup.reference.get(r["job_id"], ("",))[0] == r["sha256"]:
            counts[r["job_id"]] = counts.get(r["job_id"], 0) + 1
    missing = sum(1 for job, (_, draws) in setup.reference.items() if counts.get(job, 0) != draws)
    accepted_bytes = [b for b, r in zip(stub.received, stub.reads) if r.accepted]
    bad_reads = _misread_packets(cfg.work, source, accepted_rows, accepted_bytes)
    step, requirement, reason = first or ("", "", "")
    outcome = Outcome(case.name, step, requirement, reason.replace(str(run_root), "<run>"), len(stub.reads),
                      len(stub.accepted_hashes), wrong, missing,
                      first is None and len(codes) == len(STEPS) - len(case.skip), bad_reads, case.neutralise_ok)
    shutil.rmtree(run_root, ignore_errors=True)
    return outcome


def report(outcomes: list[Outcome]) -> str:
    """A Markdown table of outcomes."""
    rows = []
    for o in outcomes:
        c = CASES_BY_NAME[o.case]
        rows.append([o.case, c.obligation or "-", c.attacks, "yes" if o.defended else "no",
                     "yes" if o.stopped_before_read else "no", f"{o.stopped_at}: {o.stopped_by}" if o.stopped_at
                     else "completed", o.accepted, f"{o.wrong} wrong, {o.missing} jobs missed, {o.misread} misread"])
    return Table.from_lists(["case", "obligation", "attacks", "defended", "stopped before the judge read", "first stop",
                             "stub reads", "wrong"], rows).to_markdown().rstrip("\n")


if __name__ == "__main__":          # python -m judges.assurance.mutations.runner (prints the table)
    import sys
    import tempfile

    from benchmark_builders.trajectories.cohort import fault_cohort

    with tempfile.TemporaryDirectory() as tmp:
        st = prepare(Path(tmp), cohort=fault_cohort(Path(tmp) / "built"))
        names = sys.argv[1:] or [c.name for c in CASES]
        print(report([run_case(st, CASES_BY_NAME[n], Path(tmp) / "runs") for n in names]))
