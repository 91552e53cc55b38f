"""A small seeded grammar: text with ``[a|b|c]`` alternatives and ``{pool}`` references, expanded by one RNG.

Rules are parsed once into nested tuples (a choice or pool rule that is
plain text is kept as that text); expanding one costs a few microseconds. ``{pool}`` picks one rule of that pool (itself expanded), so
pools compose; ``[a|b|]`` may choose nothing; ``{=word}`` is a domain word of
the pack being written (``simulator.wording``), drawn from nothing. Slots filled by the caller
(facts, names) are plain ``str.format`` fields written ``<<name>>`` so that
they never collide with pool names.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence

class Rng(Protocol):
    """What the grammar draws from: ``random.Random`` or ``Dice``."""

    def random(self) -> float:
        """The next draw in [0, 1)."""


#: Render-time view of the run's records: artifact id → its drafts in order (for documents that cite others).
Records = Mapping[str, Sequence[Any]]


def _parse(text: str, at: int = 0, inside: bool = False) -> tuple[Any, int]:
    """Parse ``text`` from ``at`` into a list of parts: literals, ("alt", [choices]) and ("ref", name)."""
    parts: list = []
    choices: list = []
    buffer: list[str] = []
    while at < len(text):
        char = text[at]
        if char == "[":
            if buffer:
                parts.append("".join(buffer))
                buffer = []
            sub, at = _parse(text, at + 1, inside=True)
            parts.append(sub)
            continue
        if char == "]" and inside:
            if buffer:
                parts.append("".join(buffer))
            choices.append(_plain(tuple(parts)))
            return ("alt", tuple(choices)), at + 1
        if char == "|" and inside:
            if buffer:
                parts.append("".join(buffer))
                buffer = []
            choices.append(_plain(tuple(parts)))
            parts = []
            at += 1
            continue
        if char == "{":
            end = text.index("}", at)
            if buffer:
                parts.append("".join(buffer))
                buffer = []
            name = text[at + 1:end]
            parts.append(("word", name[1:]) if name.startswith("=") else ("ref", name))
            at = end + 1
            continue
        buffer.append(char)
        at += 1
    if inside:
        raise ValueError(f"unclosed [ in rule: {text!r}")
    if buffer:
        parts.append("".join(buffer))
    return parts, at


def _plain(parts: tuple) -> tuple | str:
    """A choice's parts, or its text when it is plain text (``""`` when empty): expanding that draws nothing."""
    if not parts:
        return ""
    return parts[0] if len(parts) == 1 and parts[0].__class__ is str else parts


def compile_rule(text: str) -> tuple:
    """One rule as a tuple of parts: literals, ("alt", choices) — each choice its text or its parts — ("ref",
    pool) and ("word", name)."""
    parts, _ = _parse(text)
    return tuple(parts)


def _pool_rules(rules: Sequence[str]) -> tuple[tuple | str, ...]:
    """A pool's rules compiled, each plain-text rule as its text."""
    return tuple(_plain(compile_rule(rule)) for rule in rules)


class Grammar:
    """Named pools of rules; ``say`` expands a rule (or a pool) with a caller's RNG."""

    def __init__(self, pools: Mapping[str, Sequence[str]]) -> None:
        self.pools: dict[str, tuple[tuple | str, ...]] = {name: _pool_rules(rules) for name, rules in pools.items()}
        self._rules: dict[str, tuple] = {}
        #: ``{=name}`` in a rule: a domain word of the pack being written (no draw), e.g. ``unit``.
        self.words: Mapping[str, str] = {}

    def extend(self, pools: Mapping[str, Sequence[str]]) -> None:
        """Add (or replace) pools."""
        for name, rules in pools.items():
            self.pools[name] = _pool_rules(rules)

    def overlay(self, pools: Mapping[str, Sequence[str]], words: Mapping[str, str]
                ) -> tuple[dict[str, tuple[tuple | str, ...]], Mapping[str, str]]:
        """Write with ``pools`` in place of the pools of those names (the others unchanged) and these domain
        words; returns what was in force, for ``restore``."""
        before = (self.pools, self.words)
        self.pools = {**self.pools, **{n: _pool_rules(rules) for n, rules in pools.items() if n in self.pools}}
        self.words = words
        return before

    def restore(self, before: tuple[dict[str, tuple[tuple | str, ...]], Mapping[str, str]]) -> None:
        """Undo an ``overlay``."""
        self.pools, self.words = before

    def _expand(self, parts: tuple, draw: Callable[[], float], out: list[str]) -> None:
        """Append the text of ``parts`` to ``out``, drawing (``draw``: an RNG's ``random``) once per choice made."""
        append = out.append
        for part in parts:
            if part.__class__ is str:
                append(part)
                continue
            tag, what = part
            if tag == "alt":
                choices = what
            elif tag == "ref":
                choices = self.pools[what]
            else:
                append(self.words[what])
                continue
            chosen = choices[int(draw() * len(choices))]
            if chosen.__class__ is str:
                append(chosen)
            else:
                self._expand(chosen, draw, out)

    def rule(self, rule: tuple | str, rng: Rng) -> str:
        """One compiled rule (a member of ``pools``) expanded."""
        if isinstance(rule, str):
            return rule
        out: list[str] = []
        self._expand(rule, rng.random, out)
        return "".join(out)

    def pool(self, name: str, rng: Rng) -> str:
        """One expanded rule of pool ``name``."""
        rules = self.pools[name]
        return self.rule(rules[int(rng.random() * len(rules))], rng)

    def say(self, rule: str, rng: Rng) -> str:
        """``rule`` (a literal grammar string, compiled once) expanded."""
        parts = self._rules.get(rule)
        if parts is None:
            parts = self._rules[rule] = compile_rule(rule)
        out: list[str] = []
        self._expand(parts, rng.random, out)
        return "".join(out)


_MASK = (1 << 64) - 1


class Dice:
    """A small seeded generator (64-bit LCG, seed mixed by splitmix64) with ``random()`` like ``random.Random``.

    Seeding a Mersenne Twister costs more than composing a short message; this costs nothing to seed,
    and the same seed gives the same draws on every platform and under any PYTHONHASHSEED.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        z = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E5B) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        self.state = z ^ (z >> 31)

    def random(self) -> float:
        """The next draw in [0, 1)."""
        self.state = state = (self.state * 6364136223846793005 + 1442695040888963407) & _MASK
        return (state >> 11) * (1.0 / 9007199254740992.0)


def tidy(text: str) -> str:
    """Collapse doubled spaces and spaces before punctuation left by empty choices; capitalise the start."""
    while "  " in text:
        text = text.replace("  ", " ")
    # in this order: each replacement sees the text the one before left (none applies to most texts: the
    # look costs less than the seven calls)
    if " ," in text or " ." in text or " ?" in text or " !" in text or " ;" in text or " :\n" in text or "?," in text:
        text = (text.replace(" ,", ",").replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ;", ";")
                .replace(" :\n", ":\n").replace("?,", "?"))
    text = text.strip()
    return text[:1].upper() + text[1:]


def typo(text: str, rng: Rng) -> str:
    """``text`` with one plausible slip in a long lower-case word (swapped or doubled letter)."""
    words = text.split(" ")
    candidates = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha() and w.islower()]
    if not candidates:
        return text
    i = candidates[int(rng.random() * len(candidates))]
    word = words[i]
    at = 1 + int(rng.random() * (len(word) - 3))
    if rng.random() < 0.5:
        word = word[:at] + word[at + 1] + word[at] + word[at + 2:]
    else:
        word = word[:at] + word[at] + word[at:]
    words[i] = word
    return " ".join(words)
