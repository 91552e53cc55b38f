"""How people state facts: three wordings of each, as the person who did the work and as someone repeating it.

The default tables are ``simulator/templates/phrases.toml``; a pack's wording puts its own over them while
its world is rendered (``simulator.artifacts.speaking``). The templates and the prose composers word facts here.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any, Callable, Iterable, Mapping


def _read_phrase_tables() -> tuple[dict[str, tuple[str, str, str]], dict[str, tuple[str, str, str]]]:
    """The default phrase tables, read once from ``templates/phrases.toml`` and checked as a pack's wording is."""
    from simulator.packs.checks import Fields
    from simulator.packs.wording import phrase_table

    text = resources.files("simulator").joinpath("templates", "phrases.toml").read_text(encoding="utf-8")
    f = Fields("simulator/templates/phrases.toml")
    table = f.check_table(tomllib.loads(text), "phrases", ("facts", "reports"))
    return phrase_table(f, table.get("facts"), "facts"), phrase_table(f, table.get("reports"), "reports")


#: How people state each fact, in three wordings (``{v}`` is the value), and how someone who did not do the work
#: reports a fact they heard (facts not named there are reported in their ``FACT_PHRASES`` wording).
FACT_PHRASES, REPORT_PHRASES = _read_phrase_tables()
FACT_ORDER = tuple(FACT_PHRASES)
_RANK = {key: rank for rank, key in enumerate(FACT_ORDER)}
#: Facts whose values are actor ids; bodies show the person's name.
ACTOR_FACTS = frozenset({"approver", "escalated_to", "actor_id", "on_call", "author", "sales_owner", "deployed_by",
                         "reviewer", "manager"})


#: The phrase tables in force: the default ones, or a pack's wording over them (``put_in_force``).
_SAYING: Mapping[str, tuple[str, str, str]] = FACT_PHRASES
_REPORTING: Mapping[str, tuple[str, str, str]] = REPORT_PHRASES


def _say(key: str, value: Any, variant: int = 0) -> str:
    phrases = _SAYING.get(key)
    if phrases is None:
        return f"{key.replace('_', ' ')}: {value}"
    return phrases[variant % 3].format(v=value)


def _report(key: str, value: Any, variant: int = 0) -> str:
    phrases = _REPORTING.get(key)
    return _say(key, value, variant) if phrases is None else phrases[variant % 3].format(v=value)


#: Words of fact names that a pack's wording renames in labels (``firmware_version`` → "Software version").
_LABEL_WORDS: Mapping[str, str] = {}
_NAME_WORDS = {"firmware": "software", "warranty": "coverage", "serial": "serial"}


#: Labels worded under the ``_LABEL_WORDS`` in force (emptied whenever they change)
_LABELS: dict[str, str] = {}


def label(key: str) -> str:
    """A fact name as a field label (``case_status`` → "Case status"), in the pack's words."""
    found = _LABELS.get(key)
    if found is None:
        worded = "_".join(_LABEL_WORDS.get(part, part) for part in key.split("_")) if _LABEL_WORDS else key
        found = _LABELS[key] = worded.replace("_", " ").capitalize()
    return found


#: (the facts' keys, the keys skipped) → the keys in speaking order: records of a kind share their keys.
_ORDERS: dict[tuple[tuple[str, ...], Any], list[str]] = {}


def fact_keys(facts: Mapping[str, Any], skip: Iterable[str] = ()) -> list[str]:
    """The keys of ``facts`` in speaking order (known facts first, then the rest sorted), minus ``skip``."""
    shape = (tuple(facts), skip if isinstance(skip, (tuple, frozenset)) else frozenset(skip))
    found = _ORDERS.get(shape)
    if found is None:
        skipped = set(skip)
        known = sorted((k for k in facts if k in _RANK and k not in skipped), key=_RANK.__getitem__)
        rest = sorted(k for k in facts if k not in _RANK and k not in skipped)
        found = _ORDERS[shape] = known + rest
    return list(found)


def _worded(names: Mapping[str, str], facts: Mapping[str, Any], variant: int, skip: Iterable[str],
            say: Callable[[str, Any, int], str]) -> list[str]:
    out = []
    for key in fact_keys(facts, skip):
        value = facts[key]
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(names.get(v, v)) if key in ACTOR_FACTS else str(v) for v in value)
        elif key in ACTOR_FACTS:
            value = names.get(value, value)
        out.append(say(key, value, variant))
    return out


def report_phrases(facts: Mapping[str, Any], variant: int, skip: Iterable[str], names: Mapping[str, str]) -> list[str]:
    """Every fact of ``facts`` (minus ``skip``) worded as a report, for the prose composers."""
    return _worded(names, facts, variant, skip, _report)


def fact_phrases(facts: Mapping[str, Any], variant: int, skip: Iterable[str], names: Mapping[str, str]) -> list[str]:
    """Every fact of ``facts`` (minus ``skip``) worded by the person who did the work, for the composers."""
    return _worded(names, facts, variant, skip, _say)


def put_in_force(facts: Mapping[str, tuple[str, str, str]], reports: Mapping[str, tuple[str, str, str]],
                 words: Mapping[str, str]) -> tuple:
    """Put a pack's fact wordings (over the defaults) and its words for fact names in force; returns what was."""
    global _SAYING, _REPORTING, _LABEL_WORDS
    before = (_SAYING, _REPORTING, _LABEL_WORDS)
    _SAYING, _REPORTING = {**FACT_PHRASES, **facts}, {**REPORT_PHRASES, **reports}
    _LABEL_WORDS = {part: words[name].replace(" ", "_") for part, name in _NAME_WORDS.items() if words[name] != part}
    _LABELS.clear()
    return before


def restore(before: tuple) -> None:
    """Undo ``put_in_force``."""
    global _SAYING, _REPORTING, _LABEL_WORDS
    _SAYING, _REPORTING, _LABEL_WORDS = before
    _LABELS.clear()
