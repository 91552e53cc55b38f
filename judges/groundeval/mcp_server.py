"""Serve a GroundEval suite's gated runtime over MCP: a whole suite per connection, or one contract.

Suite mode (``make_server(suite, None, out)``): ``list_contracts``,
``start_contract``, ``get_contract``, ``search_artifacts``, ``fetch_artifact``
and ``submit_answer``; every client connection (session: one ``Server.run``,
a stdio process or an in-process client) has its own ``SuiteSession``
(``judges.groundeval.mcp_session``, held in the server's per-run lifespan
state), so an agent works through the suite in one connection and sessions
never see each other's state.
One-contract mode (``question_id`` given): ``get_contract`` and the three
runtime tools for that contract only, as ``serve-mcp --contract`` did before.

The server applies exactly the gates of ``GatedRuntime`` for the contract's
actor and ``as_of``. Tool arguments are not validated here: they reach the
runtime as sent, which records every call with the outcome an in-process call
with the same arguments gets (``judges.groundeval.call_args``). Over stdio, a
line whose strings hold a lone surrogate escape (which the SDK's JSON parser
refuses, leaving the request unanswered) is read with those replaced by
U+FFFD, as undecodable bytes already are. On ``submit_answer`` the answer and
the trace are merged into ``OUT/answers.jsonl`` / ``OUT/traces.jsonl`` under a
file lock, so ``orgbench score groundeval --answers OUT`` scores them. The
truth file is never opened.
"""

from __future__ import annotations

import json
import re
import sys
from contextlib import asynccontextmanager
from io import TextIOWrapper
from pathlib import Path
from typing import Any, AsyncIterator

from judges.groundeval.call_args import DEFAULT_LIMIT, MAX_LIMIT, well_formed_text
from judges.groundeval.mcp_session import RUNTIME_TOOLS, SuiteSession, shown
from judges.groundeval.runtime import Corpus
from judges.groundeval.traces import load_corpus_world, load_suite
from orgbench.core.errors import InputError

_TEXT = {"type": "string"}
TOOLS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {   # name: (description, properties, required)
    "list_contracts": ("Every question of the suite: id, track, actor, role, as_of, and whether this session "
                       "submitted it (start_contract shows a question's text).", {}, ()),
    "start_contract": ("Start (or return to) one question by id; the other tools then act on it.",
                       {"question_id": _TEXT}, ("question_id",)),
    "get_contract": ("The current question: text, actor, role, readable subsystems, as_of and the answer schema.",
                     {}, ()),
    "search_artifacts": ("Search the artifacts the actor could see at as_of (BM25 over title and body).",
                         {"query": _TEXT, "subsystem": {"type": ["string", "null"]},
                          "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}},
                         ("query",)),
    "fetch_artifact": ("Read one artifact: ID (its version at as_of) or ID@N.", {"artifact_id": _TEXT},
                       ("artifact_id",)),
    "submit_answer": ("Submit the final answer (a JSON object following answer_schema); writes the answer and "
                      "the trace.", {"answer": {"type": ["object", "string"]}}, ("answer",)),
}
SUITE_TOOLS = ("list_contracts", "start_contract", "get_contract", "search_artifacts", "fetch_artifact",
               "submit_answer")
CONTRACT_TOOLS = ("get_contract", "search_artifacts", "fetch_artifact", "submit_answer")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _instructions(first: dict[str, Any] | None) -> str:
    if first is None:
        return ("You are answering GroundEval questions, each as the actor it names at its moment as_of. Call "
                "list_contracts, then for each question start_contract, gather evidence with search_artifacts and "
                "fetch_artifact, and call submit_answer once with a JSON object following its answer_schema, "
                "citing artifact ids. Each question's calls are recorded on its own.")
    return ("You are answering one GroundEval question as the actor named below, at the moment as_of. Use "
            "search_artifacts and fetch_artifact to gather evidence, then call submit_answer once with a JSON "
            "object following answer_schema, citing artifact ids.\n" + json.dumps(first, ensure_ascii=False))


def _dispatch(session: SuiteSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name in RUNTIME_TOOLS:
        return session.runtime_call(name, arguments)
    if name == "list_contracts":
        return session.list_contracts()
    if name == "start_contract":
        return session.start_contract(arguments.get("question_id"))
    if name == "get_contract":
        return session.get_contract()
    return session.submit_answer(arguments.get("answer"))


def make_server(suite: Path, question_id: str | None, out: Path, agent_name: str = "mcp-agent", *,
                record_latency: bool = True):
    """A low-level MCP ``Server``: the whole suite (``question_id`` None) or one contract, one state per session."""
    import mcp_types as types
    from mcp.server import Server

    _, contracts = load_suite(Path(suite))
    by_id = {c.question_id: c for c in contracts}
    if question_id is not None and question_id not in by_id:
        raise InputError(f"--contract: no question {question_id!r} in {Path(suite) / 'contracts.jsonl'}")
    corpus = Corpus(load_corpus_world(Path(suite)))
    offered = SUITE_TOOLS if question_id is None else CONTRACT_TOOLS
    served = by_id if question_id is None else {question_id: by_id[question_id]}

    @asynccontextmanager
    async def per_connection(_: Any) -> AsyncIterator[dict[str, SuiteSession]]:
        yield {}        # entered once per Server.run, i.e. per client connection on stdio and in-process streams

    def session_of(ctx: Any) -> SuiteSession:
        held: dict[str, SuiteSession] = ctx.lifespan_context
        state = held.get("session")
        if state is None:
            state = held["session"] = SuiteSession(corpus, served, Path(out), agent_name, record_latency)
            if question_id is not None:
                state.start_contract(question_id)
        return state

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name=name, description=TOOLS[name][0],
                       input_schema={"type": "object", "properties": TOOLS[name][1], "required": list(TOOLS[name][2])})
            for name in offered])

    async def call_tool(ctx: Any, params: Any) -> Any:
        arguments = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name not in offered:
            result: dict[str, Any] = {"error": "unknown_tool", "message": f"tools: {', '.join(offered)}"}
        else:
            result = _dispatch(session_of(ctx), params.name, arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(result))],
                                    structured_content=result, is_error="error" in result)

    first = shown(by_id[question_id]) if question_id is not None else None
    return Server("orgbench-groundeval", instructions=_instructions(first), lifespan=per_connection,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def well_formed_line(line: str) -> str:
    """A JSON-RPC line with lone surrogate escapes in its strings replaced by U+FFFD (any other line unchanged)."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    cleaned = well_formed_text(message)
    return line if cleaned == message else json.dumps(cleaned) + "\n"


class _Stdin:
    """The process's stdin as UTF-8 lines (undecodable bytes replaced), each passed through ``well_formed_line``."""

    def __init__(self) -> None:
        import anyio

        self._file = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._file:
            yield well_formed_line(line)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()


def serve(suite: Path, question_id: str | None, out: Path, agent_name: str = "mcp-agent") -> None:
    """Run the server on stdio until the client disconnects."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = make_server(suite, question_id, out, agent_name)

    async def run() -> None:
        async with stdio_server(stdin=_Stdin()) as (read, write):    # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
