"""Values and status words read from running text, the way any reader of a support record would.

A value is a token with a digit or an ``@`` (identifiers, dates, codes, amounts, emails), except a support
tier ("L2"); a status is a word of a small lexicon of mutually exclusive statuses, claimed of the field word
before it ("status ... closed", "contract level basic") or right after it ("a four hour contract").
"""

from __future__ import annotations

import re

#: Status words that exclude each other within one group (general support vocabulary).
STATUS_LEXICON: tuple[tuple[str, ...], ...] = (
    ("active", "expired", "inactive", "lapsed"),
    ("open", "in progress", "pending customer", "resolved", "closed"),
    ("basic", "next business day", "four hour"),
)
LEXICON_WORDS = {w: i for i, group in enumerate(STATUS_LEXICON) for w in group}
#: A status word that covers others of its group: a case in progress or pending the customer is still open.
COVERS = {"open": frozenset({"open", "in progress", "pending customer"})}
STOP = frozenset("""a an the and or but to of on in for with by from at as into onto is are was were be been
being it its this that these those we i our us you your they them he she his her their then next first finally
after also so up via per""".split())
STRIP = "()[]{}<>,;:!?\"'“”`"
_WORD = re.compile(r"[A-Za-z][A-Za-z']*(?:-[A-Za-z']+)*")
#: A support tier names a team, not a value ("L2", "level-1", "tier-2").
_TIER = re.compile(r"(?:l|t|tier|level)-?\d", re.IGNORECASE)
#: Words that name a field a status word can belong to.
FIELD_WORDS = {"status": "status", "state": "status", "entitlement": "entitlement", "contract": "contract", "level": "contract",
               "coverage": "entitlement", "warranty": "entitlement"}

#: The field whose values each lexicon group holds: "four hour" is a contract level whatever word stands near it.
GROUP_FIELD = {0: "entitlement", 1: "status", 2: "contract"}
FIELD_GROUP = {name: group for group, name in GROUP_FIELD.items()}

#: Words that make "case ... closed" a statement of the case's status, not of what was done ("was resolved").
_STATE_WORDS = frozenset("is now stands remains remain stays stay still shows showing set marked currently".split())
_FOUR_HOUR = re.compile(r"\b4[- ]?(?:h|hr|hour)\b", re.IGNORECASE)
_DURATION = re.compile(r"(?:second|minute|min|hour|hr|day|business day|week|month|year|am|pm|times?)s?")
_SHORT_DURATION = re.compile(r"\d+(?:h|hrs?|d|mins?|wk)", re.IGNORECASE)
_MONTHS = {m: n for n, names in enumerate(("jan january", "feb february", "mar march", "apr april", "may", "jun june",
                                            "jul july", "aug august", "sep sept september", "oct october",
                                            "nov november", "dec december"), 1) for m in names.split()}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)


_NUMERIC_DMY = re.compile(r"\b(\d{1,2})([./])(\d{1,2})\2(\d{4})\b")
_NUMERIC_YMD = re.compile(r"\b(\d{4})[./](\d{1,2})[./](\d{1,2})\b")
_DAY_MONTH_ONLY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b\.?", re.IGNORECASE)
_MONTH_DAY_ONLY = re.compile(rf"\b({_MONTH.replace('may|', '')})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![.:/]\d)",
                             re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)


def iso_dates(text: str) -> str:
    """The text with dates in other forms as ISO dates: written out ("3 March 2026", "March 3rd, 2026") or numeric
    ("03.03.2026", "3/3/2026" day first unless the day cannot be a month, "2026/03/03") as 2026-03-03; a date with
    no year ("3 March") as --03-03 and a month with no day ("March 2026") as 2026-03, which say less."""
    def iso(year: str, month: str | int, day: str) -> str:
        number = month if isinstance(month, int) else _MONTHS[month.lower()]
        return f"{year}-{number:02d}-{int(day):02d}"

    def numeric(m: re.Match[str]) -> str:
        first, second = int(m.group(1)), int(m.group(3))
        day, month = (second, first) if second > 12 >= first else (first, second)
        return iso(m.group(4), month, str(day)) if 1 <= month <= 12 and 1 <= day <= 31 else m.group(0)

    text = _DAY_MONTH.sub(lambda m: iso(m.group(3), m.group(2), m.group(1)), text)
    text = _MONTH_DAY.sub(lambda m: iso(m.group(3), m.group(1), m.group(2)), text)
    text = _NUMERIC_DMY.sub(numeric, text)
    text = _NUMERIC_YMD.sub(lambda m: iso(m.group(1), int(m.group(2)), m.group(3)), text)
    text = _MONTH_YEAR.sub(lambda m: f"{m.group(2)}-{_MONTHS[m.group(1).lower()]:02d}", text)
    text = _DAY_MONTH_ONLY.sub(lambda m: f"--{_MONTHS[m.group(2).lower()]:02d}-{int(m.group(1)):02d}", text)
    return _MONTH_DAY_ONLY.sub(lambda m: f"--{_MONTHS[m.group(1).lower()]:02d}-{int(m.group(2)):02d}", text)


#: An e-mail address in its whole shape: a local part, "@", a domain with a dot ("@Ola" is a mention, not a value).
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def values(text: str) -> list[str]:
    """Tokens that state a specific value: anything with a digit, or an e-mail address, but a tier or a duration.

    Dates in other forms are read as ISO dates (``iso_dates``); currency signs and codes, a version's "v", thousands
    separators, zero cents and a possessive "'s" dropped; an amount in thousands ("1.575k") written out.
    """
    out = []
    # "diagnostics=BAT-0x2E": a key and its value; "CASE-1/ACC-2": two identifiers
    # "contact_email,ann@x.example", "opened;2026-01-02": a key and its value (a comma not in "2,300")
    raws = re.sub(r"(?<=\w)/(?=[A-Za-z]+-?\d)|(?<=\w);(?=\w)|(?<=[A-Za-z_]),(?=\w)|(?<=\d),(?=\w)(?!\d{3}\b)", " ", iso_dates(text).replace("=", " ")).split()
    for index, raw in enumerate(raws):
        token = re.sub(r"['\u2019]s$", "", raw.strip(STRIP).rstrip(".").strip(STRIP)).strip(STRIP).lstrip("$€£")
        token = re.sub(r"(?<=\d),(?=\d{3}\b)", "", re.sub(r"^(?:[vV]|USD|EUR|GBP)(?=\d)", "", token))
        thousands = re.fullmatch(r"(\d+(?:\.\d{1,3})?)[kK]", token)   # "1.575k": an amount in thousands
        token = f"{round(float(thousands.group(1)) * 1000)}" if thousands else token
        token = re.sub(r"^(\d+)\.0{1,2}$", r"\1", token)   # "1250.00": an amount in whole units
        after = raws[index + 1].lower().strip(STRIP + ".") if index + 1 < len(raws) else ""
        if (token.isdigit() and _DURATION.fullmatch(after)) or _SHORT_DURATION.fullmatch(token):
            continue  # "within 10 minutes", "4h": a duration, not a field's value
        if token and (any(ch.isdigit() for ch in token) or _EMAIL.fullmatch(token)) and not _TIER.fullmatch(token):
            out.append(token)
    return out


def same_value(token: str) -> str:
    """The form two statements of one value share: case, hyphens and underscores aside ("dsp55012" is DSP-55012)."""
    return re.sub(r"[-_]", "", token.lower())


def value_shape(token: str) -> str:
    """What kind of value a token is, read from its form: an email, an identifier by its letters ("prefix:DSP"), else
    its pattern of digits and letters ("shape:9999-99-99" for a date, "shape:9.9.99" for a version)."""
    if "@" in token:
        return "email"
    prefix = re.match(r"^([A-Za-z]+)-|^([A-Za-z]+)(?=\d+$)", token)   # "DSP-55012"; "Q4" is no "P1"
    if prefix:
        return "prefix:" + (prefix.group(1) or prefix.group(2)).upper()
    return "shape:" + re.sub(r"[A-Za-z]", "a", re.sub(r"\d+", "9", token))


def status_group(text: str) -> set[int]:
    """The lexicon groups whose status words a text uses ("closed": the case-state group)."""
    low = " " + " ".join(words(text.replace("_", " "))) + " "
    return {group for word, group in LEXICON_WORDS.items() if f" {word} " in low}


def words(text: str) -> list[str]:
    """The words of a text, lower case (hyphenated words whole)."""
    return [w.lower() for w in _WORD.findall(text)]


_NEGATION = frozenset("not no nothing never none isn't wasn't nor".split())


def lexicon_form(text: str) -> str:
    """A text with the lexicon's short forms written out ("4h" as "four hour", "NBD" as "next business day")."""
    return _FOUR_HOUR.sub("four hour", re.sub(r"\bNBD\b", "next business day", text.replace("_", " ")))


def status_claims(text: str) -> list[tuple[str, str]]:
    """(field word, status) pairs: a lexicon status after a field word (within four words) or right before one.

    A known field word ("status", "contract") before it whose values are of the status's group wins ("case" with a
    word of state, as in "the case is closed", stands for the status), then one of that group right after it, then
    the field of the status's group when another field's word stands before it or the text named that field
    earlier, then the nearest word.
    """
    text = " ".join(t for t in lexicon_form(text).split() if not re.search(r"\d|@", t))  # a value is no field word
    tokens = words(" ".join(re.sub(r"(?<=[A-Za-z])-(?=[A-Za-z])", " ", text).split()))
    out = []
    for index, word in enumerate(tokens):
        for width in (3, 2, 1):
            phrase = " ".join(tokens[index:index + width])
            if phrase not in LEXICON_WORDS:
                continue
            if _NEGATION & set(tokens[max(0, index - 3):index]):
                continue   # "nothing left open", "not closed yet": no status is claimed
            back = [w for w in tokens[max(0, index - 4):index] if w not in STOP]
            after = tokens[index + width:index + width + 1]
            known = [FIELD_WORDS[w] for w in back if w in FIELD_WORDS
                     and FIELD_GROUP.get(FIELD_WORDS[w], LEXICON_WORDS[phrase]) == LEXICON_WORDS[phrase]]
            if not known and "case" in back and _STATE_WORDS & set(back):
                known = ["status"]  # "the case is now closed", "case set to resolved": its status
            group = LEXICON_WORDS[phrase]
            named = {FIELD_WORDS[w] for w in tokens[:index] if w in FIELD_WORDS}
            if known:
                out.append((known[-1], phrase))
            elif after and after[0] in ("contract", "entitlement", "coverage") and FIELD_GROUP[FIELD_WORDS[after[0]]] == group:
                out.append((FIELD_WORDS[after[0]], phrase))
            elif any(w in FIELD_WORDS for w in back) or GROUP_FIELD[group] in named:
                # "entitlement check (four hour", "the entitlement of X is including data recovery, it is active":
                # the field its group names
                out.append((GROUP_FIELD[group], phrase))
            elif back and index > 0:
                out.append((back[-1], phrase))
            break
    return out
