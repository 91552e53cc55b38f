"""The ``local:MODEL`` backend: a llama.cpp server that orgbench starts for the run, judges through it, and stops.

It is the OpenAI-compatible backend pointed at a :class:`LocalServer` it
owns (llama.cpp's ``llama-server`` when installed: one process, N slots,
continuous batching). The server starts on the first request (so a run whose answers are
all logged or cached starts none); requests are spread over its slots with a
fixed pacer of exactly that many in flight (so none waits inside the server
and times out); ``aclose()`` stops it, as do interpreter exit, Ctrl-C and
errors.

Its identity names the model by its file's SHA-256, the context size and the
chat format, never the port, so a run resumes, and its cache is reused,
across server restarts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from judges.backends import FatalBackendError
from judges.backends.base import AgentTurn, GenerationParams, JudgeRequest, JudgeResponse
from judges.backends.local_server import (
    DEFAULT_CONTEXT, LocalServer, file_digest, require_server_package, resolve_model,
)
from judges.backends.openai_compat import ChatClient, OpenAICompatBackend
from judges.backends.pacing import Pacer
from judges.backends.structured import GBNF, OFF
from judges.backends.registry import Backend

#: What a local judge may write when the caller sets no limit: a small model that rambles stops instead of
#: filling the context, and a constrained verdict always ends inside it (the verdict grammar's longest answer,
#: ``judges.verdict_schema.token_bound``, is below it; tests/judges/test_verdict_schema.py checks).
DEFAULT_MAX_TOKENS = 512
#: What one agent turn may write when neither the agent nor the caller sets a limit. Without it the server writes
#: until the context is full: SmolLM2 once wrote 7,582 tokens in one turn (minutes on a CPU); Gemma 3 270M's longest
#: turn over 24 quick-subset contracts was 740 tokens, so this bound cuts only a model that does not stop.
AGENT_MAX_TOKENS = 1024
#: A local server never queues (exactly its slot count is in flight), so a late answer means a busy CPU, not
#: an overloaded server; and llama.cpp keeps computing an answer nobody waits for, so a retry after a timeout
#: would queue behind it. The answer may therefore take this many times --timeout.
LOCAL_TIMEOUT_FACTOR = 10


class LocalBackend(OpenAICompatBackend):
    """``local:smollm2`` / ``local:gemma3-270m`` / ``local:PATH.gguf`` (see the module docstring)."""

    kind = "local"

    def __init__(self, model: str, *, spec: str | None = None, slots: int = 1, n_ctx: int = DEFAULT_CONTEXT,
                 timeout: float = 60.0, max_retries: int = 5, options: GenerationParams | None = None,
                 backoff_base: float = 0.5, structured: str = "auto", schema: Mapping[str, Any] | None = None,
                 tools: bool = False, log_dir: Path | None = None) -> None:
        spec = spec or f"local:{model}"
        program = require_server_package(spec, tools=tools)
        self.local_model = resolve_model(model, spec)
        options = options or GenerationParams()
        self.agent_max_tokens = options.max_tokens or AGENT_MAX_TOKENS     # the caller's limit, if any, for turns too
        if options.max_tokens is None:
            options = GenerationParams(options.temperature, DEFAULT_MAX_TOKENS, options.seed, options.extra)
        super().__init__(self.local_model.name, options=options, timeout=timeout, max_retries=max_retries,
                         backoff_base=backoff_base, structured=structured, schema=schema)
        self.name = spec
        self.endpoint_option = spec
        self.dialect = OFF if structured == OFF else GBNF     # llama.cpp's own grammar: known, no probe
        self.server = LocalServer(self.local_model, slots=slots, n_ctx=n_ctx, tools=tools, log_dir=log_dir,
                                  program=program)
        self._timeout, self._max_retries, self._backoff = timeout, max_retries, backoff_base

    @property
    def slots(self) -> int:
        """How many requests the server answers at once (its parallel slots)."""
        return self.server.slots

    def identity(self) -> dict[str, Any]:
        """The model file's SHA-256, context size, chat format and server program (never the port), and the dialect."""
        return {"kind": "local", "model": self.local_model.name, "gguf_sha256": file_digest(self.local_model.path),
                "n_ctx": self.server.n_ctx, "chat_format": self.server.chat_format,
                "server": self.server.program.identity(), **self._dialect_identity()}

    async def start(self) -> None:
        """Start the server (blocking until every slot answers) and a client with one fixed slot per process.

        It blocks the event loop on purpose: nothing else can be sent before
        the server answers, and the children must be started from the main
        thread to die with it. A server that died is reported (FatalBackendError), not restarted.
        """
        if self.client is not None and self.server.running:
            return
        death = self.server.death()
        if death:                  # a server that died is reported, never silently replaced
            raise FatalBackendError(death)
        self.server.start()    # in this thread: the children die with their parent thread (PR_SET_PDEATHSIG)
        urls = self.server.base_urls
        self.client = ChatClient(urls[0], self.local_model.name, api_key_env=None,
                                 timeout=self._timeout * LOCAL_TIMEOUT_FACTOR,
                                 max_retries=self._max_retries, pool_size=self.slots, backoff_base=self._backoff,
                                 slot_urls=urls[1:], pacer=Pacer(self.slots, fixed=True))

    def ensure_pool(self, size: int) -> None:
        """Nothing to do: the server's slot count bounds what is in flight, whatever the caller's concurrency."""

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Answer one request through the local server (started on first use)."""
        await self.start()
        try:
            return await super().complete(request)
        except FatalBackendError as exc:
            raise self._server_death(exc) from None

    async def turn(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                   params: GenerationParams) -> AgentTurn:
        """One agent turn through the local server (started on first use), at most AGENT_MAX_TOKENS unless set."""
        await self.start()
        if params.max_tokens is None:
            params = GenerationParams(params.temperature, self.agent_max_tokens, params.seed, params.extra)
        try:
            return await super().turn(messages, tools, params)
        except FatalBackendError as exc:
            raise self._server_death(exc) from None

    def _server_death(self, exc: FatalBackendError) -> FatalBackendError:
        """The error to raise when the endpoint is lost: the server's own death, when it died, else ``exc``."""
        death = self.server.death()
        return FatalBackendError(death) if death else exc

    async def aclose(self) -> None:
        """Close the client and stop the server."""
        try:
            await super().aclose()
        finally:
            if self.client is not None:
                self._last_pacer = self.client.pacer      # its counters stay readable (run_stats.json)
                self._sent_before += self.client.requests_sent      # and what it sent (the totals line)
            self.client = None
            self.server.stop()


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="local", roles=("judge", "agent"), usage="local:MODEL",
                  summary="a llama.cpp server orgbench starts and stops itself (smollm2, gemma3-270m or PATH.gguf)")


def make(wanted: Any) -> LocalBackend:
    """The registry's factory for ``local:MODEL``: a judge, or an agent (a function-calling chat format, one slot)."""
    model = wanted.model("local:smollm2, local:gemma3-270m or local:PATH.gguf")
    endpoint = wanted.endpoint
    agent = wanted.role == "agent"
    return LocalBackend(model, spec=wanted.spec, slots=1 if agent else wanted.slots, timeout=endpoint.timeout,
                        max_retries=endpoint.max_retries, options=wanted.options, backoff_base=endpoint.backoff_base,
                        structured=OFF if agent else (wanted.structured or "auto"), tools=agent)
