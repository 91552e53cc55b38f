"""The backend registry: ``make_backend(spec)`` turns a judge spec into a JudgeBackend.

Specs:

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

import importlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from judges.backends.base import (
    BackendError,
    GenerationParams,
    JudgeBackend,
    JudgeRequest,
    JudgeResponse,
    Message,
    Usage,
)
from orgbench.core.errors import InputError

__all__ = [
    "BackendError",
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
) -> JudgeBackend:
    """Make the backend named by ``spec`` (see the module docstring for the forms).

    ``structured`` (auto | on | off; see ``judges.backends.structured``) defaults to auto for
    ``local:`` and off for ``openai:``, whose existing runs must keep resuming with what they sent.
    """
    kind, _, arg = spec.partition(":")
    options = GenerationParams(temperature=temperature, max_tokens=max_tokens, extra=dict(extra or {}))
    if kind == "openai":
        if not arg:
            raise InputError(f"judge spec {spec!r}: name the model, e.g. openai:gpt-4o-mini")
        from judges.backends.openai_compat import OpenAICompatBackend

        return OpenAICompatBackend(
            arg, base_url=base_url, api_key_env=api_key_env, timeout=timeout, max_retries=max_retries,
            options=options, pool_size=concurrency, backoff_base=backoff_base, structured=structured or "off",
        )
    if kind == "local":
        if not arg:
            raise InputError(f"judge spec {spec!r}: name the model, e.g. local:smollm2, local:gemma3-270m or "
                             "local:PATH.gguf")
        from judges.backends.local import LocalBackend

        return LocalBackend(arg, spec=spec, slots=slots, timeout=timeout, max_retries=max_retries, options=options,
                            backoff_base=backoff_base, structured=structured or "auto")
    if kind == "replay":
        path = arg or replay_path
        if not path:
            raise InputError(f"judge spec {spec!r}: give the recorded file as replay:PATH")
        from judges.backends.replay import ReplayBackend

        return ReplayBackend(Path(path), options=options)
    if kind == "stub":
        module = _import_backend_module("stub", spec)
        if not hasattr(module, "from_spec"):
            raise InputError(f"judge spec {spec!r}: judges.backends.stub has no from_spec()")
        return module.from_spec(spec)
    if kind == "builtin":
        module = _import_backend_module("builtin", spec)
        try:
            return module.make_builtin(arg)
        except (KeyError, ValueError) as exc:
            raise InputError(f"judge spec {spec!r}: unknown built-in judge {exc.args[0] if exc.args else exc}") from None
    raise InputError(f"judge spec {spec!r}: unknown; use openai:MODEL, local:MODEL, builtin:NAME, replay:PATH or "
                     "stub[:LOG]")


def _import_backend_module(name: str, spec: str) -> Any:
    try:
        return importlib.import_module(f"judges.backends.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"judges.backends.{name}":
            raise InputError(f"judge spec {spec!r}: judges.backends.{name} is not available") from None
        raise
