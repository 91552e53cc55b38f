"""One stage's view of a pipeline workspace: every file read and hashed at most once.

A stage reads its inputs through a ``Workspace`` so that the bytes it verifies
are the bytes it uses, and so that checking 10,000 packets costs one read and
one hash each.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from judges.assurance.manifest import Hasher


class Workspace:
    """One stage's view of the workspace: each file read and hashed at most once, listed with os.scandir."""

    def __init__(self, work: Path, hasher: Hasher) -> None:
        self.root = str(work)
        self.hasher = hasher
        self.data: dict[str, bytes | None] = {}
        self.digests: dict[str, str | None] = {}

    def read(self, rel: str) -> bytes | None:
        """The file's bytes (None if missing), read once."""
        if rel not in self.data:
            try:
                with open(os.path.join(self.root, rel), "rb") as handle:
                    self.data[rel] = handle.read()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                self.data[rel] = None
        return self.data[rel]

    def digest(self, rel: str) -> str | None:
        """The file's hash (None if missing), computed once."""
        if rel not in self.digests:
            data = self.read(rel)
            self.digests[rel] = None if data is None else self.hasher(data)
        return self.digests[rel]

    def listing(self, folder: str) -> list[str]:
        """Relative paths of every file under ``folder``, sorted."""
        out = []
        base = os.path.join(self.root, folder)
        for current, dirs, files in os.walk(base):
            dirs.sort()
            prefix = os.path.relpath(current, self.root).replace(os.sep, "/")
            out.extend(f"{prefix}/{name}" for name in files)
        return sorted(out)

    def products(self, folder: str) -> dict[str, str]:
        """``{path: hash}`` of every file under ``folder``."""
        return {rel: self.digest(rel) for rel in self.listing(folder)}

    def wrote(self, rel: str, data: bytes) -> None:
        """Remember bytes this stage just wrote, so its products need no second read."""
        self.data[rel] = data
        self.digests.pop(rel, None)

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


def write_file(directory: Path, rel: str, data: bytes) -> None:
    """Write bytes to ``directory/rel`` (inside a stage's temporary directory; the directory rename is atomic)."""
    with open(os.path.join(directory, rel), "wb") as handle:
        handle.write(data)
