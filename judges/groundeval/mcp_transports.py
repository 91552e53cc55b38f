"""The wires ``serve-mcp`` speaks, stdio lines or streamable HTTP, each message screened before the SDK sees it.

stdio: each line is read with at most ``MAX_MESSAGE_BYTES`` held (a longer
line is drained and answered ``-32600`` unread), undecodable bytes replaced,
then ``jsonrpc_screen.screen`` either passes the message to the SDK's server
loop or writes its JSON-RPC error. (The SDK's own ``stdio_server`` answers
nothing to a line it cannot read.)

HTTP (``serve_http``): the SDK's streamable-HTTP app at ``/mcp`` (each reply
a JSON body, not an SSE stream: half the CPU a call) behind
``ScreenedBodies``, which reads each POST body with at most
``MAX_MESSAGE_BYTES`` held and answers a malformed one with the same JSON-RPC
error (HTTP 400, or 413 when too large) before the SDK sees it. Each client
works in an MCP session (the initialize handshake): a request of the
stateless 2026 era, which has no session to keep an agent's contracts in, is
refused with ``-32600`` (the official client then falls back to the
handshake). A session answers as the agent its URL names (``/mcp?agent=NAME``,
``AGENT_PARAM``) or, unnamed, as ``NAME-<its session id's first 12 hex
digits>`` (``session_agent``); a POST naming no valid agent is refused with
``-32600``.
"""

from __future__ import annotations

import re
import sys
from typing import Any, AsyncIterator, Callable

from judges.groundeval.jsonrpc_screen import INVALID_REQUEST, MAX_MESSAGE_BYTES, Screened, refusal, screen, too_large

_CHUNK = 1 << 16
MCP_PATH = "/mcp"
#: An HTTP session no request has reached for this long is ended (by the SDK) and its state dropped.
SESSION_IDLE_S = 1800.0
#: The URL query parameter naming the agent an HTTP session answers as.
AGENT_PARAM = "agent"
AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]{0,99}")


def named_agent(query_string: bytes) -> str | None:
    """The agent a request's query names (None: none named); ``ValueError`` when named twice or not ``AGENT_NAME``."""
    from urllib.parse import parse_qs

    named = parse_qs(query_string.decode("latin-1"), keep_blank_values=True).get(AGENT_PARAM)
    if named is None:
        return None
    if len(named) != 1 or AGENT_NAME.fullmatch(named[0]) is None:
        raise ValueError(f"Invalid request: ?{AGENT_PARAM}= must name one agent of 1-100 letters, digits and . _ : @ + - "
                         "(starting with a letter or digit)")
    return named[0]


def session_agent(query_string: bytes, session_id: str, default: str) -> str:
    """Who an HTTP session answers as: the agent its URL names, else ``default`` and its session id's first 12 hex digits.

    Each unnamed session is its own agent, so clients that do not name themselves never refuse each other's
    answers; sessions naming one agent are that agent (a question it answered is ``already_answered``).
    """
    return named_agent(query_string) or f"{default}-{session_id[:12]}"


async def _lines(read: Callable[[int], Any]) -> AsyncIterator[Screened]:
    """Each line of ``read`` (an async ``readline(limit)``) screened; an over-long line is drained, never kept."""
    while True:
        line = await read(MAX_MESSAGE_BYTES + 1)
        if not line:
            return
        if line.endswith(b"\n") or len(line) <= MAX_MESSAGE_BYTES:
            if line.strip():
                yield screen(line.decode("utf-8", "replace"))
            continue
        size = len(line)
        while line and not line.endswith(b"\n"):
            line = await read(_CHUNK)
            size += len(line)
        yield too_large(size)


def serve_stdio(server: Any) -> None:
    """Serve ``server`` (a low-level MCP ``Server``) over this process's stdin and stdout until stdin closes."""
    import anyio
    from mcp.shared.message import SessionMessage

    async def run() -> None:
        to_server, from_wire = anyio.create_memory_object_stream[Any](0)
        to_wire, from_server = anyio.create_memory_object_stream[Any](0)
        stdout = anyio.wrap_file(sys.stdout.buffer)

        async def readline(limit: int) -> bytes:
            return await anyio.to_thread.run_sync(sys.stdin.buffer.readline, limit)

        async def reader() -> None:
            async with to_server:
                async for screened in _lines(readline):
                    if screened.error is not None:
                        await replies.send(SessionMessage(screened.error))
                    else:
                        await to_server.send(SessionMessage(screened.message))
            await replies.aclose()

        async def writer() -> None:
            async with from_server:
                async for message in from_server:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdout.write(text.encode("utf-8") + b"\n")
                    await stdout.flush()

        replies = to_wire.clone()
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(writer)
            async with to_wire:
                await server.run(from_wire, to_wire, server.create_initialization_options())

    anyio.run(run)


class ScreenedBodies:
    """ASGI middleware: every POST body read bounded and screened; a malformed one is answered, never passed on."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        headers = dict(scope["headers"])
        if headers.get(b"mcp-protocol-version", b"").decode("latin-1") in MODERN_PROTOCOL_VERSIONS:
            await _reply(send, 400, refusal(INVALID_REQUEST, "Invalid request: this server keeps each agent's "
                                            "contracts in an MCP session; connect with the initialize handshake"))
            return
        try:
            named_agent(scope.get("query_string", b""))
        except ValueError as bad:
            await _reply(send, 400, refusal(INVALID_REQUEST, str(bad)))
            return
        body, size = bytearray(), 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return                                    # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size <= MAX_MESSAGE_BYTES:
                body += chunk
            if not message.get("more_body", False):
                break
        screened = too_large(size) if size > MAX_MESSAGE_BYTES else screen(bytes(body).decode("utf-8", "replace"))
        if screened.error is not None:
            await _reply(send, 413 if size > MAX_MESSAGE_BYTES else 400, screened)
            return
        passed = screened.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
        scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"content-length"]
                 + [(b"content-length", str(len(passed)).encode("ascii"))]}
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": passed, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _reply(send: Any, status: int, screened: Screened) -> None:
    body = screened.error.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def http_app(server: Any, host: str = "127.0.0.1") -> Any:
    """The ASGI app ``serve_http`` runs: the SDK's streamable-HTTP app at ``/mcp``, every body screened first."""
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, json_response=True,
                                     max_request_body_size=MAX_MESSAGE_BYTES, session_idle_timeout=SESSION_IDLE_S)
    return ScreenedBodies(app)


def serve_http(server: Any, host: str, port: int) -> None:
    """Serve ``server`` over streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted."""
    import uvicorn

    print(f"serve-mcp: streamable HTTP at http://{host}:{port}{MCP_PATH}", file=sys.stderr, flush=True)
    uvicorn.run(http_app(server, host), host=host, port=port, log_level="warning")
