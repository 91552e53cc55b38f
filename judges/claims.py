"""Procedural claims read from free prose: which of the reference's steps a candidate performs, in what order.

The reference's steps come from ``judges.reference_steps``, the candidate's clauses in time order from
``judges.candidate_clauses``. A clause performs the step whose action words
(stemmed, abbreviations and compounds read as words, a small synonym table,
weighted by how rare they are among the reference's steps) it holds the
largest share of, more so when it states a live value of a field the step
produces or uses; the words it leaves over can perform a further step.
Errors: a step no clause performs, a declined step, two dependent steps in
the wrong order, a step handed to a team whose qualifying words ("sales"
manager, "level-1" desk) share none with the reference's, a check of what an
entitlement covers done on something else (``_object_errors``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import AbstractSet, Mapping, Sequence

from judges.candidate_clauses import MENTIONS, Clause, clauses, declined
from judges.claim_words import PAST, STOP, content_stems, stem, team_words
from judges.reference_steps import RefStep, depends, detail_labels, reference_steps, stated_kinds
from judges.value_claims import same_value


#: A clause performs a step with this share of the step's (weighted) action words, or with ANCHORED_SHARE
#: of them and a live value of a field the step produces, or uses when at most two steps state that field.
ACTION_SHARE = 0.35
ANCHORED_SHARE = 0.2
#: A further step a clause performs must be this share of its words among those the clause's earlier steps leave.
NEW_SHARE = 0.15
#: A live value of a field the step produces or uses adds this much to a clause's match with it.
ANCHOR_BONUS = 0.25
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


def _clause_steps(words: set[str], anchored: set[str], steps: Sequence[RefStep], weights: Mapping[str, float],
                  shared: set[str], own: AbstractSet[str] = frozenset()) -> list[tuple[tuple[float, int], int]]:
    """The steps one clause performs: its best match, then each further match that explains words the
    steps chosen so far leave over (NEW_SHARE of that step's weight at least)."""
    chosen: list[tuple[tuple[float, int], int]] = []
    left, anchored = set(words), set(anchored)
    while True:
        scored = []
        for step in steps:
            if any(index == step.index for _, index in chosen):
                continue
            share = _share(step, words, weights)
            anchor = bool((step.produces | ((step.uses | step.anchors) - shared)) & anchored)
            result = bool(((step.produces | step.yields) - shared) & anchored) or bool(step.anchors & anchored & own)
            result = result or (not step.produces and bool(step.uses & anchored & own))   # "(code X)": its result
            fresh = not chosen or _share(step, left, weights) >= NEW_SHARE
            if fresh and (share >= ACTION_SHARE or (share >= ANCHORED_SHARE and anchor) or (share > 0 and result)):
                scored.append(((round(share + ANCHOR_BONUS * (anchor or result), 6), len(step.words & words)), step.index))
        if not scored:
            return chosen
        top = max(scored)
        chosen.append(top)
        left -= steps[top[1]].words
        anchored -= steps[top[1]].produces | steps[top[1]].uses | steps[top[1]].anchors | steps[top[1]].yields


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
        for name in step.produces | step.uses | step.anchors | step.yields:
            uses[name] = uses.get(name, 0) + 1
    shared = {name for name, n in uses.items() if n > 2}  # fields most steps state anchor none of them
    own = {name for name, n in uses.items() if n == 1}  # kinds of value ("~...") and fields one step states
    performed: list[int | None] = [None] * len(steps)
    told: list[list[int]] = [[] for _ in steps]   # the clauses telling each step outright, in text order
    best = [(0.0, 0)] * len(steps)
    kinds = [stated_kinds(part.text) for part in parts]
    filled = [_same_fields({live_fields[v] for v in live_fields if v and same_value(v) in same_value(part.text)}, steps)
              for part in parts]   # the fields whose live values a clause states, in any case or hyphenation
    for position, part in enumerate(parts):
        anchored = filled[position] | kinds[position]
        matched = _clause_steps(content_stems(part.text), anchored, steps, weights, shared, own)
        if matched and _tells(steps[matched[0][1]], part, kinds[position], shared, weights):
            told[matched[0][1]].append(position)   # the step a clause tells best, outright (_tells)
        for score, index in matched:
            if score > best[index]:
                performed[index], best[index] = position, score
    errors, replaced = _other_actions(steps, performed, parts, kinds, weights, own)
    _by_result(steps, performed, parts, [k | (f & own) for k, f in zip(kinds, filled)], shared, replaced)
    letter = _letter_to(candidate, live_fields)
    errors += [f"step not performed: {s.action}" for s in steps if performed[s.index] is None and s.index not in replaced
               and not (letter and {"email", "customer"} <= s.words) and not _mentioned(s, parts)]
    for text in declined(candidate):
        errors += [f"step declined: {steps[i].action}" for _, i in _clause_steps(content_stems(text), set(), steps,
                                                                                 weights, shared)]
    errors += _unnamed_actions(steps, performed, parts, weights)
    errors += _order_errors(steps, performed, parts, kinds, shared, weights, told)
    errors += _team_errors(steps, performed, parts)
    errors += _object_errors(steps, performed, parts, weights)
    return Reading(tuple(performed), tuple(errors))


def _tells(step: RefStep, part: Clause, kinds: AbstractSet[str], shared: AbstractSet[str],
           weights: Mapping[str, float]) -> bool:
    """Whether a clause tells a step outright: ACTION_SHARE of its words, and its verb or a status it yields."""
    words = content_stems(part.text)
    status = {k for k in step.yields - shared if k.startswith("~status")} & kinds
    return _share(step, words, weights) >= ACTION_SHARE and bool(_verbs(step.action) & words or status)


def _same_fields(labels: set[str], steps: Sequence[RefStep]) -> set[str]:
    """The record's field labels with each step field they name: one whose words hold the other's ("diagnostic
    code" and "code", "running firmware" and "running")."""
    named = {f for step in steps for f in step.uses | step.produces}
    return labels | {f for f in named for label in labels if set(f.split()) <= set(label.split())
                     or set(label.split()) <= set(f.split())}


def _by_result(steps: Sequence[RefStep], performed: list[int | None], parts: Sequence[Clause],
               kinds: Sequence[set[str]], shared: set[str], replaced: set[int]) -> None:
    """A step no clause's words perform is performed by a clause that states a kind of value it yields (or the live
    value of the one field only it names), when no
    step that clause performs states that kind and the clause performs no step or shares a word with this one ("it
    was on 6.3.14": the running version was confirmed)."""
    for step in steps:
        if performed[step.index] is not None or step.index in replaced:
            continue
        for position, stated in enumerate(kinds):
            others = [other for other in steps if performed[other.index] == position]
            taken = {k for other in others for k in other.yields | other.anchors}
            told = not others or step.words & content_stems(parts[position].text)
            result = step.yields | (step.uses if not step.produces else frozenset())   # "(running 6.9.10)"
            if (result - shared) & stated - taken and told:
                performed[step.index] = position
                break


_PREPOSITIONS = frozenset("to from at into onto with by for on in".split())
_DONE = re.compile(rf"\b({PAST})\s+(?:up\s+|out\s+)?((?:[a-z][\w-]*\s*){{1,4}})", re.IGNORECASE)


def _unnamed_actions(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause],
                     weights: Mapping[str, float]) -> list[str]:
    """A step found only by the value its clause states (none of its action words there) where that clause says it
    did something else: a verb and an object no step of the reference names ("set up a guided remote session
    (dispatch DSP-1)" where the step schedules a technician visit)."""
    errors = []
    for step in steps:
        position = performed[step.index]
        if position is None or _share(step, content_stems(parts[position].text), weights) > 0:
            continue
        if _names_other_action(parts[position].text, steps):
            errors.append(f"another action than the reference's: {parts[position].text.strip()[:80]} ({step.action})")
    return errors


def _other_actions(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause],
                   kinds: Sequence[set[str]], weights: Mapping[str, float], own: set[str]) -> tuple[list[str], set[int]]:
    """A clause that states the result only one step yields, where no clause's words perform that step and this one
    shares none of them (whatever else it performs), got that result by another action (a technician visit where the reference ships a
    replacement). The errors, and the steps so replaced."""
    errors, replaced = [], set()
    for position, part in enumerate(parts):
        words = content_stems(part.text)
        for step in steps:
            if (performed[step.index] is None and step.yields & own & kinds[position] and len(words) >= 2
                    and _share(step, words, weights) == 0
                    and _names_other_action(part.text, steps)):
                errors.append(f"another action than the reference's: {part.text.strip()[:80]} ({step.action})")
                replaced.add(step.index)
    return errors, replaced


_SALUTATION = re.compile(r"^\s*(?:[-*\u2022]\s*)?(?:dear|hi|hello)\s+([A-Z][a-z]+)", re.IGNORECASE)


def _letter_to(candidate: str, live_fields: Mapping[str, str]) -> bool:
    """Whether the candidate is itself a message to the case's contact ("Dear Maja," with Maja in the live record, on
    one of its first three lines):
    it then performs the step of writing to the customer."""
    lines = [MENTIONS.sub("", line.strip()) for line in candidate.splitlines()[:3]]
    return any(re.search(rf"\b{found.group(1)}\b", value) for line in lines if (found := _SALUTATION.match(line))
               for value in live_fields)


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


def _order_errors(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause],
                  kinds: Sequence[set[str]], shared: set[str], weights: Mapping[str, float],
                  told: Sequence[Sequence[int]] = ()) -> list[str]:
    """Two steps told in the other order than the reference's: dependent steps (one uses what the other produced)
    however their clauses were found, any two steps when each clause states the result its step yields or is the
    one clause naming its action (ACTION_SHARE of its words, one of them its verb: ``_verbs``). Only on positive
    evidence: when the later step is told in the opening sentence and again after it (a headline "case closed" before
    the narration), the earlier step is read at its first telling and the later at its last, so a summary told first
    orders nothing; nor does the reference's last step (the outcome) told in the opening sentence alone ("Bottom
    line: data returned, case closed."), against the steps narrated after it."""
    errors = []
    chronological = not any(p.backward for p in parts)
    dependent = depends(steps)

    def shown(index: int, position: int) -> bool:   # by its result, or by its action words in this clause only
        if (steps[index].yields - shared) & _result_kinds(position, performed, parts, kinds):
            return True
        verbs = _verbs(steps[index].action)
        told = [n for n, part in enumerate(parts) if _share(steps[index], words := content_stems(part.text), weights)
                >= ACTION_SHARE and words & verbs]
        return told == [position]
    for earlier, later in sorted((a.index, b.index) for a in steps for b in steps if a.index < b.index):
        a, b = performed[earlier], performed[later]
        if a is None or b is None or a == b:
            continue
        if (earlier, later) not in dependent and not (shown(earlier, a) and shown(later, b)):
            continue
        summary = told and parts[b].sentence == parts[0].sentence   # the opening sentence, told again later
        first, last = (min([a, *told[earlier]]), max([b, *told[later]])) if summary else (a, b)
        headline = later == len(steps) - 1 and parts[b].sentence == parts[0].sentence != parts[a].sentence
        if not headline and _before(parts[b], parts[a], chronological) and _before(parts[last], parts[first], chronological):
            errors.append(f"steps out of order: {steps[later].action} before {steps[earlier].action}")
    return errors


def _verbs(action: str) -> set[str]:
    """The stems of what a step's action does: its first word after a connective and a subject ("Then we verify"),
    and its participles ("get the credit approved")."""
    words = [w for w in re.findall(r"[A-Za-z]+", action) if w.lower() not in STOP]
    return {stem(w) for w in words[:1] + [w for w in words[1:] if w.lower().endswith("ed")]}


def _result_kinds(position: int, performed: Sequence[int | None], parts: Sequence[Clause],
                  kinds: Sequence[set[str]]) -> set[str]:
    """The kinds of value a performing clause states, with those of the clauses after it in its sentence that
    perform no step ("I backed up the configuration and got backup BKP-9012")."""
    out = set(kinds[position])
    for later in range(position + 1, len(parts)):
        if parts[later].sentence != parts[position].sentence or later in performed:
            break
        out |= kinds[later]
    return out


#: Words that say what an entitlement or contract extends to ("covers on-site service", "recovery is included").
_COVERS = re.compile(r"\b(?:cover|covers|covered|covering|include|includes|included|including|entitles?)\b", re.IGNORECASE)
_PASSIVE = re.compile(r"\b(?:is|are|was|were|been|be|being)\s+(?:\w+ly\s+)?$", re.IGNORECASE)
#: Where the object of a verb ends: its details, a comma, a relative or a result.
_OBJECT_END = re.compile(r"[(\[:;,]|->|=>|\s[-\u2013\u2014]\s|\b(?:which|that|using|and|then|with|so)\b", re.IGNORECASE)


def _object_errors(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause],
                   weights: Mapping[str, float]) -> list[str]:
    """A step whose action says what something covers ("verified the contract covers on-site service"), done on
    something else: the sentence performing it names none of what the step covers, and either states a coverage of
    its own ("the entitlement includes data recovery") or does the step's action, in the active voice, to an object
    with words neither the step's action nor the fields it yields have ("verified the warranty entitlement of the
    asset"; "checked the entitlement" checks what the step yields). The second is read only when the reference shows the
    candidate's procedure (its every other step performed by its action words): an exemplar of another procedure
    does not say what this case's check covers."""
    errors = []
    told = {s.index for s in steps if (p := performed[s.index]) is not None
            and _share(s, content_stems(parts[p].text), weights) >= ACTION_SHARE}
    for step in steps:
        position = performed[step.index]
        found = _COVERS.search(step.action)
        if position is None or not found or not (covered := content_stems(step.action[found.end():])):
            continue
        sentence = " ".join(p.text for p in parts if p.sentence == parts[position].sentence)
        if covered & content_stems(sentence):
            continue
        text, verb = parts[position].text, stem(step.action.split()[0])
        own = step.words | {stem(w) for label in step.produces for w in label.split()}   # "checked the entitlement"
        active = any(stem(m.group(0)) == verb and not _PASSIVE.search(text[:m.start()])
                     and content_stems(_OBJECT_END.split(text[m.end():], maxsplit=1)[0]) - own
                     for m in re.finditer(r"[A-Za-z]+", text))
        fits = all(s.index in told for s in steps if s.index != step.index)
        if _COVERS.search(sentence) or (active and fits):
            errors.append(f"another action at a step: {text.strip()[:80]} ({step.action})")
    return errors


_HANDOVER = re.compile(r"\b(?:escalat|hand|pass|approv|forward|sign)", re.IGNORECASE)


def _team_errors(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause]) -> list[str]:
    errors = []
    for step in steps:
        if not step.team:
            continue
        texts = [p.text for n, p in enumerate(parts) if n == performed[step.index] or _HANDOVER.search(p.text)]
        for text in texts:
            team = team_words(text)
            if team and not team & step.team:
                errors.append(f"handed to {' '.join(sorted(team))}, not {' '.join(sorted(step.team))}")
    return errors


def _mentioned(step: RefStep, parts: Sequence[Clause]) -> bool:
    """Whether some clause names the step's verb with another of its action words (the reader saw it, if not where)."""
    verbs = _verbs(step.action)
    return any(verbs & (w := content_stems(p.text)) and len(step.words & w) >= 2 for p in parts)


def _names_other_action(text: str, steps: Sequence[RefStep]) -> bool:
    """Whether a clause says it did something no step of the reference names: a verb and a direct object of its own
    (not a preposition's)."""
    known = {w for step in steps for w in step.words}
    for found in _DONE.finditer(text):
        if found.group(2).split()[0].lower() in _PREPOSITIONS:   # "went to soren@...": no object, a recipient
            continue
        verb, object_ = content_stems(found.group(1)), content_stems(found.group(2))
        if verb and not verb & known and object_ and not object_ & known:
            return True
    return False
