"""A pack's wording: how its people name the product and its facts, and what they chat about at work.

Facts come from the engine; wording only decides how text states them. A
pack's ``[wording]`` table (``simulator.packs``) may give, each optional:

- ``words``: the domain words rules and templates use (``simulator.prose.domain``:
  ``unit``, ``serial``, ``coverage``, ``software``);
- ``facts`` / ``reports``: three wordings of a fact, as the person who did the
  work states it and as someone repeating it (``simulator.prose.phrases``);
- ``pools``: grammar pools written in the pack's domain instead of the
  default ones of that name (e.g. ``support_thing``, ``component``, ``tip``);
- ``domain_words``: words only this pack's domain uses (a world of another
  pack should never say them; tests check that).

``simulator.artifacts.speaking(wording)`` puts a wording in force while a world's text is
rendered and restores the default afterwards; the default pack's wording is
empty, so its worlds are written exactly as without one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from simulator.prose.domain import DEFAULT_WORDS


@dataclass(frozen=True)
class Wording:
    """One pack's wording table (every part optional; empty means the default pack's wording)."""

    words: Mapping[str, str] = field(default_factory=dict)
    facts: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    reports: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    domain_words: tuple[str, ...] = ()

    def __hash__(self) -> int:
        return hash(repr(self))

    def word(self, name: str) -> str:
        """The pack's word for ``name`` (``simulator.prose.domain.DEFAULT_WORDS`` keys)."""
        return self.words.get(name, DEFAULT_WORDS[name])


DEFAULT_WORDING = Wording()


def grammars() -> tuple:
    """Every grammar whose pools a pack may replace (chatter and mail, handbook pages)."""
    from simulator.prose.handbook import HANDBOOK
    from simulator.prose.voice import GRAMMAR

    return (GRAMMAR, HANDBOOK)


def pool_names() -> frozenset[str]:
    """The names of the pools a pack's ``[wording.pools]`` may replace."""
    return frozenset(name for grammar in grammars() for name in grammar.pools)
