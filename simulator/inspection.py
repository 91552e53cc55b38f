"""A readable summary of a world: counts, time range, people by role, policy changes, sample artifacts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from orgbench.core.clock import format_ts, parse_ts
from simulator.world import World


def _table(counter: Counter, indent: str = "  ") -> list[str]:
    width = max((len(k) for k in counter), default=0)
    return [f"{indent}{key:<{width}}  {count:>8,}" for key, count in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))]


def summarise(world: World, directory: Path, samples: int = 3) -> str:
    """The text ``orgbench inspect`` prints for a verified world."""
    lines = [f"world {directory} — manifest verified: every file matches its SHA-256"]
    meta = world.meta
    lines.append(f"seed {meta.get('seed')} · {meta.get('start')} → {meta.get('end')} · format {meta.get('format_version')}")
    if world.events:
        lines.append(f"events from {format_ts(world.events[0].ts)} to {format_ts(world.events[-1].ts)}")
    lines.append(f"{len(world.actors)} people · {len(world.events):,} events · "
                 f"{len(world.artifacts):,} artifact versions of {len(world.artifact_ids()):,} artifacts")

    lines.append("\nevents by subsystem:")
    lines += _table(Counter(e.subsystem for e in world.events))
    lines.append("\nevents by type:")
    lines += _table(Counter(e.type for e in world.events))
    lines.append("\nartifact versions by kind:")
    lines += _table(Counter(v.kind for v in world.artifacts))

    last: dict[str, dict] = {}
    for version in world.artifacts:
        if version.kind == "ticket":
            last[version.artifact_id] = dict(version.facts)
    if last:
        lines.append("\nsupport cases by runbook (closed / live at the end):")
        closed = Counter(f.get("procedure_id") for f in last.values() if f.get("case_status") == "closed")
        live = Counter(f.get("procedure_id") for f in last.values() if f.get("case_status") != "closed")
        for procedure_id in sorted(closed | live, key=str):
            lines.append(f"  {procedure_id:<20}  {closed[procedure_id]:>4} / {live[procedure_id]}")
    types = Counter(e.type for e in world.events)
    answered = {e.payload.get("escalation_id") for e in world.events if e.type == "escalation.answered"}
    sent = [e for e in world.events if e.type == "escalation.sent"]
    lines.append(f"incidents: {types['incident.opened']}, postmortems published: {types['postmortem.published']}, "
                 f"escalations: {len(sent)} ({sum(e.payload.get('escalation_id') not in answered for e in sent)} never answered)")

    lines.append("\npeople by current role (employed at the end / left during the run):")
    employed = Counter(a.role for a in world.actors if a.left_at is None)
    left = Counter(a.role for a in world.actors if a.left_at is not None)
    width = max(len(r) for r in employed | left)
    for role in sorted(employed | left):
        lines.append(f"  {role:<{width}}  {employed[role]:>4} / {left[role]}")

    start = parse_ts(world.meta["start"]) if world.meta.get("start") else None
    policy = world.policy
    lines.append("\npolicy changes during the run:")
    changes = []
    for a in policy.assignments:
        if start is not None and a.valid_from > start:
            changes.append((a.valid_from, f"{a.actor_id} starts as {a.role}"))
        if a.valid_to is not None:
            changes.append((a.valid_to, f"{a.actor_id} stops being {a.role}"))
    for g in policy.grants:
        changes.append((g.valid_from, f"{g.actor_id} granted {g.subsystem} until "
                                      f"{format_ts(g.valid_to) if g.valid_to else 'open'} ({g.reason})"))
    for moment, text in sorted(changes):
        lines.append(f"  {format_ts(moment)}  {text}")
    if not changes:
        lines.append("  none")
    lines.append("private spaces: " + ", ".join(f"{s.space_id} ({s.subsystem}, {len(s.members)} memberships)"
                                                for s in policy.spaces.values()))

    lines.append("\nsample artifacts:")
    kinds = sorted({v.kind for v in world.artifacts})
    shown = 0
    for kind in kinds:
        if shown >= samples:
            break
        if kind not in ("ticket", "incident", "postmortem", "meeting_notes", "customer_email", "chat_message"):
            continue
        version = next(v for v in reversed(world.artifacts) if v.kind == kind)
        lines.append(f"--- {version.ref} [{version.subsystem}/{version.kind}] {format_ts(version.created_at)} "
                     f"by {version.author}: {version.title}")
        lines += ["    " + line for line in version.body.splitlines()[:12]]
        shown += 1
    return "\n".join(lines)
