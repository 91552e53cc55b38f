"""What the check stage runs on the build's output on disk: the disk audit, the inline checker again, or both.

By default the disk check is the disk audit (``disk_audit``), a checker
written apart from the inline one the build runs; the fault study also runs
the inline checker here (as the pipeline did before: one checker run twice)
to show what each misses.
"""

from __future__ import annotations


from benchmark_builders.trajectories.records import LABELS_FILE, TRAJECTORIES_FILE
from judges.assurance.checks import (Contract, Finding, check_packet, check_source, excluded_values, original_holds,
                                     packet_contract, packet_holds, packet_requirement_count)
from judges.assurance.disk_audit import audit
from judges.assurance.render import PacketSpec
from judges.assurance.source import ParsedSources, SourceSnapshot
from judges.assurance.targets import select_targets
from judges.assurance.workspace import Workspace
from orgbench.core.jsonl import read_jsonl

CHECKERS = ("inline", "audit")


def job_specs(jobs: bytes, parsed: ParsedSources | None = None) -> tuple[list[dict], list[PacketSpec]]:
    """The build's job lines and their packet specs (``parsed``: the run's parses, taken for the same bytes)."""
    def parse() -> tuple[list[dict], list[PacketSpec]]:
        rows = read_jsonl("build/jobs.jsonl", jobs).values
        return rows, job_specs_from_rows(rows)
    if parsed is None:
        return parse()
    rows, specs = parsed.get("build/jobs.jsonl", jobs, parse)
    return list(rows), list(specs)


def inline_again(snapshot: SourceSnapshot, ws: Workspace, specs: list[PacketSpec], reverse: bool
                 ) -> tuple[list[Finding], list[Finding], int]:
    """The inline checker run on the disk copy: (failures, flags, requirements checked)."""
    trajectories, labels = snapshot.trajectories(), snapshot.labels()
    by_id = {t.trajectory_id: t for t in trajectories}
    findings: list[Finding] = [f for t in trajectories for f in check_source(t, reverse=reverse)]
    passed = 0
    contracts: dict[str, Contract] = {}
    for spec in specs:
        data = ws.read(f"build/packets/{spec.filename}")
        if data is None or spec.trajectory_id not in by_id:
            continue
        if spec.rendering == "original":               # asked for: held to the calls-omitted contract
            if not original_holds(data, by_id[spec.trajectory_id], spec):
                findings.append(Finding("messages-in-order", False, "original packet differs from its contract",
                                        spec.packet_id))
            continue
        trajectory = by_id[spec.trajectory_id]
        if spec.trajectory_id not in contracts:
            contracts = {spec.trajectory_id: snapshot.derived("contract", spec.trajectory_id,
                                                              lambda: packet_contract(trajectory))}
        if packet_holds(data, trajectory, spec, contracts[spec.trajectory_id]):
            passed += packet_requirement_count()
        else:
            findings.extend(check_packet(data, trajectory, spec, contracts[spec.trajectory_id],
                                         excluded_values(labels.get(spec.trajectory_id))))
    failed = [Finding.failed(f.requirement, f"{f.subject}: {f.detail}") for f in findings if not f.ok]
    return failed, [f for f in findings if f.ok and f.detail], len(findings) + passed


def audit_on_disk(snapshot: SourceSnapshot, ws: Workspace, rows: list[dict], specs: list[PacketSpec],
                  extents: tuple[str, ...], renderings: tuple[str, ...], reverse: bool,
                  members: dict[str, bytes] | None = None) -> tuple[list[Finding], list[Finding], int]:
    """The disk audit on the source bytes, the jobs and the packets as read (or ``members``, by file name):
    (failures, flags, checks run)."""
    packets = {row["packet_id"]: (members.get(spec.filename) if members is not None
                                  else ws.read(f"build/packets/{spec.filename}")) for row, spec in zip(rows, specs)}
    result = audit(snapshot.files.get(TRAJECTORIES_FILE, b""), snapshot.files.get(LABELS_FILE), rows, packets,
                   extents, reverse, renderings)
    return ([Finding.failed(rule, detail) for rule, detail in result.failures],
            [Finding(rule, True, detail) for rule, detail in result.flags], result.checked)


def source_contract_problems(snapshot: SourceSnapshot, rows: list[dict], members: dict[str, bytes]
                             ) -> list[Finding]:
    """Each packet about to be staged against its job: the job's target as the labels give it, and the bytes
    equal to the packet the contract derives from the source (the quick path of the inline checker)."""
    trajectories = {t.trajectory_id: t for t in snapshot.trajectories()}
    labels = snapshot.labels()
    problems: list[Finding] = []
    current: tuple[str, Contract | None, object] | None = None      # one trajectory's contract and targets at a time
    for spec in job_specs_from_rows(rows):
        data = members.get(spec.filename)
        trajectory = trajectories.get(spec.trajectory_id)
        if data is None or trajectory is None or spec.trajectory_id not in labels:
            problems.append(Finding.failed("staged-packets-match-source",
                                           f"{spec.packet_id}: packet, record or labels missing"))
            continue
        if current is None or current[0] != spec.trajectory_id:
            current = (spec.trajectory_id, snapshot.derived("contract", spec.trajectory_id,
                                                            lambda: packet_contract(trajectory)),
                       select_targets(trajectory, labels[spec.trajectory_id]))
        _, contract, targets = current
        if targets is None or getattr(targets, spec.target_kind) != spec.target_index:
            problems.append(Finding.failed("staged-packets-match-source",
                                           f"{spec.packet_id}: not the {spec.target_kind} target the labels give"))
        elif not (original_holds(data, trajectory, spec) if spec.rendering == "original"
                  else packet_holds(data, trajectory, spec, contract)):
            problems.append(Finding.failed("staged-packets-match-source", f"{spec.packet_id}: bytes differ from the "
                                           f"packet the source requires for this job"))
    return problems


def job_specs_from_rows(rows: list[dict]) -> list[PacketSpec]:
    """Packet specs of job rows."""
    return [PacketSpec(**{k: v for k, v in row.items() if k != "packet_id"}) for row in rows]
