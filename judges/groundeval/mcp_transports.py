"""The wire ``serve-mcp`` speaks: stdio lines, each screened before the SDK sees it.

Each line is read with at most ``MAX_MESSAGE_BYTES`` held (a longer line is
drained and answered ``-32600`` unread), undecodable bytes replaced, then
``jsonrpc_screen.screen`` either passes the message to the SDK's server loop
or writes its JSON-RPC error. (The SDK's own ``stdio_server`` answers nothing
to a line it cannot read.)
"""

from __future__ import annotations

import sys
from typing import Any, AsyncIterator, Callable

from judges.groundeval.jsonrpc_screen import MAX_MESSAGE_BYTES, Screened, screen, too_large

_CHUNK = 1 << 16


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
