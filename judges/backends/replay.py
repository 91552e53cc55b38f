"""The ``replay`` backend: answers from recorded responses, looked up by request hash.

It reads either a run's ``judgments.jsonl`` (each line read as a
``judges.judgments.Judgment``; lines that ended in an error are skipped) or a plain responses
file (lines with ``request_hash`` and ``text``, optionally ``usage`` and
``model``). Replaying the same requests with the same generation options
gives back exactly the recorded text, so a run can be re-scored without
calling a model. A request that was never recorded stops the run with one
line naming the file and the hash: the inputs are not the recorded ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.backends import FatalBackendError, apply_generation_options
from judges.backends.base import GenerationParams, JudgeBackend, JudgeRequest, JudgeResponse, Usage
from judges.backends.registry import Backend
from judges.cache import request_hash
from judges.judgments import JUDGMENTS, Judgment
from orgbench.core.errors import FormatError, InputError
from orgbench.core.jsonl import read_jsonl


def load_recorded(path: Path) -> dict[str, JudgeResponse]:
    """Recorded responses by request hash (the first recording of a hash wins)."""
    path = Path(path)
    if path.is_dir():
        path = path / JUDGMENTS
    recorded: dict[str, JudgeResponse] = {}
    for number, row in read_jsonl(path).numbered():
        if not isinstance(row, dict) or not isinstance(row.get("request_hash"), str):
            raise InputError(f"{path}:{number}: field 'request_hash' missing")
        response = _recorded(row, path, number)
        if response is not None:
            recorded.setdefault(row["request_hash"], response)
    return recorded


def _recorded(row: dict[str, Any], path: Path, number: int) -> JudgeResponse | None:
    """The response one line recorded: a judgment read as a ``Judgment``, or a plain responses line (None for errors)."""
    if "item_id" in row:
        judgment = Judgment.from_json(row, path, number)
        if judgment.error or judgment.response is None:
            return None
        return JudgeResponse(judgment.response, judgment.usage, judgment.model or "")
    if row.get("error") or not isinstance(row.get("text"), str):
        return None
    try:
        usage = Usage.from_json(row.get("usage"))
    except ValueError:
        raise FormatError(path, "field 'usage' is not a token count object", line=number) from None
    return JudgeResponse(row["text"], usage, str(row.get("model") or ""))


class ReplayBackend(JudgeBackend):
    """Answers each request with the response recorded for its hash."""

    def __init__(self, path: Path, *, options: GenerationParams | None = None) -> None:
        self.path = Path(path)
        self.recorded = load_recorded(self.path)
        self.options = options or GenerationParams()
        self.name = "replay"

    def identity(self) -> dict[str, Any]:
        """Replays are keyed by the recording they come from."""
        return {"kind": "replay", "path": str(self.path.resolve())}

    def prepare(self, request: JudgeRequest) -> JudgeRequest:
        """Apply the same generation options the recorded run used."""
        return apply_generation_options(request, self.options)

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The recorded response for this request."""
        key = request_hash(request)
        try:
            return self.recorded[key]
        except KeyError:
            raise FatalBackendError(f"{self.path}: no recorded response for request {key}") from None


#: What ``make`` answers and can do (read from this source by ``judges.backends.registry``).
BACKEND = Backend(kind="replay", roles=("judge",), studies=("cargo",), usage="replay:PATH",
                  summary="a CARGO run's recorded responses, looked up by request hash")


def make(wanted) -> ReplayBackend:
    """The registry's factory for ``replay:PATH`` (or ``replay`` with the spec's ``replay_path``)."""
    path = wanted.arg or wanted.replay_path
    if not path:
        raise InputError(f"{wanted.where}: give the recorded file as replay:PATH")
    return ReplayBackend(Path(path), options=wanted.options)
