"""The persistent response cache, and the hashes that name a request and a cached answer.

Two hashes, both SHA-256 hex:

- ``request_hash(request)`` names *what the judge reads*: every message's role
  and exact content bytes (``str`` content as UTF-8, ``bytes`` as given — the
  server receives the same JSON either way) and the generation parameters
  (temperature, max_tokens, seed, extra). It is written on every line of
  ``judgments.jsonl`` and is what the replay backend looks answers up by.
- ``cache_key(identity, request_hash)`` adds *who answers*: the backend's
  identity (kind, model, and for HTTP backends the base URL, because two
  servers can serve different weights under one model name). To share a cache
  between servers you know to be identical, give them the same base URL.

Nothing that does not change the answer is in either key: concurrency,
retries, timeouts, API keys, the run directory, item ids.

The cache is one SQLite file. Reads are done in bulk before a run starts;
writes come in batches, one transaction per batch of completed judgments.
Errors are never cached.

GroundEval model agents keep their turns in the same file
(``judges.groundeval.turns``: the key is ``cache_key(identity, turn_hash)``),
and also store each key's request hash, so ``replay:CACHE`` can answer a turn
without knowing which backend recorded it (``by_request_hash``). The prose
rewrites of ``simulate --prose`` (``orgbench.prose.store``) are kept here too,
and with them the requests an endpoint refused (an HTTP 4xx, e.g. too long for
its context), since a rerun must fall back exactly where the first run did
(``put_refusal`` / ``refusals``); judges never store a refusal.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Mapping

from judges.backends.base import JudgeRequest, JudgeResponse, Usage
from orgbench.core.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
)
"""

#: Which request hash each key was stored for (written by agents, so ``replay:CACHE`` can look turns up).
_REQUESTS = "CREATE TABLE IF NOT EXISTS request_hashes (key TEXT PRIMARY KEY, request_hash TEXT NOT NULL)"

#: Requests an endpoint refused, with its reason (written by prose rewrites only).
_REFUSALS = "CREATE TABLE IF NOT EXISTS refusals (key TEXT PRIMARY KEY, reason TEXT NOT NULL)"


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def request_hash(request: JudgeRequest) -> str:
    """SHA-256 of the messages' exact bytes and the generation parameters."""
    digest = hashlib.sha256()
    for message in request.messages:
        content = message.content
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        role = message.role.encode("utf-8")
        digest.update(b"%d:%b\x00%d:%b\x00" % (len(role), role, len(data), data))
    digest.update(b"params\x00")
    digest.update(_canonical(request.params.to_json()))
    return digest.hexdigest()


def cache_key(identity: Mapping[str, Any], req_hash: str) -> str:
    """SHA-256 of a backend identity and a request hash: the cache's key."""
    return hashlib.sha256(_canonical(dict(identity)) + b"\x00" + req_hash.encode("ascii")).hexdigest()


def backend_identity(backend: Any) -> dict[str, Any]:
    """The backend's ``identity()`` (its name unless it says more) as a plain dict."""
    return dict(backend.identity())


class ResponseCache:
    """A SQLite-backed map from cache key to the judge's raw response."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            self._db.execute(_REQUESTS)
            self._db.execute(_REFUSALS)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{self.path}: not a usable response cache ({exc})") from None

    def _select(self, columns: str, table: str, keys: Iterable[str]) -> Iterable[tuple[Any, ...]]:
        """``SELECT key, columns FROM table`` for the rows of ``keys`` (500 keys a query)."""
        keys = list(keys)
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            yield from self._db.execute(
                f"SELECT key, {columns} FROM {table} WHERE key IN ({','.join('?' * len(chunk))})", chunk)

    def get_many(self, keys: Iterable[str]) -> dict[str, JudgeResponse]:
        """The cached responses for those of ``keys`` that are present."""
        rows = self._select("text, model, prompt_tokens, completion_tokens", "responses", keys)
        return {key: JudgeResponse(text=text, usage=Usage(prompt, completion), model=model)
                for key, text, model, prompt, completion in rows}

    def get(self, key: str) -> JudgeResponse | None:
        """The cached response for one key, or None."""
        return self.get_many([key]).get(key)

    def put_many(self, entries: Iterable[tuple[str, JudgeResponse]],
                 request_hashes: Mapping[str, str] | None = None) -> int:
        """Store a batch of responses in one transaction (and the request hash of each key given one); how many."""
        rows = [(key, r.text, r.model, r.usage.prompt_tokens, r.usage.completion_tokens) for key, r in entries]
        if not rows:
            return 0
        self._db.execute("BEGIN")
        try:
            self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)", rows)
            self._db.executemany("INSERT OR REPLACE INTO request_hashes VALUES (?, ?)",
                                 sorted((request_hashes or {}).items()))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return len(rows)

    def put_refusal(self, key: str, reason: str) -> None:
        """Store that the endpoint refused the request ``key`` (why, in its words)."""
        self._db.execute("INSERT OR REPLACE INTO refusals VALUES (?, ?)", (key, reason))

    def refusals(self, keys: Iterable[str]) -> dict[str, str]:
        """The stored refusals among ``keys``, by key."""
        return dict(self._select("reason", "refusals", keys))

    def by_request_hash(self) -> dict[str, list[JudgeResponse]]:
        """Every response stored with its request hash, by that hash (several when several backends answered it)."""
        found: dict[str, list[JudgeResponse]] = {}
        rows = self._db.execute(
            "SELECT h.request_hash, r.text, r.model, r.prompt_tokens, r.completion_tokens FROM request_hashes h "
            "JOIN responses r ON r.key = h.key ORDER BY h.request_hash, h.key")
        for req_hash, text, model, prompt, completion in rows:
            found.setdefault(req_hash, []).append(JudgeResponse(text=text, usage=Usage(prompt, completion), model=model))
        return found

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> "ResponseCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
