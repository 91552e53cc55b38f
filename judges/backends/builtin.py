"""Built-in procedural judges: honest offline baselines that read only the rendered request.

Each judge parses the text a condition shows — the sections of the user
message (question, live context, reference, candidate) and the instructions
of the system message (the rubric's fact authority, the claim statuses on
offer) — the way any reader of that text could, and answers with verdict
JSON like an LLM would, so its answer goes through the same parser.

- ``literal``: the reference is the target; every value and every step of the
  candidate must match it.
- ``grounded``: extracts claims and labels each supported / contradicted /
  unverifiable against the fact authority the rubric names (the live context,
  or the reference); checks the steps against the reference used as a
  procedural exemplar; fails only on contradictions and procedural errors.
  When only two statuses are offered, a claim the evidence does not support
  is labelled contradicted.
- ``token-f1``: token F1 between candidate and reference, pass at ≥ 0.5.
- ``noref``: internal consistency only (no value stated two ways).

How text is read: values and status words as in ``judges.value_claims``
(tokens with a digit or an ``@``; the words of a small lexicon of mutually
exclusive statuses, claimed of a field word); a step of the reference is a
line of a list, told by the lead its lines repeat (``judges.line_templates``), and its action is the text before
its first separator (``judges.reference_steps``). ``literal`` needs that action phrase in a sentence
of the candidate; ``grounded`` reads the candidate's prose with
``judges.claims`` (which step each clause performs, in what order, handed to
which team).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from judges.backends.base import JudgeBackend, JudgeRequest, JudgeResponse, Usage
from judges.backends.registry import Backend
from judges.backends.token_f1 import token_f1
from judges.claims import read_procedure
from judges.line_templates import field_lines
from judges.reference_steps import step_outputs
from judges.derived_claims import derived_status
from judges.value_claims import COVERS, FIELD_WORDS as _FIELD_WORDS, LEXICON_WORDS as _LEXICON_WORDS, STOP as _STOP
from judges.value_claims import STRIP as _STRIP, lexicon_form, same_value, status_claims, value_shape as _shape, values, words as _words

#: Words that join a field to its value in running text ("using X", "result: X", "and got X").
_CONNECTIVES = frozenset("using result results recording recorded got gave giving found showing yielding".split())
_LIST_MARKER = re.compile(r"^\s*(?:\(?(?:\d+|[a-h])\)|\d+\.|[-*•]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
#: A counter opening a sentence of a list told in prose ("Step 2, ...", "1/3 ...").
_COUNTER = re.compile(r"^(?:step\s+\d+\s*,|\d+/\d+)\s+", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SECTION = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)
_HTML_CELL = re.compile(r"</t[dh]>\s*<t[dh][^>]*>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?(?:table|thead|tbody|tr|td|th|p|br|div|span|b|i|strong|em|ul|ol|li|h\d)\b[^>]*>", re.IGNORECASE)
_CONTEXT_LINE = re.compile(r"^([A-Za-z][A-Za-z ]*?):\s+(.+?)\s*$")


# --------------------------------------------------------------------------- reading the request

@dataclass(frozen=True)
class Shown:
    """What a rendered request shows a judge."""

    question: str = ""
    context: str | None = None
    reference: str | None = None
    candidate: str = ""
    fact_authority: str = "none"            # context | question | reference | none (from the rubric)
    statuses: tuple[str, ...] = ("supported", "contradicted", "unverifiable")


def read_request(request: JudgeRequest) -> Shown:
    """Split a rendered request into its sections and read the instructions a judge must follow."""
    system = "\n".join(m.text() for m in request.messages if m.role == "system")
    user = "\n".join(m.text() for m in request.messages if m.role != "system")
    sections: dict[str, str] = {}
    keys = ("question", "context", "reference", "candidate")
    # a heading opens a section only when it names one: a candidate's own "## CASE-1" heading is part of its text
    matches = [m for m in _SECTION.finditer(user) if any(key in m.group(1).lower() for key in keys)]
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(user)
        heading = match.group(1).lower()
        body = _HTML_TAG.sub(" ", _HTML_CELL.sub(" | ", user[match.end():end])).strip()   # a table's cells as text
        for key in keys:
            if key in heading:
                sections[key] = body
                break
    authority = fact_authority(system)
    statuses: tuple[str, ...] = ("supported", "contradicted", "unverifiable")
    found = re.search(r"claim statuses:\s*(.+?)\.?\s*$", system, re.IGNORECASE | re.MULTILINE)
    if found:
        statuses = tuple(s.strip().lower() for s in found.group(1).split(",") if s.strip())
    return Shown(sections.get("question", ""), sections.get("context"), sections.get("reference"),
                 sections.get("candidate", ""), authority, statuses)


_FACT_WORDS = re.compile(r"\b(?:facts?|identifiers?|dates?|values?|statuses)\b", re.IGNORECASE)
_CHECK_WORDS = re.compile(r"\b(?:agrees?|check|checks|against|match|matches|consistent|compare|verify)\b", re.IGNORECASE)
#: The sources a fact check can name, as a prompt may name them.
_SOURCES = (("context", re.compile(r"\b(?:live )?context\b", re.IGNORECASE)),
            ("question", re.compile(r"\bquestion\b", re.IGNORECASE)),
            ("reference", re.compile(r"\breference\b", re.IGNORECASE)))


def fact_authority(system: str) -> str:
    """Which source the instructions tell a judge to check facts against: the first instruction that speaks of
    facts (identifiers, dates, values) and of checking them (agree, check, against, match) names it after its check
    word (context | question | reference), the rubric's dimensions (its "- " lines) before the framing; none when
    no instruction does."""
    rubric = [line for line in system.splitlines() if line.lstrip().startswith("- ")]
    for sentence in sentences("\n".join(rubric)) + sentences(system):
        check = _CHECK_WORDS.search(sentence)
        if not check or not _FACT_WORDS.search(sentence):
            continue
        after = sentence[check.start():]
        named = [(found.start(), name) for name, pattern in _SOURCES if (found := pattern.search(after))]
        if named:
            return min(named)[1]
    return "none"


def sentences(text: str) -> list[str]:
    """The sentences of a text, one per line or sentence, list markers removed."""
    out = []
    for line in text.splitlines():
        line = _LIST_MARKER.sub("", line.strip())
        out += [_COUNTER.sub("", s.strip()) for s in _SENTENCE.split(line) if s.strip()]
    return out


def _swapped(token: str) -> str:
    """An ISO date with its month and day exchanged (a date written month first), else the token."""
    found = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", token)
    return f"{found.group(1)}-{found.group(3)}-{found.group(2)}" if found else token


def _holds(value: str, part: str) -> bool:
    """Whether a stated value holds a part of a value: a date its month or day ("2026-03" of 2026-03-03) or its
    year, an identifier its number ("10042" of CASE-10042)."""
    if re.fullmatch(r"\d+", part):   # an identifier's number, or a year of a stated date ("Q4 2026")
        return bool(re.fullmatch(rf"[A-Za-z]+-?{part}", value)) or (len(part) == 4 and value.startswith(f"{part}-"))
    return value.startswith(part) or (value[4:].startswith(f"-{part}") and len(value) == 10)


@dataclass
class Evidence:
    """Facts a judge checks claims against: value tokens by kind, and field statuses."""

    values: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    statuses: dict[str, set[str]] = field(default_factory=dict)

    @staticmethod
    def of(*texts: str | None) -> "Evidence":
        """Evidence from free text and ``Field: value`` lines."""
        evidence = Evidence()
        for text in texts:
            if not text:
                continue
            for token in values(text):
                evidence.values.add(token)
                evidence.kinds.add(_shape(token))
            for line in field_lines(text):
                match = _CONTEXT_LINE.match(line.strip())
                if not match:
                    continue
                value = " ".join(_words(re.sub(r"(?<=[A-Za-z])-(?=[A-Za-z])", " ", lexicon_form(match.group(2)))))
                named = [_FIELD_WORDS[w] for w in _words(match.group(1)) if w in _FIELD_WORDS]
                if value in _LEXICON_WORDS or (named and not re.search(r"\d|@", value)):   # in the lexicon or not ("same day")
                    label = named[0] if named else _words(match.group(1))[-1]
                    evidence.statuses.setdefault(label, set()).add(value)
            for label, status in status_claims(text):
                evidence.statuses.setdefault(label, set()).add(status)
        return evidence

    def status_of(self, token: str) -> str:
        """supported if stated (in any case, with or without hyphens, a date's day and month either way round; a
        date with no year or no day, or a number alone, as part of a stated one), contradicted if a different value
        of the same kind is stated, else unverifiable (so is a time of day, or a date with no year or no day)."""
        known = {same_value(v) for v in self.values}
        if same_value(token) in known or same_value(_swapped(token)) in known:
            return "supported"
        partial = token.startswith("--") or re.fullmatch(r"\d{4}-\d{2}", token) or token.isdigit()
        if partial and any(_holds(v, token.lstrip("-")) for v in self.values):
            return "supported"
        if token.startswith("--") or re.fullmatch(r"\d{4}-\d{2}|\d{1,2}:\d{2}(?::\d{2})?", token):
            return "unverifiable"   # a time of day is when a note was written, not a field of the record
        return "contradicted" if _shape(token) in self.kinds else "unverifiable"

    def status_of_field(self, label: str, status: str) -> str:
        """The same three-way status for a field's status word."""
        known = self.statuses.get(label)
        if not known:
            return "unverifiable"
        said = COVERS.get(status, {status})
        return "supported" if any(s == k or f" {s} " in f" {k} " for s in said for k in known) else "contradicted"


# --------------------------------------------------------------------------- procedure

def reference_actions(reference: str) -> list[str]:
    """The reference's steps as action phrases (``reference_steps.step_outputs``: its steps however it lists them,
    each without its details)."""
    return [action for action in map(_normal, step_outputs(reference)) if action]


def _normal(text: str) -> str:
    return " ".join(_words(text))


def procedural_errors(candidate: str, reference: str) -> tuple[list[str], float]:
    """Procedural errors of a candidate against the reference's steps, and the share of steps it performs."""
    actions = reference_actions(reference)
    if not actions:
        return [], 1.0
    found: list[tuple[int, int]] = []  # (sentence index, step index)
    errors = []
    normal = [_normal(s) for s in sentences(candidate)]
    for step, action in enumerate(actions):
        hits = [i for i, text in enumerate(normal) if action in text]
        if hits:
            found.append((hits[0], step))
        else:
            errors.append(f"step not performed as in the reference: {action}")
    order = [step for _, step in sorted(found)]
    for earlier, later in zip(order, order[1:]):
        if later < earlier:
            errors.append(f"steps out of order: {actions[earlier]} / {actions[later]}")
    return errors, round(len(found) / len(actions), 3)


# --------------------------------------------------------------------------- judges

def _verdict_json(verdict: str, dimensions: dict[str, float], claims: list[tuple[str, str]], notes: list[str]) -> str:
    reasoning = "; ".join(notes[:6]) or "no problems found"
    body = json.dumps({"dimensions": dimensions, "claims": [{"text": t, "status": s} for t, s in claims],
                       "verdict": verdict}, ensure_ascii=False, sort_keys=True)
    return f"Reasoning: {reasoning}.\n{body}"


def _claims(candidate: str, evidence: Evidence, actions: list[str], two_way: bool,
            record: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    claims = []
    for sentence in sentences(candidate):
        derived = derived_status(sentence, record)
        statuses = [evidence.status_of(t) for t in values(sentence) if t not in derived.numbers]
        statuses += [evidence.status_of_field(label, s) for label, s in status_claims(sentence)]
        statuses += [derived.status] if derived.status else []
        normal = _normal(sentence)
        if "contradicted" in statuses:
            status = "contradicted"
        elif "supported" in statuses or any(a in normal for a in actions):
            status = "supported"
        else:
            status = "unverifiable"
        if two_way and status == "unverifiable":
            status = "contradicted"
        claims.append((sentence[:160], status))
    return claims


def live_fields(context: str | None) -> dict[str, str]:
    """Each value of a ``Field: value`` context line, mapped to its field label (lower case)."""
    out: dict[str, str] = {}
    for line in field_lines(context or ""):
        match = _CONTEXT_LINE.match(line.strip())
        if match:
            out[match.group(2)] = match.group(1).lower()
    return out


def record_fields(*texts: str | None) -> list[tuple[str, str]]:
    """The (label, value) pairs of the records in the texts (``field_lines``)."""
    out = []
    for text in texts:
        for line in field_lines(text or ""):
            match = _CONTEXT_LINE.match(line.strip())
            if match:
                out.append((match.group(1), match.group(2)))
    return out


_UNSEEN = "step not performed: "


def _reported(errors: list[str], shown: Shown) -> list[str]:
    """The procedural errors left once a step the wording did not show is taken as done when the candidate states
    a value of a kind only that step states in the reference (a backup id: the configuration was backed up)."""
    steps = step_outputs(shown.reference or "")
    produced = {action: {_shape(t) for t in values(out)} for action, (out, _) in steps.items()}
    mentioned = {action: {_shape(t) for t in values(line)} for action, (_, line) in steps.items()}
    stated = {_shape(token) for token in values(shown.candidate)}

    def own(action: str) -> set[str]:   # kinds of value no other step states: a later step's input is no proof
        return produced.get(action, set()) - {k for other, kinds in mentioned.items() if other != action for k in kinds}
    return [e for e in errors if not (e.startswith(_UNSEEN) and own(e[len(_UNSEEN):]) & stated)]


def judge_grounded(shown: Shown) -> str:
    """Claims against the rubric's fact authority; steps read from the prose against the reference as an exemplar."""
    source = [shown.reference] if shown.fact_authority == "reference" else [shown.question, shown.context]
    evidence = Evidence.of(*source)
    actions = reference_actions(shown.reference) if shown.reference else []
    two_way = "unverifiable" not in shown.statuses
    claims = _claims(shown.candidate, evidence, actions, two_way, record_fields(*source))
    errors: list[str] = []
    coverage = 1.0
    if shown.reference:
        reading = read_procedure(shown.candidate, shown.reference, live_fields(shown.context))
        errors, coverage = _reported(list(reading.errors), shown), reading.coverage
    contradicted = [t for t, s in claims if s == "contradicted"]
    notes = [f"contradicted: {t}" for t in contradicted] + errors
    grounding = round(1 - len(contradicted) / max(1, len(claims)), 3)
    verdict = "fail" if contradicted or errors else "pass"
    return _verdict_json(verdict, {"factual_grounding": grounding, "procedure": 0.0 if errors else 1.0,
                                   "completeness": coverage}, claims, notes)


def judge_literal(shown: Shown) -> str:
    """The reference is the target: every candidate value and step must match it."""
    if not shown.reference:
        return _verdict_json("cannot_decide", {}, [], ["no reference to compare with"])
    evidence = Evidence.of(shown.reference)
    claims = []
    for sentence in sentences(shown.candidate):
        tokens = values(sentence)
        ok = all(t in evidence.values for t in tokens) and all(
            evidence.status_of_field(l, s) != "contradicted" for l, s in status_claims(sentence))
        claims.append((sentence[:160], "supported" if ok else "contradicted"))
    errors, coverage = procedural_errors(shown.candidate, shown.reference)
    mismatched = [t for t, s in claims if s == "contradicted"]
    notes = [f"differs from the reference: {t}" for t in mismatched] + errors
    verdict = "fail" if mismatched or errors else "pass"
    return _verdict_json(verdict, {"correctness": round(1 - len(mismatched) / max(1, len(claims)), 3),
                                   "procedure": 0.0 if errors else 1.0, "completeness": coverage}, claims, notes)


F1_THRESHOLD = 0.5


def judge_token_f1(shown: Shown) -> str:
    """Pass when token F1 with the reference reaches the threshold."""
    if not shown.reference:
        return _verdict_json("cannot_decide", {}, [], ["no reference to compare with"])
    score = token_f1(shown.candidate, shown.reference)
    verdict = "pass" if score >= F1_THRESHOLD else "fail"
    return _verdict_json(verdict, {"token_f1": score}, [], [f"token F1 {score} against threshold {F1_THRESHOLD}"])


def _field_before(words_before: list[str]) -> str | None:
    content = [w for w in words_before if w not in _STOP and w not in _CONNECTIVES]
    return content[-1] if content else None


def judge_noref(shown: Shown) -> str:
    """Internal consistency only: fail when one field is given two different values."""
    stated: dict[str, set[str]] = {}
    for sentence in sentences(shown.candidate):
        parts = sentence.split()
        for index, raw in enumerate(parts):
            token = raw.strip(_STRIP).rstrip(".").strip(_STRIP)
            if token and (any(ch.isdigit() for ch in token) or "@" in token):
                label = _field_before(_words(" ".join(parts[max(0, index - 3):index])))
                if label:
                    stated.setdefault(label, set()).add(token)
        for label, status in status_claims(sentence):
            stated.setdefault(label, set()).add(status)
    clashes = sorted(label for label, seen in stated.items() if len(seen) > 1)
    claims = [(f"{label}: {', '.join(sorted(seen))}", "contradicted" if label in clashes else "unverifiable")
              for label, seen in sorted(stated.items())]
    verdict = "fail" if clashes else "pass"
    return _verdict_json(verdict, {"coherence": 0.0 if clashes else 1.0}, claims,
                         [f"{label} stated two ways" for label in clashes])


JUDGES: dict[str, Callable[[Shown], str]] = {
    "literal": judge_literal, "grounded": judge_grounded, "token-f1": judge_token_f1, "noref": judge_noref,
}


class BuiltinJudge(JudgeBackend):
    """A JudgeBackend that answers with one of the procedural judges above."""

    cacheable = False

    def __init__(self, name: str) -> None:
        self.judge = JUDGES[name]
        self.kind = name
        self.name = f"builtin:{name}"

    def identity(self) -> dict[str, str]:
        """Cache identity: the judge's name and the version of its rules."""
        return {"kind": "builtin", "name": self.kind, "rules": "11" if self.kind == "grounded" else "1"}

    def judge_text(self, request: JudgeRequest) -> str:
        """The verdict text for a request (synchronous)."""
        return self.judge(read_request(request))

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Answer one request."""
        text = self.judge_text(request)
        return JudgeResponse(text, Usage(0, 0), self.name)


def make_builtin(name: str) -> BuiltinJudge:
    """The built-in judge called ``name`` (literal, grounded, token-f1, noref)."""
    if name not in JUDGES:
        raise KeyError(f"{name!r}; choose one of {', '.join(JUDGES)}")
    return BuiltinJudge(name)


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="builtin", roles=("judge",), builtin=True, studies=("cargo",),
                  names="judges.backends.builtin:JUDGES", summary="procedural CARGO judges, offline and deterministic")


def make(wanted) -> BuiltinJudge:
    """The registry's factory for ``builtin:NAME`` (a ``judges.backends.base.BackendSpec``)."""
    from orgbench.core.errors import InputError

    try:
        return make_builtin(wanted.arg)
    except KeyError as exc:
        raise InputError(f"{wanted.where}: unknown built-in judge {exc.args[0] if exc.args else exc}") from None
