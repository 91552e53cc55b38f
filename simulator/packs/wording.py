"""The ``[wording]`` table of a domain pack, checked: words, fact wordings, grammar pools, domain words."""

from __future__ import annotations

from typing import Any

from simulator.packs.checks import Fields
from simulator.prose.domain import DEFAULT_WORDS
from simulator.prose.grammar import compile_rule
from simulator.prose.life import _p
from simulator.wording import DEFAULT_WORDING, Wording

KEYS = ("words", "facts", "reports", "pools", "domain_words")


def phrase_table(f: Fields, table: Any, where: str) -> dict[str, tuple[str, str, str]]:
    """fact → three wordings, each naming the value once as ``{v}`` (a pack's, or the default tables)."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise f.fail(where, "must be a table of fact = [three wordings]")
    out = {}
    for fact, wordings in table.items():
        phrases = f.texts(table, where, fact)
        if len(phrases) != 3 or not all(p.count("{v}") == 1 for p in phrases):
            raise f.fail(f"{where}.{fact}", "needs exactly three wordings, each with {v} once")
        out[fact] = (phrases[0], phrases[1], phrases[2])
    return out


def _pools(f: Fields, table: Any, where: str) -> dict[str, tuple[str, ...]]:
    """pool name → its rules (a string holds rules separated by ``|`` outside brackets), each a grammar rule
    that compiles and names only known pools."""
    from simulator.wording import pool_names

    if table is None:
        return {}
    if not isinstance(table, dict):
        raise f.fail(where, "must be a table of pool = [rules]")
    known = pool_names()
    out = {}
    for name in table:
        if name not in known:
            raise f.fail(f"{where}.{name}", "not a pool of the prose grammar (see docs/packs.md)")
        rules = tuple(rule for text in f.texts(table, where, name) for rule in _p(text))  # "a|b" is two rules
        for i, rule in enumerate(rules):
            try:
                parts = compile_rule(rule)
            except ValueError as error:
                raise f.fail(f"{where}.{name}[{i}]", str(error)) from None
            missing = sorted(_refs(parts) - known)
            if missing:
                raise f.fail(f"{where}.{name}[{i}]", f"names unknown pool {missing[0]!r}")
        out[name] = rules
    return out


def _refs(parts: tuple) -> set[str]:
    found: set[str] = set()
    for part in parts:
        if isinstance(part, tuple) and part and part[0] == "ref":
            found.add(part[1])
        elif isinstance(part, tuple) and part and part[0] == "alt":
            for choice in part[1]:
                if isinstance(choice, tuple):  # not plain text
                    found |= _refs(choice)
    return found


def parse_wording(f: Fields, raw: Any) -> Wording:
    """The pack's Wording (the default when the pack has no ``[wording]`` table)."""
    if raw is None:
        return DEFAULT_WORDING
    table = f.check_table(raw, "wording", KEYS)
    words = table.get("words", {})
    if not isinstance(words, dict):
        raise f.fail("wording.words", "must be a table of word = text")
    for name in words:
        if name not in DEFAULT_WORDS:
            raise f.fail(f"wording.words.{name}", f"unknown word (words are {', '.join(DEFAULT_WORDS)})")
        f.text(words, "wording.words", name)
    return Wording(words=dict(words), facts=phrase_table(f, table.get("facts"), "wording.facts"),
                   reports=phrase_table(f, table.get("reports"), "wording.reports"),
                   pools=_pools(f, table.get("pools"), "wording.pools"),
                   domain_words=f.texts(table, "wording", "domain_words", empty=True))
