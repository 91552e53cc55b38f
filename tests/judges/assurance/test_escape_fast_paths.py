"""The escapers' printable-ASCII fast paths (issue 36) give what their per-character rules give.

Each of the three escapers (the renderer, the syntax checker, the disk audit) skips its per-character loop for
printable ASCII; a ``str`` that says it is not ASCII takes the loop, so the two are compared on the same text.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from judges.assurance import disk_audit, packet_syntax, render


class _PerCharacter(str):
    """Text whose ``isascii`` is False: each escaper walks it character by character."""

    def isascii(self) -> bool:
        return False


_PRINTABLE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60)
_SAMPLES = ["", " ", "  (x)", "f(a, (b))", "[TOOL CALL x]", "[MESSAGE 3] said: (ok)", ")(", "\\[x]", "label: 1"]


def test_fixed_examples_agree():
    for text in _SAMPLES:
        for flag in (False, True):
            assert packet_syntax._shown(text, "", "", flag) == packet_syntax._shown(_PerCharacter(text), "", "", flag)
            assert disk_audit._escaped(text, flag) == disk_audit._escaped(_PerCharacter(text), flag)


@settings(max_examples=300, deadline=None)
@given(_PRINTABLE, st.booleans())
def test_printable_ascii_fast_paths_equal_the_per_character_rules(text, flag):
    assert packet_syntax._shown(text, "", "", flag) == packet_syntax._shown(_PerCharacter(text), "", "", flag)
    assert disk_audit._escaped(text, flag) == disk_audit._escaped(_PerCharacter(text), flag)


def test_the_renderers_ascii_class_is_the_tables_ascii_part():
    for code in range(128):
        assert bool(render._EVERYWHERE_ASCII.search(chr(code))) == bool(render._EVERYWHERE.search(chr(code))), code
