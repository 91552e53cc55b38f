"""The recording stub: a judge that logs the SHA-256 of every byte string it receives.

It stands where the judge would, so a test or study knows byte for byte what
reached the point of use. It answers a fixed, parseable verdict. When told
which hashes to expect (control P2 and above), it re-checks each packet at
read time and refuses -- without answering -- any bytes it was not promised.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from judges.backends.base import BackendError, JudgeBackend, JudgeRequest, JudgeResponse
from judges.backends.registry import Backend
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps

@dataclass(frozen=True, slots=True)
class Read:
    """One byte string the stub received: its hash, size, and whether it was accepted."""

    sha256: str
    size: int
    accepted: bool
    reason: str = ""

    def to_json(self) -> dict:
        """The read as a log line."""
        return {"sha256": self.sha256, "bytes": self.size, "accepted": self.accepted, "reason": self.reason}


class RecordingStub(JudgeBackend):
    """A JudgeBackend that records every byte-string message content it is handed."""

    name = "stub"
    #: What it answers every request it accepts.
    verdict = '{"dimensions": {}, "claims": [], "verdict": "cannot_decide"}'

    def __init__(self, log_path: Path | None = None, expected: Iterable[str] | None = None) -> None:
        self.log_path = Path(log_path) if log_path else None
        self.expected: frozenset[str] | None = frozenset(expected) if expected is not None else None
        self.check_hash = lambda data: hashlib.sha256(data).hexdigest()
        self.reads: list[Read] = []
        self.received: list[bytes] = []

    def expect(self, hashes: Iterable[str], hasher: Callable[[bytes], str] | None = None) -> None:
        """Accept at read time only bytes whose hash (exact SHA-256 unless ``hasher``) is among ``hashes``."""
        self.expected = frozenset(hashes)
        if hasher is not None:
            self.check_hash = hasher

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Hash every bytes content, refuse unexpected ones when checking, else answer the fixed verdict."""
        refused = ""
        reads = []
        for message in request.messages:
            if not isinstance(message.content, bytes):
                continue
            digest = hashlib.sha256(message.content).hexdigest()
            ok = self.expected is None or self.check_hash(message.content) in self.expected
            reads.append(Read(digest, len(message.content), ok, "" if ok else "hash not expected at read time"))
            self.received.append(message.content)
            if not ok:
                refused = digest
        self.reads.extend(reads)
        if self.log_path is not None and reads:
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write("".join(dumps(read.to_json()) + "\n" for read in reads))
        if refused:
            raise BackendError(f"stub refused bytes with sha256 {refused}: not among the hashes checked before use")
        return JudgeResponse(self.verdict, model="stub")

    @property
    def accepted_hashes(self) -> list[str]:
        """Hashes of every byte string the stub accepted, in order."""
        return [r.sha256 for r in self.reads if r.accepted]


def from_spec(spec: str) -> RecordingStub:
    """``stub`` or ``stub:LOG.jsonl`` (append each read to that log)."""
    _, _, path = spec.partition(":")
    if path:
        log = Path(path)
        if log.is_dir() or not log.parent.is_dir():
            raise InputError(f"judge spec {spec!r}: {log} cannot be a log file (a directory, or not in one)")
    return RecordingStub(Path(path) if path else None)


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="stub", roles=("judge",), builtin=True, studies=("assurance",), usage="stub[:LOG]",
                  summary="the recording stub: records what reached the judge, answers a fixed verdict")


def make(wanted) -> RecordingStub:
    """The registry's factory for ``stub`` / ``stub:LOG.jsonl``."""
    return from_spec(wanted.spec)
