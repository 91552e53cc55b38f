"""Artifact bodies rewritten by a model (``simulate --prose llm:SPEC``), checked, and cached by content.

``ModelRewrite`` is the ``simulator.stream.Rewrite`` hook the front door hands
to ``simulate_to``. For each chunk it builds one request per eligible version
(its kind chosen, within ``--prose-limit``), in the world's order, at
temperature 0 with a fixed seed; looks each up in the response cache
(``orgbench.prose.store``: keyed by the model's identity without its URL and
the request hash, as the judges' cache is); asks the model for the misses (at
most ``concurrency`` in flight) and stores every answer as it arrives; then
keeps a rewrite only if ``orgbench.prose.rules`` accepts it and falls back to the grammar
text otherwise, counted by reason. The cache is the source of truth: a rerun
with every answer cached sends nothing, so the same command reproduces the
world byte for byte with the server stopped. A request the endpoint refuses
(an HTTP 4xx, e.g. too long for its context) is cached as refused; an
endpoint that cannot be reached or keeps failing stops the run with one line
(the world is not written; answers already cached stay).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from judges.backends import BackendError, GenerationParams, JudgeRequest, Message, make_backend
from judges.backends.structured import RequestRefused
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps
from orgbench.prose.rules import REASONS, clean_reply, judge_rewrite, required_values
from orgbench.prose.store import Answer, RewriteStore
from simulator.model import ArtifactVersion

#: Changes whenever the prompt below changes (it is part of every cache key through the messages anyway).
PROMPT_VERSION = 1
#: The kinds rewritten unless --prose-kinds says otherwise: free prose, not records laid out field by field.
DEFAULT_KINDS = ("chat_message", "direct_message", "email", "ticket_comment", "meeting_notes", "customer_request",
                 "customer_email", "customer_reply", "postmortem", "page", "service_page")
SEED = 0
SYSTEM = ("You rewrite one workplace text so that it reads as if a real colleague wrote it: natural, varied, "
          "the same meaning and the same facts. Copy every value listed under KEEP exactly as written. Do not "
          "add any name, id, e-mail address, date or number that is not in the original. Reply with the "
          "rewritten text only.")


def prompt(version: ArtifactVersion) -> tuple[Message, ...]:
    """The chat messages that ask for one version's rewrite."""
    keep = required_values(version.body, version.facts)
    listed = "\n".join(f"- {value}" for value in keep) or "- (nothing)"
    user = f"Kind: {version.kind}\nTitle: {version.title}\nKEEP (copy exactly):\n{listed}\n\nOriginal:\n{version.body}"
    return Message("system", SYSTEM), Message("user", user)


def max_tokens(body: str) -> int:
    """What a rewrite of ``body`` may take: about twice its length in tokens, within 64..1024."""
    return max(64, min(1024, len(body) // 2 + 32))


class ModelRewrite:
    """The ``simulator.stream.Rewrite`` that asks a model (see the module docstring)."""

    def __init__(self, spec: str, backend: Any, cache_dir: Path, *, kinds: Sequence[str] | None,
                 limit: int | None, concurrency: int) -> None:
        self.spec, self.backend = spec, backend
        self.kinds = None if kinds is None else frozenset(kinds)
        self.limit, self.concurrency = limit, max(1, concurrency)
        identity = backend.identity()
        self.identity = {k: v for k, v in identity.items() if k != "base_url"}  # a rerun may use another port
        self.cache = RewriteStore(cache_dir, self.identity)
        self.eligible = self.rewritten = self.requested = self.cached = 0
        self.seconds = 0.0          # spent rewriting (asking, reading the cache, checking): for the summary only
        self.fallback = dict.fromkeys(REASONS, 0)
        self._digest = hashlib.sha256()
        self._loop = asyncio.new_event_loop()

    def wants(self, version: ArtifactVersion) -> bool:
        """Whether this version is to be rewritten (its kind chosen, the limit not reached, a body to rewrite)."""
        if self.kinds is not None and version.kind not in self.kinds or not version.body.strip():
            return False
        return self.limit is None or self.eligible < self.limit

    def __call__(self, versions: Sequence[ArtifactVersion]) -> list[str]:
        """One body per version: the model's rewrite where it is kept, the grammar text otherwise."""
        started = time.perf_counter()
        try:
            return self._bodies(versions)
        finally:
            self.seconds += time.perf_counter() - started

    def _bodies(self, versions: Sequence[ArtifactVersion]) -> list[str]:
        chosen: list[tuple[int, str]] = []          # (position, request key)
        requests: dict[str, JudgeRequest] = {}
        for position, version in enumerate(versions):
            if not self.wants(version):
                continue
            self.eligible += 1
            request = self.backend.prepare(JudgeRequest(prompt(version), GenerationParams(
                temperature=0.0, max_tokens=max_tokens(version.body), seed=SEED)))
            key = self.cache.key(request)
            chosen.append((position, key))
            requests.setdefault(key, request)
        entries = self.cache.get_many(requests)
        missing = [key for key in requests if key not in entries]
        self.cached += len(entries)
        if missing:
            entries.update(self._loop.run_until_complete(self._ask(missing, requests)))
        bodies = [v.body for v in versions]
        for position, key in chosen:
            bodies[position] = self._judged(versions[position], entries[key], key)
        return bodies

    def _judged(self, version: ArtifactVersion, entry: Answer, key: str) -> str:
        self._digest.update(f"{key} {hashlib.sha256(dumps(entry.to_json()).encode()).hexdigest()}\n".encode())
        if entry.refused is not None:
            self.fallback["refused"] += 1
            return version.body
        reply = clean_reply(entry.reply or "")
        verdict = judge_rewrite(version.body, version.facts, reply)
        if not verdict.kept:
            self.fallback[verdict.reason] += 1
            return version.body
        self.rewritten += 1
        return reply

    async def _ask(self, keys: list[str], requests: Mapping[str, JudgeRequest]) -> dict[str, Answer]:
        gate = asyncio.Semaphore(self.concurrency)

        async def one(key: str) -> Answer:
            refused: str | None = None
            async with gate:
                try:
                    response = await self.backend.complete(requests[key])
                except RequestRefused as exc:
                    response, refused = None, str(exc)
            self.requested += 1
            self.cache.put(key, response, refused)
            return Answer(refused=refused) if response is None else Answer(reply=response.text)

        self.backend.ensure_pool(self.concurrency)
        results = await asyncio.gather(*(one(key) for key in keys), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                if isinstance(result, (BackendError, OSError)):
                    raise InputError(f"--prose llm:{self.spec}: {result} (answers so far are cached in "
                                     f"{self.cache.directory}; the world was not written)") from None
                raise result
        return dict(zip(keys, results))  # type: ignore[arg-type]

    def record(self) -> dict[str, Any]:
        """world.json's ``prose``: who rewrote, with which prompt, and how many rewrites were kept or not (why)."""
        return {"by": f"llm:{self.spec}", "model": self.identity, "prompt_version": PROMPT_VERSION,
                "kinds": sorted(self.kinds) if self.kinds is not None else "all", "limit": self.limit,
                "eligible": self.eligible, "rewritten": self.rewritten, "fallback": dict(self.fallback),
                "answers_sha256": self._digest.hexdigest()}

    def binding(self) -> dict[str, Any]:
        """What binds the world directory to these prose options (``orgbench.outdir``)."""
        return {"by": f"llm:{self.spec}", "kinds": self.record()["kinds"], "limit": self.limit,
                "prompt_version": PROMPT_VERSION}

    def summary(self) -> str:
        """The line the command prints: kept, fallbacks by reason, requests sent and answers read from the cache."""
        reasons = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in self.fallback.items() if n) or "none"
        return (f"prose: {self.rewritten} of {self.eligible} versions rewritten by llm:{self.spec}; "
                f"{self.eligible - self.rewritten} kept the grammar text ({reasons}); {self.requested} requests "
                f"sent, {self.cached} answers from the cache {self.cache.directory}; {self.seconds:.1f} s")

    def close(self) -> None:
        """Close the backend (a local: server stops), the event loop and the cache file."""
        try:
            self._loop.run_until_complete(self.backend.aclose())
        finally:
            self._loop.close()
            self.cache.close()


def parse_prose(value: str) -> str | None:
    """The backend spec of ``--prose llm:SPEC`` (None for ``grammar``); InputError for anything else."""
    if value == "grammar":
        return None
    kind, _, spec = value.partition(":")
    if kind != "llm" or not spec.strip():
        raise InputError(f"--prose {value!r}: expected grammar or llm:SPEC, e.g. llm:local:smollm2 or "
                         f"llm:openai:MODEL with --base-url")
    return spec.strip()


def parse_kinds(value: str | None) -> tuple[str, ...] | None:
    """``--prose-kinds``: a comma-separated list, ``all`` (None), or the default prose kinds when not given."""
    if value is None:
        return DEFAULT_KINDS
    if value.strip() == "all":
        return None
    kinds = tuple(dict.fromkeys(k.strip() for k in value.split(",") if k.strip()))
    if not kinds:
        raise InputError(f"--prose-kinds {value!r}: expected kinds separated by commas, or all")
    return kinds


def default_cache(out: Path) -> Path:
    """Where the cache goes unless --prose-cache says: beside the world, ``OUT.prose_cache``."""
    return Path(out).parent / f"{Path(out).name}.prose_cache"


def open_rewrite(out: Path, prose: str, *, base_url: str | None, cache_dir: Path | None, kinds: str | None,
                 limit: int | None, concurrency: int, timeout: float) -> ModelRewrite | None:
    """The rewrite hook for ``simulate --prose`` (None for grammar); InputError for unusable options."""
    spec = parse_prose(prose)
    if spec is None:
        given = [name for name, v in (("--base-url", base_url), ("--prose-cache", cache_dir),
                                      ("--prose-kinds", kinds), ("--prose-limit", limit)) if v is not None]
        if given:
            raise InputError(f"{given[0]}: needs --prose llm:SPEC")
        return None
    cache = Path(cache_dir) if cache_dir is not None else default_cache(out)
    world = Path(out).resolve()
    if cache.resolve() == world or world in cache.resolve().parents:
        raise InputError(f"--prose-cache {cache}: inside the world directory {out}, which is replaced when "
                         f"written; choose a directory beside it")
    if cache.exists() and not cache.is_dir():
        raise InputError(f"--prose-cache {cache}: exists and is not a directory")
    backend = make_backend(spec, base_url=base_url, timeout=timeout, structured="off", concurrency=concurrency,
                           slots=concurrency, api_key_env="OPENAI_API_KEY")
    return ModelRewrite(spec, backend, cache, kinds=parse_kinds(kinds), limit=limit, concurrency=concurrency)
