"""The seams every judge and agent sits behind: abstract base classes with one method each to implement.

A ``JudgeRequest`` is exactly what the judge reads: chat messages (content may
be ``bytes`` when the caller must hand over a verified buffer unchanged, as the
assurance pipeline does) and generation parameters. Backends never see ground
truth; they see only what a request carries.

``JudgeBackend`` needs ``name`` and ``complete``; ``prepare``, ``identity``,
``settle``, ``ensure_pool``, ``pacing``, ``requests_sent`` and ``aclose`` have
defaults that do nothing (a backend that calls a model overrides them).
``AgentBackend`` needs ``name`` and ``turn`` (one assistant turn of a
function-calling conversation). A class may be both (``openai:``, ``local:``).
A registry's factory makes one from a ``BackendSpec`` (the spec, its ``EndpointConfig`` and the user's options).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Mapping, Sequence
from orgbench.core.errors import InputError, OrgbenchError


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message: ``role`` (system | user | assistant) and its content."""

    role: str
    content: str | bytes

    def text(self) -> str:
        """The content as text (bytes are decoded as UTF-8, strictly)."""
        return self.content.decode("utf-8") if isinstance(self.content, bytes) else self.content


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Parameters that change the answer (and so belong in the cache key)."""

    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens,
                "seed": self.seed, "extra": dict(self.extra)}


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """A rendered request: the messages a judge reads and the parameters it answers with."""

    messages: tuple[Message, ...]
    params: GenerationParams = field(default_factory=GenerationParams)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by the backend (zero when it reports none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        """Both counts added: how a run, a command or an agent totals what it spent."""
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)

    def to_json(self) -> dict[str, int]:
        """The counts as a JSON object."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}

    @staticmethod
    def from_json(obj: Any) -> "Usage":
        """Counts from a JSON object (missing or null counts are 0); ValueError when one is not a whole number."""
        if obj is None:
            return Usage()
        if not isinstance(obj, Mapping):
            raise ValueError("not a token count object")
        counts = [obj.get(name) or 0 for name in ("prompt_tokens", "completion_tokens")]
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
            raise ValueError("token counts are not whole numbers")
        return Usage(*counts)


@dataclass(frozen=True, slots=True)
class JudgeResponse:
    """The judge's raw text, its usage, and the backend that produced it."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""


@dataclass(frozen=True)
class EndpointConfig:
    """How to reach a model: base URL, the variable holding the key, timeout, retries, concurrency, extra parameters."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    max_retries: int = 5
    concurrency: int = 64
    backoff_base: float = 0.5
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BackendSpec:
    """Everything a factory needs: the spec and its parts, the endpoint, the user's options and the role."""

    spec: str
    kind: str
    arg: str
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    options: GenerationParams = field(default_factory=GenerationParams)
    role: str = "judge"
    structured: str | None = None
    slots: int = 1
    replay_path: Path | None = None

    @property
    def where(self) -> str:
        """How an error names this spec: ``judge spec 'X'`` or ``--agent 'X'``."""
        return f"--agent {self.spec!r}" if self.role == "agent" else f"judge spec {self.spec!r}"

    def model(self, example: str) -> str:
        """The spec's argument; InputError naming the spec when it names no model."""
        if not self.arg:
            raise InputError(f"{self.where}: name the model, e.g. {example}")
        return self.arg


class BackendError(OrgbenchError):
    """A request that failed for good (after the backend's own retries)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


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


class _Backend(ABC):
    """What judges and agents share: a name, an identity in the cache key, counters and a session to close."""

    name: str
    #: Whether a run keeps this backend's answers in the response cache (a procedural judge's cost nothing).
    cacheable: bool = True
    #: What an unreachable-endpoint error names: the option that set the endpoint (a local server names its spec).
    endpoint_option: str = "--base-url"

    def identity(self) -> dict[str, Any]:
        """What names this backend in the cache key (default: its name)."""
        return {"name": self.name}

    def pacing(self) -> dict[str, Any] | None:
        """The request pacer's counters for run_stats.json; None for a backend that calls no model."""
        return None

    def requests_sent(self) -> int:
        """HTTP requests sent so far, retries included (0 for a backend that calls no model)."""
        return 0

    def ensure_pool(self, size: int) -> None:
        """Be ready for ``size`` requests in flight (default: nothing to do)."""

    async def settle(self) -> None:
        """Settle anything negotiated with the endpoint before the first request (default: nothing)."""

    async def aclose(self) -> None:
        """Release sessions, servers and files (default: nothing)."""


class JudgeBackend(_Backend):
    """Anything that turns a JudgeRequest into a JudgeResponse."""

    def prepare(self, request: JudgeRequest) -> JudgeRequest:
        """The request exactly as it will be sent (hashed and cached as such); default: unchanged."""
        return request

    @abstractmethod
    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Answer one request."""


@dataclass(frozen=True, slots=True)
class AgentTurn:
    """One assistant turn: its message (role, content, tool_calls?), usage and the model that answered."""

    message: Mapping[str, Any]
    usage: Usage = field(default_factory=Usage)
    model: str = ""


class AgentBackend(_Backend):
    """Anything that answers one turn of a function-calling chat (OpenAI message and tool shapes)."""

    def recorded_agent(self, spec: str) -> str:
        """The agent name a run records its answers under (default: the spec it was made from)."""
        return spec

    @abstractmethod
    async def turn(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                   params: GenerationParams) -> AgentTurn:
        """The next assistant turn for ``messages`` with ``tools`` on offer."""
