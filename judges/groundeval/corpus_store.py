"""A suite's search index, built once and kept on disk: what scoring and the runtime load instead of the world.

``open_corpus(suite)`` returns the suite's ``Corpus``. It is built from
``world/artifacts.jsonl`` and ``world/policy.json`` alone (never the event log
or the graph) and saved under ``cache/<key>/``, where the key is the SHA-256
of ``FORMAT_VERSION`` and those two files' SHA-256s; the next call with the same
suite content (any path) loads it instead: the numeric columns, the
postings and the versions (the artifacts file's bytes, with where each
version's line starts and ends) as ``.npy`` files, memory-mapped, so a
version is read and made into a record only when first asked for; the
access policy and the small tables in one pickle. Building streams the file
into that directory (``index_build``: a few numbers per version, postings a
block at a time), never holding the file or making records. A change to either file, or
to the index layout (bump ``FORMAT_VERSION``), gives a new key. The cache is
written into a staged directory and renamed into place, so a half-written
one is never read; one that cannot be read is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence, overload

import numpy as np

from judges.groundeval.impact import ImpactOrder
from judges.groundeval.corpus import Corpus
from judges.groundeval.index_build import build_index
from judges.groundeval.key_table import KeyTable
from judges.groundeval.postings import Postings
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import read_json, sha256_file, staged_directory
from simulator.model import ArtifactVersion
from simulator.policy import AccessPolicy

#: Bump when the saved layout or anything the index is built from (tokenizer, columns) changes.
FORMAT_VERSION = 6
#: Where ``open_corpus`` keeps indexes unless told otherwise (relative to the working directory).
DEFAULT_CACHE = Path("build") / "groundeval-index"
_RECORDS = "records.pickle"


@dataclass(frozen=True)
class ServedWorld:
    """The part of a world the runtime serves: its artifact versions and access policy."""

    artifacts: tuple[ArtifactVersion, ...]
    policy: AccessPolicy


def corpus_key(suite: Path, digests: Mapping[str, str] | None = None) -> str:
    """The cache key of a suite's index: its world's artifacts and policy (their SHA-256s), and the index format.

    ``digests`` (SHA-256 by path in the suite) may give those files' hashes, from a manifest verified just before
    (``manifest_digests``), so they are not hashed twice; a file it does not list is hashed here.
    """
    digest = hashlib.sha256(f"groundeval-index {FORMAT_VERSION}\n".encode())
    for name in ("artifacts.jsonl", "policy.json"):
        path = Path(suite) / "world" / name
        known = digests.get(f"world/{name}") if digests is not None else None
        if known is None:
            if not path.is_file():
                raise InputError(f"{path}: file not found (a GroundEval suite keeps its world under world/)")
            known = sha256_file(path)
        digest.update(f"{name} {known}\n".encode())
    return digest.hexdigest()


def load_served_world(suite: Path) -> ServedWorld:
    """The suite's artifact versions and access policy, read without the event log."""
    world = Path(suite) / "world"
    path = world / "artifacts.jsonl"
    versions = []
    for number, obj in read_jsonl(path).numbered():
        try:
            versions.append(ArtifactVersion.from_json(obj))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"{path}:{number}: bad or missing field {exc}") from None
    return ServedWorld(tuple(versions), _policy(world / "policy.json"))


def open_corpus(suite: Path, cache: Path | None = DEFAULT_CACHE, digests: Mapping[str, str] | None = None) -> Corpus:
    """The suite's index: loaded from ``cache`` when built before, else built and saved there (``None``: not kept).

    ``digests``: the suite's verified file hashes, if known (``corpus_key``)."""
    if cache is None:
        return index_world(suite)
    where = Path(cache) / corpus_key(suite, digests)
    if (where / _RECORDS).is_file():
        try:
            return load_corpus(where)
        except (OSError, ValueError, EOFError, KeyError, pickle.UnpicklingError):
            pass   # unreadable (e.g. written by another numpy): rebuilt below
    try:
        with staged_directory(where) as tmp:
            _build(suite, tmp)
    except OSError:   # a read-only or full disk: built where it is not kept
        return index_world(suite)
    return load_corpus(where)


def index_world(suite: Path) -> Corpus:
    """The index of the suite's ``world/artifacts.jsonl`` and ``policy.json``, read straight from their JSON.

    The same corpus as ``Corpus(load_served_world(suite))``, without making a record of each version: it is built
    as ``open_corpus`` keeps it (``build_index``), in a temporary directory, and loaded from there (its files stay
    mapped after the directory is removed); in memory if no temporary directory will take it.
    """
    try:
        with tempfile.TemporaryDirectory(prefix="groundeval-index-") as tmp:
            _build(suite, Path(tmp))
            return load_corpus(Path(tmp))
    except OSError:   # no disk will take the index (read-only or full): built in memory, as ``Corpus`` builds it
        return Corpus(load_served_world(suite))


def _build(suite: Path, where: Path) -> None:
    """Build the suite's index into the directory ``where``, laid out as ``save_corpus`` lays a corpus out."""
    world = Path(suite) / "world"
    policy = _policy(world / "policy.json")
    corpus, lines, written = build_index(world / "artifacts.jsonl", policy, where)
    corpus.docs = VersionTable(np.zeros(0, dtype=np.uint8), lines[:, 0].copy(), lines[:, 1].copy())
    corpus.derive_lookups()
    _write(corpus, where, skip=written)


def _policy(path: Path) -> AccessPolicy:
    try:
        return AccessPolicy.from_json(read_json(path))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{path}: bad or missing field {exc}") from None


def save_corpus(corpus: Corpus, where: Path) -> None:
    """Write ``corpus`` to the directory ``where`` (staged, then renamed into place)."""
    with staged_directory(Path(where)) as tmp:
        _write(corpus, tmp)


def _write(corpus: Corpus, where: Path, skip: tuple[str, ...] = ()) -> None:
    """Save ``corpus``'s arrays (but those named in ``skip``, already written) and objects into ``where``."""
    arrays, objects = corpus_state(corpus)
    for name, array in arrays.items():
        if name not in skip:
            np.save(where / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
    (where / _RECORDS).write_bytes(pickle.dumps(objects, protocol=pickle.HIGHEST_PROTOCOL))


def load_corpus(where: Path) -> Corpus:
    """A corpus saved by ``save_corpus``; its columns and postings memory-mapped."""
    where = Path(where)
    objects = pickle.loads((where / _RECORDS).read_bytes())
    if objects.get("format") != FORMAT_VERSION:
        raise ValueError(f"{where}: index format {objects.get('format')!r}, expected {FORMAT_VERSION}")
    # plain ndarray views of the mapped files: slicing a np.memmap runs Python code on every slice
    mapped = {name: np.load(where / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in objects["arrays"]}
    arrays = {name: array.view(np.ndarray) for name, array in mapped.items()}
    corpus = corpus_from_state(arrays, objects)
    # the versions' text is read from the file, not through the mapping: each page a read touches would stay mapped
    # (with the pages around it), and the text is most of the index
    corpus.docs = VersionTable(arrays["versions_text"], arrays["versions_starts"], arrays["versions_ends"],
                               (where / "versions_text.npy", int(mapped["versions_text"].offset)))
    return corpus


class VersionTable(Sequence[ArtifactVersion]):
    """The corpus's versions, kept as their JSON text (one mapped byte column) and made into records when first read.

    Scoring reads a few thousand of tens of thousands of versions (the ids calls name), so building every
    record on load would cost more than the scoring itself; at a million versions it would not fit the memory.
    """

    def __init__(self, text: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 source: tuple[Path, int] | None = None) -> None:
        """``source``: the file ``text`` was saved in and where in it ``text`` begins; a version is then read from the
        file (``os.pread``) rather than from ``text``, which is kept only to be saved again."""
        self._text, self._starts, self._ends = text, starts, ends
        self._made: dict[int, ArtifactVersion] = {}
        self._fd, self._offset = -1, 0
        if source is not None and hasattr(os, "pread"):
            self._fd, self._offset = os.open(source[0], os.O_RDONLY), source[1]
            weakref.finalize(self, os.close, self._fd)

    @staticmethod
    def columns(versions: Sequence[ArtifactVersion]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The versions' JSON texts (bytes, end to end) and where each starts and ends."""
        if isinstance(versions, VersionTable):
            return versions._text, versions._starts, versions._ends
        texts = [json.dumps(v.to_json(), ensure_ascii=False, separators=(",", ":")).encode() for v in versions]
        ends = np.cumsum([len(t) for t in texts], dtype=np.int64)
        return np.frombuffer(b"".join(texts), dtype=np.uint8), ends - [len(t) for t in texts], ends

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> ArtifactVersion: ...

    @overload
    def __getitem__(self, index: slice) -> list[ArtifactVersion]: ...

    def __getitem__(self, index: int | slice) -> ArtifactVersion | list[ArtifactVersion]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        made = self._made.get(index)
        if made is None:
            if not 0 <= index < len(self):
                raise IndexError(f"version {index} of {len(self)}")
            start, end = int(self._starts[index]), int(self._ends[index])
            if self._fd < 0:
                text = self._text[start:end].tobytes()
            else:
                text = os.pread(self._fd, end - start, self._offset + start)
            made = self._made[index] = ArtifactVersion.from_json(json.loads(text))
        return made


_COLUMNS = ("created", "next_created", "subsystem_code", "space_code", "audience_docs", "open_to_all", "lengths",
            "versions", "artifact_first")
_TABLES = ("policy", "subsystems", "spaces", "by_audience", "by_participant")


def corpus_state(corpus: Corpus) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The corpus as flat arrays (columns and postings) and the objects that are not arrays."""
    arrays = {name: getattr(corpus, name) for name in _COLUMNS}
    postings = corpus.postings
    arrays.update(postings_offsets=postings.offsets, postings_docs=postings.docs, postings_tf=postings.tf)
    objects = {name: getattr(corpus, name) for name in _TABLES}
    arrays.update(corpus.impact.arrays())
    terms = postings.terms if isinstance(postings.terms, KeyTable) else KeyTable.of(postings.terms.items())
    arrays.update(terms_keys=terms.keys, terms_values=terms.values, artifact_keys=corpus.artifact_ids.keys,
                  artifact_positions=corpus.artifact_ids.values)
    arrays["versions_text"], arrays["versions_starts"], arrays["versions_ends"] = VersionTable.columns(corpus.docs)
    objects.update(format=FORMAT_VERSION, arrays=sorted(arrays), impact_terms=corpus.impact.terms())
    return arrays, objects


def corpus_from_state(arrays: dict[str, np.ndarray], objects: dict[str, Any]) -> Corpus:
    """The corpus ``corpus_state`` described (the derived lookup columns worked out again)."""
    corpus = Corpus.__new__(Corpus)
    for name in _TABLES:
        setattr(corpus, name, objects[name])
    corpus.docs = VersionTable(arrays["versions_text"], arrays["versions_starts"], arrays["versions_ends"])
    for name in _COLUMNS:
        setattr(corpus, name, arrays[name])
    corpus.artifact_ids = KeyTable(arrays["artifact_keys"], arrays["artifact_positions"])
    corpus.postings = Postings(KeyTable(arrays["terms_keys"], arrays["terms_values"]), arrays["postings_offsets"],
                               arrays["postings_docs"], arrays["postings_tf"])
    corpus.impact = ImpactOrder.from_arrays(objects["impact_terms"], arrays)
    corpus.derive_lookups()
    return corpus


__all__ = ["DEFAULT_CACHE", "FORMAT_VERSION", "ServedWorld", "VersionTable", "corpus_key", "index_world", "load_corpus",
           "load_served_world", "open_corpus", "save_corpus"]
