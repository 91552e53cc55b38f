"""Generate ``escape_table.json``: the characters packet format 2 escapes everywhere, from a pinned Unicode version.

Run ``python -m judges.assurance.make_escape_table`` under a Python whose
``unicodedata`` is Unicode 14.0.0 (CPython 3.11); it refuses any
other version, so the committed table -- not the running Python -- decides
what a packet shows, and packets stay byte-identical across Python versions.
The classes, each escaped wherever it appears in content or arguments:

- controls (Cc) but LF, format characters (Cf: zero-width, bidi controls,
  ...), surrogates (Cs), private use (Co), unassigned (Cn), line and
  paragraph separators (Zl, Zp);
- default-ignorable code points that are not Cf (Unicode's
  Other_Default_Ignorable_Code_Point and Variation_Selector, copied from
  PropList.txt 14.0.0 below) and characters that render blank (U+2800 BRAILLE
  PATTERN BLANK, U+1D159 MUSICAL SYMBOL NULL NOTEHEAD);
- brackets that are not ASCII (Ps, Pe) and any character whose NFKC form holds
  a packet structure character (``[ ] ( ) \\``): lookalikes such as
  U+3014 or a fullwidth bracket;
- the escape brackets themselves, U+27E6 and U+27E7.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

UNICODE_VERSION = "14.0.0"
PACKET_FORMAT = 2
TABLE = Path(__file__).with_name("escape_table.json")

#: PropList.txt 14.0.0: Other_Default_Ignorable_Code_Point and Variation_Selector.
OTHER_DEFAULT_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x2065, 0x2065), (0x3164, 0x3164),
                           (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0000), (0xE0002, 0xE001F),
                           (0xE0080, 0xE00FF), (0xE01F0, 0xE0FFF))
VARIATION_SELECTORS = ((0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
RENDERS_BLANK = ((0x2800, 0x2800), (0x1D159, 0x1D159))
STRUCTURE = set("[]()\\")


def escaped_everywhere(code: int) -> bool:
    """Whether packet format 2 escapes this code point wherever it appears (see the module docstring)."""
    char = chr(code)
    category = unicodedata.category(char)
    if code == 0x0A:
        return False
    if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return True
    if any(lo <= code <= hi for lo, hi in (*OTHER_DEFAULT_IGNORABLE, *VARIATION_SELECTORS, *RENDERS_BLANK)):
        return True
    if code >= 0x80 and (category in ("Ps", "Pe") or STRUCTURE & set(unicodedata.normalize("NFKC", char))):
        return True
    return code in (0x27E6, 0x27E7)


def ranges() -> list[list[int]]:
    """The escaped code points as sorted, merged [first, last] ranges."""
    out: list[list[int]] = []
    for code in range(0x110000):
        if escaped_everywhere(code):
            if out and out[-1][1] == code - 1:
                out[-1][1] = code
            else:
                out.append([code, code])
    return out


def table() -> dict:
    """The table as committed."""
    return {"packet_format": PACKET_FORMAT, "unicode": UNICODE_VERSION,
            "generated_by": "python -m judges.assurance.make_escape_table", "escape_everywhere": ranges()}


def main() -> None:
    if unicodedata.unidata_version != UNICODE_VERSION:
        sys.exit(f"this Python's unicodedata is Unicode {unicodedata.unidata_version}; the table is pinned to "
                 f"{UNICODE_VERSION} (use CPython 3.11)")
    TABLE.write_text(json.dumps(table(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{TABLE}: {len(table()['escape_everywhere'])} ranges, Unicode {UNICODE_VERSION}")


if __name__ == "__main__":
    main()
