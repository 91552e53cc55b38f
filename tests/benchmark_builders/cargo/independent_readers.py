"""Shortcut readers written apart from the CARGO builder: they read only the texts of an item.

Nothing here imports the builder (``benchmark_builders.cargo``): each reader sees what anyone holding the
suite's ``items.jsonl`` sees (the candidate, and for the diff readers the reference) and learns from a
training fold of labelled items. Scored by 5-fold cross-validation grouped by world seed (a world's items all
in one fold), with a 95% Wilson interval on the pooled out-of-fold accuracy beside the training folds'
majority label.

Candidate-only readers:
- ``warranty_age``: a warranty end and the asset's age at opening put the opening day at
  warranty end - N years + age; warranties run whole years (365-day multiples), so ``(warranty end + age) mod
  365`` is the opening day's place in the year. Penalise when it falls outside the span the training
  should-not items show.
- ``rollback``: the patch distance between the first firmware version stated and the last different one;
  penalise a distance outside the training should-not items' range.
- ``arithmetic``: either of the two.
- ``step_phrases``: word trigrams of the candidate's clauses (values and names dropped); penalise a candidate
  with a trigram that three or more training should-penalise items use and no training should-not item does.
- ``bag_of_words``: L2 logistic regression (numpy) over words, word bigrams and value shapes.

Candidate-vs-reference readers (``diff_*``, scored on the P2 pairs only): features of how the candidate's values and phrases relate to the
reference's (same id prefixes and their numeric distance, date distances, phrases the reference has and the
candidate lacks or adds, id suffix agreement inside the candidate), in a logistic regression.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from typing import Callable, Mapping, Sequence

import numpy as np

_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_VERSION = re.compile(r"\b(\d+)\.(\d+)\.(\d+)\b")
_AGE = re.compile(r"\b(\d+)\s+days?\b")
_WARRANTY = re.compile(r"warranty\s+(?:end|ends|ending|expires|expiry)\D{0,20}?(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_ID = re.compile(r"\b([A-Z]{2,5})-(\d{3,6})\b")
_WORD = re.compile(r"\S+@\S+|[A-Za-z][A-Za-z'-]*|\d[\w.@-]*")
_SPLIT = re.compile(r"(?<=[.!?:;])\s+|\n+")


# --------------------------------------------------------------------------- reading text

def clauses(text: str) -> list[str]:
    """Sentences and lines of a text."""
    return [c.strip() for c in _SPLIT.split(text) if c.strip()]


def content_words(clause: str) -> list[str]:
    """Lower-case words of a clause: values dropped, names (capitalised words after the first) dropped."""
    out = []
    for position, token in enumerate(_WORD.findall(clause)):
        if any(ch.isdigit() for ch in token) or "@" in token:
            out.append("<v>")
            continue
        if position > 0 and token[:1].isupper():
            continue
        out.append(token.lower())
    return out


def trigrams(text: str) -> set[str]:
    """Word trigrams of every clause (values as ``<v>``)."""
    grams = set()
    for clause in clauses(text):
        words = content_words(clause)
        grams |= {" ".join(words[i:i + 3]) for i in range(len(words) - 2)}
    return grams


def value_shape(token: str) -> str:
    """A value's shape: digits as 9, letters kept (id prefixes), an email's domain dropped."""
    if "@" in token:
        return "email"
    return re.sub(r"\d", "9", token)


def warranty_and_age(candidate: str) -> tuple[date, int] | None:
    """The stated warranty end and the asset's age in days (the first "N days" after "age"), or None."""
    warranty = _WARRANTY.search(candidate)
    age_at = candidate.lower().find("age")
    if warranty is None or age_at < 0:
        return None
    age = _AGE.search(candidate, age_at)
    if age is None:
        return None
    return date.fromisoformat(warranty.group(1)), int(age.group(1))


def opening_day_of_year(candidate: str) -> int | None:
    """(warranty end + age) mod 365: where in a year the implied opening day falls, or None."""
    found = warranty_and_age(candidate)
    if found is None:
        return None
    end, age = found
    return (end.toordinal() + age) % 365


def rollback_distance(candidate: str) -> int | None:
    """Patch versions between the first firmware version stated and the last different one on its line."""
    versions = [tuple(int(x) for x in m.groups()) for m in _VERSION.finditer(candidate)]
    if len(versions) < 2:
        return None
    first = versions[0]
    others = [v for v in versions if v != first and v[:2] == first[:2]]
    return first[2] - others[-1][2] if others else None


# --------------------------------------------------------------------------- readers

@dataclass(frozen=True)
class Item:
    """What a reader may see of one item, with its label and its world (for the grouped folds)."""

    candidate: str
    reference: str
    label: bool
    world: int


class Reader:
    """Learns from a training fold, then says for each test item whether to penalise it."""

    name = "reader"

    def fit(self, train: Sequence[Item]) -> None:
        raise NotImplementedError

    def predict(self, item: Item) -> bool:
        raise NotImplementedError


def _circular_span(points: Sequence[int], period: int = 365) -> tuple[int, int] | None:
    """The shortest arc (start, length) of the circle that holds every point."""
    if not points:
        return None
    ordered = sorted(set(points))
    gaps = [((ordered[(i + 1) % len(ordered)] - ordered[i]) % period or period, i) for i in range(len(ordered))]
    widest, at = max(gaps)
    start = ordered[(at + 1) % len(ordered)]
    return start, period - widest


class WarrantyAgeReader(Reader):
    """Penalise an implied opening day outside the year-span the training should-not items show."""

    name = "warranty_age"

    def __init__(self, slack: int = 3) -> None:
        self.slack, self.span = slack, None

    def fit(self, train: Sequence[Item]) -> None:
        days = [d for d in (opening_day_of_year(i.candidate) for i in train if not i.label) if d is not None]
        self.span = _circular_span(days)

    def predict(self, item: Item) -> bool:
        day = opening_day_of_year(item.candidate)
        if day is None or self.span is None:
            return False
        start, length = self.span
        offset = (day - start) % 365
        return not (offset <= length + self.slack or offset >= 365 - self.slack)


class RollbackReader(Reader):
    """Penalise a rollback distance outside the training should-not items' range."""

    name = "rollback"

    def fit(self, train: Sequence[Item]) -> None:
        seen = [d for d in (rollback_distance(i.candidate) for i in train if not i.label) if d is not None]
        self.range = (min(seen), max(seen)) if seen else None

    def predict(self, item: Item) -> bool:
        d = rollback_distance(item.candidate)
        return d is not None and self.range is not None and not self.range[0] <= d <= self.range[1]


class AnyOf(Reader):
    """Penalise when any of its readers would."""

    def __init__(self, name: str, *readers: Reader) -> None:
        self.name, self.readers = name, readers

    def fit(self, train: Sequence[Item]) -> None:
        for reader in self.readers:
            reader.fit(train)

    def predict(self, item: Item) -> bool:
        return any(r.predict(item) for r in self.readers)


class StepPhraseReader(Reader):
    """Penalise a candidate using a phrase only training should-penalise items use (three or more of them)."""

    name = "step_phrases"

    def __init__(self, min_positive: int = 3) -> None:
        self.min_positive, self.flagged = min_positive, frozenset()

    def fit(self, train: Sequence[Item]) -> None:
        negative: set[str] = set()
        positive: dict[str, int] = {}
        for item in train:
            grams = trigrams(item.candidate)
            if item.label:
                for g in grams:
                    positive[g] = positive.get(g, 0) + 1
            else:
                negative |= grams
        self.flagged = frozenset(g for g, n in positive.items() if n >= self.min_positive and g not in negative)

    def predict(self, item: Item) -> bool:
        return bool(trigrams(item.candidate) & self.flagged)


class LogisticReader(Reader):
    """L2-regularised logistic regression on binary features (those in two or more training items)."""

    def __init__(self, name: str, features: Callable[[Item], set[str]], l2: float = 1.0, steps: int = 2000) -> None:
        self.name, self.features, self.l2, self.steps = name, features, l2, steps

    def fit(self, train: Sequence[Item]) -> None:
        counts: dict[str, int] = {}
        rows = [self.features(i) for i in train]
        for row in rows:
            for f in row:
                counts[f] = counts.get(f, 0) + 1
        self.vocab = {f: k for k, f in enumerate(sorted(f for f, n in counts.items() if n >= 2))}
        x = self._matrix(rows)
        y = np.array([float(i.label) for i in train])
        w = np.zeros(x.shape[1])
        b = math.log((y.mean() + 1e-6) / (1 - y.mean() + 1e-6))
        # gradient descent with the step the loss's curvature allows (a quarter of the largest squared row norm)
        rate = 1.0 / (0.25 * max(1.0, float((x * x).sum(axis=1).max())) + self.l2 / len(y))
        for _ in range(self.steps):
            p = 1 / (1 + np.exp(-(x @ w + b)))
            w -= rate * (x.T @ (p - y) / len(y) + self.l2 * w / len(y))
            b -= rate * float(np.mean(p - y))
        self.w, self.b = w, b

    def _matrix(self, rows: Sequence[set[str]]) -> np.ndarray:
        x = np.zeros((len(rows), max(1, len(self.vocab))))
        for r, row in enumerate(rows):
            for f in row:
                k = self.vocab.get(f)
                if k is not None:
                    x[r, k] = 1.0
        return x

    def predict(self, item: Item) -> bool:
        x = self._matrix([self.features(item)])
        return bool((x @ self.w + self.b)[0] > 0)


class TunedLogisticReader(LogisticReader):
    """A logistic reader whose L2 strength is chosen inside its training fold: grouped inner folds (by world) score
    each strength in ``GRID`` and the training fold's majority label; the best is refitted on the whole training
    fold (ties go to the stronger regularisation, the majority label strongest of all). A reader with no signal
    thus answers the majority label instead of overfitting below it."""

    GRID = (1.0, 10.0, 100.0)
    INNER_STEPS = 500

    def fit(self, train: Sequence[Item]) -> None:
        self.constant: bool | None = None
        guess = sum(i.label for i in train) * 2 > len(train)
        folds = grouped_folds(train, k=4)
        if len(folds) < 2:
            LogisticReader.fit(self, train)
            return
        scores: list[tuple[int, float]] = [(sum(i.label == guess for i in train), math.inf)]
        for l2 in self.GRID:
            right = 0
            for test in folds:
                held = set(test)
                inner = LogisticReader(self.name, self.features, l2, self.INNER_STEPS)
                inner.fit([train[i] for i in range(len(train)) if i not in held])
                right += sum(inner.predict(train[i]) == train[i].label for i in test)
            scores.append((right, l2))
        best, self.chosen = max(scores, key=lambda s: (s[0], s[1]))
        if self.chosen == math.inf:
            self.constant = guess
            return
        self.l2 = self.chosen
        LogisticReader.fit(self, train)

    def predict(self, item: Item) -> bool:
        return self.constant if self.constant is not None else LogisticReader.predict(self, item)


def bag_of_words(item: Item) -> set[str]:
    """Words, word bigrams and value shapes of the candidate."""
    out: set[str] = set()
    for clause in clauses(item.candidate):
        words = content_words(clause)
        out |= {"w:" + w for w in words}
        out |= {"b:" + " ".join(words[i:i + 2]) for i in range(len(words) - 1)}
    out |= {"s:" + value_shape(t) for t in re.findall(r"\S*\d\S*", item.candidate)}
    return out


def _ids(text: str) -> list[tuple[str, int, str]]:
    return [(m.group(1), int(m.group(2)), m.group(2)) for m in _ID.finditer(text)]


def _bucket(n: int) -> str:
    n = abs(n)
    return "0" if n == 0 else "1-2" if n <= 2 else "3-5" if n <= 5 else "6-10" if n <= 10 else "11-30" if n <= 30 else ">30"


def diff_features(item: Item) -> set[str]:
    """How the candidate's values and phrases relate to the reference's."""
    cand, ref = item.candidate, item.reference
    out: set[str] = set()
    ref_ids: dict[str, list[int]] = {}
    for prefix, number, _ in _ids(ref):
        ref_ids.setdefault(prefix, []).append(number)
    cand_ids = _ids(cand)
    for prefix, number, _ in cand_ids:
        if prefix in ref_ids:
            out.add(f"iddist:{prefix}:{_bucket(min(abs(number - r) for r in ref_ids[prefix]))}")
            out.add(f"idsign:{prefix}:{'+' if number > max(ref_ids[prefix]) else '-'}")
    # the id counters of one case move together: the last digits of its ids agree
    distinct = {(p, s) for p, _, s in cand_ids if p != "CASE" and p != "ACC"}
    tails = [s[-2:] for _, s in distinct]
    for a in range(len(tails)):
        for b in range(a + 1, len(tails)):
            out.add("tail:same" if tails[a] == tails[b] else "tail:differ")
    ref_dates = [date.fromisoformat(d) for d in _DATE.findall(ref)]
    for d in _DATE.findall(cand):
        if ref_dates:
            gap = min(abs((date.fromisoformat(d) - r).days) for r in ref_dates)
            out.add("datedist:" + _bucket(gap // 7))
    rv = rollback_distance(cand)
    rr = rollback_distance(ref)
    if rv is not None and rr is not None:
        out.add(f"rollback-vs-ref:{_bucket(rv - rr)}")
    mine, theirs = trigrams(cand), trigrams(ref)
    out |= {"missing:" + g for g in theirs - mine}
    out |= {"new:" + g for g in mine - theirs}
    return out


def candidate_readers() -> list[Reader]:
    """The candidate-only readers, fresh."""
    return [WarrantyAgeReader(), RollbackReader(), AnyOf("arithmetic", WarrantyAgeReader(), RollbackReader()),
            StepPhraseReader(), TunedLogisticReader("bag_of_words", bag_of_words)]


def diff_readers() -> list[Reader]:
    """The candidate-vs-reference readers, fresh."""
    return [TunedLogisticReader("diff_logistic", diff_features),
            TunedLogisticReader("diff+bag_of_words", lambda i: diff_features(i) | bag_of_words(i))]


# --------------------------------------------------------------------------- scoring

def grouped_folds(items: Sequence[Item], k: int = 5) -> list[list[int]]:
    """Item indices per fold: world seeds dealt round-robin in sorted order, a world's items in one fold."""
    worlds = sorted({i.world for i in items})
    fold_of = {w: n % k for n, w in enumerate(worlds)}
    folds: list[list[int]] = [[] for _ in range(k)]
    for index, item in enumerate(items):
        folds[fold_of[item.world]].append(index)
    return [f for f in folds if f]


def wilson(right: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@dataclass(frozen=True)
class Score:
    """A reader's pooled out-of-fold accuracy, its 95% Wilson interval, and the majority baseline's accuracy."""

    accuracy: float
    low: float
    high: float
    majority: float
    items: int
    flagged: int

    @property
    def leaks(self) -> bool:
        """True when the interval lies wholly above the majority baseline."""
        return self.low > self.majority

    def __str__(self) -> str:
        return (f"{self.accuracy:.3f} [{self.low:.3f}, {self.high:.3f}] vs majority {self.majority:.3f} "
                f"({self.items} items, {self.flagged} penalised)")


def cross_validate(make: Callable[[], Reader], items: Sequence[Item], k: int = 5) -> Score:
    """Grouped k-fold CV of a fresh reader per fold."""
    right = majority_right = flagged = 0
    for test in grouped_folds(items, k):
        held = set(test)
        train = [items[i] for i in range(len(items)) if i not in held]
        reader = make()
        reader.fit(train)
        guess = sum(i.label for i in train) * 2 > len(train)
        for i in test:
            said = reader.predict(items[i])
            flagged += said
            right += said == items[i].label
            majority_right += guess == items[i].label
    low, high = wilson(right, len(items))
    return Score(round(right / len(items), 4), round(low, 4), round(high, 4),
                 round(majority_right / len(items), 4), len(items), flagged)


#: The family pairs scored: name -> (should-not families and styles, should-penalise families and styles).
PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "whole suite": (("P1", "P3"), ("P2", "P4")),
    "P1+P3 vs P2": (("P1", "P3"), ("P2",)),
    "P1+P3 vs P4": (("P1", "P3"), ("P4",)),
    "P1 vs plain P2": (("P1",), ("P2:plain",)),
    "P3 vs extra P2": (("P3",), ("P2:extra",)),
}


def pair_items(items: Sequence[Mapping], truth: Sequence[Mapping], pair: str) -> list[Item]:
    """The items of a family pair, as readers see them."""
    negatives, positives = PAIRS[pair]
    by_id = {t["item_id"]: t for t in truth}

    def member(t: Mapping, wanted: Sequence[str]) -> bool:
        return any(t["family"] == w.split(":")[0] and (":" not in w or t["style"] == w.split(":")[1]) for w in wanted)

    out = []
    for row in items:
        t = by_id[row["item_id"]]
        if member(t, negatives) or member(t, positives):
            out.append(Item(row["candidate"], row["reference"], bool(t["should_penalize"]), int(t["world_seed"])))
    return out


#: Pairs a candidate-vs-reference reader must not decide: P4 is meant to be decided from the reference's procedure.
DIFF_PAIRS: tuple[str, ...] = ("whole suite", "P1+P3 vs P2", "P1 vs plain P2", "P3 vs extra P2")


def score_suite(items: Sequence[Mapping], truth: Sequence[Mapping]) -> dict[str, dict[str, Score]]:
    """Candidate-only readers on every family pair, candidate-vs-reference readers on the P2 pairs
    (``DIFF_PAIRS``; on the whole suite they are scored too, as P4's share of it is decided from the reference)."""
    out: dict[str, dict[str, Score]] = {}
    for pair in PAIRS:
        data = pair_items(items, truth, pair)
        makers: dict[str, Callable[[], Reader]] = {}
        for index, reader in enumerate(candidate_readers()):
            makers[reader.name] = lambda k=index: candidate_readers()[k]
        if pair in DIFF_PAIRS[1:]:
            for index, reader in enumerate(diff_readers()):
                makers[reader.name] = lambda k=index: diff_readers()[k]
        out[pair] = {name: cross_validate(make, data) for name, make in makers.items()}
    return out
