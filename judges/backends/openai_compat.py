"""The OpenAI-compatible chat-completions client (aiohttp) and the ``openai:MODEL`` judge backend.

``ChatClient`` owns one ``aiohttp.ClientSession`` with a connection pool sized
to the concurrency, and POSTs to ``{base_url}/chat/completions``. Its retry
policy:

- 408, 429 and 5xx, timeouts, dropped connections and 200 answers whose body is not
  a chat completion are retried up to ``max_retries`` times, waiting the
  server's ``Retry-After`` (seconds or an HTTP date) when it sends one, else
  exponential backoff with full jitter (``uniform(0, min(cap, base·2^attempt))``);
- 401 / 403 (key refused) and 404 (no endpoint there / unknown model) fail at
  once with :class:`FatalBackendError`, as does an endpoint still unreachable
  after the retries — the runner stops the run on these;
- other 4xx (e.g. a request too long for the model) fail that request only.

The API key comes from an environment variable (``OPENAI_API_KEY`` by default);
an absent key is fine for local servers. ``ChatClient.chat`` is the lower-level
entry for agents with function calling; ``OpenAICompatBackend`` wraps it as a
JudgeBackend and an AgentBackend (``turn``), made by ``make`` from the registry's spec.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import time
import urllib.parse
from typing import Any, Mapping, Sequence

import aiohttp

from judges.backends import FatalBackendError, apply_generation_options
from judges.backends.base import (
    AgentBackend, AgentTurn, BackendError, GenerationParams, JudgeBackend, JudgeRequest, JudgeResponse, Usage,
)
from judges.backends.pacing import OK, OTHER, OVERLOAD, Pacer
from judges.backends.structured import OFF, RequestRefused, check_mode, negotiate, with_response_format
from judges.backends.registry import Backend
from judges.verdict_schema import verdict_schema
from orgbench.core.errors import InputError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_AFTER_CAP = 300.0


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None if absent or invalid."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


def _params_body(params: GenerationParams | Mapping[str, Any] | None) -> dict[str, Any]:
    if params is None:
        return {}
    if isinstance(params, GenerationParams):
        body: dict[str, Any] = {"temperature": params.temperature}
        if params.max_tokens is not None:
            body["max_tokens"] = params.max_tokens
        if params.seed is not None:
            body["seed"] = params.seed
        body.update(params.extra)
        return body
    return dict(params)


def _snippet(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").strip().replace("\n", " ")
    try:
        obj = json.loads(text)
        error = obj.get("error") if isinstance(obj, dict) else None
        if isinstance(error, dict) and error.get("message"):
            text = str(error["message"])
        elif isinstance(error, str):
            text = error
    except ValueError:
        pass
    return text[:200]


def _check_base_url(url: str, source: str) -> None:
    """InputError naming ``source`` unless ``url`` is an http(s) URL with a host."""
    try:
        parts = urllib.parse.urlsplit(url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:          # a malformed host or port
        usable = False
    if not usable:
        raise InputError(f"{source}: {url!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")


class ChatClient:
    """An async chat-completions client for one endpoint and model, with retries and a shared pool."""

    def __init__(
        self,
        base_url: str | None,
        model: str,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 5,
        pool_size: int = 64,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
        slot_urls: Sequence[str] = (),
        pacer: Pacer | None = None,
    ) -> None:
        given = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        _check_base_url(given, "--base-url" if base_url else "$OPENAI_BASE_URL")
        self.base_url = given.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        # further servers of the same model (a local server's other slots): each attempt goes to the least busy
        self.urls = [self.url] + [u.rstrip("/") + "/chat/completions" for u in slot_urls]
        self._busy = dict.fromkeys(self.urls, 0)
        self.pacer = pacer or Pacer(pool_size)
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.pool_size = max(1, int(pool_size))
        self.backoff_base = float(backoff_base)
        self.backoff_cap = float(backoff_cap)
        key = os.environ.get(api_key_env) if api_key_env else None
        self._headers = {"Content-Type": "application/json", "User-Agent": "orgbench"}
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        self._has_key = bool(key)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._jitter = random.Random()
        self.requests_sent = 0

    def ensure_pool(self, size: int) -> None:
        """Grow the pool to at least ``size`` (on the next session) and make ``size`` the pacer's ceiling."""
        self.pool_size = max(self.pool_size, int(size))
        self.pacer.set_ceiling(size)

    def _get_session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            connector = aiohttp.TCPConnector(limit=self.pool_size, limit_per_host=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector,
                # the timeout bounds connecting and waiting for the answer, not queueing for a pooled connection
                timeout=aiohttp.ClientTimeout(total=None, connect=None, sock_connect=self.timeout,
                                              sock_read=self.timeout),
                headers=self._headers,
            )
            self._loop = loop
        return self._session

    async def aclose(self) -> None:
        """Close the session and its connections (the client stays usable: a new session opens on demand)."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            if self._loop is asyncio.get_running_loop():
                await session.close()

    def _backoff(self, attempt: int) -> float:
        return self._jitter.uniform(0.0, min(self.backoff_cap, self.backoff_base * (2 ** attempt)))

    def _key_message(self, status: int, raw: bytes) -> str:
        where = f"${self.api_key_env}" if self.api_key_env else "the API key"
        state = "was refused" if self._has_key else "is not set"
        return f"{self.url}: HTTP {status} ({_snippet(raw)}): the API key in {where} {state}"

    def _answer(self, url: str, status: int, raw: bytes) -> dict[str, Any] | str:
        """The decoded completion of a 200, or the problem to retry on; raises for answers not worth retrying."""
        if status == 200:
            try:
                data = json.loads(raw)
                data["choices"][0]["message"]
                return data
            except (ValueError, KeyError, IndexError, TypeError):
                return f"malformed chat completion ({_snippet(raw)[:80]!r})"
        if status in (401, 403):
            raise FatalBackendError(self._key_message(status, raw))
        if status == 404:
            raise FatalBackendError(
                f"{url}: HTTP 404 ({_snippet(raw)}): no chat-completions endpoint there, "
                f"or the server does not know model {self.model!r}")
        if status in (408, 429) or status >= 500:
            return f"HTTP {status} ({_snippet(raw)})"
        raise RequestRefused(f"{url}: HTTP {status} ({_snippet(raw)})", status)

    async def post(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST one chat-completions body with retries; the decoded JSON answer."""
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        session = self._get_session()
        attempts = self.max_retries + 1
        problem = "no attempt made"
        unreachable = False
        for attempt in range(attempts):
            ticket = await self.pacer.acquire()
            url = min(self.urls, key=self._busy.__getitem__)
            self._busy[url] += 1
            outcome, timed_out, answered, wait = OTHER, False, False, None
            unreachable = False
            self.requests_sent += 1
            try:
                async with session.post(url, data=payload) as response:
                    status = response.status
                    raw = await response.read()
                    retry_after = response.headers.get("Retry-After")
            except (asyncio.TimeoutError, TimeoutError):
                outcome, timed_out = OVERLOAD, True
                problem = f"no answer within {self.timeout:g} s"
            except aiohttp.ClientConnectorError as exc:
                unreachable = True
                problem = f"cannot connect ({exc.os_error.strerror if exc.os_error and exc.os_error.strerror else exc})"
            except aiohttp.ClientError as exc:
                problem = f"connection failed ({type(exc).__name__}: {exc})"
            else:
                answered = True
                if status in (429, 503):
                    outcome = OVERLOAD
                elif status == 200:
                    outcome = OK
                if status in (408, 429) or status >= 500:
                    wait = parse_retry_after(retry_after)
            finally:
                self._busy[url] -= 1
                await self.pacer.release(ticket, outcome, timed_out=timed_out,
                                         retry_after=wait if outcome == OVERLOAD else None)
            if answered:
                answer = self._answer(url, status, raw)
                if isinstance(answer, dict):
                    return answer
                problem = answer
            if attempt + 1 < attempts:
                await asyncio.sleep(wait if wait is not None else self._backoff(attempt))
        if unreachable:
            raise FatalBackendError(f"{self.url}: unreachable after {attempts} attempts: {problem}")
        raise BackendError(f"{self.url}: {problem}; gave up after {attempts} attempts", retryable=True)

    async def chat(
        self,
        messages: list[Mapping[str, Any]],
        tools: list[Mapping[str, Any]] | None = None,
        params: GenerationParams | Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One assistant turn: ``{"message": {role, content, tool_calls?}, "usage", "finish_reason", "model"}``."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
        body.update(_params_body(params))
        data = await self.post(body)
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        return {
            "message": choice["message"],
            "finish_reason": choice.get("finish_reason"),
            "usage": {"prompt_tokens": int(usage.get("prompt_tokens") or 0),
                      "completion_tokens": int(usage.get("completion_tokens") or 0)},
            "model": data.get("model") or self.model,
        }


class OpenAICompatBackend(JudgeBackend, AgentBackend):
    """The ``openai:MODEL`` judge backend: one chat completion per JudgeRequest, optionally schema-constrained."""

    kind = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 5,
        options: GenerationParams | None = None,
        pool_size: int = 64,
        backoff_base: float = 0.5,
        structured: str = OFF,
        schema: Mapping[str, Any] | None = None,
    ) -> None:
        self.client: ChatClient | None = None
        if base_url is not None or self.kind == "openai":
            self.client = ChatClient(base_url, model, api_key_env=api_key_env, timeout=timeout,
                                     max_retries=max_retries, pool_size=pool_size, backoff_base=backoff_base)
        self.model = model
        self.name = f"{self.kind}:{model}"
        self.options = options or GenerationParams()
        self.structured = check_mode(structured)
        self.dialect: str | None = OFF if structured == OFF else None    # None: not negotiated yet
        self.schema = dict(schema) if schema is not None else verdict_schema()
        self._sent_before = 0       # HTTP requests of clients already closed (a local server already stopped)

    def identity(self) -> dict[str, Any]:
        """What names this judge in the cache key: kind, model, server, and the response_format dialect if any."""
        assert self.client is not None
        return {"kind": "openai", "model": self.model, "base_url": self.client.base_url, **self._dialect_identity()}

    def _dialect_identity(self) -> dict[str, str]:
        if self.dialect is None:
            raise RuntimeError(f"{self.name}: call settle() before identity() or prepare() with --structured auto/on")
        return {} if self.dialect == OFF else {"structured": self.dialect}

    async def settle(self) -> None:
        """Settle the response_format dialect (one probe per dialect tried; none for off)."""
        if self.dialect is None:
            assert self.client is not None
            self.dialect = await negotiate(self.client, self.structured)

    def prepare(self, request: JudgeRequest) -> JudgeRequest:
        """The request with this backend's generation options and response_format applied (what is sent)."""
        self._dialect_identity()
        return with_response_format(apply_generation_options(request, self.options), self.dialect or OFF,
                                    self.schema, "verdict")

    def ensure_pool(self, size: int) -> None:
        """Size the connection pool for ``size`` requests in flight."""
        if self.client is not None:
            self.client.ensure_pool(size)

    def pacing(self) -> dict[str, Any]:
        """The pacer's counters (attempts, timeouts, overloads, window) so far (kept after aclose)."""
        pacer = self.client.pacer if self.client is not None else getattr(self, "_last_pacer", None)
        return pacer.stats().to_json() if pacer is not None else {}

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send the request (response_format added unless it carries one) and return the text and usage."""
        await self.settle()
        assert self.client is not None
        try:
            messages = [{"role": m.role, "content": m.text()} for m in request.messages]
        except UnicodeDecodeError as exc:
            raise BackendError(f"a message's bytes are not UTF-8 ({exc.reason} at byte {exc.start}); not sent") from None
        request = with_response_format(request, self.dialect or OFF, self.schema, "verdict")
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        body.update(_params_body(request.params))
        data = await self.client.post(body)
        message = data["choices"][0]["message"]
        content = message.get("content") if isinstance(message, dict) else None
        usage = data.get("usage") or {}
        return JudgeResponse(
            text=content if isinstance(content, str) else "",
            usage=Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
            model=str(data.get("model") or self.model),
        )

    def requests_sent(self) -> int:
        """HTTP requests sent so far, retries included (those of closed clients too)."""
        return self._sent_before + (self.client.requests_sent if self.client is not None else 0)

    async def turn(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                   params: GenerationParams) -> AgentTurn:
        """One assistant turn of a function-calling chat (no response_format: the agent answers through tools)."""
        assert self.client is not None
        data = await self.client.chat(list(messages), list(tools), params)
        usage = data["usage"]
        return AgentTurn(data["message"], Usage(usage["prompt_tokens"], usage["completion_tokens"]), data["model"])

    async def aclose(self) -> None:
        """Release the HTTP connections."""
        if self.client is not None:
            await self.client.aclose()


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="openai", roles=("judge", "agent"), base_url=True, usage="openai:MODEL",
                  summary="any OpenAI-compatible chat-completions endpoint, at --base-url")


def make(wanted: Any) -> OpenAICompatBackend:
    """The registry's factory for ``openai:MODEL`` (a ``judges.backends.base.BackendSpec``)."""
    endpoint = wanted.endpoint
    return OpenAICompatBackend(
        wanted.model("openai:gpt-4o-mini"), base_url=endpoint.base_url, api_key_env=endpoint.api_key_env,
        timeout=endpoint.timeout, max_retries=endpoint.max_retries, options=wanted.options,
        pool_size=endpoint.concurrency, backoff_base=endpoint.backoff_base, structured=wanted.structured or OFF,
    )
