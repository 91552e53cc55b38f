"""The search index's postings: the tokens search matches by, and every term's posting list.

``tokenize`` is the one tokenizer (queries, texts, the scorer's term checks). ``Postings.of_texts`` builds
the posting lists of many texts at once: each block of texts tokenized in one pass over its bytes
(``_block_pairs``) and the (term, document) pairs counted in numpy.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from itertools import count, islice
from pathlib import Path
from typing import BinaryIO, Iterable

import numpy as np

from judges.groundeval.key_table import KeyTable

_TOKEN = re.compile(r"[a-z0-9]+(?:[-_.:/@][a-z0-9]+)*")
_PART = re.compile(r"[a-z0-9]+")
def tokenize(text: str) -> list[str]:
    """Lower-case tokens; compound tokens (``chg-118``, ``2026-01-05``) also yield their parts."""
    out: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        out.append(token)
        if not token.isalnum():
            out.extend(_PART.findall(token))
    return out


#: Bytes that may be in a token kept, and ``\x00`` (the break between two texts of a block); any other byte made a space.
_TOKEN_BYTES = bytes(b if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789-_.:/@\x00" else 32 for b in range(256))
_BREAK = b"\x00"
#: The characters beyond ASCII whose lower case holds an ASCII letter (İ, the Kelvin sign; ``tests`` check the list).
LOWERED_TO_ASCII = ("\u0130", "\u212a")


#: The same characters in UTF-8, and a byte each holds that few other characters do (``in`` with one byte is cheap).
_LOWERED_UTF8 = tuple(c.encode() for c in LOWERED_TO_ASCII)
_LOWERED_LAST = tuple(c[-1:] for c in _LOWERED_UTF8)


def _block_pairs(chunk: list[bytes], terms: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each occurrence of a ``tokenize`` token in the texts ``chunk`` (UTF-8): its term id (``terms``'s, new terms
    added) and its text's position in ``chunk`` (two int64 columns, in no particular order).

    A token lies within a run of the bytes it may hold (UTF-8 keeps every other character's bytes above 127), so
    the texts, joined by breaks and lower-cased, have every other byte made a space and are split at the spaces
    (all in C); each distinct run is tokenized once (``tokenize``) and its terms repeated for each occurrence.
    """
    joined = b" \x00 ".join(chunk)
    if joined.count(b"\x00") != len(chunk) - 1:      # a text holds a NUL: a space, like any character no token has
        joined = b" \x00 ".join(text.replace(b"\x00", b" ") for text in chunk)
    if any(c in joined for c in _LOWERED_LAST) and any(c in joined for c in _LOWERED_UTF8):
        encoded = joined.decode("utf-8", "surrogatepass").lower().encode("utf-8", "surrogatepass")
    else:                # the same bytes, lowered in ASCII only (others become spaces): cheaper than ``str.lower``
        encoded = joined.lower()
    runs = encoded.translate(_TOKEN_BYTES).split()
    first: dict[bytes, int] = {}
    codes = np.fromiter(map(first.setdefault, runs, count()), dtype=np.int64, count=len(runs))   # a run's first place
    del runs, joined, encoded
    sizes: list[int] = []     # each distinct run's terms (in order of first place): how many, which
    flat: list[int] = []
    term_id = terms.setdefault
    for run in first:
        if run.isalnum():
            sizes.append(1)
            flat.append(term_id(run.decode(), len(terms)))
        elif run == _BREAK:
            sizes.append(0)
        else:
            found = tokenize(run.decode())
            sizes.append(len(found))
            flat.extend([term_id(token, len(terms)) for token in found])
    size = np.zeros(len(codes), dtype=np.int64)    # the same, at each distinct run's first place
    size[np.fromiter(first.values(), dtype=np.int64, count=len(first))] = sizes
    many = size[codes]
    start = (np.cumsum(size) - size)[codes]        # where each occurrence's terms begin in ``flat``
    at = np.repeat(start - np.cumsum(many) + many, many) + np.arange(int(many.sum()), dtype=np.int64)
    doc = np.cumsum(codes == first.get(_BREAK, -1))   # each run's text
    return np.array(flat, dtype=np.int64)[at], np.repeat(doc, many)


def open_npy(path: Path, dtype: type | np.dtype, length: int) -> BinaryIO:
    """A new ``.npy`` file of ``length`` items of ``dtype`` (as ``np.save`` lays it out), open after its header: the
    caller writes the items' bytes."""
    handle = open(path, "wb")
    np.lib.format.write_array_header_1_0(handle, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                                  "fortran_order": False, "shape": (length,)})
    return handle


#: The merged columns' files in a ``spill`` directory; postings merged (and written) at most this many at a time.
SPILLED = ("postings_docs.npy", "postings_tf.npy")
_SLICE = 1 << 22
_RUN = ("terms", "docs", "tf")


#: Bytes of runs kept in memory before the runs held are saved under ``spill`` (a small index is not written twice).
_HELD = 1 << 25


class _Runs:
    """Each block's (term, document, count) columns sorted by term, then document: kept in memory until those held
    pass ``_HELD`` bytes, then saved under ``spill`` (in a subdirectory removed by ``close``); never saved without
    ``spill``."""

    def __init__(self, spill: Path | None) -> None:
        self.spill = spill
        self.where: Path | None = None
        self.held: list[tuple[np.ndarray, ...]] = []     # the runs after the first ``saved`` (which are on disk)
        self.saved = 0
        self.count = 0

    def add(self, *columns: np.ndarray) -> None:
        self.held.append(columns)
        self.count += 1
        if self.spill is not None and sum(column.nbytes for run in self.held for column in run) > _HELD:
            if self.where is None:
                self.where = Path(tempfile.mkdtemp(prefix=".runs-", dir=self.spill))
            for run, held in enumerate(self.held, start=self.saved):
                for name, column in zip(_RUN, held):
                    np.save(self.where / f"{run}-{name}.npy", column, allow_pickle=False)
            self.saved, self.held = self.count, []

    def _slice(self, run: int, low: int, high: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run ``run``'s columns for terms ``low`` to ``high`` (copied: out of their files, no page stays mapped)."""
        if run >= self.saved:
            columns = self.held[run - self.saved]
        else:
            assert self.where is not None
            columns = tuple(np.load(self.where / f"{run}-{name}.npy", mmap_mode="r") for name in _RUN)
        start, end = np.searchsorted(columns[0], [low, high]).tolist()
        terms, docs, tf = (np.array(column[start:end]) for column in columns)
        return terms, docs, tf

    def _merged(self, offsets: np.ndarray, low: int, high: int, tf_type: type) -> tuple[np.ndarray, np.ndarray]:
        """The postings of terms ``low`` to ``high``: each run's pairs put at their term's next free place."""
        base = int(offsets[low])
        docs = np.empty(int(offsets[high]) - base, dtype=np.int32)
        tf: np.ndarray = np.empty(len(docs), dtype=tf_type)
        free = offsets[low:high] - base
        for run in range(self.count):
            terms, run_docs, run_tf = self._slice(run, low, high)
            terms -= low
            many = np.bincount(terms, minlength=high - low)
            at = free[terms] + np.arange(len(terms)) - (np.cumsum(many) - many)[terms]
            docs[at], tf[at] = run_docs, run_tf
            free += many
        return docs, tf

    def merge(self, offsets: np.ndarray, tf_type: type) -> tuple[np.ndarray, np.ndarray]:
        """Every term's postings, documents ascending (runs are in document order): in memory, or written to
        ``SPILLED`` under ``spill`` a slice of terms at a time and returned memory-mapped."""
        n = len(offsets) - 1
        if self.spill is None:
            return self._merged(offsets, 0, n, tf_type)
        cuts = np.searchsorted(offsets, np.arange(_SLICE, int(offsets[-1]), _SLICE), side="right") - 1
        bounds = sorted({0, n, *cuts.tolist()})
        paths = [self.spill / name for name in SPILLED]
        with open_npy(paths[0], np.int32, int(offsets[-1])) as docs_file, \
                open_npy(paths[1], tf_type, int(offsets[-1])) as tf_file:
            for low, high in zip(bounds, bounds[1:]):
                docs, tf = self._merged(offsets, low, high, tf_type)
                docs_file.write(docs.tobytes())
                tf_file.write(tf.tobytes())
        docs_map, tf_map = (np.load(path, mmap_mode="r", allow_pickle=False).view(np.ndarray) for path in paths)
        return docs_map, tf_map

    def close(self) -> None:
        self.held = []
        if self.where is not None:
            shutil.rmtree(self.where, ignore_errors=True)


class Postings:
    """Every term's posting list in one compressed-sparse-row layout: a version column and a count column.

    The versions holding term ``t`` (ascending) are ``docs[offsets[k]:offsets[k + 1]]`` with ``k = terms[t]``,
    and ``tf`` holds how often ``t`` occurs in each; three flat arrays that can be saved and memory-mapped.
    """

    __slots__ = ("terms", "offsets", "docs", "tf")

    def __init__(self, terms: dict[str, int] | KeyTable, offsets: np.ndarray, docs: np.ndarray, tf: np.ndarray) -> None:
        self.terms, self.offsets, self.docs, self.tf = terms, offsets, docs, tf

    @classmethod
    def of_texts(cls, texts: Iterable[str], block: int = 1 << 15,
                 spill: Path | None = None) -> tuple[Postings, np.ndarray]:
        """``of_encoded`` of the texts in UTF-8 (a lone surrogate kept as its bytes: like any character no token has)."""
        return cls.of_encoded((text.encode("utf-8", "surrogatepass") for text in texts), block, spill)

    @classmethod
    def of_encoded(cls, texts: Iterable[bytes], block: int = 1 << 15,
                   spill: Path | None = None) -> tuple[Postings, np.ndarray]:
        """The postings of documents 0, 1, … given as their texts (UTF-8), and each one's token count.

        A text's tokens are ``tokenize``'s (the counts are all the index keeps). Documents are read ``block`` at a
        time, each block tokenized in one pass (``_block_pairs``) and its (term, document) pairs counted in numpy,
        sorted by term (``_Runs``); the blocks' runs are merged by term (a counting sort: each term's place is known
        from its count). ``spill``: a directory where the runs are kept once they pass ``_HELD`` bytes (then removed)
        and the merged columns written (``SPILLED``, returned memory-mapped), a slice of terms at a time: memory holds
        a block and at most ``_HELD`` bytes of runs, not the corpus.
        """
        terms: dict[str, int] = {}
        runs = _Runs(spill)
        lengths: list[np.ndarray] = []
        per_term = np.zeros(0, dtype=np.int64)
        first, most, source = 0, 0, iter(texts)
        try:
            while chunk := list(islice(source, block)):
                ids, docs = _block_pairs(chunk, terms)
                lengths.append(np.bincount(docs, minlength=len(chunk)).astype(np.float64))
                pairs, counts = np.unique((ids << 32) | (docs + first), return_counts=True)   # by term, then document
                term_of = (pairs >> 32).astype(np.int32)
                runs.add(term_of, (pairs & 0xFFFFFFFF).astype(np.int32), counts.astype(np.uint32))
                per_term = np.bincount(term_of, minlength=len(terms)) + np.pad(per_term, (0, len(terms) - len(per_term)))
                most = max(most, int(counts.max(initial=0)))
                first += len(chunk)
            offsets = np.zeros(len(terms) + 1, dtype=np.int64)
            np.cumsum(per_term, out=offsets[1:])
            docs_all, tf = runs.merge(offsets, np.uint16 if most <= np.iinfo(np.uint16).max else np.uint32)
        finally:
            runs.close()
        return cls(terms, offsets, docs_all, tf), np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.float64)

    def get(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The versions holding ``term`` and its count in each (a view), or None."""
        k = self.terms.get(term)
        if k is None:
            return None
        start, end = int(self.offsets[k]), int(self.offsets[k + 1])
        return self.docs[start:end], self.tf[start:end]

    def __len__(self) -> int:
        return len(self.terms)


__all__ = ["LOWERED_TO_ASCII", "SPILLED", "Postings", "open_npy", "tokenize"]
