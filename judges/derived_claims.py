"""Claims a judge checks only by working them out from a record: how many items a listed field holds, and how
many days old something was at a dated moment.

A count claim is a number (digits or a number word, "no" for none) before at most two qualifying words and a
noun in the number's grammatical number ("three earlier cases", "one earlier case"); it is checked against the record field whose label holds the noun and every
qualifying word, by counting the items its value lists ("none" lists none). An age claim is a number of days in a
sentence that speaks of an age ("age", "old"); it is checked against the days from the record's purchase date (a
label with "purchase" or "bought") to the record date whose label shares a word stem with the words around the
number, those after it first ("at opening": "Opened on"). A claim the record has no field for is not checked; a count is checked only
against a field that lists identifiers or says "none".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Sequence

_NUMBERS = {w: n for n, w in enumerate("no one two three four five six seven eight nine ten eleven twelve thirteen "
                                         "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUMBERS.update({"none": 0, "zero": 0, "a single": 1, "single": 1})
_COUNT = re.compile(rf"(?<![\d.,$\u20ac\u00a3-])\b(\d{{1,3}}(?![.,]\d)|{'|'.join(sorted(_NUMBERS, key=len, reverse=True))})((?:\s+[a-z][a-z-]*){{1,3}})",
                    re.IGNORECASE)
_DAYS = re.compile(r"\b(\d{1,5})\s+days?\b", re.IGNORECASE)
_AGE = re.compile(r"\b(?:age|aged|old)\b", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_ITEM = re.compile(r"\b[A-Za-z]+-?\d[\w-]*")   # a listed item is named by an identifier ("CASE-10022")
_NONE = frozenset({"none", "no", "-", "n/a", "0", "nil"})
_AGE_WORDS = frozenset({"age", "ag", "asset", "day", "purchas", "bought", "old"})
_FILLER = frozenset("the a an of on for this that its their our".split())
#: Words that end a count's qualifiers: what follows them is not the counted noun.
_PREPOSITIONS = frozenset("on of for in at to by with from about".split())


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ings", "ing", "ies", "es", "ed", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in _FILLER}


def listed(value: str) -> int:
    """How many items a field's value lists: its comma- or semicolon-separated parts outside brackets."""
    if value.strip().lower() in _NONE:
        return 0
    depth, parts, current = 0, 0, ""
    for ch in value + ",":
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch in ",;" and depth == 0:
            parts += bool(current.strip())
            current = ""
        else:
            current += ch
    return parts


def _iso(value: str) -> date | None:
    found = _ISO.search(value)
    return date(int(found.group(1)), int(found.group(2)), int(found.group(3))) if found else None


def _count_claim(stated: int, after: list[str], fields: Sequence[tuple[str, str]]) -> bool | None:
    """Whether a count agrees with the field it counts: the first noun after the number (in its grammatical
    number; "250 credit" names an amount) whose field holds it and the words between; None when no field does."""
    for index, noun in enumerate(after):
        if index and after[index - 1].lower() in _PREPOSITIONS:   # "the Penrose one on account X": no count
            return None
        plural = noun.lower().endswith("s")
        if (stated == 1 and plural) or (stated > 1 and not plural):
            continue
        wanted = _stems(" ".join(after[:index])) | {_stem(noun)}
        for label, value in fields:
            if wanted <= _stems(label) and (value.strip().lower() in _NONE or _ITEM.search(value)):
                return listed(value) == stated
    return None


_DELAY = re.compile(rf"\b(?:(\d{{1,3}}|{'|'.join(w for w in _NUMBERS if w not in ('no', 'none', 'zero'))})\s+(?:calendar\s+)?days?"
                    r"|(?:the\s+)?(?:very\s+)?(?:next|following)\s+day)\s+(after|later than|from|following|since|before)"
                    r"\s+([^,.;()]+)", re.IGNORECASE)


def _delays(sentence: str, fields: Sequence[tuple[str, str]]) -> list[tuple[bool, str]]:
    """Whether each "N days after X" (with its number) ("the next day after X") agrees with the record: X is the record date whose
    label shares a word with it ("the case was opened": "Opened on"), the later moment a date the sentence states,
    else the record date whose label shares a word with the words before the number ("the visit was ...")."""
    from judges.value_claims import iso_dates

    text = iso_dates(sentence)
    dated = [(label, day) for label, v in fields if _ISO.fullmatch(v.strip()) and (day := _iso(v))]
    out = []
    for found in _DELAY.finditer(text):
        number = found.group(1)
        days = 1 if number is None else int(number) if number.isdigit() else _NUMBERS[number.lower()]
        start = next((day for label, day in dated if _stems(found.group(3)) & _stems(label)), None)
        stated = [_iso(m.group(0)) for m in _ISO.finditer(text[:found.start()])]
        words = _stems(text[max(0, found.start() - 40):found.start()]) - _stems(found.group(3))
        end = stated[-1] if stated else next((day for label, day in dated if words & _stems(label)), None)
        if start and end and end != start:
            gap = (start - end).days if found.group(2).lower() == "before" else (end - start).days
            out.append((gap == days, number or ""))
    return out


@dataclass(frozen=True)
class Derived:
    """What the record decides of a sentence's worked-out claims: contradicted, supported or None (it decides none),
    and the numbers those claims state (which are counts and days, not values of a field)."""

    status: str | None
    numbers: frozenset[str]


def derived_status(sentence: str, fields: Sequence[tuple[str, str]]) -> Derived:
    """contradicted when a count or an age the sentence states differs from what the record's fields give,
    supported when every such claim the record can decide agrees, None when it states none the record decides."""
    outcomes, numbers = [], set()
    for found in _COUNT.finditer(sentence):
        stated = int(found.group(1)) if found.group(1).isdigit() else _NUMBERS[found.group(1).lower()]
        outcome = _count_claim(stated, found.group(2).split(), fields)
        if outcome is not None:
            outcomes.append(outcome)
            numbers.add(found.group(1))
    if _AGE.search(sentence):
        start = next((_iso(v) for label, v in fields if re.search(r"purchas|bought", label, re.IGNORECASE)), None)
        dated = [(label, day) for label, v in fields
                 if not re.search(r"purchas|bought", label, re.IGNORECASE) and _ISO.fullmatch(v.strip()) and (day := _iso(v))]
        for days in _DAYS.finditer(sentence):   # the moment is named after the number ("at opening"), else before
            after, before = sentence[days.end():days.end() + 20], sentence[max(0, days.start() - 30):days.start()]
            end = next((day for near in (after, before) for label, day in dated
                        if (_stems(_DAYS.sub("", near)) - _AGE_WORDS) & _stems(label)), None)
            if start and end:
                outcomes.append(int(days.group(1)) == (end - start).days)
                numbers.add(days.group(1))
    delays = _delays(sentence, fields)
    outcomes += [agrees for agrees, _ in delays]
    numbers |= {number for _, number in delays}
    if not outcomes:
        return Derived(None, frozenset(numbers))
    return Derived("supported" if all(outcomes) else "contradicted", frozenset(numbers))
