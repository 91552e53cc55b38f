"""The search index's postings: the tokens search matches by, and every term's posting list.

``tokenize`` is the one tokenizer (queries, texts, the scorer's term checks). ``Postings.of_texts`` builds
the posting lists of many texts at once: each block of texts tokenized in one pass over its bytes
(``_block_pairs``) and the (term, document) pairs counted in numpy.
"""

from __future__ import annotations

import re
from itertools import count, islice
from typing import Iterable

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


def _block_pairs(chunk: list[str], terms: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each occurrence of a ``tokenize`` token in the texts ``chunk``: its term id (``terms``'s, new terms added)
    and its text's position in ``chunk`` (two int64 columns, in no particular order).

    A token lies within a run of the bytes it may hold (UTF-8 keeps every other character's bytes above 127), so
    the lower-cased texts, joined by breaks, are encoded, every other byte made a space and split at the spaces
    (all in C); each distinct run is tokenized once (``tokenize``) and its terms repeated for each occurrence.
    """
    joined = " \x00 ".join(chunk)
    if joined.count("\x00") != len(chunk) - 1:      # a text holds a NUL: a space, like any character no token has
        joined = " \x00 ".join(text.replace("\x00", " ") for text in chunk)
    if any(c in joined for c in LOWERED_TO_ASCII):
        encoded = joined.lower().encode()
    else:                # the same bytes, lowered in ASCII only (others become spaces): cheaper than ``str.lower``
        encoded = joined.encode().lower()
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


class Postings:
    """Every term's posting list in one compressed-sparse-row layout: a version column and a count column.

    The versions holding term ``t`` (ascending) are ``docs[offsets[k]:offsets[k + 1]]`` with ``k = terms[t]``,
    and ``tf`` holds how often ``t`` occurs in each; three flat arrays that can be saved and memory-mapped.
    """

    __slots__ = ("terms", "offsets", "docs", "tf")

    def __init__(self, terms: dict[str, int] | KeyTable, offsets: np.ndarray, docs: np.ndarray, tf: np.ndarray) -> None:
        self.terms, self.offsets, self.docs, self.tf = terms, offsets, docs, tf

    @classmethod
    def of_texts(cls, texts: Iterable[str], block: int = 1 << 15) -> tuple[Postings, np.ndarray]:
        """The postings of documents 0, 1, … given as their texts, and each one's token count.

        A text's tokens are ``tokenize``'s (the counts are all the index keeps). Documents are read ``block`` at a
        time, each block tokenized in one pass (``_block_pairs``); each block's (term, document) pairs are counted
        in numpy, and the blocks, each sorted by term, merged by one stable sort (a term's documents stay ascending).
        """
        terms: dict[str, int] = {}
        term_blocks, doc_blocks, tf_blocks, length_blocks = [], [], [], []
        first, source = 0, iter(texts)
        while chunk := list(islice(source, block)):
            ids, docs = _block_pairs(chunk, terms)
            length_blocks.append(np.bincount(docs, minlength=len(chunk)).astype(np.float64))
            pairs, counts = np.unique((ids << 32) | (docs + first), return_counts=True)   # by term, then document
            term_blocks.append((pairs >> 32).astype(np.int32))
            doc_blocks.append((pairs & 0xFFFFFFFF).astype(np.int32))
            tf_blocks.append(counts)
            first += len(chunk)
        term_of = np.concatenate(term_blocks) if term_blocks else np.zeros(0, dtype=np.int32)
        order = np.argsort(term_of, kind="stable")   # runs sorted by term, in document order: merged
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term_of, minlength=len(terms)), out=offsets[1:])
        del term_of
        tf = np.concatenate(tf_blocks)[order] if tf_blocks else np.zeros(0, dtype=np.int64)
        tf_type = np.uint16 if not len(tf) or tf.max() <= np.iinfo(np.uint16).max else np.uint32
        docs_all = np.concatenate(doc_blocks)[order] if doc_blocks else np.zeros(0, dtype=np.int32)
        lengths = np.concatenate(length_blocks) if length_blocks else np.zeros(0, dtype=np.float64)
        return cls(terms, offsets, docs_all, tf.astype(tf_type)), lengths

    def get(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The versions holding ``term`` and its count in each (a view), or None."""
        k = self.terms.get(term)
        if k is None:
            return None
        start, end = int(self.offsets[k]), int(self.offsets[k + 1])
        return self.docs[start:end], self.tf[start:end]

    def __len__(self) -> int:
        return len(self.terms)


__all__ = ["LOWERED_TO_ASCII", "Postings", "tokenize"]
