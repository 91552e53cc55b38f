"""Before ``serve-mcp`` answers anyone: an agent's calls, run on a throwaway session until memory stops growing.

A server's resident memory grows over its first calls: numpy's code is paged
in as new kinds of query reach it, numpy's cache of freed small buffers fills
with the sizes new queries meet, and the heap settles around the SDK's reply
sizes (one stdio server on a 94-question suite: about 1.4 MB over its first
two passes through it). Fifty stdio servers, each still in its first pass,
grew by about 5 MB a minute together while serving. ``warm_up`` does that growth
before the first request is read.

It connects the MCP SDK's ``ClientSession`` to the server over an in-memory
pipe that carries each message as the stdio line it would be (dumped, read
back, the server's side screened by ``jsonrpc_screen.screen``), and works
through contracts in turn (every track's first, then every track's second,
...): ``start_contract``, a search of the question text and one of the actor
and a fetch of the first hit (when offered), ``get_contract``,
``list_contracts`` and ``submit_answer`` of the plainest answer its
``answer_schema`` allows (false, empty lists and strings), which the
connection's log (``NoWrites``) takes without writing anything. It stops once
``STEADY`` contracts in a row leave the process's resident size no larger
than its largest so far, after ``MAX_CONTRACTS``, or at an answer refused.
The connection and its session are then dropped.
"""

from __future__ import annotations

import resource
from pathlib import Path
from typing import Any, Iterator

from judges.groundeval.jsonrpc_screen import screen

#: Warm-up ends once this many contracts in a row left the resident size no larger than before ...
STEADY = 8
#: ... or after this many contracts.
MAX_CONTRACTS = 64


class NoWrites:
    """The warm-up connection's submission log: takes every answer, writes nothing."""

    def submit(self, trace: dict[str, Any], answer: dict[str, Any]) -> None:
        """Nothing: a warm-up answer is never written."""


def plainest_answer(schema: Any) -> dict[str, Any]:
    """An answer following ``schema`` (an ``answer_schema``): false for a bool, [] for a list, else ""."""
    if not isinstance(schema, dict):
        return {}
    return {key: False if str(kind) == "bool" else [] if str(kind).startswith("[") else ""
            for key, kind in schema.items()}


def resident_pages() -> int:
    """This process's resident size in pages (``/proc/self/statm``), else its peak resident size so far."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def by_track(contracts: dict[str, Any]) -> Iterator[str]:
    """Question ids, every track's first, then every track's second, ... (each track in suite order)."""
    tracks: dict[str, list[str]] = {}
    for qid, contract in contracts.items():
        track = getattr(contract, "track", None) or contract.body.get("track", "")
        tracks.setdefault(str(track), []).append(qid)
    for turn in range(max((len(ids) for ids in tracks.values()), default=0)):
        for ids in tracks.values():
            if turn < len(ids):
                yield ids[turn]


def warm_up(server: Any, contracts: dict[str, Any], offered: tuple[str, ...]) -> int:
    """Run an agent's calls on ``server`` (a low-level MCP ``Server``) until memory is steady; the contracts run.

    The server must give this connection a ``NoWrites`` log, so that nothing is written.
    """
    import anyio

    async def run() -> int:
        return await _warm(server, contracts, offered)

    return anyio.run(run)


async def _warm(server: Any, contracts: dict[str, Any], offered: tuple[str, ...]) -> int:
    import anyio
    import mcp_types as types
    from mcp import ClientSession
    from mcp.shared.message import SessionMessage

    client_out, wire_in = anyio.create_memory_object_stream[Any](0)
    wire_out, server_in = anyio.create_memory_object_stream[Any](0)
    server_out, wire_back = anyio.create_memory_object_stream[Any](0)
    wire_reply, client_in = anyio.create_memory_object_stream[Any](0)

    def line(message: Any) -> str:
        return str(message.message.model_dump_json(by_alias=True, exclude_unset=True))

    async def to_server() -> None:           # each client message as the line stdio carries, screened
        async with wire_in, wire_out:
            async for message in wire_in:
                screened = screen(line(message))
                if screened.message is not None:
                    await wire_out.send(SessionMessage(screened.message))

    async def to_client() -> None:           # each server message dumped and read back as the stdio client does
        async with wire_back, wire_reply:
            async for message in wire_back:
                await wire_reply.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line(message),
                                                                                              by_name=False)))

    async def agent(session: Any) -> int:
        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return dict((await session.call_tool(name, arguments)).structured_content or {})

        steady, ran, largest = 0, 0, resident_pages()
        for qid in by_track(contracts):
            if steady >= STEADY or ran >= MAX_CONTRACTS:
                break
            view = (await call("start_contract", {"question_id": qid})).get("contract") or {}
            if "search_artifacts" in offered:
                found = await call("search_artifacts", {"query": str(view.get("question", ""))[:60], "limit": 5})
                await call("search_artifacts", {"query": str(view.get("actor", "")), "limit": 3})
                hits = found.get("results") or [{"id": "NOPE-1"}]
                await call("fetch_artifact", {"artifact_id": hits[0]["id"]})
            await call("get_contract", {})
            await call("list_contracts", {})
            ran += 1
            if "submitted" != (await call("submit_answer", {"answer": plainest_answer(view.get("answer_schema"))})
                               ).get("status"):
                break
            now = resident_pages()
            steady, largest = (steady + 1, largest) if now <= largest else (0, now)
        return ran

    ran = 0
    async with anyio.create_task_group() as group:
        group.start_soon(to_server)
        group.start_soon(to_client)

        async def serve() -> None:
            async with server_in, server_out:
                await server.run(server_in, server_out, server.create_initialization_options())

        group.start_soon(serve)
        async with client_out, client_in, ClientSession(client_in, client_out) as session:
            await session.initialize()
            ran = await agent(session)
        group.cancel_scope.cancel()
    return ran


__all__ = ["MAX_CONTRACTS", "STEADY", "NoWrites", "plainest_answer", "by_track", "resident_pages", "warm_up"]
