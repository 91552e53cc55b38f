"""Procedural claims read from free prose: which of the reference's steps a candidate performs, in what order.

The reference is read as an exemplar: each numbered step has an action (the
text before its details), the fields it uses (in parentheses) and the fields
it produces (after the colon), and possibly a team it escalates to. A step
depends on an earlier one when it uses a field that one produced. The
candidate is cut into clauses (sentences, and within them at ``;``, ``then``,
``and`` + a past-tense verb, ``before`` / ``after`` / ``once``); a clause
performs a step when enough of the step's action words (stemmed, with a small
synonym table, weighted by how rare they are among the reference's steps) are
in it, or fewer of them plus a live value of a field the step produces. Time
order comes from the narration, corrected by ``before X, Y``, ``Y after X``,
``once X, Y`` and pluperfect sentences. Errors: a step no clause performs, two
dependent steps in the wrong order, a step handed to a team other than the
reference's.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

_STOP = frozenset("""a an the and or but to of on in for with by from at as into onto is are was were be been being
it its this that these those we i our us you your they them their he she his her then next first finally after
also so up via per once when before until all any each which who what there here out off over just still now
has have had do did done not no yes very quick straight away""".split())
_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("resolv", "close", "clos", "finish", "wrap"),
    ("email", "mail", "sent", "send", "notif", "inform", "told", "tell", "wrote", "write", "messag", "receiv"),
    ("verif", "check", "confirm", "valid", "ensur", "made sure"),
    ("schedul", "book", "arrang", "plan"),
    ("ship", "dispatch", "sent"),
    ("instal", "fit", "fitt", "replac", "swap"),
    ("pull", "retriev", "fetch", "took", "tak", "look"),
    ("collect", "gather", "grab"),
    ("escal", "hand", "pass", "forward", "gave", "giv", "rout", "refer"),
    ("open", "creat", "rais", "start", "log"),
    ("run", "ran", "perform", "execut", "did"),
    ("roll", "revert", "downgrad"),
    ("diag", "diagnos", "diagnost", "test"),
    ("approv", "sign", "authoris", "authoriz"),
    ("appli", "apply", "post", "credit"),
    ("match", "compar", "known"),
    ("configur", "config"),
)
_TEAM = re.compile(r"\b((?:[\w-]+ ){0,3}?)(team|desk|manager|representative|specialist|engineer|supervisor)s?\b",
                   re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])|\n+")
_PAST = r"(?:\w+ed|sent|ran|got|took|gave|made|shipped|put|set|did|told|wrote|went|came|began|brought)"
_SPLIT = re.compile(rf";\s+|,\s+and\s+|,?\s+(?:and\s+)?then\s+|,\s+after which\s+|,?\s+and\s+(?=(?:we |i |they )?{_PAST}\b)"
                    rf"|,?\s+and after that,?\s+|\.\s+after that,?\s+", re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z0-9'-]*")
_PLUPERFECT = re.compile(r"\bhad (?:\w+ed|taken|run|sent|done|got|gotten|made|been)\b|\bbefore (?:any of )?th(?:at|is|e)\b"
                         r"|\b(?:after|once) we\b",
                         re.IGNORECASE)
_STATE = re.compile(r"\b(?:is|are|was) (?:now )?(?:closed|resolved|back|done|complete)", re.IGNORECASE)


@functools.lru_cache(maxsize=None)   # pure in the word; the grounded judge stems the same words thousands of times
def stem(word: str) -> str:
    """A crude stem: common suffixes off, then the synonym group's first member if the stem is in one."""
    word = word.lower().strip("'")
    for suffix in ("ations", "ation", "ments", "ment", "ings", "ing", "ied", "ies", "ed", "es", "s", "e", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    for group in _SYNONYMS:
        if any(word == g or (len(g) > 4 and word.startswith(g)) or (len(word) > 4 and g.startswith(word))
               for g in group):
            return group[0]
    return word


def content_stems(text: str, labels: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the content words of a text, leaving out stop words, field-label words and values."""
    words = [w for w in _WORD.findall(text.lower()) if not any(ch.isdigit() for ch in w)]
    words += [part for w in words if "-" in w for part in w.split("-")]
    return {stem(w) for w in words if w not in _STOP and w not in labels and len(w) > 1}


@dataclass(frozen=True)
class RefStep:
    """One step of the reference: its action words, the fields it uses and produces, its team if it escalates."""

    index: int
    action: str
    words: frozenset[str]
    uses: frozenset[str]
    produces: frozenset[str]
    team: frozenset[str]


def _team(text: str) -> frozenset[str]:
    found = _TEAM.search(text)
    if not found:
        return frozenset()
    return frozenset(w for w in _WORD.findall(found.group(0).lower()) if w not in _STOP)


def _fields(text: str, labels: Sequence[str]) -> frozenset[str]:
    low = text.lower()
    return frozenset(label for label in labels if re.search(rf"\b{re.escape(label)}\b", low))


def detail_labels(reference: str) -> set[str]:
    """Field labels the reference's step details name before a value ("asset serial SN-1" -> "asset serial")."""
    labels = set()
    for line in reference.splitlines():
        if re.match(r"^\s*\d+[.)]\s", line) and re.search(r"[(:]", line):
            details = re.split(r"[(\[:]", line, maxsplit=1)[1]
            for chunk in re.split(r"[(),:]|, ", details):
                words = chunk.strip().rstrip(".").split()
                if len(words) >= 2 and re.search(r"\d|@", words[-1]):
                    labels.add(" ".join(words[:-1]).lower())
    return labels


def reference_steps(reference: str, labels: Sequence[str]) -> list[RefStep]:
    """The reference's numbered steps, read as exemplar steps (fields: the given field labels)."""
    steps = []
    for line in reference.splitlines():
        if not re.match(r"^\s*\d+[.)]\s", line):
            continue
        body = _MARKER.sub("", line.strip()).rstrip(".")
        action = re.split(r"[(\[:]", body, maxsplit=1)[0].strip()
        details = body[len(action):].strip()
        uses_text = details.split(":", 1)[0] if details.startswith("(") else ""
        produces_text = details.split(":", 1)[1] if ":" in details else ""
        steps.append(RefStep(len(steps), action, frozenset(content_stems(action)),
                             _fields(uses_text, labels), _fields(produces_text, labels), _team(action)))
    return steps


def depends(steps: Sequence[RefStep]) -> set[tuple[int, int]]:
    """(earlier, later) pairs where the later step uses, directly or through others, a field the earlier produced."""
    pairs = {(a.index, b.index) for a in steps for b in steps if a.index < b.index and a.produces & b.uses}
    changed = True
    while changed:
        extra = {(a, d) for a, b in pairs for c, d in pairs if b == c} - pairs
        pairs |= extra
        changed = bool(extra)
    return pairs


@dataclass(frozen=True)
class Clause:
    """A clause of the candidate, its position in time order (sentence, slot) and whether it states a result only."""

    text: str
    sentence: int
    slot: int
    backward: bool
    state: bool


def _ordered(sentence: str) -> list[str]:
    """A sentence's parts in time order, following before / after / once / when."""
    s = sentence.strip()
    lead = re.match(r"^(before|after|once|when|as soon as)\s+(.+?)(?:,\s+|\s+(?=(?:we|i|they)\s))(.+)$", s,
                    re.IGNORECASE)
    if lead and lead.group(1).lower() != "after that":
        first, second = lead.group(2), lead.group(3)
        return [second, first] if lead.group(1).lower() == "before" else [first, second]
    mid = re.match(r"^(.+?)\s+(after|once|when|before)\s+(?!that\b|which\b|the visit report\b)(.+)$", s, re.IGNORECASE)
    if mid and len(mid.group(1).split()) >= 2:
        first, second = mid.group(1), mid.group(3)
        return [first, second] if mid.group(2).lower() == "before" else [second, first]
    return [s]


def clauses(candidate: str) -> list[Clause]:
    """The candidate's clauses with their time-order keys."""
    out = []
    lines = [_MARKER.sub("", line.strip()) for line in candidate.splitlines()]
    sentences = [s for line in lines for s in _SENTENCE.split(line) if s.strip()]
    for n, sentence in enumerate(sentences):
        backward = bool(_PLUPERFECT.search(sentence))
        slot = 0
        for part in _SPLIT.split(sentence):
            for piece in _ordered(part):
                if piece.strip():
                    out.append(Clause(piece.strip(), n, slot, backward, bool(_STATE.search(piece))))
                    slot += 1
    return out


#: A clause performs a step with this share of the step's (weighted) action words, or with ANCHORED_SHARE
#: of them and a live value of a field the step produces, or uses when at most two steps state that field.
ACTION_SHARE = 0.35
ANCHORED_SHARE = 0.2
#: A clause performs the step it matches best, and any other it matches this well.
STRONG_SHARE = 0.75
#: Field-label words ("warranty", "dispatch") count this much in a step's action words.
LABEL_WEIGHT = 0.5


@dataclass(frozen=True)
class Reading:
    """What the candidate does, step by step: the clause performing each step (None: not performed), errors."""

    performed: tuple[int | None, ...]
    errors: tuple[str, ...]

    @property
    def coverage(self) -> float:
        """Share of the reference's steps the candidate performs."""
        return round(sum(p is not None for p in self.performed) / max(1, len(self.performed)), 3)


def _weights(steps: Sequence[RefStep], labels: Sequence[str]) -> dict[str, float]:
    label_stems = {stem(w) for label in labels for w in label.split()}
    df: dict[str, int] = {}
    for step in steps:
        for word in step.words:
            df[word] = df.get(word, 0) + 1
    return {w: math.log(1 + len(steps) / n) * (LABEL_WEIGHT if w in label_stems else 1.0) for w, n in df.items()}


def _share(step: RefStep, words: set[str], weights: Mapping[str, float]) -> float:
    total = sum(weights[w] for w in step.words)
    return sum(weights[w] for w in step.words & words) / total if total else 0.0


def read_procedure(candidate: str, reference: str, live_fields: Mapping[str, str]) -> Reading:
    """Match the candidate's clauses to the reference's steps; report skipped, reordered and misrouted steps.

    ``live_fields`` maps each live-context value to its field label (lower case).
    """
    labels = sorted(set(live_fields.values()) | detail_labels(reference), key=lambda l: (-len(l), l))
    steps = reference_steps(reference, labels)
    if not steps:
        return Reading((), ())
    weights = _weights(steps, labels)
    parts = clauses(candidate)
    uses: dict[str, int] = {}
    for step in steps:
        for name in step.produces | step.uses:
            uses[name] = uses.get(name, 0) + 1
    shared = {name for name, n in uses.items() if n > 2}  # fields most steps state anchor none of them
    performed: list[int | None] = [None] * len(steps)
    best = [(0.0, 0)] * len(steps)
    for position, part in enumerate(parts):
        words = content_stems(part.text)
        anchored = {live_fields[v] for v in live_fields if v and v in part.text}
        scored = []
        for step in steps:
            share = _share(step, words, weights)
            if share >= ACTION_SHARE or (share >= ANCHORED_SHARE and (step.produces | (step.uses - shared)) & anchored):
                scored.append(((share, len(step.words & words)), step.index))
        if not scored:
            continue
        top = max(scored)
        chosen = [top] + [s for s in scored if s != top and s[0][0] >= STRONG_SHARE]
        for score, index in chosen:
            if score > best[index]:
                performed[index], best[index] = position, score
    errors = [f"step not performed: {s.action}" for s in steps if performed[s.index] is None]
    errors += _order_errors(steps, performed, parts)
    errors += _team_errors(steps, performed, parts)
    return Reading(tuple(performed), tuple(errors))


def _before(a: Clause, b: Clause, chronological: bool) -> bool | None:
    """Whether clause a happened before clause b, as far as the text says (None: it does not say).

    Within a sentence the time order of its parts decides; across sentences the narration order does,
    but only in a text that narrates in time order (no pluperfect, no "before that").
    """
    if a.state or b.state:
        return None
    if a.sentence == b.sentence:
        return a.slot < b.slot
    return a.sentence < b.sentence if chronological else None


def _order_errors(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause]) -> list[str]:
    errors = []
    chronological = not any(p.backward for p in parts)
    for earlier, later in sorted(depends(steps)):
        a, b = performed[earlier], performed[later]
        if a is None or b is None or a == b:
            continue
        if _before(parts[b], parts[a], chronological):
            errors.append(f"steps out of order: {steps[later].action} before {steps[earlier].action}")
    return errors


def _team_errors(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause]) -> list[str]:
    errors = []
    for step in steps:
        if not step.team:
            continue
        texts = [parts[performed[step.index]].text] if performed[step.index] is not None else [
            p.text for p in parts if re.search(r"\b(escalat|hand|pass|approv|forward)", p.text, re.IGNORECASE)]
        for text in texts:
            team = _team(text)
            if team and not (team & step.team) - {"support", "team"}:
                errors.append(f"handed to {' '.join(sorted(team))}, not {' '.join(sorted(step.team))}")
    return errors
