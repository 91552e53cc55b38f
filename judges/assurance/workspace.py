"""One stage's view of a pipeline workspace: every file read and hashed at most once.

A stage reads its inputs through a ``Workspace`` so that the bytes it verifies
are the bytes it uses, and so that checking 10,000 packets costs one read and
one hash each; given the run's ``ParsedSources``, a pack whose exact bytes
(SHA-256 of the whole file, read from disk by every stage) an earlier stage of
the run already decoded and hashed is not decoded and hashed again. Packet folders are stored as packs (see ``pack``): the path
``build/packets/NAME`` names member ``NAME`` of ``build/packets.pack``, and a
listing shows a pack's members in place of the pack file. Plain files under a
packet folder are listed too (so a stray file is seen); a name that is both a
member and a plain file reads as missing, so neither copy is ever used.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping

from judges.assurance.manifest import Hasher
from judges.assurance.pack import SUFFIX, PackError, decode, write_bytes
from judges.assurance.source import ParsedSources


class Workspace:
    """One stage's view of the workspace: each file read and hashed at most once, packs read whole."""

    def __init__(self, work: Path, hasher: Hasher, parsed: ParsedSources | None = None) -> None:
        self.root = str(work)
        self.hasher = hasher
        self.parsed = parsed                             # the run's: packs decoded and hashed, by their exact bytes
        self.data: dict[str, bytes | None] = {}
        self.digests: dict[str, str | None] = {}
        self.packs: dict[str, dict[str, bytes] | None] = {}
        self.errors: dict[str, str] = {}
        self.plain_dirs: dict[str, bool] = {}
        self.pack_sha256: dict[str, str] = {}            # each pack's SHA-256, of the very bytes its members came from

    def _plain(self, rel: str) -> bytes | None:
        try:
            with open(os.path.join(self.root, rel), "rb") as handle:
                return handle.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def members(self, folder: str) -> dict[str, bytes] | None:
        """The members of ``folder``'s pack (None if there is no pack, or an empty dict if it is damaged)."""
        if folder not in self.packs:
            path = os.path.join(self.root, folder + SUFFIX)
            try:
                with open(path, "rb") as handle:
                    blob = handle.read()
                digest = self.pack_sha256[folder] = hashlib.sha256(blob).hexdigest()
                self.packs[folder] = decode(blob, path) if self.parsed is None else \
                    self.parsed.derived(f"pack:{folder}", digest, "members", lambda: decode(blob, path))
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                self.packs[folder] = None
            except PackError as exc:
                self.errors[folder] = str(exc)
                self.packs[folder] = {}
        return self.packs[folder]

    def read(self, rel: str) -> bytes | None:
        """The file's (or pack member's) bytes, None if missing or ambiguous; read once."""
        if rel not in self.data:
            folder, _, name = rel.rpartition("/")
            members = self.members(folder) if folder else None
            if members is not None and name in members:
                if folder not in self.plain_dirs:
                    self.plain_dirs[folder] = os.path.isdir(os.path.join(self.root, folder))
                shadowed = self.plain_dirs[folder] and os.path.lexists(os.path.join(self.root, rel))
                self.data[rel] = None if shadowed else members[name]
            else:
                self.data[rel] = self._plain(rel)
        return self.data[rel]

    def digest(self, rel: str) -> str | None:
        """The file's hash (None if missing), computed once."""
        if rel not in self.digests:
            data = self.read(rel)
            self.digests[rel] = None if data is None else self._hashed(rel, data)
        return self.digests[rel]

    def _hashed(self, rel: str, data: bytes) -> str:
        """``hasher(data)``; for a pack member, once per the run's packs of the same exact bytes."""
        folder, _, name = rel.rpartition("/")
        if self.parsed is None or folder not in self.pack_sha256 or (self.packs[folder] or {}).get(name) is not data:
            return self.hasher(data)
        known: dict[str, str] = self.parsed.derived(f"pack:{folder}", self.pack_sha256[folder], ("digests", self.hasher),
                                                    dict)
        if name not in known:
            known[name] = self.hasher(data)
        return known[name]

    def listing(self, folder: str) -> list[str]:
        """Relative paths of every file and pack member under ``folder``, sorted."""
        out: set[str] = set()
        folder = folder.rstrip("/")
        members = self.members(folder)
        if members is not None:
            out.update(f"{folder}/{name}" for name in members)
            if folder in self.errors:
                out.add(folder + SUFFIX)                    # a damaged pack is listed as itself: never admitted
        base = os.path.join(self.root, folder)
        for current, dirs, files in os.walk(base):
            prefix = os.path.relpath(current, self.root).replace(os.sep, "/")
            for name in files:
                if name.endswith(SUFFIX):
                    inner = f"{prefix}/{name[:-len(SUFFIX)]}"
                    members = self.members(inner)
                    if members is not None and inner not in self.errors:
                        out.update(f"{inner}/{member}" for member in members)
                        continue
                out.add(f"{prefix}/{name}")
        return sorted(out)

    def products(self, folder: str) -> dict[str, str]:
        """``{path: hash}`` of every file under ``folder``."""
        return {rel: digest for rel in self.listing(folder) if (digest := self.digest(rel)) is not None}

    def changed(self, expected: Mapping[str, str]) -> list[str]:
        """One line per listed file that is missing or no longer hashes as recorded."""
        problems = []
        for rel in sorted(expected):
            digest = self.digest(rel)
            if digest is None:
                problems.append(f"{rel} is missing")
            elif digest != expected[rel]:
                problems.append(f"{rel} changed (sha256 differs from the record)")
        return problems


def write_file(directory: Path, rel: str, data: bytes, *, durable: bool = True) -> None:
    """Write bytes to ``directory/rel`` inside a stage's temporary directory (fsynced when ``durable``)."""
    write_bytes(os.path.join(directory, rel), data, durable=durable)


def sync_directory(path: Path) -> None:
    """fsync a directory, so a rename into it (a stage's output folder) is durable before its record is."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
