"""The four obligations as a library, for someone else's renderer.

A renderer is anything with ``render(trajectory, target, extent) -> bytes``
(``Renderer``): its packet format is its own, so the checks here read it
format-agnostically. ``content_problems`` finds each message's content and
each call's name and arguments as bytes, in source order (obligation 1, and
the default checker). ``MUTATORS`` damage a packet the way the paper's
faults did (a call's arguments deleted or changed, a name dropped, the
packet cut short, a label leaked, line ends changed). ``CheckedGate`` hands a
judge only packets whose check passed, as the very buffer it hashed, and a
``RecordingStub`` told those hashes refuses anything else at read time. The
four ``obligation_*`` functions return ``Evidence``: what was tried, what
held, and what did not. The pytest plugin (``-p judges.assurance.pytest_plugin``)
exposes all of it as fixtures.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from benchmark_builders.trajectories.records import Trajectory
from judges.backends.base import BackendError, JudgeRequest, Message
from judges.backends.stub import RecordingStub


class Renderer(Protocol):
    """What the obligations test: a packet for one target message of a trajectory, ``prefix`` or ``full``."""

    def render(self, trajectory: Trajectory, target: int, extent: str) -> bytes:
        """The packet's exact bytes."""


Checker = Callable[[Trajectory, int, str, bytes], list[str]]


def content_problems(trajectory: Trajectory, target: int, extent: str, packet: bytes) -> list[str]:
    """Format-agnostic: every shown message's content, call names and arguments appear as bytes, in order."""
    problems = []
    position = 0
    last = target if extent == "prefix" else len(trajectory.messages) - 1
    for index, message in enumerate(trajectory.messages[:last + 1]):
        parts = [("content", message.content)] if message.content.strip() else []
        for call in message.tool_calls:
            parts += [(f"call {call.id} name", call.name), (f"call {call.id} arguments", call.arguments)]
        for what, text in parts:
            found = packet.find(text.encode("utf-8"), position)
            if found < 0:
                problems.append(f"messages[{index}] {what} missing or out of order")
            else:
                position = found + len(text.encode("utf-8"))
    if extent == "prefix":
        later = [m for m in trajectory.messages[target + 1:] if len(m.content.strip()) >= 8]
        if later and later[0].content.encode("utf-8") in packet[position:]:
            problems.append(f"prefix packet shows messages[{target + 1}], after the target")
    for label in (b"label", b"step_label"):
        if label in packet.lower() and not any(label in m.content.lower().encode() for m in trajectory.messages):
            problems.append("packet carries label text the source does not")
    source_has_cr = any("\r" in m.content or any("\r" in c.arguments for c in m.tool_calls)
                        for m in trajectory.messages)
    if b"\r" in packet and not source_has_cr:
        problems.append("packet has CR line ends the source does not")
    return problems


def _target_call(trajectory: Trajectory, target: int):
    calls = trajectory.messages[target].tool_calls
    return calls[0] if calls else None


def _replace(packet: bytes, old: str, new: bytes) -> bytes | None:
    data = old.encode("utf-8")
    at = packet.rfind(data)
    return None if at < 0 or not data else packet[:at] + new + packet[at + len(data):]


#: Packet mutators: (packet, trajectory, target) -> damaged packet, or None when it does not apply.
MUTATORS: dict[str, Callable[[bytes, Trajectory, int], bytes | None]] = {
    "delete-target-arguments": lambda p, t, i: _replace(p, c.arguments, b"") if (c := _target_call(t, i)) else None,
    "change-target-arguments": lambda p, t, i: _replace(p, c.arguments, c.arguments.replace("1", "7", 1).encode()
                                                        if "1" in c.arguments else c.arguments.encode() + b" ")
    if (c := _target_call(t, i)) else None,
    "delete-target-name": lambda p, t, i: _replace(p, c.name, b"") if (c := _target_call(t, i)) else None,
    "cut-before-target": lambda p, t, i: p[:p.find(c.arguments.encode("utf-8"))] if (c := _target_call(t, i))
    and c.arguments and c.arguments.encode("utf-8") in p else None,
    "leak-a-label": lambda p, t, i: p + b"label: -1\n",
    "crlf-line-ends": lambda p, t, i: p.replace(b"\n", b"\r\n") if b"\n" in p else None,
}


@dataclass(frozen=True, slots=True)
class Evidence:
    """What an obligation's test tried, how many held, and each that did not (with why)."""

    obligation: int
    tried: int
    held: int
    failures: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Every case held."""
        return self.tried > 0 and self.held == self.tried


def _targets(trajectories: Sequence[Trajectory]) -> list[tuple[Trajectory, int]]:
    """Every tool-calling step whose content is empty: where omitted calls leave a blank step."""
    return [(t, i) for t in trajectories for i, m in enumerate(t.messages)
            if m.role in ("assistant", "user") and m.tool_calls and not m.content.strip()]


def obligation_1(renderer: Renderer, trajectories: Sequence[Trajectory]) -> Evidence:
    """Required content survives rendering: steps acting only through tool calls, prefix and full."""
    failures = []
    cases = [(t, i, e) for t, i in _targets(trajectories) for e in ("prefix", "full")]
    for t, i, extent in cases:
        found = content_problems(t, i, extent, renderer.render(t, i, extent))
        failures += [f"{t.trajectory_id}@{i} {extent}: {p}" for p in found]
    bad = {f.split(":")[0] for f in failures}
    return Evidence(1, len(cases), len(cases) - len(bad), tuple(failures))


def obligation_2(renderer: Renderer, trajectories: Sequence[Trajectory], checker: Checker = content_problems
                 ) -> Evidence:
    """The checker passes every clean packet and fails every mutated one."""
    tried, failures = 0, []
    for t, i in _targets(trajectories):
        clean = renderer.render(t, i, "full")
        tried += 1
        if checker(t, i, "full", clean):
            failures.append(f"{t.trajectory_id}@{i}: the clean packet fails the checker")
        for name, mutate in MUTATORS.items():
            damaged = mutate(clean, t, i)
            if damaged is None or damaged == clean:
                continue
            tried += 1
            if not checker(t, i, "full", damaged):
                failures.append(f"{t.trajectory_id}@{i}: mutation {name} passes the checker")
    return Evidence(2, tried, tried - len(failures), tuple(failures))


class CheckedGate:
    """Render, check, and hand the judge only checked buffers; the stub is told their hashes (read-time check)."""

    def __init__(self, renderer: Renderer, checker: Checker = content_problems) -> None:
        self.renderer, self.checker = renderer, checker
        self.stub = RecordingStub(expected=())
        self.refused: list[str] = []

    def judge(self, trajectory: Trajectory, target: int, extent: str,
              after_check: Callable[[bytes], bytes] = lambda data: data) -> bool:
        """Judge one packet if its check passes; True if the stub read it. ``after_check`` simulates a change."""
        data = self.renderer.render(trajectory, target, extent)
        problems = self.checker(trajectory, target, extent, data)
        if problems:
            self.refused.append(f"{trajectory.trajectory_id}@{target} {extent}: {problems[0]}")
            return False
        self.stub.expect(set(self.stub.expected or ()) | {hashlib.sha256(data).hexdigest()})
        handed = after_check(data)
        try:
            asyncio.run(self.stub.complete(JudgeRequest((Message("user", handed),))))
        except BackendError as exc:
            self.refused.append(f"{trajectory.trajectory_id}@{target} {extent}: {exc}")
            return False
        return True


class _Mutated:
    def __init__(self, renderer: Renderer, mutate: Callable[[bytes, Trajectory, int], bytes | None]) -> None:
        self.renderer, self.mutate = renderer, mutate

    def render(self, trajectory: Trajectory, target: int, extent: str) -> bytes:
        data = self.renderer.render(trajectory, target, extent)
        return self.mutate(data, trajectory, target) or data


def obligation_3(renderer: Renderer, trajectories: Sequence[Trajectory], checker: Checker = content_problems
                 ) -> Evidence:
    """A failed check stops later use: a renderer made faulty by each mutator never gets a packet to the stub."""
    tried, failures = 0, []
    for name, mutate in MUTATORS.items():
        gate = CheckedGate(_Mutated(renderer, mutate), checker)
        for t, i in _targets(trajectories):
            if mutate(renderer.render(t, i, "full"), t, i) in (None, renderer.render(t, i, "full")):
                continue
            tried += 1
            if gate.judge(t, i, "full"):
                failures.append(f"{t.trajectory_id}@{i}: mutation {name} reached the stub")
    return Evidence(3, tried, tried - len(failures), tuple(failures))


def obligation_4(renderer: Renderer, trajectories: Sequence[Trajectory], checker: Checker = content_problems
                 ) -> Evidence:
    """The judge reads the bytes last checked: clean packets read as hashed; a change after the check refused."""
    tried, failures = 0, []
    gate = CheckedGate(renderer, checker)
    for t, i in _targets(trajectories):
        tried += 2
        if not gate.judge(t, i, "full"):
            failures.append(f"{t.trajectory_id}@{i}: the checked packet was not read")
        elif gate.stub.received[-1] != renderer.render(t, i, "full"):
            failures.append(f"{t.trajectory_id}@{i}: the stub read other bytes than were checked")
        if gate.judge(t, i, "full", after_check=lambda data: data.replace(b"\n", b"\r\n") + b" "):
            failures.append(f"{t.trajectory_id}@{i}: bytes changed after the check were read")
    return Evidence(4, tried, tried - len(failures), tuple(failures))


def all_obligations(renderer: Renderer, trajectories: Sequence[Trajectory], checker: Checker = content_problems
                    ) -> list[Evidence]:
    """The four obligations' evidence, in order."""
    return [obligation_1(renderer, trajectories), obligation_2(renderer, trajectories, checker),
            obligation_3(renderer, trajectories, checker), obligation_4(renderer, trajectories, checker)]
