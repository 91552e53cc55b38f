"""The dispatch journal's signatures: seals, each signing the SHA-256 of a batch of journal lines.

A signed chain's dispatch journal (``journal/dispatch.jsonl``) is sealed in a
file beside it (``dispatch.seals.jsonl``): one line per batch of answers, the
sorted SHA-256 digests of the batch's journal lines (their exact text) and an
ed25519 signature by the chain's key over the journal's header and those
digests. A batch is sealed once it holds ``SEAL_ROWS`` lines or its oldest
line is ``SEAL_SECONDS`` old, and when the journal closes, so one signature
covers many answers and a killed run loses at most the unsealed tail.

A line is vouched for when its digest is in a seal that verifies against the
trusted key: editing a line changes its digest, a planted line has none, and
a seal made for another run (another header) or with another key does not
verify. Lines may be reordered or dropped (the journal is sorted when it
finishes, and a failed answer is left out on resume); each is judged alone.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from securesystemslib.signer import Signature

from judges.assurance.intoto import ChainKey
from judges.assurance.trust import Trust
from judges.journal import Appender
from orgbench.core.storage import dumps, loads_json, write_text_atomic

SEAL_ROWS = 256
SEAL_SECONDS = 1.0


def seals_path(journal: Path) -> Path:
    """Where a journal's seals are kept: beside it, ``NAME.seals.jsonl``."""
    return journal.with_name(journal.stem + ".seals.jsonl")


def line_digest(text: str) -> str:
    """The SHA-256 of one journal line's exact text (no newline)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def journal_lines(text: str) -> list[str]:
    """A journal's whole lines: split at ``\n`` only, a last line without its newline (torn by a kill) left out."""
    return text.split("\n")[:-1]


def _payload(header: Mapping[str, Any], digests: list[str]) -> bytes:
    return dumps({"header": dict(header), "rows": digests}).encode("utf-8")


def _seal_line(key: ChainKey, header: Mapping[str, Any], digests: list[str]) -> str:
    """One seal: the batch's digests, sorted, and the key's signature over the header and them."""
    rows = sorted(digests)
    return dumps({"rows": rows, "signature": key.signer.sign(_payload(header, rows)).signature}) + "\n"


class SealingAppender:
    """A journal appender whose lines are sealed in batches (see the module docstring)."""

    def __init__(self, inner: Appender, key: ChainKey, header: Mapping[str, Any], path: Path) -> None:
        self.inner, self.key, self.header = inner, key, dict(header)
        self.handle = open(path, "a", encoding="utf-8")
        self.pending: list[str] = []
        self.since = 0.0

    def add(self, row: Mapping[str, Any], *, flush: bool = False) -> None:
        """Append one row; once its batch is full or old enough, write the rows and then their seal."""
        if not self.pending:
            self.since = time.monotonic()
        line = dumps(dict(row))                 # one serialisation: the line sealed is the line written
        self.pending.append(line_digest(line))
        self.inner.add_line(line, flush=flush)
        if len(self.pending) >= SEAL_ROWS or time.monotonic() - self.since >= SEAL_SECONDS:
            self.seal()

    def seal(self) -> None:
        """Write the buffered rows, then one signed seal over them."""
        self.inner.flush()
        if not self.pending:
            return
        digests, self.pending = self.pending, []
        self.handle.write(_seal_line(self.key, self.header, digests))
        self.handle.flush()

    def close(self) -> None:
        """Seal what is left and close both files."""
        try:
            self.seal()
        finally:
            self.handle.close()
            self.inner.close()


@dataclass(frozen=True)
class JournalCheck:
    """What a signed journal vouches for: why it is refused whole ('' if it is not), and its lines no seal covers."""

    problem: str = ""
    unsealed: tuple[str, ...] = ()


def check_journal(path: Path, trust: Trust, header: Mapping[str, Any]) -> JournalCheck:
    """Check the journal at ``path`` against its seals: refused whole when its header is not this run's or a seal
    does not verify against the trusted key; otherwise the lines that no seal covers (never to be resumed from)."""
    try:                   # lines end at "\n" only (an answer may hold U+2028); a torn last line is no answer
        lines = [line for line in journal_lines(Path(path).read_text("utf-8")) if line.strip()]
    except (OSError, ValueError) as exc:
        return JournalCheck(f"{path}: unreadable ({exc})")
    return _check_lines(path, lines, trust, header)


def _check_lines(path: Path, lines: list[str], trust: Trust, header: Mapping[str, Any]) -> JournalCheck:
    try:
        head = loads_json(lines[0]) if lines else None
    except ValueError as exc:
        return JournalCheck(f"{path}: unreadable ({exc})")
    if head != loads_json(dumps(dict(header))):
        return JournalCheck(f"{path}: its header is not this run's")
    sealed: set[str] = set()
    where = seals_path(Path(path))
    try:
        seals = journal_lines(where.read_text("utf-8")) if where.is_file() else []      # a torn last seal: none
    except (OSError, ValueError) as exc:
        return JournalCheck(f"{where}: unreadable ({exc})")
    for number, text in enumerate(seals, 1):
        try:
            seal = loads_json(text)
            digests, signature = seal["rows"], seal["signature"]
            trust.public.verify_signature(Signature(trust.public.keyid, signature), _payload(header, digests))
        except Exception:                             # unparsable, or securesystemslib's UnverifiedSignatureError
            return JournalCheck(f"{where}:{number}: does not verify against the trusted key")
        sealed.update(digests)
    return JournalCheck(unsealed=tuple(line for line in lines[1:] if line_digest(line) not in sealed))


def reseal(path: Path, key: ChainKey, header: Mapping[str, Any]) -> None:
    """Seal the finished journal at ``path`` again in its final order, ``SEAL_ROWS`` lines a seal (atomically), but
    only when its present seals vouch for every line of the very text read: a line edited since it was sealed is
    never vouched for anew, and is left for the next check to set aside."""
    try:
        lines = [line for line in journal_lines(Path(path).read_text("utf-8")) if line.strip()]
    except (OSError, ValueError):
        return
    if _check_lines(path, lines, key.trust, header) != JournalCheck():
        return
    digests = [line_digest(line) for line in lines[1:]]
    write_text_atomic(seals_path(Path(path)), "".join(
        _seal_line(key, header, digests[i:i + SEAL_ROWS]) for i in range(0, len(digests), SEAL_ROWS)))
