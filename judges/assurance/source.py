"""A source suite read once: the bytes a stage hashes are the bytes it verifies against the manifest and parses.

A stage that hashed ``trajectories.jsonl`` and then reopened it to parse
could parse other bytes than it recorded. ``SourceSnapshot`` reads every file
of the suite folder once; the manifest check, the ``source:*`` materials and
the parsed records all come from those buffers.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from functools import cached_property
from typing import Any, Callable, Hashable, Iterator, Mapping, TypeVar

from benchmark_builders.trajectories.records import (LABELS_FILE, TRAJECTORIES_FILE, StepLabels, Trajectory,
                                                     labels_of, trajectories_of)
from judges.assurance.manifest import Hasher
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import MANIFEST

#: The suite files whose hashes every stage records as ``source:NAME`` materials.
SOURCE_MATERIALS = (TRAJECTORIES_FILE, LABELS_FILE, MANIFEST)
T = TypeVar("T")


class ParsedSources:
    """What one pipeline run parsed, by file and the SHA-256 of the exact bytes parsed: a later stage of the run
    that reads the very same bytes again takes the same (immutable) records instead of parsing them again;
    other bytes are parsed anew. Holds the latest parse of each file only, and what was derived from it
    (``derived``: a trajectory's contract, its rendered packets), dropped with it."""

    def __init__(self) -> None:
        self.latest: dict[str, tuple[str, tuple]] = {}
        self.derivations: dict[str, tuple[str, dict[Hashable, Any]]] = {}

    def get(self, name: str, data: bytes, parse: Callable[[], tuple]) -> tuple:
        """``parse()``'s result for ``data``, parsed once per distinct bytes (a failed parse is not kept)."""
        digest = hashlib.sha256(data).hexdigest()
        held = self.latest.get(name)
        if held is None or held[0] != digest:
            held = self.latest[name] = (digest, parse())
        return held[1]

    def derived(self, name: str, digest: str, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, a pure function of file ``name``'s bytes (SHA-256 ``digest``), once per key and bytes."""
        held = self.derivations.get(name)
        if held is None or held[0] != digest:
            held = self.derivations[name] = (digest, {})
        if key not in held[1]:
            held[1][key] = compute()
        return held[1][key]


@dataclass(frozen=True)
class SourceSnapshot:
    """Every file of a suite folder as read once: ``{relative path: bytes}`` (and the run's parses, if shared)."""

    root: Path
    files: Mapping[str, bytes]
    parsed: ParsedSources | None = field(default=None, compare=False)

    @staticmethod
    def read(root: Path, parsed: ParsedSources | None = None) -> "SourceSnapshot":
        """Read every regular file under ``root`` once (hidden files skipped, as the manifest does); ``parsed``:
        the run's earlier parses, taken where the bytes are the same."""
        root = Path(root)
        files: dict[str, bytes] = {}
        for current, dirs, names in os.walk(root):
            dirs.sort()
            for name in sorted(names):
                if name.startswith("."):
                    continue
                path = Path(current) / name
                if path.is_file():
                    files[path.relative_to(root).as_posix()] = path.read_bytes()
        return SourceSnapshot(root, files, parsed)

    @cached_property
    def _trajectories_sha256(self) -> str:
        return hashlib.sha256(self.files.get(TRAJECTORIES_FILE, b"")).hexdigest()

    def derived(self, kind: str, trajectory_id: str, compute: Callable[[], T]) -> T:
        """``compute()`` -- derived from one trajectory's record alone (``kind``: what it is) -- computed once per
        run for the same exact trajectories bytes (every time without the run's parses)."""
        if self.parsed is None:
            return compute()
        return self.parsed.derived(TRAJECTORIES_FILE, self._trajectories_sha256, (kind, trajectory_id), compute)

    def materials(self, hasher: Hasher) -> dict[str, str]:
        """``{source:NAME: hash}`` of the suite files a stage records."""
        return {f"source:{name}": hasher(self.files[name]) for name in SOURCE_MATERIALS if name in self.files}

    def manifest_problems(self) -> list[str]:
        """One line per file missing, extra or changed against MANIFEST.json (from the same buffers)."""
        if MANIFEST not in self.files:
            return [f"{self.root}: no {MANIFEST}"]
        try:
            listed = json.loads(self.files[MANIFEST]).get("files")
        except (ValueError, AttributeError):
            listed = None
        if not isinstance(listed, dict) or not all(isinstance(e, dict) for e in listed.values()):
            return [f"{self.root / MANIFEST}: field files: expected an object of {{path: {{sha256, bytes}}}}"]
        problems = []
        for rel, entry in sorted(listed.items()):
            if rel not in self.files:
                problems.append(f"{self.root / rel}: listed in {MANIFEST} but missing")
            elif hashlib.sha256(self.files[rel]).hexdigest() != entry.get("sha256"):
                problems.append(f"{self.root / rel}: content differs from {MANIFEST} (sha256 mismatch)")
        problems.extend(f"{self.root / rel}: not listed in {MANIFEST}" for rel in sorted(self.files)
                        if rel != MANIFEST and rel not in listed)
        return problems

    def _objects(self, name: str) -> Iterator[tuple[int, Any]]:
        """(line number, object) of each non-blank line of a JSONL file of the snapshot."""
        path = self.root / name
        if name not in self.files:
            raise InputError(f"{path}: file not found")
        yield from read_jsonl(path, self.files[name], unique_keys=True).numbered()

    def trajectories(self) -> list[Trajectory]:
        """The trajectories parsed from the snapshot's bytes (a duplicate id is bad input)."""
        if self.parsed is not None and TRAJECTORIES_FILE in self.files:
            return list(self.parsed.get(TRAJECTORIES_FILE, self.files[TRAJECTORIES_FILE],
                                        lambda: tuple(self._trajectories())))
        return self._trajectories()

    def _trajectories(self) -> list[Trajectory]:
        return trajectories_of(self._objects(TRAJECTORIES_FILE), self.root / TRAJECTORIES_FILE)

    def labels(self) -> dict[str, StepLabels]:
        """The labels parsed from the snapshot's bytes, by trajectory id (none if the file is absent)."""
        if LABELS_FILE not in self.files:
            return {}
        if self.parsed is not None:
            return dict(self.parsed.get(LABELS_FILE, self.files[LABELS_FILE], lambda: tuple(self._labels().items())))
        return self._labels()

    def _labels(self) -> dict[str, StepLabels]:
        return labels_of(self._objects(LABELS_FILE), self.root / LABELS_FILE, self.trajectories())
