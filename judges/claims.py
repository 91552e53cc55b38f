"""Procedural claims read from free prose: which of the reference's steps a candidate performs, in what order.

The reference is read as an exemplar: each numbered step has an action (the
text before its details), the fields it uses (in parentheses) and the fields
it produces (after the colon), and possibly a team it escalates to. A step
depends on an earlier one when it uses a field that one produced. The
candidate is cut into clauses (sentences, and within them at ``;``, ``then``,
``, so``, dashes, ``and`` or a comma before a past-tense verb, ``before`` /
``after`` / ``once``). A clause performs the step whose action words
(stemmed, abbreviations and compounds read as words, a small synonym table,
weighted by how rare they are among the reference's steps) it holds the
largest share of, more so when it states a live value of a field the step
produces or uses; the words it leaves over can perform a further step. Time
order comes from the narration, corrected by ``Before X, ...`` (X comes
last), ``Y after X``, ``once X, Y``, "at the start" and pluperfect
sentences. "Rather than X" / "instead of X" declines the step X performs.
Errors: a step no clause performs, a declined step, two dependent steps in
the wrong order, a step handed to a team whose qualifying words ("sales"
manager, "level-1" desk) share none with the reference's, a check of what an
entitlement covers done on something else (``_object_errors``).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import AbstractSet, Any, Mapping, Sequence

from judges.value_claims import same_value, status_group, value_shape, values

_STOP = frozenset("""a an the and or but to of on in for with by from at as into onto is are was were be been being
it its this that these those we i our us you your they them their he she his her then next first finally after
also so up via per once when before until all any each which who what there here out off over just still now
has have had do did done not no yes very quick straight away behind""".split())
_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("resolv", "close", "clos", "finish", "wrap"),
    ("email", "mail", "sent", "send", "notif", "inform", "told", "tell", "wrote", "write", "messag", "receiv"),
    ("verif", "check", "confirm", "valid", "ensur", "made sure", "establish"),
    ("schedul", "book", "arrang", "plan"),
    ("ship", "dispatch", "sent"),
    ("instal", "fit", "fitt", "replac", "swap"),
    ("pull", "retriev", "fetch", "took", "tak", "look", "collect", "gather", "grab", "download", "obtain", "captur"),
    ("escal", "hand", "pass", "forward", "gave", "giv", "rout", "referr"),
    ("open", "creat", "rais", "start", "log"),
    ("run", "ran", "perform", "execut", "did"),
    ("roll", "revert", "downgrad"),
    ("back", "backup"),
    ("diag", "diagnos", "diagnost", "test"),
    ("boot", "reboot", "restart"),
    ("clean", "fine", "normal", "proper", "healthy", "stabl"),
    ("return", "arriv"),
    ("breach", "miss", "violat", "blown"),
    ("approv", "sign", "authoris", "authoriz"),
    ("appli", "apply", "post", "credit"),
    ("match", "compar", "known"),
    ("includ", "incl", "cover"),
    ("configur", "config"),
)
#: Phrasal verbs read as the one word they mean ("started up": booted).
_PHRASAL = re.compile(r"\b(?:start|starts|started|came|comes|come|powered|powers) (?:back )?up\b")
#: Phrasal verbs of coming back read as "returned" ("when the unit came back").
_RETURNED = re.compile(r"\b(?:came|comes|come|got|gets|get) back\b")
#: Compound words read as their parts ("rollback" is "roll back").
_COMPOUNDS = {"rollback": ("roll", "back"), "rollbacks": ("roll", "back"), "fw": ("firmware",), "config": ("configuration",),
              "diag": ("diagnostic",), "diags": ("diagnostics",), "sla": ("service", "level")}
_TEAM = re.compile(r"\b((?:[\w-]+ ){0,3}?)(team|(?:help ?)?desk|manager|representative|rep|specialist|engineer|supervisor|lead|department|group|controller|officer|director|analyst|administrator|coordinator)s?\b",
                   re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:\(?(?:\d+|[a-h])\)|\d+\.|[-*•]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z0-9])|\n+")
_PAST = r"(?:\w+ed|sent|ran|got|took|taken|gave|given|made|shipped|put|set|did|done|told|wrote|went|came|began|brought)"
_SPLIT = re.compile(rf";\s+|,\s+and\s+|(?:,\s+|\s+and\s+)then\s+|\s+then\s+(?=(?:we|i|they|he|she)\b)|,\s+after which\s+"
                    rf"|,?\s+and\s+(?:(?:only|then|afterwards|later|also|finally|\w+ly),?\s+){{0,2}}(?=(?:we |i |they )?{_PAST}\b)|,\s+(?={_PAST}\b)|,\s+so\s+|\s+[-\u2013\u2014]\s+"
                    rf"|,?\s+and after that,?\s+|\.\s+after that,?\s+", re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z0-9'-]*")
_PLUPERFECT = re.compile(rf"\bhad (?:already |just |first |\w+ly )?(?:been )?(?:{_PAST}|run|come|gone|gotten|been)\b"
                         r"|\bbefore (?:any of )?th(?:at|is|e)\b|\b(?:after|once) we\b", re.IGNORECASE)
_STATE = re.compile(r"\b(?:is|are|was) (?:now )?(?:closed|resolved|back|done|complete)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=None)   # pure in the word; the grounded judge stems the same words thousands of times
def stem(word: str) -> str:
    """A crude stem: common suffixes off, then the synonym group's first member if the stem is in one."""
    word = word.lower().strip("'")
    if word.endswith("ly") and len(word) >= 6:
        word = word[:-2]
    for suffix in ("ations", "ation", "ments", "ment", "ings", "ing", "ied", "ies", "ed", "es", "s", "e", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix in ("ing", "ed") and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # shipped, swapping, planned
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]  # entitle(ment) / entitl(ed), configur(e) / configur(ed)
    for group in _SYNONYMS:
        if any(word == g or (len(g) > 4 and word.startswith(g)) or (len(word) > 4 and g.startswith(word))
               for g in group):
            return group[0]
    return word


def content_stems(text: str, labels: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the content words of a text, leaving out stop words, field-label words and values."""
    text = re.sub(r"'s\b", "", re.sub(r"\S+@\S+", " ", text))  # an address is a value, not words; "technician's"
    found = _WORD.findall(_TIER.sub(r"level-\1", _RETURNED.sub("returned", _PHRASAL.sub("boots", text.lower()))))
    words = [w for w in found if not any(ch.isdigit() for ch in w)]
    words += [m.group(1) for w in found if (m := re.fullmatch(r"([a-z]{4,})-\d+", w))]  # CASE-10042: the case
    words = [part for w in words for part in _COMPOUNDS.get(w, w.split("-"))]
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
    anchors: frozenset[str] = frozenset()   # kinds of value the step states ("~prefix:DSP"), read from their form
    yields: frozenset[str] = frozenset()    # kinds of value (and of status) the step produces


_TIER = re.compile(r"\b(?:l|t|tier|level)[- ]?(\d)\b", re.IGNORECASE)


def _team(text: str) -> frozenset[str]:
    """The words that say which team or role a phrase names: those right before its head noun ("sales" manager).

    Tiers are read alike ("L2", "tier 2", "level-2"); other hyphenated words count by their parts.
    """
    found = _TEAM.search(_TIER.sub(r"level-\1", text))
    if not found:
        return frozenset()
    qualifiers: list[str] = []
    for word in reversed(found.group(1).lower().split()):
        if word in _STOP or word.endswith("ed"):
            break
        qualifiers += [word] if re.fullmatch(r"level-\d", word) else word.split("-")
    return frozenset(w for w in qualifiers if w)


def _fields(text: str, labels: Sequence[str]) -> frozenset[str]:
    low = text.lower()
    return frozenset(label for label in labels if re.search(rf"\b{re.escape(label)}\b", low))


#: How a step line of a reference may open: "1.", "1)", "a.", "b)", "-", "*", "•", "Step 2 -", "=>".
_STEP_LINE = re.compile(r"^\s*(?:\(?(?:\d+|[a-h])\)|\d+\.|[a-h]\.|[-*\u2022]|step\s+\d+\s*[:.)-]?|=>|->)\s+", re.IGNORECASE)
#: Where a step's action ends and its details start: a parenthesis, a colon, an arrow, a spaced dash, a full stop.
_DETAILS = re.compile(r"\s*(?:[(\[:]|=>|->|\u2192|\s[-\u2013\u2014]\s|\.\s+(?=[A-Z]))")
#: Clause breaks inside a prose reference: "then", "after which", semicolons, ", and" before a past-tense verb.
_PROSE_STEP = re.compile(rf";\s+|,?(?<!\bwas)(?<!\bwere)\s+(?:and\s+)?then\s+|,\s+after which\s+|\.\s+(?=[A-Z])"
                         rf"|,?\s+and\s+(?=(?:the|a|an)\s+(?:[\w-]+\s+){{0,3}}(?:was|were)?\s*{_PAST}\b)"
                         rf"|,\s+and\s+(?={_PAST}\b)|,\s+(?={_PAST}\b)|,\s+(?=(?:the|a)\s+(?:[\w-]+\s+){{1,3}}(?:was|were)\s)",
                         re.IGNORECASE)


def _table_steps(lines: Sequence[str]) -> list[str]:
    """The steps of a Markdown table, one a row below its header, as "action (used): produced" (a row's first
    cell that is not a number is its action, the next its inputs, the one after its result)."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("|")]
    body = [r for r in rows[1:] if not all(set(c) <= set("-: ") for c in r)] if len(rows) > 2 else []
    out = []
    for cells in body:
        cells = [c for c in cells if c and not re.fullmatch(r"\d+[.)]?", c)]
        if cells:
            uses, produces = (cells[1:2] or [""])[0], (cells[2:3] or [""])[0].strip("- ")
            out.append(f"{cells[0]} ({uses})" + (f": {produces}" if produces else ""))
    return out


def step_lines(reference: str) -> list[str]:
    """The reference's steps as text, however it lists them: the rows of a table, marked lines ("1.", "a)", "-", "Step 2 -"), else the
    lines after a heading that each state an action with details (an arrow or a colon), else the clauses of its
    prose after the first sentence (which names the case), cut at its arrows when it joins three or more steps so,
    each part a step, else at "then", "after which", ";" and the like (never inside a step's brackets), keeping
    the parts that name an action."""
    lines = [line.strip() for line in reference.splitlines() if line.strip()]
    rows = _table_steps(lines)
    if len(rows) >= 2:
        return rows
    marked = [_STEP_LINE.sub("", line) for line in lines if _STEP_LINE.match(line)]
    if len(marked) >= 2:
        return marked
    detailed = [line for line in lines[1:] if re.search(r"=>|->|:\s", line) and not line.rstrip().endswith(":")]
    if len(detailed) >= 2:
        return detailed
    if len(lines) > 1:
        body = " ".join(lines[1:])
    else:   # one paragraph: what follows the heading's colon, else the sentences after the first
        head, colon, rest = reference.partition(": ")
        body = rest if colon and len(head) < 120 else " ".join(_SENTENCE.split(reference)[1:])
    arrows = [p.strip(" .") for p in _outside_brackets(_ARROW, body) if p.strip(" .")]
    if len(arrows) >= 3:   # "A -> B -> C": each part is a step, whatever verb it opens with
        return arrows
    parts = [p.strip(" .") for p in _outside_brackets(_PROSE_STEP, body) if p and p.strip(" .")]
    return [p for p in parts if _ACTS.search(p) or re.search(rf"\b{_PAST}\b|\b(?:check|verif|confirm|run|open|ship|send|email)",
                                                             p, re.IGNORECASE)]


#: A prose clause that says someone acts ("Then we create a dispatch"), whatever the verb.
_ACTS = re.compile(r"^(?:(?:first|then|next|finally|lastly|and|after that),?\s+)*(?:we|i|they)\s+[a-z]+", re.IGNORECASE)


_ARROW = re.compile(r"\s*(?:->|=>|\u2192)\s*")


def _outside_brackets(pattern: re.Pattern[str], text: str) -> list[str]:
    """The text cut where the pattern matches outside parentheses and brackets (a step's details stay whole)."""
    parts, start, depth, cuts = [], 0, [0] * (len(text) + 1), 0
    for index, ch in enumerate(text):
        cuts += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
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
    """A step line as (action, what it uses, what it produces): "action (uses): produces", "action [uses] ->
    produces", "action — uses; result: produces", "action (uses; produces)"; details after a dash or a full stop
    with no result named are what the step used, after a colon or an arrow what it produced."""
    body = line.strip().rstrip(".")
    found = _DETAILS.search(body)
    if not found or found.start() == 0:
        return body, "", ""
    action, details = body[:found.start()].strip(), body[found.start():].strip()
    if details.startswith(("(", "[")):
        close = details.find(")") if details.startswith("(") else details.find("]")
        uses, rest = (details[1:close], details[close + 1:]) if close > 0 else (details, "")
        rest = re.sub(r"^\s*(?::|=>|->|[-\u2013\u2014])\s*", "", rest)
        if not rest.strip(" .,") and ";" in uses:   # "(asset serial X; diagnostic code Y)": used; produced
            uses, _, rest = uses.partition(";")
        return action, uses, rest
    details = re.sub(r"^\s*(?:[.:]|=>|->|[-\u2013\u2014])\s*", "", details)
    result = _RESULT.search(details)
    if result:   # "— asset serial X; result: diagnostic code Y"
        return action, details[:result.start()], details[result.end():]
    used = _USED.match(details)
    if used or re.match(r"\s*(?:[-\u2013\u2014]|\.)", body[found.start():]):   # "— X", ". Used: X": details only
        return action, details[used.end() if used else 0:], ""
    return action, "", details


def step_outputs(reference: str) -> dict[str, tuple[str, str]]:
    """Each reference step's action, mapped to (the text of what it produced, its whole line); for a step read from
    prose, where uses and products are not told apart, the whole clause is both."""
    out = {}
    for line in step_lines(reference):
        action, uses, produces = _split_step(line)
        out[action] = (produces if (uses or produces) else line, line)
    return out


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
                             _fields(uses_text, labels), _fields(produces_text, labels), _team(action),
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


def clauses(candidate: str) -> list[Clause]:
    """The candidate's clauses with their time-order keys (declined actions left out)."""
    out = []
    lines = [_MARKER.sub("", line.strip()) for line in candidate.splitlines()]
    sentences = [_DECLINED.sub("", s) for line in lines for s in _SENTENCE.split(line) if s.strip()]
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
    return 1 in status_group(clause) and not re.search(rf"\b(?:we|i|they)\b|\b{_PAST}\b", _LEXICON.sub(" ", rest), re.IGNORECASE)


_LEXICON = re.compile(r"\b(?:closed|resolved|open|in[ _]progress|pending[ _]customer)\b", re.IGNORECASE)


def declined(candidate: str) -> list[str]:
    """The actions the candidate says it took instead of ("rather than X", "instead of X")."""
    return [m.group(1).strip() for m in _DECLINED.finditer(candidate)]


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
    best = [(0.0, 0)] * len(steps)
    kinds = [stated_kinds(part.text) for part in parts]
    filled = [_same_fields({live_fields[v] for v in live_fields if v and same_value(v) in same_value(part.text)}, steps)
              for part in parts]   # the fields whose live values a clause states, in any case or hyphenation
    for position, part in enumerate(parts):
        anchored = filled[position] | kinds[position]
        for score, index in _clause_steps(content_stems(part.text), anchored, steps, weights, shared, own):
            if score > best[index]:
                performed[index], best[index] = position, score
    errors, replaced = _other_actions(steps, performed, parts, kinds, weights, own)
    _by_result(steps, performed, parts, [k | (f & own) for k, f in zip(kinds, filled)], shared, replaced)
    letter = _letter_to(candidate, live_fields)
    errors += [f"step not performed: {s.action}" for s in steps if performed[s.index] is None
               and s.index not in replaced and not (letter and {"email", "customer"} <= s.words)]
    for text in declined(candidate):
        errors += [f"step declined: {steps[i].action}" for _, i in _clause_steps(content_stems(text), set(), steps,
                                                                                 weights, shared)]
    errors += _unnamed_actions(steps, performed, parts, weights)
    errors += _order_errors(steps, performed, parts, kinds, shared, weights)
    errors += _team_errors(steps, performed, parts)
    errors += _object_errors(steps, performed, parts, weights)
    return Reading(tuple(performed), tuple(errors))


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


_DONE = re.compile(rf"\b({_PAST})\s+(?:up\s+|out\s+)?((?:[a-z][\w-]*\s*){{1,4}})", re.IGNORECASE)


def _unnamed_actions(steps: Sequence[RefStep], performed: Sequence[int | None], parts: Sequence[Clause],
                     weights: Mapping[str, float]) -> list[str]:
    """A step found only by the value its clause states (none of its action words there) where that clause says it
    did something else: a verb and an object no step of the reference names ("set up a guided remote session
    (dispatch DSP-1)" where the step schedules a technician visit)."""
    known = {w for step in steps for w in step.words}
    errors = []
    for step in steps:
        position = performed[step.index]
        if position is None or _share(step, content_stems(parts[position].text), weights) > 0:
            continue
        for found in _DONE.finditer(parts[position].text):
            verb, object_ = content_stems(found.group(1)), content_stems(found.group(2))
            if verb and not verb & known and object_ and not object_ & known:
                errors.append(f"another action than the reference's: {parts[position].text.strip()[:80]} ({step.action})")
                break
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
                    and _share(step, words, weights) == 0):
                errors.append(f"another action than the reference's: {part.text.strip()[:80]} ({step.action})")
                replaced.add(step.index)
    return errors, replaced


_SALUTATION = re.compile(r"^\s*(?:[-*\u2022]\s*)?(?:dear|hi|hello)\s+([A-Z][a-z]+)", re.IGNORECASE)


def _letter_to(candidate: str, live_fields: Mapping[str, str]) -> bool:
    """Whether the candidate is itself a message to the case's contact ("Dear Maja," with Maja in the live record, on
    one of its first three lines):
    it then performs the step of writing to the customer."""
    found = next((m for line in candidate.splitlines()[:3] if (m := _SALUTATION.match(line))), None)
    if found is None:
        return False
    return any(re.search(rf"\b{found.group(1)}\b", value) for value in live_fields)


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
                  kinds: Sequence[set[str]], shared: set[str], weights: Mapping[str, float]) -> list[str]:
    """Two steps told in the other order than the reference's: dependent steps (one uses what the other produced)
    however their clauses were found, any two steps when each clause states the result its step yields or is the
    one clause naming its action (ACTION_SHARE of its words, one of them its verb: ``_verbs``)."""
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
        if _before(parts[b], parts[a], chronological):
            errors.append(f"steps out of order: {steps[later].action} before {steps[earlier].action}")
    return errors


def _verbs(action: str) -> set[str]:
    """The stems of what a step's action does: its first word after a connective and a subject ("Then we verify"),
    and its participles ("get the credit approved")."""
    words = [w for w in re.findall(r"[A-Za-z]+", action) if w.lower() not in _STOP]
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
            team = _team(text)
            if team and not team & step.team:
                errors.append(f"handed to {' '.join(sorted(team))}, not {' '.join(sorted(step.team))}")
    return errors
