"""Words of procedural prose as a judge compares them: crude stems, a small synonym table, team names, past tenses."""

from __future__ import annotations

import functools
import re

STOP = frozenset("""a an the and or but to of on in for with by from at as into onto is are was were be been being
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
              "diag": ("diagnostic",), "diags": ("diagnostics",), "sla": ("service", "level"),
              "rma": ("return", "authorisation")}
_ROLE = (r"(?:team|(?:help ?)?desk|manager|representative|rep|specialist|engineer|supervisor|lead|department|group|controller"
         r"|officer|director|analyst|administrator|coordinator)s?")
#: A role's head noun, the words before it, and the role nouns it follows ("team lead": a lead of the team).
_TEAM = re.compile(rf"\b((?:[\w-]+ ){{0,3}}?)((?:{_ROLE}\s+)*){_ROLE}\b", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z0-9])|\n+")
PAST = r"(?:\w+ed|sent|ran|got|took|taken|gave|given|made|shipped|put|set|did|done|told|wrote|went|came|began|brought)"
_WORD = re.compile(r"[a-z][a-z0-9'-]*")
_TIER = re.compile(r"\b(?:l|t|tier|level)[- ]?(\d)\b", re.IGNORECASE)


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
    return {stem(w) for w in words if w not in STOP and w not in labels and len(w) > 1}



def team_words(text: str) -> frozenset[str]:
    """The words that say which team or role a phrase names: those right before its head noun ("sales" manager).

    Tiers are read alike ("L2", "tier 2", "level-2"); other hyphenated words count by their parts.
    """
    found = _TEAM.search(_TIER.sub(r"level-\1", text))
    if not found:
        return frozenset()
    qualifiers: list[str] = found.group(2).lower().split()   # "team lead", "help desk team"
    for word in reversed(found.group(1).lower().split()):
        if word in STOP or word.endswith("ed"):
            break
        qualifiers += [word] if re.fullmatch(r"level-\d", word) else word.split("-")
    return frozenset(w for w in qualifiers if w)
