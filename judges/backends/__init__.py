"""``make_backend(spec)`` turns a judge or agent spec into a backend, through ``judges.backends.registry``.

Specs (a plugin package adds its own kinds, see ``judges.backends.registry``):

- ``openai:MODEL`` — any OpenAI-compatible chat-completions endpoint
  (vLLM, Ollama, llama.cpp server, OpenAI, …) at ``base_url``;
- ``local:MODEL`` — a llama.cpp server orgbench starts and stops itself
  (``smollm2``, ``gemma3-270m`` or ``PATH.gguf``; ``judges.backends.local``),
  with ``slots`` requests answered at once;
- ``replay`` / ``replay:PATH`` — recorded responses (a ``judgments.jsonl`` or a
  responses file), looked up by request hash;
- ``stub`` / ``stub:LOG.jsonl`` — the recording stub (``judges.backends.stub.from_spec``);
- ``builtin:NAME`` — a procedural judge (``judges.backends.builtin.make_builtin``).

Generation options given here (temperature, max_tokens, extra) are the
user's and override what a request carries; the request's seed is always
kept. Backends apply them in ``prepare(request)``, and the runner hashes and
caches the prepared request, i.e. exactly what is sent.

Heavy modules (aiohttp) are imported only when a backend that needs them is made.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from judges.backends.base import (
    AgentBackend,
    AgentTurn,
    BackendError,
    GenerationParams,
    JudgeBackend,
    JudgeRequest,
    JudgeResponse,
    Message,
    Usage,
)
from judges.backends.registry import BackendSpec, EndpointConfig
from orgbench.core.errors import InputError

__all__ = [
    "AgentBackend",
    "AgentTurn",
    "BackendError",
    "BackendSpec",
    "EndpointConfig",
    "FatalBackendError",
    "GenerationParams",
    "JudgeBackend",
    "JudgeRequest",
    "JudgeResponse",
    "Message",
    "Usage",
    "apply_generation_options",
    "make_backend",
    "parse_extra",
]


class FatalBackendError(BackendError):
    """A failure that no other request can escape either: bad key, unreachable endpoint, wrong URL."""


def apply_generation_options(request: JudgeRequest, options: GenerationParams) -> JudgeRequest:
    """The request with the user's options applied: their temperature, max_tokens (if set) and extra win; seed is kept."""
    params = request.params
    merged = GenerationParams(
        temperature=options.temperature,
        max_tokens=options.max_tokens if options.max_tokens is not None else params.max_tokens,
        seed=params.seed,
        extra={**dict(params.extra), **dict(options.extra)},
    )
    if merged == params:
        return request
    return replace(request, params=merged)


def parse_extra(pairs: Iterable[str]) -> dict[str, Any]:
    """``key=value`` strings (e.g. from ``--extra``) as a dict; values are JSON when they parse, else text."""
    extra: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--extra {pair!r}: expected key=value, e.g. reasoning_effort=high")
        try:
            extra[key.strip()] = json.loads(raw)
        except ValueError:
            extra[key.strip()] = raw
    return extra


def make_backend(
    spec: str,
    *,
    endpoint: EndpointConfig | None = None,
    role: str = "judge",
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    timeout: float = 60.0,
    max_retries: int = 5,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    extra: Mapping[str, Any] | None = None,
    replay_path: str | Path | None = None,
    concurrency: int = 64,
    backoff_base: float = 0.5,
    structured: str | None = None,
    slots: int = 1,
) -> Any:
    """Make the backend named by ``spec`` through the registry (``judges.backends.registry``).

    ``endpoint`` gives how to reach a model in one record; without it one is
    made from ``base_url`` … ``backoff_base`` and ``extra``. ``role`` is
    ``judge`` (a JudgeBackend) or ``agent`` (an AgentBackend).
    ``structured`` (auto | on | off; see ``judges.backends.structured``) defaults to auto for
    ``local:`` and off for ``openai:``, whose existing runs must keep resuming with what they sent.
    """
    from judges.backends.registry import resolve

    if endpoint is None:
        endpoint = EndpointConfig(base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                                  max_retries=max_retries, concurrency=concurrency, backoff_base=backoff_base,
                                  extra=dict(extra or {}))
    kind, _, arg = spec.partition(":")
    options = GenerationParams(temperature=temperature, max_tokens=max_tokens, extra=dict(endpoint.extra))
    return resolve(BackendSpec(spec, kind, arg, endpoint, options, role=role, structured=structured, slots=slots,
                               replay_path=Path(replay_path) if replay_path else None))
