"""The disk audit: a second checker, declarative and written apart from ``checks`` and ``render``.

The paper's point is that two checkers written by the same hand share blind
spots. This one shares no code with the inline checker: it reads the raw
JSON lines itself, validates each record against a JSON Schema
(``records.schema.json``, compiled by fastjsonschema), applies a table of record rules, re-derives the
targets from the labels, and holds every packet to a table of rules over its
text -- a line grammar, ``str.splitlines()`` agreement, the markers, the
extent, and line-for-line equality with the packet its own templates build
from the record. The check stage runs it on what the build left on disk.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, Mapping, Sequence

import fastjsonschema

from orgbench.core.jsonl import read_jsonl

#: The audit's rules (name: what must hold), each run on every record or packet it applies to.
AUDIT_RULES: dict[str, str] = {
    "disk:record-schema": "each trajectory and labels line is valid against records.schema.json",
    "disk:steps-not-empty": "every user and assistant message has content or calls; every tool result an id",
    "disk:call-ids-unique": "no call id repeats within a trajectory",
    "disk:calls-answered": "every call has a tool result with its id",
    "disk:results-answer-calls": "every tool result answers one earlier open call (P3)",
    "disk:targets-from-labels": "the build's jobs are exactly the targets the labels imply, for every extent",
    "disk:lines-agree": "the packet is UTF-8, ends with LF, and str.splitlines() reads the lines a byte split does",
    "disk:grammar": "every line is a marker, a header, a call line or a content line not starting with '['",
    "disk:markers": "one BEGIN and one END line, BEGIN followed by the target's header",
    "disk:extent": "a prefix packet ends with END; a full packet shows the last message",
    "disk:text-equals-source": "the packet's lines equal, one for one, the lines the audit's templates make",
}

_GRAMMAR = (re.compile(r"(?!\[).*"),                      # the content line first: most lines are one
            re.compile(r"\[(BEGIN|END) TARGET STEP\]"), re.compile(r"\[MESSAGE \d+ (system|user|assistant)\]"),
            re.compile(r"\[TOOL RESULT \d+ id=[^\s]+\]"), re.compile(r"\[TOOL CALL id=[^\s]+ bytes=\d+\] [^\s(]+\(.*\)"))
_HEADER_INDEX = re.compile(r"\[(?:MESSAGE|TOOL RESULT) (\d+) ")


def _header_index(line: str) -> int | None:
    """The index a message or tool-result header line states (None if the line is no such header)."""
    found = _HEADER_INDEX.match(line)
    return int(found.group(1)) if found else None


def _schema_validators() -> dict[str, Callable[[Any], Any]]:
    """records.schema.json compiled (fastjsonschema, draft 7) into one validating function per record kind, its
    (non-recursive) ``$defs`` references written in place: the same rules and messages, without a generated call
    (and its formatted path) per message and per call."""
    doc = json.loads(resources.files("judges.assurance").joinpath("records.schema.json").read_text("utf-8"))

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {"$ref"}:
                return inline(doc["$defs"][node["$ref"].removeprefix("#/$defs/")])
            return {key: inline(value) for key, value in node.items()}
        return [inline(value) for value in node] if isinstance(node, list) else node

    return {kind: fastjsonschema.compile({"$schema": doc["$schema"], **inline(doc[kind])})
            for kind in ("trajectory", "labels")}


_VALIDATORS = _schema_validators()


def _escape_ranges() -> list[tuple[int, int]]:
    """The committed escape table's ranges (data of the packet format, read here as data)."""
    table = json.loads(resources.files("judges.assurance").joinpath("escape_table.json").read_text("utf-8"))
    return [(lo, hi) for lo, hi in table["escape_everywhere"]]


_RANGES = _escape_ranges()


@functools.lru_cache(maxsize=65536)
def _in_table(code: int) -> bool:
    lo, hi = 0, len(_RANGES)
    while lo < hi:                                     # binary search over the table's ranges
        mid = (lo + hi) // 2
        if _RANGES[mid][1] < code:
            lo = mid + 1
        else:
            hi = mid
    return lo < len(_RANGES) and _RANGES[lo][0] <= code


def _escaped(text: str, arguments: bool) -> str:
    """Format 2's escapes of one content line (``arguments``: of a call's arguments, between its parentheses)."""
    padded = ("(" if arguments else "") + text + (")" if arguments else "")
    shift = 1 if arguments else 0
    pieces: list[str] = []
    leading = not arguments
    if text.isascii() and text.isprintable():         # no character but ( and ) (in arguments) is escaped
        pieces.append(text.replace("(", "\u27e6U+0028\u27e7").replace(")", "\u27e6U+0029\u27e7")
                      if arguments else text)
        text = ""
    for k, ch in enumerate(text):
        o = ord(ch)
        near = {padded[k + shift - 1] if k + shift else "", padded[k + shift + 1] if k + shift + 1 < len(padded) else ""}
        if 0x20 <= o < 0x7F:
            escape = arguments and ch in "()"
        else:
            escape = ch == "\n" or _in_table(o) or leading or bool(near & set("[]()\\"))
        pieces.append(f"\u27e6U+{o:04X}\u27e7" if escape else ch)
        if ch != " ":
            leading = False
    out = "".join(pieces)
    if "[" in out:
        for word in ("BEGIN TARGET STEP]", "END TARGET STEP]", "MESSAGE ", "TOOL CALL ", "TOOL RESULT "):
            out = out.replace("[" + word, "\u27e6U+005B\u27e7" + word)
    return out


@functools.lru_cache(maxsize=1 << 15)
def _arguments_escaped(arguments: str) -> str:
    """A call's arguments escaped, once per distinct arguments."""
    return _escaped(arguments, True)


def _content_lines(content: str | None) -> list[str]:
    return list(_content_lines_once(content)) if content else []


@functools.lru_cache(maxsize=1 << 15)
def _content_lines_once(content: str) -> tuple[str, ...]:
    """A content's lines, made once per distinct content (a suite repeats its prompts and replies)."""
    lines = []
    for line in content.split("\n"):
        line = _escaped(line, False)
        if _reads_as_structure(line):
            line = "\\" + line
        if _LABEL_TEXT.search(line):
            line = "\u27e6DATA\u27e7" + line
        lines.append(line)
    return tuple(lines)


_OPENING = re.compile("(?: |\u27e6U\\+[0-9A-F]{4,6}\u27e7)*")
_LABEL_TEXT = re.compile(r'(?i)(?<![a-z0-9_])(?:labels?|step_labels?|notes?|error_kinds?)"?[ \t]*[:=]')


def _reads_as_structure(line: str) -> bool:
    """Past what a reader skips (spaces, escapes), does the line open with '[' or a backslash?"""
    opening = _OPENING.match(line)                      # the pattern matches every line (maybe empty)
    return line[opening.end() if opening else 0:][:1] in ("[", "\\")


def _message_template(index: int, message: Mapping[str, Any], calls: bool = True) -> list[str]:
    """The lines one message must appear as."""
    if message["role"] == "tool":
        lines = [f"[TOOL RESULT {index} id={message['tool_call_id']}]"]
    else:
        lines = [f"[MESSAGE {index} {message['role']}]"]
    content = message.get("content")
    lines += _content_lines_once(content) if content else ()
    for call in (message.get("tool_calls") or ()) if calls else ():
        shown = _arguments_escaped(call["function"]["arguments"])
        lines.append(f"[TOOL CALL id={call['id']} bytes={len(shown.encode('utf-8'))}] "
                     f"{call['function']['name']}({shown})")
    return lines


def packet_template(messages: list[Mapping[str, Any]], target: int, extent: str, rendering: str = "restored",
                    made: list[list[str]] | None = None) -> list[str]:
    """The lines a packet of ``messages`` around ``target`` must have (``original``: calls omitted); ``made``:
    the messages' templates for this rendering, when already made."""
    if made is None:
        made = [_message_template(i, m, rendering == "restored") for i, m in enumerate(messages)]
    stop = target + 1 if extent == "prefix" else len(messages)
    out: list[str] = [line for block in made[:target] for line in block]
    out += ["[BEGIN TARGET STEP]", *made[target], "[END TARGET STEP]"]
    out += [line for block in made[target + 1:stop] for line in block]
    return out


def targets_from_labels(messages: list[Mapping[str, Any]], labels: Mapping[str, int]) -> dict[str, int]:
    """``{"error": i, "comparison": j}`` as the labels imply, or {} when the trajectory lacks either."""
    by_index = {int(k): v for k, v in labels.items()}
    callers = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("tool_calls")]
    last_value = None
    error = None
    for i in range(len(messages)):
        if i in callers and by_index.get(i) == -1 and last_value != -1:
            error = i
            break
        if i in by_index:
            last_value = by_index[i]
    if error is None:
        return {}
    earlier = [j for j in callers if j < error and by_index.get(j) == 1]
    return {"error": error, "comparison": earlier[-1]} if earlier else {}


def _record_rules(trajectory: Mapping[str, Any], reverse: bool) -> list[tuple[str, str]]:
    messages = trajectory["messages"]
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    result_ids = [m.get("tool_call_id") for m in messages if m["role"] == "tool"]
    blank = [k for k, m in enumerate(messages) if (m["role"] in ("user", "assistant") and not m.get("content")
                                                   and not m.get("tool_calls"))
             or (m["role"] == "tool" and "tool_call_id" not in m)]
    out = [("disk:steps-not-empty", f"messages{blank[:3]} empty or a result without an id") if blank else None,
           ("disk:call-ids-unique", f"repeated {sorted(k for k, n in Counter(ids).items() if n > 1)}")
           if len(set(ids)) != len(ids) else None,
           ("disk:calls-answered", f"unanswered {sorted(set(ids) - set(result_ids))}")
           if set(ids) - set(result_ids) else None]
    if reverse:
        open_ids: list[str] = []
        for k, message in enumerate(messages):
            if message["role"] == "tool":
                if message.get("tool_call_id") not in open_ids:
                    out.append(("disk:results-answer-calls", f"messages[{k}] answers no open call"))
                    break
                open_ids.remove(message["tool_call_id"])
            open_ids += [c["id"] for c in message.get("tool_calls") or ()]
    return [item for item in out if item]


@functools.lru_cache(maxsize=1 << 16)
def _line_form(line: str) -> bool:
    """Whether a line is a marker, a header, a call line or a content line (remembered: lines repeat)."""
    return any(g.fullmatch(line) for g in _GRAMMAR)


def _last_header(lines: list[str]) -> int | None:
    """The index the packet's last message or tool-result header states (None if it has none)."""
    return next((index for line in reversed(lines) if (index := _header_index(line)) is not None), None)


def _packet_rules(text: str, lines: list[str], wanted: list[str], target: int, extent: str,
                  last: int) -> list[tuple[str, str]]:
    begin = [k for k, line in enumerate(lines) if line == "[BEGIN TARGET STEP]"]
    rules: tuple[tuple[str, Callable[[], str]], ...] = (
        ("disk:lines-agree", lambda: "" if text.endswith("\n") and text.splitlines() == lines
         else "a line break other than LF, or no final LF"),
        ("disk:grammar", lambda: "" if all(map(_line_form, lines)) else next(
            f"line {k + 1} matches no line form" for k, line in enumerate(lines) if not _line_form(line))),
        ("disk:markers", lambda: "" if len(begin) == 1 and lines.count("[END TARGET STEP]") == 1
         and begin[0] + 1 < len(lines) and _header_index(lines[begin[0] + 1]) == target else "markers wrong"),
        ("disk:extent", lambda: "" if (lines[-1:] == ["[END TARGET STEP]"] if extent == "prefix"
                                       else _last_header(lines) == last) else f"{extent} packet ends wrongly"),
        ("disk:text-equals-source", lambda: "" if lines == wanted else next(
            (f"line {k + 1} differs from the source" for k, (a, b) in enumerate(zip(lines, wanted)) if a != b),
            f"{len(lines)} lines, the source gives {len(wanted)}")),
    )
    return [(name, why) for name, rule in rules if (why := rule())]


@dataclass(frozen=True, slots=True)
class AuditResult:
    """What the audit found: failures (rule, detail), flags that do not fail, and how many checks ran."""

    failures: tuple[tuple[str, str], ...]
    flags: tuple[tuple[str, str], ...]
    checked: int


def _jsonl(data: bytes | None, name: str) -> list[Any]:
    return read_jsonl(name, data or b"").values


def audit(trajectories_jsonl: bytes, labels_jsonl: bytes | None, jobs: Sequence[Mapping[str, Any]],
          packets: Mapping[str, bytes | None], extents: tuple[str, ...], reverse: bool,
          renderings: tuple[str, ...] = ("restored",)) -> AuditResult:
    """Audit raw suite lines, the build's jobs and its packets (``packets``: job packet_id -> bytes or None)."""
    failures: list[tuple[str, str]] = []
    flags: list[tuple[str, str]] = []
    checked = 0
    records: dict[str, Any] = {}
    for kind, rows in (("trajectory", _jsonl(trajectories_jsonl, "trajectories.jsonl")),
                       ("labels", _jsonl(labels_jsonl, "labels.jsonl"))):
        for number, row in enumerate(rows, start=1):
            checked += 1
            try:
                _VALIDATORS[kind](row)
            except fastjsonschema.JsonSchemaValueException as exc:
                failures.append(("disk:record-schema", f"{kind} record {number}: {exc.message}"))
            else:
                records.setdefault(row["trajectory_id"], {})[kind] = row
    wanted_jobs: set[tuple[str, str, int, str, str]] = set()
    for tid, pair in sorted(records.items()):
        trajectory = pair.get("trajectory")
        if trajectory is None:
            continue
        failures += [(rule, f"{tid}: {why}") for rule, why in _record_rules(trajectory, reverse)]
        for k, m in enumerate(trajectory["messages"]):
            for c in m.get("tool_calls") or ():
                try:
                    ok = isinstance(json.loads(c["function"]["arguments"]), dict)
                except ValueError:
                    ok = False
                if not ok:
                    flags.append(("arguments-json", f"{tid}: {c['id']}@{k} arguments are not a JSON object"))
        targets = targets_from_labels(trajectory["messages"], pair.get("labels", {}).get("labels", {})) \
            if "labels" in pair else {}
        wanted_jobs |= {(tid, kind, index, extent, rendering) for kind, index in targets.items()
                        for extent in extents for rendering in renderings}
    given = {(j["trajectory_id"], j["target_kind"], j["target_index"], j["extent"], j.get("rendering")) for j in jobs}
    for name, odd in (("missing", wanted_jobs - given), ("not implied by the labels", given - wanted_jobs)):
        if odd:
            failures.append(("disk:targets-from-labels", f"jobs {name}: {sorted(odd)[:3]}"))
    made: dict[tuple[str, str], list[list[str]]] = {}       # one trajectory's message templates at a time
    for job in jobs:
        checked += 1
        data = packets.get(job["packet_id"])
        trajectory = records.get(job["trajectory_id"], {}).get("trajectory")
        if data is None or trajectory is None:
            failures.append(("disk:text-equals-source", f"{job['packet_id']}: packet or its record missing"))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            failures.append(("disk:lines-agree", f"{job['packet_id']}: not UTF-8"))
            continue
        lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
        key = (job["trajectory_id"], job["rendering"])
        if key not in made:
            made = {key: [_message_template(i, m, job["rendering"] == "restored")
                          for i, m in enumerate(trajectory["messages"])]}
        wanted = packet_template(trajectory["messages"], job["target_index"], job["extent"], job["rendering"],
                                 made[key])
        failures += [(rule, f"{job['packet_id']}: {why}") for rule, why in
                     _packet_rules(text, lines, wanted, job["target_index"], job["extent"],
                                   len(trajectory["messages"]) - 1)]
    return AuditResult(tuple(failures), tuple(flags), checked)
