"""The candidate's prose cut into clauses in time order (sentences, then ``;``, ``then``, ``, so``, dashes, ``and``
or a comma before a past-tense verb), corrected by ``Before X, ...`` (X comes last), ``Y after X``, ``once X, Y``,
"at the start" and pluperfect sentences; "rather than X" / "instead of X" marks X declined."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judges.claim_words import PAST, SENTENCE
from judges.value_claims import status_group

_MARKER = re.compile(r"^\s*(?:\(?(?:\d+|[a-h])\)|\d+\.|[-*•]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
_SPLIT = re.compile(rf";\s+|,\s+and\s+|(?:,\s+|\s+and\s+)then\s+|\s+then\s+(?=(?:we|i|they|he|she)\b)|,\s+after which\s+"
                    rf"|,?\s+and\s+(?:(?:only|then|afterwards|later|also|finally|\w+ly),?\s+){{0,2}}(?=(?:we |i |they )?{PAST}\b)|,\s+(?={PAST}\b)|,\s+so\s+|\s+[-\u2013\u2014]\s+"
                    rf"|,?\s+and after that,?\s+|\.\s+after that,?\s+", re.IGNORECASE)
_PLUPERFECT = re.compile(rf"\bhad (?:already |just |first |\w+ly )?(?:been )?(?:{PAST}|run|come|gone|gotten|been)\b"
                         r"|\bbefore (?:any of )?th(?:at|is|e)\b|\b(?:after|once) we\b", re.IGNORECASE)
_STATE = re.compile(r"\b(?:is|are|was) (?:now )?(?:closed|resolved|back|done|complete)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    """A clause of the candidate, its position in time order (sentence, slot) and whether it states a result only."""

    text: str
    sentence: int
    slot: int
    backward: bool
    state: bool


_LEAD = re.compile(r"^(before|prior to|after|following|once|when|as soon as)\s+(.+?)(?:,\s+|\s+(?=(?:we|i|they)\s))(.+)$", re.IGNORECASE)
_MID = re.compile(r"^(.+?)\s+(after|once|when|before|prior to)\s+(?!that\b|which\b|the visit report\b)(.+)$", re.IGNORECASE)
_AT_START = re.compile(r"\b(?:at the (?:very )?(?:start|beginning|outset)|first thing|to begin with|first of all)\b",
                       re.IGNORECASE)
_EARLIER = ("before", "prior to")  # "A before B": A came first
#: "rather than X", "instead of X", "skipped X", "did not X": X is an action the candidate says it did not take.
_DECLINED = re.compile(r"\b(?:rather than|instead of|skipped|did not|didn't|never|no need to)\s+([^,.;]+)", re.IGNORECASE)


def _ordered(part: str) -> list[str]:
    """A part's pieces in time order, following an inner before / after / once / when."""
    s = part.strip()
    mid = _MID.match(s)
    if mid and len(mid.group(1).split()) >= 2:
        first, second = mid.group(1), mid.group(3)
        if ", " in second:   # "X after Y, Z": the after-clause ends at its comma, and Z follows X
            second, rest = second.split(", ", 1)
            pair = [first, second] if mid.group(2).lower() in _EARLIER else [second, first]
            return pair + [rest]
        if re.search(r"(?:,|\band|\bthen)$", first):   # "X and after Y, Z": X came first
            return [re.sub(r"(?:,|\s+and|\s+then)$", "", first), second]
        return [first, second] if mid.group(2).lower() in _EARLIER else [second, first]
    return [s]


def _time_groups(sentence: str) -> list[list[str]]:
    """A sentence's pieces in time order, in groups whose order relative to each other the sentence leaves open.

    A sentence led by ``Before X, ...`` puts X after the rest (``After / Once / When X`` before it); a later
    part led by such a word ("..., and before running them I had ...") starts a group of its own.
    """
    lead = _LEAD.match(sentence.strip())
    if lead:
        inner = [p for part in _SPLIT.split(lead.group(3)) for p in _ordered(part)]
        sub = [lead.group(2)]
        return [inner + sub if lead.group(1).lower() in _EARLIER else sub + inner]
    groups: list[list[str]] = [[]]
    for index, part in enumerate(_SPLIT.split(sentence)):
        if index and _LEAD.match(part.strip()):
            groups += _time_groups(part)
            groups.append([])
        else:
            groups[-1] += _ordered(part)
    return [g for g in groups if g]


#: How a message addresses someone, saying nothing about the case: @-mentions opening a line, and a line of at most
#: four words and no figure ending with a comma ("Hi team,", "Dear Joost,").
MENTIONS = re.compile(r"^(?:@[\w.-]+[\s,:]*)+")
_ADDRESS = re.compile(r"[^\W\d]+(?:\s+[^\W\d]+){0,3}\s*,")


def unaddressed(candidate: str) -> list[str]:
    """The candidate's lines without what addresses its reader (``MENTIONS``, ``_ADDRESS``)."""
    lines = [MENTIONS.sub("", line.strip()) for line in candidate.splitlines()]
    return [line for line in lines if not _ADDRESS.fullmatch(line)]


def clauses(candidate: str) -> list[Clause]:
    """The candidate's clauses with their time-order keys (declined actions left out), without the lines that
    address its reader."""
    out = []
    lines = [_MARKER.sub("", line) for line in unaddressed(candidate)]
    sentences = [_DECLINED.sub("", s) for line in lines for s in SENTENCE.split(line) if s.strip()]
    group = 0
    for sentence in sentences:
        backward = bool(_PLUPERFECT.search(sentence))
        for pieces in _time_groups(sentence):
            pieces = sorted((p.strip() for p in pieces if p.strip()), key=lambda p: not _AT_START.search(p))
            out += [Clause(p, group, slot, backward, _states(p)) for slot, p in enumerate(pieces)]
            group += 1
    return out


def _states(clause: str) -> bool:
    """Whether a clause states a result only: "the case is now closed", or a case status with no one acting
    ("done, status closed"; not "I resolved it")."""
    if _STATE.search(clause):
        return True
    rest = re.sub(r"\b(?:done|complete|status|case|yes|now)\b", " ", clause, flags=re.IGNORECASE)
    return 1 in status_group(clause) and not re.search(rf"\b(?:we|i|they)\b|\b{PAST}\b", _LEXICON.sub(" ", rest), re.IGNORECASE)


_LEXICON = re.compile(r"\b(?:closed|resolved|open|in[ _]progress|pending[ _]customer)\b", re.IGNORECASE)


def declined(candidate: str) -> list[str]:
    """The actions the candidate says it took instead of ("rather than X", "instead of X")."""
    return [m.group(1).strip() for m in _DECLINED.finditer(candidate)]
