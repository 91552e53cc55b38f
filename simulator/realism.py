"""How varied a world's prose is: repeated bodies, English vocabulary, repeated skeletons, cross-seed overlap.

These are the figures issue 13 names. A *skeleton* is a body with its dates,
e-mail addresses, ids, person names and numbers masked, so two messages that
differ only in those have the same skeleton. English words are lower-case
alphabetic tokens of three or more letters that are not part of a person's
name and that ``wordfreq``'s English list knows (so typos and identifiers do
not count).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from simulator.model import ArtifactVersion
from simulator.world import World

#: Prose kinds the issue measures: label → (subsystem, kinds or None for every kind of that subsystem).
PROSE_KINDS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "chat": ("chat", ("chat_message",)),
    "DM": ("chat", ("direct_message",)),
    "email": ("email", None),
    "ticket comment": ("ticketing", ("ticket_comment",)),
    "meeting notes": ("meetings", ("meeting_notes",)),
    "postmortem": ("postmortems", ("postmortem",)),
    "wiki": ("wiki", None),
}
TOP_CHAT = 25
#: A word counts as English vocabulary from this many letters on.
MIN_WORD_LETTERS = 3

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ID = re.compile(r"\b[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)+\b|\b[A-Z]+\d[A-Z0-9]*\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_LETTERS = re.compile(r"[a-z]+")
_NAME_PART = re.compile(r"[A-Za-z][A-Za-z'-]*")


def name_parts(world: World) -> frozenset[str]:
    """Every part of every person's name in the world (staff and customer contacts), lower-cased."""
    names = [a.name for a in world.actors]
    names += [str(v.facts["contact_name"]) for v in world.artifacts if v.facts.get("contact_name")]
    return frozenset(part.lower() for name in names for part in _NAME_PART.findall(name))


def skeleton(body: str, names: frozenset[str]) -> str:
    """``body`` with dates, e-mail addresses, ids, person names and numbers masked."""
    text = _EMAIL.sub("<EMAIL>", _DATE.sub("<DATE>", body))
    text = _ID.sub("<ID>", text)
    text = _NAME_PART.sub(lambda m: "<NAME>" if m.group().lower() in names else m.group(), text)
    return _NUMBER.sub("<N>", text)


def english_words(bodies: Iterable[str], names: frozenset[str]) -> set[str]:
    """Distinct lower-case alphabetic tokens of 3+ letters, not name parts, that wordfreq's English list knows."""
    from wordfreq import zipf_frequency

    tokens: set[str] = set()
    for body in bodies:
        tokens.update(_LETTERS.findall(body.lower()))
    return {t for t in tokens if len(t) >= MIN_WORD_LETTERS and t not in names and zipf_frequency(t, "en") > 0}


def repeat_share(items: Iterable[str]) -> tuple[float, int]:
    """Share of ``items`` equal to an earlier item, and how many items there were."""
    seen: set[str] = set()
    repeats = total = 0
    for item in items:
        total += 1
        if item in seen:
            repeats += 1
        else:
            seen.add(item)
    return (repeats / total if total else 0.0), total


def prose_versions(world: World, label: str) -> list[ArtifactVersion]:
    """The versions of one prose kind (see ``PROSE_KINDS``), in the world's order."""
    subsystem, kinds = PROSE_KINDS[label]
    return [v for v in world.artifacts if v.subsystem == subsystem and (kinds is None or v.kind in kinds)]


@dataclass(frozen=True)
class Realism:
    """The realism figures of one world (and, if given, of a second seed's world against it)."""

    versions: int
    body_repeat_share: float
    english_words: int
    skeleton_repeat_share: Mapping[str, tuple[float, int]]
    top_chat_share: float
    chat_messages: int
    second_seed: int | None = None
    second_bodies_identical_share: float | None = None
    second_skeletons_found_share: float | None = None

    def as_dict(self) -> dict:
        """The figures as plain JSON-ready values (shares rounded to four places)."""
        out = {"versions": self.versions, "body_repeat_share": round(self.body_repeat_share, 4),
               "english_words": self.english_words,
               "skeleton_repeat_share": {k: round(s, 4) for k, (s, _) in self.skeleton_repeat_share.items()},
               "prose_versions": {k: n for k, (_, n) in self.skeleton_repeat_share.items()},
               "top25_chat_share": round(self.top_chat_share, 4), "chat_messages": self.chat_messages}
        if self.second_seed is not None:
            out["second_seed"] = {"seed": self.second_seed,
                                  "bodies_identical_share": round(self.second_bodies_identical_share or 0.0, 4),
                                  "skeletons_found_share": round(self.second_skeletons_found_share or 0.0, 4)}
        return out


def measure(world: World, second: World | None = None) -> Realism:
    """The realism figures of ``world``; with ``second`` (another seed), also its overlap with ``world``."""
    names = name_parts(world)
    bodies = [v.body for v in world.artifacts]
    shares = {label: repeat_share(skeleton(v.body, names) for v in prose_versions(world, label))
              for label in PROSE_KINDS}
    chat = Counter(v.body for v in world.artifacts if v.subsystem == "chat")
    chat_total = sum(chat.values())
    top = sum(n for _, n in chat.most_common(TOP_CHAT))
    figures: dict[str, Any] = dict(versions=len(bodies), body_repeat_share=repeat_share(bodies)[0],
                   english_words=len(english_words(bodies, names)), skeleton_repeat_share=shares,
                   top_chat_share=top / chat_total if chat_total else 0.0, chat_messages=chat_total)
    if second is not None:
        first_bodies = set(bodies)
        other_names = names | name_parts(second)
        first_skeletons = {skeleton(b, other_names) for b in first_bodies}
        theirs = [v.body for v in second.artifacts]
        figures.update(second_seed=second.seed,
                       second_bodies_identical_share=sum(b in first_bodies for b in theirs) / max(1, len(theirs)),
                       second_skeletons_found_share=sum(skeleton(b, other_names) in first_skeletons
                                                        for b in theirs) / max(1, len(theirs)))
    return Realism(**figures)


def report(realism: Realism, directory: str) -> str:
    """The text ``orgbench inspect --realism`` prints."""
    r = realism
    lines = [f"realism of {directory}: {r.versions:,} artifact versions",
             f"  versions whose body repeats an earlier one: {r.body_repeat_share:.1%}",
             f"  distinct English words (3+ letters, names removed, known to wordfreq): {r.english_words:,}",
             f"  the {TOP_CHAT} most common chat messages cover {r.top_chat_share:.1%} of {r.chat_messages:,}",
             "  versions whose skeleton (ids, names, numbers, dates masked) repeats an earlier one:"]
    width = max(len(k) for k in r.skeleton_repeat_share)
    for label, (share, count) in r.skeleton_repeat_share.items():
        lines.append(f"    {label:<{width}}  {share:6.1%} of {count:,}")
    if r.second_seed is not None:
        lines.append(f"  seed {r.second_seed}: bodies byte-identical to one of this world's: "
                     f"{r.second_bodies_identical_share:.1%}; skeletons found in this world: "
                     f"{r.second_skeletons_found_share:.1%}")
    else:
        lines.append("  second seed: not measured (pass --against WORLD, a world of another seed)")
    return "\n".join(lines)
