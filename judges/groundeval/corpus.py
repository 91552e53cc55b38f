"""Every artifact version of a world, indexed once: its columns, the gates' lookup tables and its postings.

``Corpus`` keeps one numpy column per gate input (creation, the next version's creation, subsystem, space,
audience) and the postings of each version's searchable text (``IndexedVersion``). ``visible_mask`` says which
versions an actor could see at a moment (horizon, actor and subsystem gates, exactly as
``AccessPolicy.violations`` decides); ``resolve`` finds the version an ``ID`` or ``ID@N`` names.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, NamedTuple, Protocol, Sequence

import numpy as np

from judges.groundeval.impact import ImpactOrder
from judges.groundeval.key_table import KeyTable
from judges.groundeval.postings import Postings
from orgbench.core.clock import parse_ts
from simulator.model import ArtifactVersion
from simulator.policy import AccessPolicy

_VERSION = re.compile(r"-?[0-9]+")


def _micros(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


class Served(Protocol):
    """What a corpus is built from: a world's artifact versions and access policy (a ``World`` serves)."""

    @property
    def artifacts(self) -> Sequence[ArtifactVersion]: ...

    @property
    def policy(self) -> AccessPolicy: ...


#: A ``NamedTuple`` made from its fields in C (the class's own ``__new__`` is a Python function).
_row = tuple.__new__


class IndexedVersion(NamedTuple):
    """What the index keeps of one version: its id and number, creation (µs), gate inputs and searchable text."""

    artifact_id: str
    version: int
    created: int
    subsystem: str
    space: str | None
    audience: Sequence[str] | None
    participants: Sequence[str]
    text: str

    @staticmethod
    def of(v: ArtifactVersion) -> IndexedVersion:
        return IndexedVersion(v.artifact_id, v.version, _micros(v.created_at), v.subsystem, v.acl.space, v.acl.audience,
                              v.acl.participants, searchable_text(v.artifact_id, v.title, v.body, v.created_at))

    @staticmethod
    def of_json(obj: dict[str, Any]) -> IndexedVersion:
        """What ``of(ArtifactVersion.from_json(obj))`` gives, read straight from the JSON object (the same errors)."""
        created_at = parse_ts(obj["created_at"])
        _ = (obj["kind"], obj["author"], obj["entity"]["id"], obj["entity"]["kind"])   # what from_json requires too
        acl = obj.get("acl") or {}
        audience = acl.get("audience")
        return _row(IndexedVersion, (obj["artifact_id"], int(obj["version"]), _micros(created_at), obj["subsystem"],
                                     acl.get("space"), None if audience is None else tuple(audience),
                                     tuple(acl.get("participants", ())),
                                     searchable_text(obj["artifact_id"], obj["title"], obj["body"], created_at)))


def next_created(created: np.ndarray, artifact_first: np.ndarray) -> np.ndarray:
    """Each version's next version's creation (versions sorted by artifact, then version; an artifact's first
    version at ``artifact_first``), or the largest int64 for an artifact's last version."""
    n = len(created)
    nxt = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    owner = np.repeat(np.arange(len(artifact_first) - 1), np.diff(artifact_first))
    same = owner[:-1] == owner[1:]            # the next version is the same artifact's
    nxt[:-1][same] = created[1:][same]
    return nxt


def ranked_codes(names: list[str | None], codes: np.ndarray, dtype: type) -> tuple[list[str], np.ndarray]:
    """``names`` (distinct, None perhaps among them) sorted, and ``codes`` (positions in ``names``) as positions in
    the sorted list (None: -1)."""
    ranked = sorted(name for name in names if name is not None)
    rank = {name: i for i, name in enumerate(ranked)}
    remap: np.ndarray = np.array([-1 if name is None else rank[name] for name in names], dtype=dtype)
    return ranked, remap[codes] if len(remap) else np.zeros(len(codes), dtype=dtype)


def by_person(docs: np.ndarray, who: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
    """Each person's versions from (version, person) pairs (``who``: positions in ``names``) in version order: the
    persons in the order of their first pair, each one's versions ascending (once per pair)."""
    grouped = np.argsort(who, kind="stable")
    bounds = np.searchsorted(who[grouped], np.arange(len(names) + 1))
    firsts = sorted(range(len(names)), key=lambda k: int(grouped[bounds[k]]) if bounds[k] < bounds[k + 1] else len(who))
    return {names[k]: docs[grouped[bounds[k]:bounds[k + 1]]].astype(np.int64)
            for k in firsts if bounds[k] < bounds[k + 1]}


def _pairs(lists: list[tuple[int, Sequence[str]]]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(version, person) pairs of each version's persons, in order, as ``by_person`` takes them."""
    names: dict[str, int] = {}
    docs = [i for i, people in lists for _ in people]
    who = [names.setdefault(person, len(names)) for _, people in lists for person in people]
    return np.array(docs, dtype=np.int64), np.array(who, dtype=np.int64), list(names)


def searchable_text(artifact_id: str, title: str, body: str, created_at: datetime) -> str:
    """The text search matches a version by: its id, title, body and creation date."""
    return f"{artifact_id} {title} {body} {created_at.date().isoformat()}"


class Corpus:
    """Every artifact version of a world, indexed once for gated search and fetch."""

    def __init__(self, world: Served) -> None:
        docs = sorted(world.artifacts, key=lambda v: (v.artifact_id, v.version))
        self.index(world.policy, docs, [IndexedVersion.of(v) for v in docs])

    def index(self, policy: AccessPolicy, docs: Sequence[ArtifactVersion], rows: Sequence[IndexedVersion]) -> None:
        """Index ``rows``, one per version of ``docs`` (sorted by artifact id, then version)."""
        self.policy = policy
        self.docs = docs
        n = len(rows)
        artifact_ids, versions, created, subsystems, spaces, audiences, participants, texts = (
            zip(*rows) if n else [()] * len(IndexedVersion._fields))
        first = [i for i, (a, b) in enumerate(zip(artifact_ids, (None, *artifact_ids))) if a != b]   # a new artifact's
        self.artifact_ids = KeyTable.of((artifact_ids[i], p) for p, i in enumerate(first))
        self.artifact_first = np.array(first + [n], dtype=np.int64)
        self.versions = np.array(versions, dtype=np.int64)
        self.created = np.array(created, dtype=np.int64)
        self.next_created = next_created(self.created, self.artifact_first)
        names: dict[str | None, int] = {}
        subsystem_at = np.fromiter(map(lambda s: names.setdefault(s, len(names)), subsystems), np.int64, n)
        self.subsystems, self.subsystem_code = ranked_codes(list(names), subsystem_at, np.int16)
        names = {}
        space_at = np.fromiter(map(lambda s: names.setdefault(s, len(names)), spaces), np.int64, n)
        self.spaces, self.space_code = ranked_codes(list(names), space_at, np.int32)
        self.audience_docs = np.array([i for i, a in enumerate(audiences) if a is not None], dtype=np.int64)
        self.open_to_all = np.ones(n, dtype=bool)     # False where an audience restricts who may read
        self.open_to_all[self.audience_docs] = False
        self.by_audience = by_person(*_pairs([(i, a) for i, a in enumerate(audiences) if a is not None]))
        self.by_participant = by_person(*_pairs(list(enumerate(participants))))
        self.postings, self.lengths = Postings.of_texts(texts)
        postings = self.postings
        self.impact = ImpactOrder.of(list(postings.terms), postings.offsets, postings.docs, postings.tf, self.lengths)
        self.derive_lookups()

    def derive_lookups(self) -> None:
        """The lookup forms of the columns (worked out again when a saved corpus is loaded)."""
        self._subsystem_at = self.subsystem_code.astype(np.intp)   # lookup-table indices (intp: the fast gather)
        self._space_at = self.space_code.astype(np.intp)
        self._in_subsystem: dict[str, np.ndarray] = {}

    def in_subsystem(self, subsystem: str) -> np.ndarray:
        """For each version: is it in ``subsystem``? (Worked out once per subsystem.)"""
        found = self._in_subsystem.get(subsystem)
        if found is None:
            code = self.subsystems.index(subsystem) if subsystem in self.subsystems else -1
            found = self._in_subsystem[subsystem] = self.subsystem_code == code
        return found

    def history(self, artifact_id: str) -> range:
        """The indices of the artifact's versions (contiguous: ``docs`` is sorted by id, then version); empty if unknown."""
        p = self.artifact_ids.get(artifact_id)
        if p is None:
            return range(0)
        return range(int(self.artifact_first[p]), int(self.artifact_first[p + 1]))

    def resolve(self, requested: str, moment: datetime) -> int | None:
        """The index of ``ID@N``, or of ``ID``'s version current at ``moment`` (its first if none was yet); None if unknown."""
        head, at, tail = requested.rpartition("@")
        if at and _VERSION.fullmatch(tail) and str(int(tail)) == tail:
            history = self.history(head)
            if len(history) == 1:       # most artifacts have one version: no search
                if self.versions[history.start] == int(tail):
                    return history.start
            elif history:
                found = int(self.versions[history.start:history.stop].searchsorted(int(tail), side="right")) - 1
                if found >= 0 and self.versions[history.start + found] == int(tail):
                    return history.start + found
        history = self.history(requested)
        if len(history) <= 1:
            return history.start if history else None
        later = int(self.created[history.start:history.stop].searchsorted(_micros(moment), side="right"))
        return history.start + max(later - 1, 0)

    def current_at(self, index: int, moment: datetime) -> bool:
        """Is version ``index`` the one current at ``moment`` (the only kind search ever returns)?"""
        t = _micros(moment)
        return bool(self.created[index] <= t < self.next_created[index])

    def visible_mask(self, actor_id: str, moment: datetime) -> np.ndarray:
        """For each version: is it the current version at ``moment`` and visible to the actor then?

        Each gate input is a small per-subsystem or per-space table looked up by code, not a set test per version.
        """
        n = len(self.docs)
        if self.policy.role_at(actor_id, moment) is None:
            return np.zeros(n, dtype=bool)
        t = _micros(moment)
        readable = self.policy.subsystems_at(actor_id, moment)
        by_role = np.array([s in readable for s in self.subsystems], dtype=bool)[self._subsystem_at]
        part = self.by_participant.get(actor_id)
        if part is not None:
            by_role[part] = True
        member = [self.policy.is_member(s, actor_id, moment) for s in self.spaces]
        mask = np.array(member + [True], dtype=bool)[self._space_at]   # code -1 (no space) picks the last: True
        mask &= by_role
        mask &= self.created <= t
        mask &= self.next_created > t
        if len(self.audience_docs):
            mine = self.by_audience.get(actor_id)
            if mine is None:
                mask &= self.open_to_all
            else:
                allowed = self.open_to_all.copy()
                allowed[mine] = True
                mask &= allowed
        return mask


__all__ = ["Corpus", "IndexedVersion", "Served", "by_person", "next_created", "ranked_codes", "searchable_text"]
