"""A built-in step judge that reads only the packet text, as an LLM judge would.

It parses the packet it is handed (markers, messages, visible tool calls and
results) and applies a few support-desk rules a careful reader would apply:
arguments that are not a JSON object, a dispatch created before any
entitlement check, a case closed before any dispatch, an asset looked up by a
serial that appears nowhere earlier. In a full packet it also reads what
followed the target: an error in the target's own result, or the agent
apologising or correcting itself next. A target step whose action is
invisible (blank) draws ``cannot_decide`` unless later context alone suggests
an error -- which is how omitted calls inflate the later-context contrast.
It never sees labels: they are not in the packet.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from judges.backends.base import JudgeBackend, JudgeRequest, JudgeResponse
from judges.backends.registry import Backend

_HEADER = re.compile(r"^\[MESSAGE (\d+) (\w+)\]$")
_RESULT = re.compile(r"^\[TOOL RESULT (\d+) id=(.*)\]$")
_CALL = re.compile(r"^\[TOOL CALL id=(\S+) bytes=(\d+)\] ([^(\s]+)\((.*)\)$")
_ERROR_WORDS = re.compile(r"\b(error|not found|invalid|failed|malformed)\b", re.I)
_CORRECTION_WORDS = re.compile(r"\b(sorry|apolog\w*|mistake|mistyped|wrong|should have|too early|malformed|"
                               r"retry\w*|again)\b", re.I)


@dataclass
class _Step:
    index: int
    role: str
    text: list[str] = field(default_factory=list)
    calls: list[tuple[str, str, str]] = field(default_factory=list)   # (id, name, arguments)
    answers: str | None = None


def read_packet(text: str) -> tuple[list[_Step], int | None, bool]:
    """The packet's steps, the target's position among them, and whether the packet ends at the target."""
    steps: list[_Step] = []
    target = None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        if line == "[BEGIN TARGET STEP]":
            target = len(steps)
        elif line == "[END TARGET STEP]":
            pass
        elif (m := _HEADER.match(line)):
            steps.append(_Step(int(m.group(1)), m.group(2)))
        elif (m := _RESULT.match(line)):
            steps.append(_Step(int(m.group(1)), "tool", answers=m.group(2)))
        elif (m := _CALL.match(line)) and steps:
            steps[-1].calls.append((m.group(1), m.group(3), m.group(4)))
        elif steps:
            steps[-1].text.append(line)
    ends_at_target = bool(lines) and lines[-1] == "[END TARGET STEP]"
    return steps, target, ends_at_target


_ESCAPE = re.compile("\u27e6U\\+([0-9A-F]{4,6})\u27e7")


def _object(arguments: str) -> dict | None:
    """The arguments as a JSON object once the packet's ``⟦U+XXXX⟧`` escapes are undone, or None."""
    try:
        value = json.loads(_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), arguments))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def judge_packet(text: str) -> tuple[str, str]:
    """(verdict, reason) for a packet: ``fail`` flags the target step as an error."""
    steps, target, _ = read_packet(text)
    if target is None or target >= len(steps):
        return "cannot_decide", "no target step in the packet"
    step = steps[target]
    before, after = steps[:target], steps[target + 1:]
    earlier_calls = [name for s in before for _, name, _ in s.calls]
    earlier_text = "\n".join(line for s in before for line in s.text)
    if step.calls:
        for _, name, arguments in step.calls:
            args = _object(arguments)
            if args is None:
                return "fail", f"{name} arguments are not a JSON object"
            if name == "create_dispatch" and "check_entitlement" not in earlier_calls:
                return "fail", "dispatch created before any entitlement check"
            if name == "update_case" and args.get("status") in ("closed", "resolved") \
                    and "create_dispatch" not in earlier_calls:
                return "fail", "case closed before any dispatch"
            serial = args.get("serial")
            if name in ("get_asset", "check_entitlement") and isinstance(serial, str) and serial not in earlier_text:
                return "fail", f"serial {serial} appears nowhere earlier"
        ids = {call_id for call_id, _, _ in step.calls}
        own = [s for s in after if s.role == "tool" and s.answers in ids]
        if any(_ERROR_WORDS.search(" ".join(s.text)) for s in own):
            return "fail", "the step's own result reports an error"
    elif not step.text or not "".join(step.text).strip():
        following = []
        for s in after:
            if s.role == "assistant":
                following.append(s)
                break
            following.append(s)
        if any(s.role == "tool" and _ERROR_WORDS.search(" ".join(s.text)) for s in following):
            return "fail", "blank step followed by an error result"
        if following and following[-1].role == "assistant" and _CORRECTION_WORDS.search(" ".join(following[-1].text)):
            return "fail", "blank step followed by a correction"
        return "cannot_decide", "the target step shows no action"
    nxt = next((s for s in after if s.role == "assistant"), None)
    if nxt is not None and _CORRECTION_WORDS.search(" ".join(nxt.text)):
        return "fail", "the agent corrects itself next"
    return "pass", "no sign of an error"


class PacketStepJudge(JudgeBackend):
    """JudgeBackend ``builtin:step``: answers from the packet text of the request's last message."""

    name = "builtin:step"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Judge the packet carried by the last message."""
        verdict, reason = judge_packet(request.messages[-1].text())
        body = json.dumps({"dimensions": {}, "claims": [{"text": reason, "status": "supported"}],
                           "verdict": verdict}, sort_keys=True)
        return JudgeResponse(body, model=self.name)


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="builtin:step", roles=("judge",), builtin=True, studies=("assurance",),
                  summary="the procedural step judge of the assurance contrast, offline and deterministic")


def make(wanted: object = None) -> PacketStepJudge:
    """The registry's factory for ``builtin:step``."""
    return PacketStepJudge()
