"""What an id a trace names is in a suite's corpus, worked out once for every verifier of that corpus.

An ``ID@N`` that names a version of ``ID`` names that version at every moment (``Corpus.resolve`` tries it
first), so its index and its ref (the id itself) are kept for every actor and ``as_of``; any other id (a bare
``ID``: its version current at a moment) is resolved again for each moment. A version's ref is read from its
record only when no request spelt it (a bare ``ID`` found), once per version.
"""

from __future__ import annotations

from datetime import datetime

from judges.groundeval.runtime import Corpus

_UNSEEN = -2     # not asked for yet
_MOMENT = -1     # asked for: what it names depends on the moment (a bare ``ID``, or unknown)


class RequestedIds:
    """``resolve`` and ``ref`` for the ids traces request of one corpus (share one across its verifiers)."""

    __slots__ = ("corpus", "_exact", "_refs")

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._exact: dict[str, int] = {}      # requested id -> the version it names at every moment, or _MOMENT
        self._refs: dict[int, str] = {}       # version -> its ref

    def resolve(self, requested: str, moment: datetime) -> int | None:
        """``Corpus.resolve(requested, moment)``: the version ``requested`` names at ``moment``, or None if unknown."""
        known = self._exact.get(requested, _UNSEEN)
        if known >= 0:
            return known
        index = self.corpus.resolve(requested, moment)
        if known == _UNSEEN:
            self._exact[requested] = index if index is not None and self._spells(requested, index) else _MOMENT
        return index

    def _spells(self, requested: str, index: int) -> bool:
        """Is ``requested`` version ``index``'s own ref (``ID@N``: ``index`` is version N of ``ID``)?"""
        head, at, tail = requested.rpartition("@")
        if not at or index not in self.corpus.history(head) or str(int(self.corpus.versions[index])) != tail:
            return False
        self._refs[index] = requested
        return True

    def ref(self, index: int) -> str:
        """Version ``index``'s ref (``ID@N``)."""
        found = self._refs.get(index)
        if found is None:
            found = self._refs[index] = self.corpus.docs[index].ref
        return found


__all__ = ["RequestedIds"]
