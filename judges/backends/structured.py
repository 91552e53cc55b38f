"""Structured outputs: the answer's JSON schema sent as ``response_format``, in the dialect the endpoint accepts.

``--structured`` is ``auto`` (the default), ``on`` or ``off``. Dialects:

- ``json_schema`` — OpenAI, vLLM and Ollama:
  ``{"type": "json_schema", "json_schema": {"name", "schema"}}`` (not strict:
  the verdict's dimension names are the rubric's, so they are free keys);
- ``json_object`` — llama.cpp (llama-cpp-python's server):
  ``{"type": "json_object", "schema": {...}}``;
- ``gbnf`` — llama.cpp's own grammar as the request's ``grammar`` field
  (``judges.backends.gbnf``: the schema in one fixed layout, so the longest
  answer is known), sent to the ``local:`` servers orgbench starts;
- ``off`` — no ``response_format``: the prompt alone asks for JSON.

A ``local:`` server is llama.cpp, so its dialect is known (gbnf). For other
endpoints one small probe request per run tries ``json_schema``; if the
endpoint refuses it (an HTTP 4xx), it falls back once to ``json_object``;
if that is refused too, ``auto`` sends no ``response_format`` and ``on``
stops with one line. The dialect used is part of the backend's identity, so
``run.json`` records it and the cache keys on it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from judges.backends.base import BackendError, GenerationParams, JudgeRequest
from judges.backends.gbnf import schema_grammar
from orgbench.core.errors import InputError

MODES = ("auto", "on", "off")
DIALECTS = ("json_schema", "json_object")     # negotiated, in this order, with endpoints orgbench did not start
GBNF = "gbnf"
OFF = "off"


class RequestRefused(BackendError):
    """The endpoint refused the request itself (an HTTP 4xx other than auth or 404): asking again will not help."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def response_format(dialect: str, schema: Mapping[str, Any], name: str = "answer") -> dict[str, Any] | None:
    """The ``response_format`` body field for ``schema`` in ``dialect`` (None for off)."""
    if dialect == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema)}}
    if dialect == "json_object":
        return {"type": "json_object", "schema": dict(schema)}
    return None


def constraint_fields(dialect: str, schema: Mapping[str, Any], name: str = "answer") -> dict[str, Any]:
    """The body fields that constrain the answer to ``schema`` in ``dialect`` (none for off)."""
    if dialect == GBNF:
        return {"grammar": schema_grammar(schema).text}
    fmt = response_format(dialect, schema, name)
    return {} if fmt is None else {"response_format": fmt}


def with_response_format(request: JudgeRequest, dialect: str, schema: Mapping[str, Any] | None,
                         name: str = "answer") -> JudgeRequest:
    """The request with ``response_format`` or ``grammar`` in its extra parameters (unchanged for off, no schema,
    or when the caller gave either)."""
    extra = request.params.extra
    if dialect == OFF or schema is None or "response_format" in extra or "grammar" in extra:
        return request
    params: GenerationParams = request.params
    return replace(request, params=replace(params, extra={**dict(extra), **constraint_fields(dialect, schema, name)}))


def check_mode(mode: str) -> str:
    """``mode`` if it is auto, on or off (InputError naming --structured otherwise)."""
    if mode not in MODES:
        raise InputError(f"--structured: expected auto, on or off, got {mode!r}")
    return mode


PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                "additionalProperties": False}


async def negotiate(client: Any, mode: str, preferred: tuple[str, ...] = DIALECTS) -> str:
    """The dialect ``client``'s endpoint accepts for ``mode``: a probe per dialect, falling back once when refused."""
    if mode == OFF:
        return OFF
    refusals = []
    for dialect in preferred[:2]:
        body = {"model": client.model, "max_tokens": 8, "temperature": 0.0,
                "messages": [{"role": "user", "content": 'Reply with {"ok": true}'}],
                "response_format": response_format(dialect, PROBE_SCHEMA, "probe")}
        try:
            await client.post(body)
            return dialect
        except RequestRefused as exc:
            refusals.append(f"{dialect}: {exc}")
    if mode == "on":
        raise InputError(f"--structured on: {client.url} refused response_format in both dialects ("
                         + "; ".join(refusals) + "); use --structured auto or off")
    return OFF
