"""Where model rewrites are kept: the judges' response cache (``judges.cache``) in a directory beside the world.

A rewrite is stored as any judge answer is: under ``cache_key(identity,
request_hash(request))``, the model's identity taken without its URL (a rerun
may use another port), in ``DIR/responses.sqlite``; a request the endpoint
refused is stored as refused. The file is opened only once there is something
to read or write, so a run that got no answer leaves no cache behind. A
directory written before rewrites moved into the response cache (one JSON file
per answer, ``DIR/ab/<sha256>.json``) is still read: an answer missing from the
SQLite file is looked up there under the key that layout used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from judges.backends.base import JudgeRequest, JudgeResponse
from judges.cache import ResponseCache, cache_key, request_hash
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps

CACHE_FILE = "responses.sqlite"


@dataclass(frozen=True, slots=True)
class Answer:
    """What the model gave for one request: its reply, or why the endpoint refused it."""

    reply: str | None = None
    refused: str | None = None

    def to_json(self) -> dict[str, str]:
        """The answer as the digest in world.json's ``prose`` covers it."""
        return {"refused": self.refused} if self.refused is not None else {"reply": self.reply or ""}


def rewrite_key(identity: Mapping[str, Any], request: JudgeRequest) -> str:
    """The response-cache key of a rewrite request (``judges.cache.cache_key`` of identity and request hash)."""
    return cache_key(identity, request_hash(request))


def _legacy_key(identity: Mapping[str, Any], request: JudgeRequest) -> str:
    """The key the one-file-per-answer layout stored a request under (read only)."""
    material = {"model": dict(identity), "messages": [[m.role, m.text()] for m in request.messages],
                "params": request.params.to_json()}
    return hashlib.sha256(dumps(material).encode("utf-8")).hexdigest()


class RewriteStore:
    """Model rewrites by request, kept in ``directory`` (see the module docstring)."""

    def __init__(self, directory: Path, identity: Mapping[str, Any]) -> None:
        self.directory = Path(directory)
        self.identity = dict(identity)
        self._cache: ResponseCache | None = None

    def _opened(self, create: bool) -> ResponseCache | None:
        if self._cache is None and (create or (self.directory / CACHE_FILE).exists()):
            self._cache = ResponseCache(self.directory / CACHE_FILE)
        return self._cache

    def key(self, request: JudgeRequest) -> str:
        """The key of ``request`` in this store."""
        return rewrite_key(self.identity, request)

    def get_many(self, requests: Mapping[str, JudgeRequest]) -> dict[str, Answer]:
        """The stored answers among ``requests`` (by key)."""
        cache = self._opened(create=False)
        found: dict[str, Answer] = {}
        if cache is not None:
            found.update((key, Answer(refused=reason)) for key, reason in cache.refusals(requests).items())
            found.update((key, Answer(reply=r.text)) for key, r in cache.get_many(requests).items())
        for key in sorted(set(requests) - set(found)):
            legacy = self._legacy(requests[key])
            if legacy is not None:
                found[key] = legacy
        return found

    def _legacy(self, request: JudgeRequest) -> Answer | None:
        """The answer the one-file-per-answer layout holds for ``request`` (None if absent)."""
        key = _legacy_key(self.identity, request)
        path = self.directory / key[:2] / f"{key}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not a prose cache entry ({exc}); delete it to ask again") from None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("reply", ""), str):
            raise InputError(f"{path}: field key/reply: not a prose cache entry for {key}; delete it to ask again")
        return Answer(refused=str(entry["refused"])) if "refused" in entry else Answer(reply=entry.get("reply", ""))

    def put(self, key: str, response: JudgeResponse | None, refused: str | None = None) -> None:
        """Store one answer as it arrives (its own transaction: a killed run keeps every answer stored before)."""
        cache = self._opened(create=True)
        assert cache is not None
        if response is not None:
            cache.put_many([(key, response)])
        else:
            cache.put_refusal(key, refused or "refused")

    def close(self) -> None:
        """Close the cache file (if it was opened)."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

