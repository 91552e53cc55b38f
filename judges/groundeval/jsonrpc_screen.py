"""Which JSON-RPC messages reach the MCP SDK, and the error every other message is answered with.

The SDK's stdio transport drops a line it cannot read as one JSON-RPC message
and answers nothing (not JSON, a batch, an object id, a wrong ``jsonrpc``...),
so a client waits forever. ``screen`` reads each message first:

- ``-32700`` (parse error): not JSON, or not UTF-8;
- ``-32600`` (invalid request): over ``MAX_MESSAGE_BYTES``; not an object; a
  batch (MCP has had no batches since 2025-06-18); ``jsonrpc`` not ``"2.0"``;
  ``id`` not a string or an integer; ``method`` not a string; neither a
  method nor a result or error;
- ``-32602`` (invalid params): ``params`` not an object.

The reply carries the message's id when it has a valid one, else null.
``-32601`` (method not found) and a method's own ``-32602`` are the SDK's. A
message that passes has its lone surrogate escapes replaced by U+FFFD (the
SDK's parser refuses them), as undecodable bytes already are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judges.groundeval.call_args import well_formed_text

MAX_MESSAGE_BYTES = 1 << 20
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


@dataclass(frozen=True, slots=True)
class Screened:
    """One message read: ``message`` (a ``mcp_types`` JSON-RPC message) to pass on, or ``error`` to answer with."""

    message: Any = None
    error: Any = None


def refusal(code: int, message: str, request_id: Any = None) -> Screened:
    """A ``JSONRPCError`` reply (``request_id`` kept only when it is a valid id)."""
    import mcp_types as types

    rid = request_id if _valid_id(request_id) else None
    return Screened(error=types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message)))


def too_large(size: int) -> Screened:
    """The reply to a message of ``size`` bytes over ``MAX_MESSAGE_BYTES`` (never read whole)."""
    return refusal(INVALID_REQUEST, f"Invalid request: a message of {size} bytes is over the {MAX_MESSAGE_BYTES}-byte limit")


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def screen(data: bytes | str) -> Screened:
    """One JSON-RPC message (a stdio line or an HTTP body) read as the SDK can take it, or the error it is owed."""
    import mcp_types as types

    if len(data) > MAX_MESSAGE_BYTES:
        return too_large(len(data))
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        return refusal(PARSE_ERROR, "Parse error: the message is not JSON")
    if isinstance(obj, list):
        return refusal(INVALID_REQUEST, "Invalid request: batches are not supported; send one message at a time")
    if not isinstance(obj, dict):
        kind = "a string" if isinstance(obj, str) else "null" if obj is None else "a boolean" \
            if isinstance(obj, bool) else "a number"
        return refusal(INVALID_REQUEST, f"Invalid request: a message is a JSON object, not {kind}")
    rid = obj.get("id")
    if obj.get("jsonrpc") != "2.0":
        return refusal(INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"', rid)
    if "id" in obj and not _valid_id(rid):
        return refusal(INVALID_REQUEST, "Invalid request: id must be a string or an integer")
    if "method" in obj:
        if not isinstance(obj["method"], str):
            return refusal(INVALID_REQUEST, "Invalid request: method must be a string", rid)
        if "params" in obj and not isinstance(obj["params"], dict):
            return refusal(INVALID_PARAMS, "Invalid params: params must be an object", rid)
    elif "result" not in obj and "error" not in obj:
        return refusal(INVALID_REQUEST, "Invalid request: no method, result or error", rid)
    try:
        return Screened(message=types.jsonrpc_message_adapter.validate_python(well_formed_text(obj), by_name=False))
    except ValueError as exc:
        return refusal(INVALID_REQUEST, f"Invalid request: {str(exc).splitlines()[0]}", rid)
