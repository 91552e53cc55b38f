"""Shortcut readers: adversaries that try to predict an item's label without the live context.

A reader turns what it sees into *units* (words, value shapes and id ranges,
step heads and step bigrams, and for the paired readers the relation of the
candidate's values to the question's or the reference's), learns from the
training fold which units the should-not items (P1, P3) use, and penalises a
test item when it carries at least ``k`` units never seen there (``k`` chosen
on the training fold). A suite leaks when such a reader beats the majority
label; ``cross_validate`` scores it with repeated stratified k-fold CV.

Readers:
- ``candidate``: the candidate answer alone;
- ``candidate+question``: plus the question (the ids it states);
- ``candidate+reference``: plus the reference, scored on P2 against P1 ∪ P3
  only (P4 is meant to be decided from the reference's procedure).

``pair_scores`` scores them per family pair (``PAIRS``) and names the
strongest; the test suite holds readers written apart from the builder
(``tests/benchmark_builders/cargo/independent_readers.py``).
"""

from __future__ import annotations

import random
import re
import statistics
from dataclasses import dataclass
from datetime import date
from typing import Any, Callable, Mapping, Sequence

from benchmark_builders.cargo.records import FAMILIES, families_in

_STRIP = "()[]{}<>,;:\"'`.!?"
_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:first|next|then|after that|finally|also|we|i|and|so)\b[, ]*)+", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_PREFIXED = re.compile(r"^([A-Za-z]+)-(\d+)$")
#: A word flags an item only if this many training should-penalise items use it; a step head is this many words.
MIN_POSITIVE = 1
HEAD_WORDS = 2


def _tokens(text: str) -> list[str]:
    return [t for t in (raw.strip(_STRIP) for raw in text.split()) if t]


def _is_value(token: str) -> bool:
    return any(ch.isdigit() for ch in token) or "@" in token


def value_unit(token: str) -> str:
    """The shape and range a value token shows: an id's prefix and leading digits, an email's pattern, a month."""
    if "@" in token:
        local, _, domain = token.partition("@")
        return "email:" + re.sub(r"\d+", "9", re.sub(r"[a-z]+", "a", local.lower()))
    if _DATE.match(token):
        return "date:" + token[:7]
    if _VERSION.match(token):
        return "version:" + token
    match = _PREFIXED.match(token)
    if token.upper().startswith("SN-"):
        return "serial:" + re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", token[3:].upper()))
    if match:
        prefix, digits = match.groups()
        return f"id:{prefix.upper()}:{len(digits)}:{digits[:2]}"
    if "0x" in token:
        return "code:" + token
    if token.isdigit():
        return "amount:" + token
    return "value:" + token


def _versions_step(tokens: Sequence[str]) -> list[str]:
    versions = [tuple(int(p) for p in t.split(".")) for t in tokens if _VERSION.match(t)]
    out = []
    for a, b in zip(versions, versions[1:]):
        if a != b:
            level = next(i for i in range(3) if a[i] != b[i])
            out.append(f"version-step:{('major', 'minor', 'patch')[level]}:{b[level] - a[level]}")
    return out


def step_heads(text: str) -> list[str]:
    """The first two words of each sentence or line that states a value, list markers and connectives removed."""
    heads = []
    for line in text.splitlines():
        line = _MARKER.sub("", line.strip())
        for sentence in _SENTENCE.split(line):
            words = re.findall(r"[a-z][a-z'-]*", _LEAD.sub("", sentence.strip()).lower())
            if words and any(_is_value(t) for t in _tokens(sentence)):
                heads.append(" ".join(words[:HEAD_WORDS]))
    return heads


_WARRANTY_END = re.compile(r"warranty end\D{0,12}?(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_AGE_DAYS = re.compile(r"age at opening\D{0,12}?(\d+) days?", re.IGNORECASE)


def arithmetic_units(candidate: str) -> set[str]:
    """What the arithmetic of the stated values shows: the week of the year the opening day falls in, as a warranty
    end (whole warranty years after the purchase) and the asset's age at opening place it."""
    end, age = _WARRANTY_END.search(candidate), _AGE_DAYS.search(candidate)
    if end is None or age is None:
        return set()
    day = (date.fromisoformat(end.group(1)).toordinal() + int(age.group(1))) % 365
    return {f"opening-week:{day // 7}"}


def candidate_units(candidate: str) -> set[str]:
    """Words, value shapes, version steps, the opening week, step heads and step bigrams of a candidate."""
    tokens = _tokens(candidate)
    units = {"word:" + t for t in tokens if not _is_value(t) and t.islower()}  # names are capitalised
    units |= {value_unit(t) for t in tokens if _is_value(t)}
    units |= set(_versions_step(tokens)) | arithmetic_units(candidate)
    heads = step_heads(candidate)
    units |= {"head:" + h for h in heads}
    units |= {f"seq:{a}>{b}" for a, b in zip(heads, heads[1:])}
    return units


def _prefix(token: str) -> str:
    match = re.match(r"^([A-Za-z]+)-", token)
    return match.group(1).upper() if match else ("email" if "@" in token else "")


def relation_units(candidate: str, other: str, tag: str) -> set[str]:
    """How the candidate's values relate to another text's: same value, or another value of a kind it states."""
    theirs = [t for t in _tokens(other) if _is_value(t)]
    kinds = {_prefix(t) or value_unit(t).split(":")[0] for t in theirs}
    units = set()
    for token in (t for t in _tokens(candidate) if _is_value(t)):
        kind = _prefix(token) or value_unit(token).split(":")[0]
        if token in theirs:
            units.add(f"{tag}:same:{kind}")
        elif kind in kinds:
            units.add(f"{tag}:other:{kind}")
    words = {w.lower() for w in _tokens(other) if not _is_value(w)}
    units |= {f"{tag}:shared-word:{w.lower()}" for w in _tokens(candidate) if not _is_value(w) and w.lower() in words}
    if tag == "ref":
        mine, ref = step_heads(candidate), step_heads(other)
        units |= {f"ref:head-missing:{h}" for h in ref if h not in mine}
        units |= {f"ref:head-new:{h}" for h in mine if h not in ref}
    return units


@dataclass(frozen=True)
class Reader:
    """A named shortcut reader: what it reads of an item, and which families it is scored on."""

    name: str
    units: Callable[[Mapping[str, str]], set[str]]
    families: tuple[str, ...] = FAMILIES


READERS: tuple[Reader, ...] = (
    Reader("candidate", lambda item: candidate_units(item["candidate"])),
    Reader("candidate+question", lambda item: candidate_units(item["candidate"])
           | relation_units(item["candidate"], item["question"], "question")),
    Reader("candidate+reference", lambda item: candidate_units(item["candidate"])
           | relation_units(item["candidate"], item["reference"], "ref"),
           tuple(f for f in FAMILIES if f != "P4")),   # a corrupted procedure is in the candidate alone
)


Model = tuple[dict[str, int], frozenset[str], frozenset[str]]


def _kind(unit: str) -> str:
    return unit.split(":", 2)[0] if not unit.startswith(("question:", "ref:")) else ":".join(unit.split(":")[:2])


def _flagged(negative: Mapping[str, int], positive: frozenset[str], units: set[str], own: bool = False) -> set[str]:
    """Kinds of the units no other should-not item uses (words only if a should-penalise item uses them)."""
    seen = 1 if own else 0
    return {_kind(u) for u in units if negative.get(u, 0) <= seen and (not u.startswith("word:") or u in positive)}


def _fit(train: Sequence[tuple[set[str], bool]]) -> Model:
    """Learn the should-not units, the words only should-penalise items use, and which unit kinds to trust.

    An item is penalised when it carries a flagged unit of a trusted kind; the kinds are chosen greedily
    on the training fold (each added only if it raises training accuracy). On the training fold a
    should-not item is scored leave-one-out, so its flags are like the ones a test item gets.
    """
    negative: dict[str, int] = {}
    for units, label in train:
        if not label:
            for unit in units:
                negative[unit] = negative.get(unit, 0) + 1
    counts: dict[str, int] = {}
    for units, label in train:
        if label:
            for unit in units:
                if unit not in negative:
                    counts[unit] = counts.get(unit, 0) + 1
    positive = frozenset(u for u, n in counts.items() if n >= MIN_POSITIVE)
    flags = [(_flagged(negative, positive, units, own=not label), label) for units, label in train]
    kinds = sorted({k for f, _ in flags for k in f})
    chosen: set[str] = set()
    best = max(sum(label for _, label in train), sum(not label for _, label in train))
    best = sum(not label for _, label in flags)  # nothing trusted: every item passes
    while True:
        gains = [(sum(bool(f & (chosen | {k})) == label for f, label in flags), k) for k in kinds if k not in chosen]
        if not gains:
            break
        right, kind = max(gains, key=lambda g: (g[0], [-ord(c) for c in g[1]]))
        if right <= best:
            break
        best, chosen = right, chosen | {kind}
    return negative, positive, frozenset(chosen)


def _predict(model: Model, units: set[str]) -> bool:
    negative, positive, trusted = model
    return bool(_flagged(negative, positive, units) & trusted)


def _folds(labels: Sequence[bool], k: int, rng: random.Random) -> list[list[int]]:
    folds: list[list[int]] = [[] for _ in range(k)]
    for label in (False, True):
        idx = [i for i, y in enumerate(labels) if y == label]
        rng.shuffle(idx)
        for position, i in enumerate(idx):
            folds[position % k].append(i)
    return folds


def cross_validate(data: Sequence[tuple[set[str], bool]], *, folds: int = 5, repeats: int = 5,
                   seed: int = 0) -> dict[str, float | None]:
    """Mean test accuracy of the rule reader and of the training fold's majority label (stratified CV).

    A fold left empty (a suite with fewer items than folds per label) is passed over; with fewer than two
    items there is nothing to hold out, and both figures are None.
    """
    labels = [y for _, y in data]
    if len(data) < 2:
        return {"accuracy": None, "majority": None}
    reader, majority = [], []
    for repeat in range(repeats):
        for test in _folds(labels, folds, random.Random(f"cargo-readers:{seed}:{repeat}")):
            if not test:
                continue
            held = set(test)
            train = [data[i] for i in range(len(data)) if i not in held]
            model = _fit(train)
            guess = sum(y for _, y in train) * 2 > len(train)
            reader.append(statistics.fmean(_predict(model, data[i][0]) == data[i][1] for i in test))
            majority.append(statistics.fmean(guess == data[i][1] for i in test))
    return {"accuracy": round(statistics.fmean(reader), 4), "majority": round(statistics.fmean(majority), 4)}


def reader_scores(items: Sequence[Mapping[str, str]], truth: Sequence[Mapping]) -> dict[str, dict[str, Any]]:
    """Every reader's 5x5-fold CV accuracy beside the majority baseline on the families it is scored on."""
    by_id = {t["item_id"]: t for t in truth}
    shown = families_in(t["family"] for t in truth)
    out = {}
    for reader in READERS:
        data = [(reader.units(item), bool(by_id[item["item_id"]]["should_penalize"]))
                for item in items if by_id[item["item_id"]]["family"] in reader.families]
        scores = cross_validate(data)
        accuracy, majority = scores["accuracy"], scores["majority"]
        excess = None if accuracy is None or majority is None else round(accuracy - majority, 4)
        out[reader.name] = {**scores, "families": "+".join(f for f in reader.families if f in shown), "items": len(data), "excess": excess}
    return out


#: Family pairs the readers are scored on: name -> (families, and a style the P2 items must have, if any).
PAIRS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "whole suite": (FAMILIES, None),
    "P1+P3 vs P2": (("P1", "P3", "P2"), None),
    "P1+P3 vs P4": (("P1", "P3", "P4"), None),
    "P1 vs plain P2": (("P1", "P2"), "plain"),
    "P3 vs extra P2": (("P3", "P2"), "extra"),
}
#: The readers scored per pair: candidate-only, and candidate-vs-reference (not on P4, decided from the reference).
_PAIR_READERS = {"candidate": ("whole suite", "P1+P3 vs P2", "P1+P3 vs P4", "P1 vs plain P2", "P3 vs extra P2"),
                 "candidate+reference": ("P1+P3 vs P2", "P1 vs plain P2", "P3 vs extra P2")}


def pair_scores(items: Sequence[Mapping[str, str]], truth: Sequence[Mapping]) -> dict[str, dict[str, Any]]:
    """Per family pair, each reader's CV accuracy beside the majority baseline, and the strongest reader."""
    by_id = {t["item_id"]: t for t in truth}
    readers = {r.name: r for r in READERS}
    out: dict[str, dict[str, Any]] = {}
    for pair, (families, style) in PAIRS.items():
        rows = [item for item in items if by_id[item["item_id"]]["family"] in families
                and (style is None or by_id[item["item_id"]]["family"] != "P2" or by_id[item["item_id"]]["style"] == style)]
        scores: dict[str, Any] = {}
        for name, pairs in _PAIR_READERS.items():
            if pair in pairs:
                data = [(readers[name].units(i), bool(by_id[i["item_id"]]["should_penalize"])) for i in rows]
                scores[name] = {**cross_validate(data), "items": len(data)}
        scored = {k: v for k, v in scores.items() if v["accuracy"] is not None}
        strongest = max(sorted(scored), key=lambda k: scored[k]["accuracy"] - scored[k]["majority"], default=None)
        out[pair] = {**scores, "strongest": strongest,
                     "excess": None if strongest is None else
                     round(scored[strongest]["accuracy"] - scored[strongest]["majority"], 4)}
    return out


def surface_baselines(items: Sequence[Mapping[str, Any]], truth: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The best one-threshold rule's accuracy on each surface feature of the candidate (majority, length, sentences)."""
    by_id = {i["item_id"]: i["candidate"] for i in items}
    features: dict[str, Callable[[str], float]] = {
        "majority": lambda text: 0, "length": len,
        "sentences": lambda text: text.count(". ") + text.count(".\n")}
    return {name: _best_threshold_accuracy([(feature(by_id[t["item_id"]]), t["should_penalize"]) for t in truth])
            for name, feature in features.items()}


def _best_threshold_accuracy(pairs: list[tuple[float, bool]]) -> float:
    """In-sample accuracy of the best one-threshold rule on a surface feature (the majority label at worst)."""
    if not pairs:
        return 0.0
    n, positives = len(pairs), sum(y for _, y in pairs)
    best = max(positives, n - positives)
    for threshold in sorted({x for x, _ in pairs}):
        right = sum((x > threshold) == y for x, y in pairs)
        best = max(best, right, n - right)
    return round(best / n, 4)
