"""The reference's steps read as an exemplar: each step's action, the fields it uses and produces, its team.

A step line is an item of the list the reference's lines make (``line_templates.list_items``: the lead they
repeat, whatever its marks), a line after the heading sharing a separator with the others, an arrow-joined part or
a prose clause; its action is the text before its first separator, its details what it used and, when a result is
told apart, what it produced. A step depends on an earlier one when it uses a field that one produced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from judges.claim_words import PAST, SENTENCE, content_stems, team_words
from judges.line_templates import first_separator, list_items, separator_kind, shared_separator
from judges.value_claims import status_group, value_shape, values


@dataclass(frozen=True)
class RefStep:
    """One step of the reference: its action words, the fields it uses and produces, its team if it escalates."""

    index: int
    action: str
    words: frozenset[str]
    uses: frozenset[str]
    produces: frozenset[str]
    team: frozenset[str]
    anchors: frozenset[str] = frozenset()   # kinds of value the step states ("~prefix:DSP"), read from their form
    yields: frozenset[str] = frozenset()    # kinds of value (and of status) the step produces



def _fields(text: str, labels: Sequence[str]) -> frozenset[str]:
    low = text.lower()
    return frozenset(label for label in labels if re.search(rf"\b{re.escape(label)}\b", low))


#: Where a prose step's action ends and its details start: a bracket of any kind, a colon, an arrow, a spaced dash or
#: run of dashes, a full stop.
_DETAILS = re.compile(r"\s*(?:[(\[{:]|=>|->|\u2192|\s(?:[-\u2013\u2014]|-{2,})\s|\.\s+(?=[A-Z]))")
#: Clause breaks inside a prose reference: "then", "after which", semicolons, ", and" before a past-tense verb.
_PROSE_STEP = re.compile(rf";\s+|,?(?<!\bwas)(?<!\bwere)\s+(?:and\s+)?then\s+|,\s+after which\s+|\.\s+(?=[A-Z])"
                         rf"|,?\s+and\s+(?=(?:the|a|an)\s+(?:[\w-]+\s+){{0,3}}(?:was|were)?\s*{PAST}\b)"
                         rf"|,\s+and\s+(?={PAST}\b)|,\s+(?={PAST}\b)|,\s+(?=(?:the|a)\s+(?:[\w-]+\s+){{1,3}}(?:was|were)\s)",
                         re.IGNORECASE)


def step_lines(reference: str) -> list[str]:
    """The reference's steps as text, however it lists them: the items of a list (its lines' repeated lead off), else
    the lines after a heading that share a separator (an action, then its details), else the clauses of its
    prose after the first sentence (which names the case), cut at its arrows, else its semicolons, when it joins
    three or more steps so, each part a step, else at "then", "after which", ";" and the like (never inside a step's brackets), keeping
    the parts that name an action."""
    lines = [line for line in reference.splitlines() if line.strip()]
    listed = list_items(lines)   # lines sharing a lead that counts or bullets, whatever its marks
    if len(listed) >= 2:
        return listed
    after = [line.strip() for line in lines[1:] if not line.rstrip().endswith(":")]
    kind = shared_separator(after)   # lines after the heading sharing a separator: an action, then its details
    detailed = [line for line in after if kind and first_separator(line, kind)]
    if len(detailed) >= 2:
        return detailed
    lines = [line.strip() for line in lines]
    if len(lines) > 1:
        body = " ".join(lines[1:])
    else:   # one paragraph: what follows the heading's colon, else the sentences after the first
        head, colon, rest = reference.partition(": ")
        body = rest if colon and len(head) < 120 else " ".join(SENTENCE.split(reference)[1:])
    for joint in (_ARROW, _SEMICOLON):   # "A -> B -> C", "A; B; C": each part is a step, whatever verb opens it
        listed = [p.strip(" .") for p in _outside_brackets(joint, body) if p.strip(" .")]
        if len(listed) >= 3:
            return listed
    parts = [_LEAD_IN.sub("", p.strip(" .")) for p in _outside_brackets(_PROSE_STEP, body) if p and p.strip(" .")]
    return [p for p in parts if _ACTS.search(p) or _DETAILED.search(p) or re.search(rf"\b{PAST}\b|\b(?:check|verif|confirm|run|open|ship|send|email)",
                                                             p, re.IGNORECASE)]


#: A prose clause that says someone acts ("Then we create a dispatch"), whatever the verb.
_ACTS = re.compile(r"^(?:(?:first|then|next|finally|lastly|and|after that),?\s+)*(?:we|i|they)\s+[a-z]+", re.IGNORECASE)


_ARROW = re.compile(r"\s*(?:->|=>|\u2192)\s*")
#: A clause that gives its details in brackets holding a value ("create a dispatch (dispatch DSP-1)"): a step.
_DETAILED = re.compile(r"[(\[{][^)\]}]*(?:\d|@)")
#: Who had to act, before a prose step's action ("Next the engineer had to ", "Then we must ").
_LEAD_IN = re.compile(r"^(?:(?:first|then|next|finally|lastly|after that|and),?\s+)*(?:the\s+\w+|we|i|they|he|she|you)"
                      r"\s+(?:had to|has to|have to|needs? to|must|should|would|will)\s+", re.IGNORECASE)
_SEMICOLON = re.compile(r"\s*;\s*")


def _outside_brackets(pattern: re.Pattern[str], text: str) -> list[str]:
    """The text cut where the pattern matches outside parentheses and brackets (a step's details stay whole)."""
    parts, start, depth, cuts = [], 0, [0] * (len(text) + 1), 0
    for index, ch in enumerate(text):
        cuts += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        depth[index + 1] = cuts
    for found in pattern.finditer(text):
        if depth[found.start()] <= 0 and found.start() >= start:
            parts.append(text[start:found.start()])
            start = found.end()
    return parts + [text[start:]]


#: Where a step's details turn from what it used to what it produced ("...; result: X", "..., giving X").
_RESULT = re.compile(r"[;,]?\s*\b(?:results?|giving|gave|yield(?:s|ing|ed)?|output)\b\s*:?\s*|\s*(?:->|=>|\u2192)\s*",
                     re.IGNORECASE)


_USED = re.compile(r"(?:used|uses|using|inputs?|with)\b\s*:?\s*", re.IGNORECASE)


def _split_step(line: str) -> tuple[str, str, str]:
    """A step line as (action, what it uses, what it produces), its details starting at its first separator
    (``line_templates.SEPARATORS``; in prose a colon or a full stop): "action (uses): produces", "action [uses] ->
    produces", "action — uses; result: produces", "action (uses; produces)", "action | uses | produces"; one
    group of details with no result named (after an arrow) is what the step recorded, read as what it used, whatever
    mark opens it."""
    body = line.strip().rstrip(".")
    found = first_separator(body) or _DETAILS.search(body)
    if not found or found.start() == 0:
        return body, "", ""
    action, details = body[:found.start()].strip(), body[found.start():].strip()
    if details.startswith(("(", "[", "{", "<")):
        close = details.find({"(": ")", "[": "]", "{": "}", "<": ">"}[details[0]])
        uses, rest = (details[1:close], details[close + 1:]) if close > 0 else (details, "")
        rest = _MARKS.sub("", rest)
        if not rest.strip(" .,") and ";" in uses:   # "(asset serial X; diagnostic code Y)": used; produced
            uses, _, rest = uses.partition(";")
        return action, uses, rest
    details = _MARKS.sub("", details).replace('"', "")   # quotes mark a JSON member's text, not the text
    result = _RESULT.search(details)
    if result:   # "— asset serial X; result: diagnostic code Y"
        return action, details[:result.start()], details[result.end():]
    if _RESULT.match(body[found.start():]):   # "action -> Y": what it produced
        return action, "", details
    again = first_separator(details, "|") if separator_kind(found) == "|" else None
    if again:   # "| uses | produces": a table's next cell
        return action, details[:again.start()], _MARKS.sub("", details[again.start():])
    used = _USED.match(details)   # one group of details, whatever mark opens it: what the step recorded
    return action, details[used.end() if used else 0:], ""


#: The marks a step's details open with ("-- ", ": ", '", "', " | "), up to their first word or bracket.
_MARKS = re.compile(r"^[^\w(\[{]*")


def step_outputs(reference: str) -> dict[str, tuple[str, str]]:
    """Each reference step's action, mapped to (the text of what it produced, its whole line): its result, else the
    values of its one group of details that its action names (``_objects``), else (a step read from prose, details
    not told apart) the whole clause."""
    out = {}
    for line in step_lines(reference):
        action, uses, produces = _split_step(line)
        out[action] = (produces or _objects(action, uses) if (uses or produces) else line, line)
    return out


def _objects(action: str, details: str) -> str:
    """The parts of a step's one group of details whose label names what its action acts on ("pull the disputed
    invoice [invoice INV-1]": INV-1; not the serial of "verify the entitlement [serial SN-1]")."""
    named = content_stems(action)
    return ", ".join(part for part in re.split(r"[,;]", details) if content_stems(re.sub(r"\S*[\d@]\S*", "", part)) & named)


def detail_labels(reference: str) -> set[str]:
    """Field labels the reference's step details name before a value ("asset serial SN-1" -> "asset serial")."""
    labels = set()
    for line in step_lines(reference):
        _, uses, produces = _split_step(line)
        for chunk in re.split(r"[(),:;]|, | and ", f"{uses}, {produces}"):
            words = chunk.strip().rstrip(".").split()
            if len(words) >= 2 and re.search(r"\d|@", words[-1]):
                labels.add(" ".join(words[:-1]).lower())
    return labels


def reference_steps(reference: str, labels: Sequence[str]) -> list[RefStep]:
    """The reference's steps (``step_lines``), read as exemplar steps (fields: the given field labels)."""
    steps: list[Any] = []
    for line in step_lines(reference):
        action, uses_text, produces_text = _split_step(line)
        if not content_stems(action):
            continue
        details = f"{uses_text} {produces_text}" if (uses_text or produces_text) else line
        result = produces_text or uses_text or line   # details in brackets with nothing after them: its result
        yields = _kinds(result) | {f"~status:{g}" for g in status_group(re.sub(r"\bopen\w*", "", result.lower()))}
        steps.append(RefStep(len(steps), action, frozenset(content_stems(action)),
                             _fields(uses_text, labels), _fields(produces_text, labels), team_words(action),
                             _kinds(details), frozenset(yields)))
    return steps


def _kinds(text: str) -> frozenset[str]:
    """The kinds of value a text states, by their form (``value_claims.value_shape``), marked with "~"."""
    return frozenset("~" + value_shape(token) for token in values(text))


def stated_kinds(text: str) -> set[str]:
    """The kinds of value and the status groups a clause of the candidate states ("~prefix:RMA", "~status:1")."""
    return set(_kinds(text)) | {f"~status:{g}" for g in status_group(text)}


def depends(steps: Sequence[RefStep]) -> set[tuple[int, int]]:
    """(earlier, later) pairs where the later step uses, directly or through others, a field the earlier produced."""
    pairs = {(a.index, b.index) for a in steps for b in steps if a.index < b.index and a.produces & b.uses}
    changed = True
    while changed:
        extra = {(a, d) for a, b in pairs for c, d in pairs if b == c} - pairs
        pairs |= extra
        changed = bool(extra)
    return pairs
