"""The seam every judge sits behind: one async method from a rendered request to a response.

A ``JudgeRequest`` is exactly what the judge reads: chat messages (content may
be ``bytes`` when the caller must hand over a verified buffer unchanged, as the
assurance pipeline does) and generation parameters. Backends never see ground
truth; they see only what a request carries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable


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

    def to_json(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass(frozen=True, slots=True)
class JudgeResponse:
    """The judge's raw text, its usage, and the backend that produced it."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""


class BackendError(Exception):
    """A request that failed for good (after the backend's own retries)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


@runtime_checkable
class JudgeBackend(Protocol):
    """Anything that turns a JudgeRequest into a JudgeResponse."""

    name: str

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Answer one request."""
        ...
