"""Artifact text: jinja2 templates with several wordings, rendered in bulk after the event loop.

Each template in ``simulator/templates/`` defines one macro
``render(f, c, v, who)`` — facts, context, wording variant, author name —
and states the facts as a person would write them. ``render_all`` loads each
template once and calls its macro as a plain function for every draft of
that template, which costs a fraction of a template render per artifact.
"""

from __future__ import annotations

import os
from collections import ChainMap, defaultdict
from datetime import datetime
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Mapping

import jinja2

from simulator.ledger import Draft
from simulator.model import ArtifactVersion, new_artifact_version
from simulator.prose import CITED, COMPOSERS, Speaker
from simulator.prose.domain import DEFAULT_WORDS
from simulator.prose.phrases import (
    ACTOR_FACTS, FACT_ORDER, _report, label, _say, _worded, fact_keys, put_in_force, restore,
)
from simulator.wording import DEFAULT_WORDING, Wording, grammars


@jinja2.pass_context
def _person(context: Any, actor_id: Any) -> str:
    """An actor id as the person's name (names come from the render context)."""
    if not actor_id:
        return ""
    return context.get("names", {}).get(actor_id, actor_id)


@jinja2.pass_context
def _phrases(context: Any, facts: Mapping[str, Any], variant: int, skip: Iterable[str] = ()) -> list[str]:
    """Every fact of ``facts`` (minus ``skip``) as a phrase, people named rather than numbered."""
    return _worded(context.get("names", {}), facts, variant, skip, _say)


@jinja2.pass_context
def _reports(context: Any, facts: Mapping[str, Any], variant: int, skip: Iterable[str] = ()) -> list[str]:
    """Like ``phrases``, worded as someone repeating what they heard (``REPORT_PHRASES``), not doing it."""
    return _worded(context.get("names", {}), facts, variant, skip, _report)


def phrase_tables(facts: Mapping[str, tuple[str, str, str]], reports: Mapping[str, tuple[str, str, str]],
                  words: Mapping[str, str]) -> tuple:
    """Put a pack's fact wordings (over the defaults) and template words in force; returns what was."""
    env = environment()
    before = (put_in_force(facts, reports, words), env.globals["words"])
    env.globals["words"] = dict(words)
    return before


def restore_phrase_tables(before: tuple) -> None:
    """Undo ``phrase_tables``."""
    phrases_before, environment().globals["words"] = before
    restore(phrases_before)


@contextmanager
def speaking(wording: Wording | None) -> Iterator[None]:
    """Render with ``wording`` in force (phrase tables, grammar pools and words, template words), then restore."""
    if wording is None or wording == DEFAULT_WORDING:
        yield
        return
    words = {**DEFAULT_WORDS, **wording.words}
    befores = [(g, g.overlay(wording.pools, words)) for g in grammars()]
    tables = phrase_tables(wording.facts, wording.reports, words)
    try:
        yield
    finally:
        restore_phrase_tables(tables)
        for grammar, before in befores:
            grammar.restore(before)


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
            undefined=jinja2.ChainableUndefined,
        )
        env.globals.update(say=_say, label=label, name=_person, order=FACT_ORDER, phrases=_phrases, reports=_reports,
                           keys_of=fact_keys, actor_facts=ACTOR_FACTS, words=dict(DEFAULT_WORDS))
        # templates use these as filters: jinja2 calls filters directly, without Context.call's checks
        env.filters.update(person=_person, phrases=_phrases, reports=_reports, label=label, keys_of=fact_keys)
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
        versions.append(new_artifact_version(d.artifact_id, d.version, d.subsystem, d.kind, moment(d.minute), d.author,
                                        d.entity, d.title, body, d.facts, d.acl))
        if consume:
            drafts[position] = None  # type: ignore[call-overload]  # its context is not needed any more
    if consume:
        drafts.clear()
    return versions
