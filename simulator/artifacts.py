"""Artifact text: jinja2 templates with several wordings, rendered in bulk after the event loop.

Each template in ``simulator/templates/`` defines one macro
``render(f, c, v, who)`` — facts, context, wording variant, author name —
and states the facts as a person would write them. ``render_all`` loads each
template once and calls its macro as a plain function for every draft of
that template, which costs a fraction of a template render per artifact.
"""

from __future__ import annotations

import os
import tomllib
from collections import ChainMap, defaultdict
from datetime import datetime
from importlib import resources
from typing import Any, Callable, Iterable, Mapping

import jinja2

from simulator.ledger import Draft
from simulator.model import ArtifactVersion
from simulator.prose import CITED, COMPOSERS, Speaker
from simulator.prose.domain import DEFAULT_WORDS


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


#: The phrase tables in force: the default ones, or a pack's wording over them (``simulator.wording.speaking``).
_SAYING: Mapping[str, tuple[str, str, str]] = FACT_PHRASES
_REPORTING: Mapping[str, tuple[str, str, str]] = REPORT_PHRASES


def phrase_tables(facts: Mapping[str, tuple[str, str, str]], reports: Mapping[str, tuple[str, str, str]],
                  words: Mapping[str, str]) -> tuple:
    """Put a pack's fact wordings (over the defaults) and template words in force; returns what was."""
    global _SAYING, _REPORTING, _LABEL_WORDS
    env = environment()
    before = (_SAYING, _REPORTING, _LABEL_WORDS, env.globals["words"])
    _SAYING, _REPORTING = {**FACT_PHRASES, **facts}, {**REPORT_PHRASES, **reports}
    _LABEL_WORDS = {part: words[name].replace(" ", "_") for part, name in _NAME_WORDS.items() if words[name] != part}
    env.globals["words"] = dict(words)
    return before


def restore_phrase_tables(before: tuple) -> None:
    """Undo ``phrase_tables``."""
    global _SAYING, _REPORTING, _LABEL_WORDS
    _SAYING, _REPORTING, _LABEL_WORDS, environment().globals["words"] = before


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


def _label(key: str) -> str:
    if _LABEL_WORDS:
        key = "_".join(_LABEL_WORDS.get(part, part) for part in key.split("_"))
    return key.replace("_", " ").capitalize()


@jinja2.pass_context
def _person(context: Any, actor_id: Any) -> str:
    """An actor id as the person's name (names come from the render context)."""
    if not actor_id:
        return ""
    return context.get("names", {}).get(actor_id, actor_id)


def fact_keys(facts: Mapping[str, Any], skip: Iterable[str] = ()) -> list[str]:
    """The keys of ``facts`` in speaking order (known facts first, then the rest sorted), minus ``skip``."""
    skipped = set(skip)
    known = sorted((k for k in facts if k in _RANK and k not in skipped), key=_RANK.__getitem__)
    rest = sorted(k for k in facts if k not in _RANK and k not in skipped)
    return known + rest


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


@jinja2.pass_context
def _phrases(context: Any, facts: Mapping[str, Any], variant: int, skip: Iterable[str] = ()) -> list[str]:
    """Every fact of ``facts`` (minus ``skip``) as a phrase, people named rather than numbered."""
    return _worded(context.get("names", {}), facts, variant, skip, _say)


@jinja2.pass_context
def _reports(context: Any, facts: Mapping[str, Any], variant: int, skip: Iterable[str] = ()) -> list[str]:
    """Like ``phrases``, worded as someone repeating what they heard (``REPORT_PHRASES``), not doing it."""
    return _worded(context.get("names", {}), facts, variant, skip, _report)


_ENVIRONMENT: jinja2.Environment | None = None
#: Attribute names a plain dict has (``f.items`` is the method, as in jinja2); other names look up keys.
_DICT_ATTRIBUTES = frozenset(dir(dict))
_ABSENT = object()


class _Environment(jinja2.Environment):
    """jinja2's environment with a fast path for ``facts.key`` on plain dicts (same result, no exception)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute``: for a dict, its key (unless dict itself has that attribute); else as jinja2 does."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            value = obj.get(attribute, _ABSENT)
            return self.undefined(obj=obj, name=attribute) if value is _ABSENT else value
        return super().getattr(obj, attribute)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """jinja2's per-user cache of compiled templates (checked against each template's source), if usable.

    Compiling the templates costs more than a tenth of a second per process; the cache only holds
    compiled code, so the rendered text is the same with or without it. ``ORGBENCH_NO_TEMPLATE_CACHE=1``
    turns it off.
    """
    if os.environ.get("ORGBENCH_NO_TEMPLATE_CACHE"):
        return None
    try:
        return _QuietBytecodeCache()  # a private folder under the system temp dir
    except (OSError, RuntimeError):
        return None


class _QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
    """jinja2's file cache of compiled templates, where a cache that cannot be read or written is just a miss."""

    def load_bytecode(self, bucket: Any) -> None:
        """Load the compiled template if the cache has it (a read error: compile afresh)."""
        try:
            super().load_bytecode(bucket)
        except OSError:
            bucket.reset()

    def dump_bytecode(self, bucket: Any) -> None:
        """Store the compiled template (a full disk or lost folder: keep going without it)."""
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def environment() -> jinja2.Environment:
    """The jinja2 environment with the helpers templates use (``say``, ``label``, ``name``), built once."""
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        env = _Environment(
            loader=jinja2.PackageLoader("simulator", "templates"),
            bytecode_cache=_bytecode_cache(),
            autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
            undefined=jinja2.ChainableUndefined, extensions=["jinja2.ext.do"],
        )
        env.globals.update(say=_say, label=_label, name=_person, order=FACT_ORDER, phrases=_phrases, reports=_reports,
                           keys_of=fact_keys, actor_facts=ACTOR_FACTS, words=dict(DEFAULT_WORDS))
        # templates use these as filters: jinja2 calls filters directly, without Context.call's checks
        env.filters.update(person=_person, phrases=_phrases, reports=_reports, label=_label, keys_of=fact_keys)
        env.filters["sentence"] = lambda text: str(text)[:1].upper() + str(text)[1:]
        _ENVIRONMENT = env
    return _ENVIRONMENT


def _macro(template: str, names: Mapping[str, str]) -> Callable[..., str]:
    """The template's ``render`` macro as a plain function, bound to a context holding ``names``."""
    macro = getattr(environment().get_template(template + ".j2").make_module(vars={"names": names}), "render")
    func = getattr(macro, "_func", None)
    if func is None or getattr(macro, "catch_kwargs", False) or getattr(macro, "caller", False):
        return macro  # another jinja2 release: call the macro the public way
    return func


def render_bodies(template: str, drafts: list[Draft], names: Mapping[str, str],
                  cast: Mapping[str, Speaker] | None = None, records: Mapping[str, list[Draft]] | None = None
                  ) -> list[str]:
    """Render every draft of one template: a prose composer if there is one, else the template's macro."""
    composer = COMPOSERS.get(template)
    if composer is not None:
        people = cast if cast is not None else {a: Speaker(n, "", "", "") for a, n in names.items()}
        return [composer(d, people, names, records or {}) for d in drafts]
    render = _macro(template, names)
    get = names.get
    return [str(render(d.facts, d.context, d.variant % 3, get(d.author, d.author) if d.author else "")).strip()
            for d in drafts]


def render_all(drafts: Iterable[Draft], names: Mapping[str, str],
               moment: Callable[[float], datetime], cast: Mapping[str, Speaker] | None = None,
               consume: bool = False, earlier: dict[str, list[Draft]] | None = None) -> list[ArtifactVersion]:
    """Render every draft into an ArtifactVersion, keeping the drafts' order; ``moment`` dates a minute.

    ``cast`` (who each person is: team, role, title) lets the prose composers write in each person's voice.
    With ``consume``, ``drafts`` must be a list, and it is emptied as its versions are built (a lower peak).
    ``earlier`` (a world rendered in chunks, oldest first): what composers can still cite of the chunks
    already rendered (``CITED``); it is read, and updated in place with this chunk's citable drafts.
    """
    if not consume or not isinstance(drafts, list):
        drafts = list(drafts)
    groups: dict[str, list[int]] = defaultdict(list)  # template → positions of its drafts
    records: dict[str, list[Draft]] = {}  # a plain dict: a lookup through the ChainMap below must not add keys
    for position, draft in enumerate(drafts):
        groups[draft.template].append(position)
        if draft.template in CITED:
            records.setdefault(draft.artifact_id, []).append(draft)
    cited: Mapping[str, list[Draft]] = records
    if earlier is not None:
        for artifact_id, history in records.items():
            history[:0] = earlier.get(artifact_id, ())
        cited = ChainMap(records, earlier)  # an incident of an earlier chunk, cited by this chunk's postmortem
    bodies: list[str] = [""] * len(drafts)  # by position: a list, not a dict keyed by id, to keep the peak low
    for template in sorted(groups):
        positions = groups[template]
        rendered = render_bodies(template, [drafts[i] for i in positions], names, cast, cited)
        for position, body in zip(positions, rendered):
            bodies[position] = body
    if earlier is not None:
        for artifact_id, history in records.items():
            earlier[artifact_id] = CITED[history[-1].template](history)
    del records, groups, cited
    versions = []
    for position, body in enumerate(bodies):
        d = drafts[position]
        versions.append(ArtifactVersion(d.artifact_id, d.version, d.subsystem, d.kind, moment(d.minute), d.author,
                                        d.entity, d.title, body, d.facts, d.acl))
        if consume:
            drafts[position] = None  # type: ignore[call-overload]  # its context is not needed any more
    if consume:
        drafts.clear()
    return versions
