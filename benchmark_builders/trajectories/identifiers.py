"""Strict identifiers and keys: a trajectory id, a message-index key and a JSON object each mean one thing.

A trajectory id is shown to people, names packets and files, and joins labels
to messages, so two ids that look alike or one that could name a path would
make two trajectories one (or one two). The documented charset:

- non-empty, at most 200 characters, in Unicode NFC;
- no whitespace or line break, no control, format (zero-width, bidi),
  private-use, unassigned or surrogate character, no default-ignorable;
- no path character (``/``, ``\\``), not ``.`` or ``..``;
- its letters (and other non-ASCII characters) from one script: ``Тraj-1``
  with a Cyrillic ``Т`` is refused; digits and ASCII punctuation go with any
  script.

A message-index key is an integer or its canonical decimal text (``"4"``, not
``"04"``, ``" 4"`` or ``"+4"``), so two keys never name one message. A JSON
object that repeats a key is refused rather than read as "the last one wins".
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

MAX_ID = 200
_CANONICAL_INDEX = re.compile(r"0|[1-9][0-9]*")
#: Default-ignorable code points that are not format characters (Cf), per Unicode's DerivedCoreProperties, and
#: characters that render blank (braille blank, the null notehead).
_IGNORABLE = {0x2800, 0x1D159, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10), *range(0x180B, 0x1810),
              *range(0xE0100, 0xE01F0)}
_SCRIPT_WORDS = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "HIRAGANA": "HAN", "KATAKANA": "HAN",   # Japanese mixes them
                 "HALFWIDTH": "HALFWIDTH", "FULLWIDTH": "FULLWIDTH"}


def _script(char: str) -> str:
    """A character's script, from its Unicode name's first word (ASCII letters: LATIN; digits and ASCII
    punctuation: '' -- any script)."""
    if char.isascii():
        return "LATIN" if char.isalpha() else ""
    if unicodedata.category(char) == "Nd":
        return ""
    word = unicodedata.name(char, "UNNAMED").split()[0]
    return _SCRIPT_WORDS.get(word, word)


def id_problem(value: str) -> str:
    """Why ``value`` is not an id of the documented charset (see the module docstring), or ''."""
    if not value:
        return "is empty"
    if len(value) > MAX_ID:
        return f"is longer than {MAX_ID} characters"
    if unicodedata.normalize("NFC", value) != value:
        return "is not in Unicode NFC"
    if value in (".", ".."):
        return "is a path component"
    for char in value:
        category = unicodedata.category(char)
        if char in "/\\":
            return f"holds a path character {char!r}"
        if category[0] in "CZ" or ord(char) in _IGNORABLE:
            return f"holds U+{ord(char):04X} ({unicodedata.name(char, category)}): whitespace, control, format " \
                   f"or invisible characters are not allowed"
    scripts = sorted({s for s in map(_script, value) if s})
    if len(scripts) > 1:
        return f"mixes scripts ({', '.join(scripts)}): one script per id"
    return ""


def disguising_character(char: str) -> bool:
    """Whether a printable character could disguise a token: it renders blank or is invisible (default-ignorable,
    U+2800 ...), or it is a bracket that is not ASCII or folds (NFKC) to one of ``[ ] ( )``."""
    if char.isascii():
        return False
    return ord(char) in _IGNORABLE or unicodedata.category(char) in ("Ps", "Pe") or \
        bool(set(unicodedata.normalize("NFKC", char)) & set("[]()"))


def index_key(key: Any) -> int | None:
    """A message index from a label key: a non-negative integer or its canonical decimal text; else None."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key if key >= 0 else None
    if isinstance(key, str) and _CANONICAL_INDEX.fullmatch(key):
        return int(key)
    return None
