"""Lines read by what they share: the lead a list's lines repeat, and the separator a record's lines repeat.

A line's lead is the run of marks, counters and short keys before its first word of running text ("1. ",
"step[2] = ", "| 3 | ", "(c) ", "- ", '{"step": 4, "action": "'); its skeleton writes each counter as its class.
A list is the largest set of lines sharing one skeleton whose counters go up by one (1, 2, 3 / a, b, c / i, ii,
iii / one, two) or that is a bullet (marks only). No list marker is named: the repetition is the marker.
"""

from __future__ import annotations

import re
from typing import Sequence

_TOKEN = re.compile(r"\s+|[A-Za-z]+|\d+|[^\sA-Za-z\d]")
_ROMAN = ("i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx").split()
_WORDS = "one two three four five six seven eight nine ten eleven twelve".split()
COUNTER = "<n>"
#: A short key may stand in a lead before a mark or a counter ("step[", "Step 2", '"action":', "S1").
_KEY = 12


def _counters(token: str) -> set[tuple[str, int]]:
    """The counter classes and values a token can be: a number, a letter, a roman numeral, a number word."""
    low = token.lower()
    out = set()
    if token.isdigit() and len(token) <= 3:
        out.add(("number", int(token)))
    if len(low) == 1 and low.isalpha():
        out.add(("letter", ord(low) - ord("a") + 1))
    if low in _ROMAN:
        out.add(("roman", _ROMAN.index(low) + 1))
    if low in _WORDS:
        out.add(("word", _WORDS.index(low) + 1))
    return out


def _lead(line: str) -> list[tuple[str, int, frozenset[tuple[str, int]]]]:
    """A line's lead, token by token: its skeleton (marks and keys as written, lower case; a counter as COUNTER), its
    length, the counter values it may hold. The lead stops at the first word of running text (a word not a counter
    and not followed by a mark or a number)."""
    tokens = _TOKEN.findall(line)
    out: list[tuple[str, int, frozenset[tuple[str, int]]]] = []
    for index, token in enumerate(tokens):
        following = next((t for t in tokens[index + 1:] if not t.isspace()), "")
        counters = frozenset(_counters(token))
        if token.isspace():
            out.append((" ", len(token), frozenset()))
        elif counters and (token.isdigit() or not following[:1].isalpha()):
            out.append((COUNTER, len(token), counters))
        elif token.isalpha() and (len(token) > _KEY or not following or following[:1].isalpha()):
            break
        else:
            out.append((token.lower(), len(token), frozenset()))
    return out


def _head(lead: Sequence[tuple[str, int, frozenset[tuple[str, int]]]]) -> tuple[str, ...]:
    """What groups lines into a list: the lead up to its first counter and the marks after it, or a bullet's
    leading marks; () when the lead has neither."""
    skeleton = [s for s, _, _ in lead]
    if COUNTER in skeleton:
        end = skeleton.index(COUNTER) + 1
    elif skeleton and not skeleton[0][0].isalnum() and skeleton[0] != " ":
        end = 0
    else:
        return ()
    while end < len(skeleton) and not skeleton[end][0].isalnum():
        end += 1
    return tuple(skeleton[:end])


def _counting(values: Sequence[frozenset[tuple[str, int]]]) -> bool:
    """Whether one counter class goes up by one along the lines."""
    classes = set.intersection(*[{c for c, _ in v} for v in values]) if values else set()
    for kind in classes:
        seq = [next(n for c, n in v if c == kind) for v in values]
        if all(b == a + 1 for a, b in zip(seq, seq[1:])):
            return True
    return False


def _shared_lead(leads: Sequence[Sequence[tuple[str, int, frozenset[tuple[str, int]]]]]) -> int | None:
    """How many lead tokens the lines share (their longest common skeleton), when they are a list: every counter
    position that changes counts up by one along them, or none changes and the lead opens with a mark (a bullet)."""
    shared = 0
    while all(len(lead) > shared for lead in leads) and len({lead[shared][0] for lead in leads}) == 1:
        shared += 1
    positions = [n for n in range(shared) if leads[0][n][0] == COUNTER]
    moving = [n for n in positions if len({lead[n][2] for lead in leads}) > 1]
    if moving:
        return shared if all(_counting([lead[n][2] for lead in leads]) for n in moving) else None
    return shared if not positions and shared and not leads[0][0][0][0].isalnum() else None


def list_items(lines: Sequence[str]) -> list[str]:
    """The items of the longest list among the lines, each without its lead, with any more-indented lines after it
    joined on ("- action: X" then "  result: Y"); empty when no two lines share a lead that counts or bullets."""
    leads = [_lead(line.strip()) for line in lines]
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, lead in enumerate(leads):
        if _head(lead):
            groups.setdefault(_head(lead), []).append(index)
    found: list[int] = []
    shared = 0
    for members in groups.values():
        length = _shared_lead([leads[i] for i in members]) if len(members) > max(1, len(found)) else None
        if length:
            found, shared = members, length
    found = [i for i in found if sum(n for _, n, _ in leads[i][:shared]) < len(lines[i].strip())]
    items = []
    for position, index in enumerate(found):
        indent = len(lines[index]) - len(lines[index].lstrip())
        stop = found[position + 1] if position + 1 < len(found) else len(lines)
        more = [line.strip() for line in lines[index + 1:stop]
                if len(line) - len(line.lstrip()) > indent and line.strip()]
        cut = sum(n for _, n, _ in leads[index][:shared])
        items.append(_trim("; ".join([lines[index].strip()[cut:].strip(), *more])))
    return items


def _trim(item: str) -> str:
    """An item without the marks that close its line's layout and not its text (a table's last "|", a JSON
    member's '"},'): each trailing mark goes while it closes nothing the item opened."""
    pairs = {")": "(", "]": "[", "}": "{"}
    while item and item[-1] in '",|}]\'' + " ":
        mark = item[-1]
        if mark in pairs and item.count(pairs[mark]) >= item.count(mark):
            break
        if mark == '"' and item.count('"') % 2 == 0:
            break
        item = item[:-1]
    return item


#: The separators a line's details or a field's value may start at, as a reader sees them.
SEPARATORS = re.compile(r"\s*(?:\|\s|\t|\.{3,}|:{1,2}(?=\s|$)|=>|->|\u2192|>>|\s(?:-{1,3}|[\u2013\u2014])\s|;|=|\"|[(\[{<])\s*")


#: A key is at most this long.
KEY_LENGTH = 40


def shared_separator(texts: Sequence[str], pattern: re.Pattern[str] = SEPARATORS, within: int = 10**6) -> str | None:
    """The separator most of the texts hold (the one nearest their start on average among those held by the most),
    as written ("(", ";", " -- ", ":"); None when fewer than two hold any."""
    seen: dict[str, list[int]] = {}
    for text in texts:
        firsts: dict[str, int] = {}
        for found in pattern.finditer(text):
            if 0 < found.start() <= within:
                firsts.setdefault(_kind(found.group(0)), found.start())
        for kind, start in firsts.items():
            seen.setdefault(kind, []).append(start)
    if not seen:
        return None
    kind, starts = max(seen.items(), key=lambda kv: (len(kv[1]), -sum(kv[1]) / len(kv[1])))
    return kind if len(starts) >= min(2, len(texts)) else None


def _kind(separator: str) -> str:
    """A separator's kind: its marks without the spaces round it, an opening bracket standing for every bracket."""
    mark = separator.strip() or ("\t" if "\t" in separator else " ")
    if mark in "([{<":
        return "("
    return "." if mark.startswith("...") else mark


def first_separator(text: str, kind: str | None = None, pattern: re.Pattern[str] = SEPARATORS) -> re.Match[str] | None:
    """The first separator in the text after its start (of the kind, if one is given)."""
    return next((found for found in pattern.finditer(text)
                 if found.start() > 0 and (kind is None or _kind(found.group(0)) == kind)), None)


_LEADING = re.compile(r"^(?:[-*\u2022>|]+\s*)")
_ENDS = " \t\"'[]{}|,"


#: A record line's key: one to six words ("_" or "-" joined words read as spaced; a unit in brackets), after any
#: leading marks, then the separator that ends it: a run of marks and the spaces round them, or of two or more spaces.
_KEY_PATTERN = r"^[^\w]*?(?P<key>[A-Za-z][A-Za-z0-9]*(?:[ _-][A-Za-z0-9]+){0,5}?(?: \([A-Za-z]+\))?)(?![-_./@]\w)"
_KEYED = re.compile(_KEY_PATTERN + r"(?P<sep>\s*[^\w\s]+\s*|\s{2,}|\t)(?=\S)")


def _keyed(segment: str, kind: str | None = None) -> re.Match[str] | None:
    """The segment's shortest key and the separator after it (of the kind, if one is given)."""
    found = _KEYED.match(segment)
    if kind is None or (found and _sep_kind(found.group("sep")) == kind):
        return found
    return re.match(_KEY_PATTERN + "(?P<sep>" + _kind_pattern(kind) + r")(?=\S)", segment)


def _kind_pattern(kind: str) -> str:
    """A regular expression for a separator of the kind, spaces round it."""
    if kind in (" ", "\t"):
        return r"\s{2,}|\t"
    return r"\s*" + "".join(re.escape(mark) + "+" for mark in kind) + r"\s*"


def _sep_kind(separator: str) -> str:
    """A separator's kind: its marks without the spaces round it, each run of one mark written once ("...." is
    ".", "--" is "-"); a run of spaces or a tab is " "."""
    marks = re.sub(r"\s+", "", separator)
    return re.sub(r"(.)\1+", r"\1", marks) if marks else " "


def record_separator(lines: Sequence[str]) -> str | None:
    """The separator most of the lines share after a leading key, found by counting (None when no two lines do)."""
    counts: dict[str, int] = {}
    for line in lines:
        found = _keyed(line)
        if found:
            kind = _sep_kind(found.group("sep"))
            counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return None
    kind, count = max(counts.items(), key=lambda kv: (kv[1], -list(counts).index(kv[0])))
    return kind if count >= min(2, len(lines)) else None


def field_lines(text: str) -> list[str]:
    """A record's fields as ``Field: value`` lines, each key (one to six words) cut from its value at the separator
    most of the record's lines share after their key (``record_separator``: counted, not chosen from a list), else at
    the line's own separator when it is a colon, "=", leaders, a tab or a spaced dash; a line's leading marks off,
    its ``;``-joined fields each read (unless ";" is the record's separator), a key's underscores read as spaces, and
    a segment with no key of its own continuing the value before it (a list). A header naming the columns
    ("field,value", "key | value") is read as one and dropped."""
    lines = [_LEADING.sub("", line.strip()) for line in text.splitlines() if line.strip()]
    kind = record_separator(lines)
    rows = [[line] if kind == ";" else re.split(r";\s*", line) for line in lines]
    out = []
    for row in rows:
        pairs: list[list[str]] = []
        for segment in row:
            found = _keyed(segment, kind) if kind else None
            if not found:
                found = _keyed(segment)
                found = found if found and _OWN_SEPARATOR.fullmatch(found.group("sep")) else None
            if found and found.end("key") <= KEY_LENGTH:
                key, value = found.group("key").strip(_ENDS), segment[found.end():].strip(_ENDS)
                pairs.append([re.sub(r"[_-]", " ", key), value])
            elif pairs:   # "cases=CASE-1@2026-01-02;CASE-2@2026-01-05": a list goes on
                pairs[-1][1] += f"; {segment}"
        out += [f"{key}: {value}" for key, value in pairs if value]
    return [line for line in out if not _header(line)]


#: The separators a line may use alone when the record's lines share another: a colon, "=", leaders, a tab, a
#: spaced dash.
_OWN_SEPARATOR = re.compile(r"\s*(?::{1,2}|=|\.{3,})\s*|\t|\s+(?:-{1,3}|[\u2013\u2014])\s+")


def _header(line: str) -> bool:
    """Whether a field is a header naming the record's columns ("field: value", "key: value", "name: value")."""
    return bool(re.fullmatch(r"\w+: values?", line.lower()))


def separator_kind(found: re.Match[str]) -> str:
    """The kind of a separator found in a text."""
    return _kind(found.group(0))
