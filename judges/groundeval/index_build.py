"""Building a suite's index straight into its directory, in memory bounded by a block of versions, not the world.

``build_index`` writes what ``save_corpus`` would write for the corpus of a world's ``artifacts.jsonl`` (the
same arrays and objects), without holding the file, a record per version or every posting at once:

1. the file is read line by line (``read_jsonl``); each version keeps a few numbers (``_Read``): its id as
   bytes, version, creation, gate codes and persons, where its line lies, and where its searchable text lies in
   a scratch file the texts are appended to;
2. the versions are sorted by artifact id, then version (``np.lexsort`` of the ids' UTF-8 bytes: the order of
   ``sorted`` on ``str``, stable like it) and the columns taken in that order;
3. the texts are read back (as bytes) in that order, a block at a time, into ``Postings.of_encoded``, which spills each
   block's postings and merges them by term into the index's files;
4. the impact order is made from the written postings; the artifacts file is copied into ``versions_text``.

Scratch files live in ``where`` (a staged directory) and are removed before it is renamed into place.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from judges.groundeval import impact
from judges.groundeval.corpus import Corpus, IndexedVersion, by_person, next_created, ranked_codes
from judges.groundeval.impact import ImpactOrder
from judges.groundeval.key_table import KeyTable
from judges.groundeval.postings import SPILLED, Postings, open_npy
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from simulator.policy import AccessPolicy

#: Versions tokenized (and their postings spilled) at a time.
BLOCK = 1 << 14
_TEXTS = ".texts"
_COPY = 1 << 20


@dataclass(frozen=True)
class _Read:
    """Every version's numbers, in file order (persons as (version, person) pairs, person a position in names)."""

    ids: np.ndarray          # UTF-8 bytes
    numbers: np.ndarray      # one row per version: _NUMBERS
    subsystems: list[str | None]
    spaces: list[str | None]
    audience: tuple[np.ndarray, np.ndarray, list[str]]
    participants: tuple[np.ndarray, np.ndarray, list[str]]
    has_audience: np.ndarray


_NUMBERS = ("version", "created", "subsystem", "space", "line_start", "line_end", "text_start", "text_end")


class _Codes(dict[Any, int]):
    """Each key's code: the number of keys before it was first looked up."""

    def __missing__(self, key: Any) -> int:
        code = self[key] = len(self)
        return code


def _pairs(counts: list[int], who: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(version, person) pairs as two columns, from each version's count of persons (in file order) and the persons."""
    return (np.repeat(np.arange(len(counts), dtype=np.int64), counts).astype(np.int64, copy=False),
            np.array(who, dtype=np.int64))


def _read(path: Path, texts: Path) -> _Read:
    """Pass 1: each line's numbers, and its searchable text appended to ``texts`` (UTF-8)."""
    subsystems, spaces, audiences, persons = _Codes(), _Codes(), _Codes(), _Codes()
    ids: list[np.ndarray] = []
    numbers: list[np.ndarray] = []
    keys: list[bytes] = []
    rows: list[int] = []       # _NUMBERS of each version, one after another
    audience_counts: list[int] = []   # each version's count of audience persons (0 with no audience), and
    audience_who: list[int] = []      # the persons, one after another
    person_counts: list[int] = []
    person_who: list[int] = []
    has_audience: list[int] = []
    refused: list[bytes] = []
    written = 0
    of_json = IndexedVersion.of_json
    with open(texts, "wb") as out:
        pending: list[bytes] = []
        for i, line in enumerate(read_jsonl(path)):
            try:
                artifact_id, version, created, subsystem, space, audience, participants, text = of_json(line.value)
                key = artifact_id.encode("utf-8", "surrogatepass")
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise InputError(f"{path}:{line.number}: bad or missing field {exc}") from None
            encoded = text.encode("utf-8", "surrogatepass")
            pending.append(encoded)
            keys.append(key)
            start, end = line.span
            size = written + len(encoded)
            rows += (version, created, subsystems[subsystem], spaces[space], start, end, written, size)
            written = size
            if audience is None:
                audience_counts.append(0)
            else:
                has_audience.append(i)
                audience_counts.append(len(audience))
                audience_who += map(audiences.__getitem__, audience)
            person_counts.append(len(participants))
            person_who += map(persons.__getitem__, participants)
            if len(keys) == BLOCK:
                out.write(b"".join(pending))
                refused.extend(key for key in keys if key.endswith(b"\0"))   # as bytes in numpy: NULs dropped
                ids.append(np.array(keys))
                numbers.append(_numbers(rows, path))
                pending, keys, rows = [], [], []
        out.write(b"".join(pending))
    refused.extend(key for key in keys if key.endswith(b"\0"))
    ids.append(np.array(keys, dtype=None if keys else "S1"))
    numbers.append(_numbers(rows, path))
    all_ids = np.concatenate(ids)
    if refused:
        raise InputError(f"{path}: bad field artifact_id: key {min(refused)!r} ends in a NUL character")
    return _Read(all_ids, np.concatenate(numbers), list(subsystems), list(spaces),
                 (*_pairs(audience_counts, audience_who), list(audiences)),
                 (*_pairs(person_counts, person_who), list(persons)), np.array(has_audience, dtype=np.int64))


def _numbers(rows: list[int], path: Path) -> np.ndarray:
    try:
        return np.array(rows, dtype=np.int64).reshape(-1, len(_NUMBERS))
    except OverflowError as exc:
        raise InputError(f"{path}: bad field version: {exc}") from None


def _persons(docs: np.ndarray, who: np.ndarray, names: list[str], rank: np.ndarray) -> dict[str, np.ndarray]:
    """``by_person`` of pairs given in file order, their versions renumbered to sorted order (``rank``)."""
    sorted_docs = rank[docs]
    order = np.argsort(sorted_docs, kind="stable")     # a version's pairs stay in their order
    return by_person(sorted_docs[order], who[order], names)


def _columns(corpus: Corpus, read: _Read, order: np.ndarray, path: Path) -> None:
    """Set ``corpus``'s columns and tables from the versions ``read``, taken in ``order``."""
    n = len(order)
    ids = read.ids[order]
    first = np.flatnonzero(ids[1:] != ids[:-1]) + 1 if n else np.zeros(0, dtype=np.int64)
    first = np.concatenate(([0], first)) if n else first
    unique = ids[first]        # distinct and sorted as KeyTable keeps its keys (none ends in NUL: refused in _read)
    try:
        unique.tobytes().decode("utf-8")
    except UnicodeDecodeError:         # an id holds a lone surrogate: not a key (KeyTable encodes keys strictly)
        for key in unique.tolist():
            try:
                key.decode("utf-8", "surrogatepass").encode()
            except UnicodeEncodeError as exc:
                raise InputError(f"{path}: bad field artifact_id: {exc}") from None
    corpus.artifact_ids = KeyTable(unique, np.arange(len(unique), dtype=np.int64))
    del ids, unique
    corpus.artifact_first = np.concatenate((first, [n])).astype(np.int64)
    numbers = read.numbers[order]
    corpus.versions, corpus.created = numbers[:, 0].copy(), numbers[:, 1].copy()
    corpus.next_created = next_created(corpus.created, corpus.artifact_first)
    corpus.subsystems, corpus.subsystem_code = ranked_codes(read.subsystems, numbers[:, 2], np.int16)
    corpus.spaces, corpus.space_code = ranked_codes(read.spaces, numbers[:, 3], np.int32)
    del numbers
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    corpus.audience_docs = np.sort(rank[read.has_audience])
    corpus.open_to_all = np.ones(n, dtype=bool)
    corpus.open_to_all[corpus.audience_docs] = False
    corpus.by_audience = _persons(*read.audience, rank)
    corpus.by_participant = _persons(*read.participants, rank)


def _texts_in_order(path: Path, spans: np.ndarray, order: np.ndarray) -> Iterator[bytes]:
    """The texts at ``spans`` of the file ``path``, in ``order``: a block's texts read at once when they lie close
    together (a file already in order), else one by one."""
    fd = os.open(path, os.O_RDONLY)
    try:
        for at in range(0, len(order), BLOCK):
            block = spans[order[at:at + BLOCK]]
            low, high = int(block[:, 0].min()), int(block[:, 1].max())
            if high - low <= 2 * int((block[:, 1] - block[:, 0]).sum()) + (1 << 16):
                data = os.pread(fd, high - low, low)
                for start, end in (block - low).tolist():
                    yield data[start:end]
            else:
                for start, end in block.tolist():
                    yield os.pread(fd, end - start, start)
    finally:
        os.close(fd)


def _copy_text(path: Path, where: Path) -> None:
    """The artifacts file's bytes as the ``versions_text`` array (a ``uint8`` ``.npy``), copied, never held."""
    with open(path, "rb") as source, open_npy(where / "versions_text.npy", np.uint8, os.fstat(source.fileno()).st_size) as out:
        shutil.copyfileobj(source, out, _COPY)


def build_index(path: Path, policy: AccessPolicy, where: Path) -> tuple[Corpus, np.ndarray, tuple[str, ...]]:
    """Write into the directory ``where`` the postings and text of the index of ``path`` (a world's
    ``artifacts.jsonl``); return the corpus (columns in memory, postings mapped, no ``docs``), where each version's
    line starts and ends in the file (sorted order, two columns) and the names of the arrays written."""
    texts = where / _TEXTS
    try:
        read = _read(path, texts)
        order = np.lexsort((read.numbers[:, 0], read.ids))   # by artifact id, then version; stable
        corpus = Corpus.__new__(Corpus)
        corpus.policy = policy
        _columns(corpus, read, order, path)
        corpus.postings, corpus.lengths = Postings.of_encoded(_texts_in_order(texts, read.numbers[:, 6:8], order),
                                                              BLOCK, spill=where)
    finally:
        texts.unlink(missing_ok=True)
    lines = read.numbers[order, 4:6]
    del read, order
    assert isinstance(corpus.postings.terms, dict)
    terms = list(corpus.postings.terms)          # by id: of_encoded numbers the terms 0, 1, … as it meets them
    corpus.postings.terms = KeyTable.numbered(terms)
    long = np.flatnonzero(np.diff(corpus.postings.offsets) >= impact.MIN_DF)   # in at least MIN_DF versions
    names = {k: terms[k] for k in long.tolist()}
    del terms, long
    postings = corpus.postings
    corpus.impact = ImpactOrder.of(names, postings.offsets, postings.docs, postings.tf, corpus.lengths)
    del names
    _copy_text(path, where)
    return corpus, lines, (*(name.removesuffix(".npy") for name in SPILLED), "versions_text")


__all__ = ["BLOCK", "build_index"]
