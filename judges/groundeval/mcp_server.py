"""Serve a GroundEval suite's gated runtime over MCP: a whole suite per connection, or one contract.

Suite mode (``make_server(suite, None, out)``): ``list_contracts``,
``start_contract``, ``get_contract``, ``search_artifacts``, ``fetch_artifact``
and ``submit_answer``; every client connection has its own ``SuiteSession``
(``judges.groundeval.mcp_session``): one ``Server.run`` (a stdio process or
an in-process client) holds it in the run's lifespan state, an HTTP MCP
session under its ``Mcp-Session-Id`` (dropped once idle for
``SESSION_IDLE_S``, when the SDK ends the session), so an agent works through
the suite in one connection and sessions never see each other's state. A
stdio connection answers as ``agent_name``; an HTTP session as the agent its
URL names (``?agent=NAME``), else as ``agent_name`` and its session id
(``mcp_transports.session_agent``).
One-contract mode (``question_id`` given): ``get_contract`` and the three
runtime tools for that contract only, as ``serve-mcp --contract`` did before.
Context mode (``mode="context"``, ``serve-mcp --mode context``): each
contract is shown with its context and the agent only submits (no
``search_artifacts`` / ``fetch_artifact``); the answers are scored as
``run-agent --mode context``'s are.
A task-contract suite is served the same way by a ``TaskSession``
(``judges.groundeval.task_session``), with ``use_task_tool`` for the
contract's own tools.

The server applies exactly the gates of ``GatedRuntime`` for the contract's
actor and ``as_of``. Runtime tool arguments reach the runtime as sent, which
records every call with the outcome an in-process call with the same
arguments gets (``judges.groundeval.call_args``; a string over 2,000
characters makes the call invalid and is not echoed). Every message is read
by ``judges.groundeval.jsonrpc_screen`` first (``mcp_transports``), so a
malformed one is answered with its JSON-RPC error. On ``submit_answer`` the
answer and the trace are appended to ``OUT/answers.jsonl`` /
``OUT/traces.jsonl`` under a file lock (``judges.groundeval.submissions``),
so ``orgbench score groundeval --answers OUT`` scores them. The truth file is
never opened. ``serve`` warms a server up before its first message
(``judges.groundeval.mcp_warmup``), so its memory stays flat while it serves.
"""

from __future__ import annotations

import json
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from judges.groundeval.call_args import DEFAULT_LIMIT, MAX_ARG_CHARS, MAX_LIMIT
from judges.groundeval.context import DEFAULT_BUDGET
from judges.groundeval.mcp_session import MODES, RUNTIME_TOOLS, SuiteSession, shown
from judges.groundeval.submissions import check_writable
from judges.groundeval.mcp_transports import SESSION_IDLE_S, session_agent
from judges.groundeval.mcp_warmup import NoWrites, warm_up
from judges.groundeval.submissions import SubmissionLog
from judges.groundeval.runtime import Corpus
from judges.groundeval.task_session import TaskSession, TaskView
from judges.groundeval.task_track import is_task_suite
from judges.groundeval.traces import load_corpus_world, load_suite
from orgbench.core.jsonl import read_jsonl
from orgbench.core.errors import InputError

_TEXT = {"type": "string", "maxLength": MAX_ARG_CHARS}
TOOLS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {   # name: (description, properties, required)
    "list_contracts": ("Every question of the suite: id, track, actor, role, as_of, and whether this session "
                       "submitted it (start_contract shows a question's text).", {}, ()),
    "start_contract": ("Start one question by id, or resume the one this session started and has not submitted; "
                       "the other tools then act on it.",
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
    "use_task_tool": ("Call one of the current task contract's own tools (its `tools`) by name; returns its record.",
                      {"name": _TEXT, "arguments": {"type": "object"}}, ("name",)),
}
SUITE_TOOLS = ("list_contracts", "start_contract", "get_contract", "search_artifacts", "fetch_artifact",
               "submit_answer")
CONTRACT_TOOLS = ("get_contract", "search_artifacts", "fetch_artifact", "submit_answer")


def _instructions(first: dict[str, Any] | None, mode: str = "tool") -> str:
    if mode == "context":
        return ("You are answering GroundEval questions, each as the actor it names at its moment as_of, from the "
                "evidence shown with it. " + ("Call list_contracts, then for each question start_contract: its "
                "reply holds the question and its context. " if first is None else "Call get_contract: its reply "
                "holds the question and its context. ") + "Call submit_answer once per question with a JSON object "
                "following its answer_schema, citing the context's artifact ids and, to show where you looked, its "
                "searches (search:<subsystem>).")
    if first is None:
        return ("You are answering GroundEval questions, each as the actor it names at its moment as_of. Call "
                "list_contracts, then for each question start_contract, gather evidence with search_artifacts and "
                "fetch_artifact, and call submit_answer once with a JSON object following its answer_schema, "
                "citing artifact ids. Each question's calls are recorded on its own.")
    return ("You are answering one GroundEval question as the actor named below, at the moment as_of. Use "
            "search_artifacts and fetch_artifact to gather evidence, then call submit_answer once with a JSON "
            "object following answer_schema, citing artifact ids.\n" + json.dumps(first, ensure_ascii=False))


TASK_SUITE_TOOLS = (*SUITE_TOOLS[:-1], "use_task_tool", "submit_answer")


def _dispatch(session: SuiteSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name in RUNTIME_TOOLS:
        return session.runtime_call(name, arguments)
    if name == "use_task_tool":
        return session.runtime_call(str(arguments.get("name")), arguments.get("arguments", {}))
    if name == "list_contracts":
        return session.list_contracts()
    if name == "start_contract":
        return session.start_contract(arguments.get("question_id"))
    if name == "get_contract":
        return session.get_contract()
    return session.submit_answer(arguments.get("answer"))


def _connection_state(ctx: Any, agent_name: str) -> dict[str, Any]:
    """A connection's state: its run's lifespan dict (stdio, in-process), or its HTTP session's entry in it.

    A new state names the agent the connection answers as (``agent``).
    """
    headers = getattr(ctx.request, "headers", None)
    session_id = headers.get("mcp-session-id") if headers is not None else None
    if session_id is None:
        ctx.lifespan_context.setdefault("agent", agent_name)
        return ctx.lifespan_context                       # one per Server.run
    sessions: dict[str, tuple[dict[str, Any], float]] = ctx.lifespan_context.setdefault("http_sessions", {})
    now = time.monotonic()
    for ended in [sid for sid, (_, used) in sessions.items() if now - used > SESSION_IDLE_S]:
        del sessions[ended]                               # the SDK has ended it: idle longer than it allows
    if session_id in sessions:
        state = sessions[session_id][0]
    else:
        state = {"agent": session_agent(ctx.request.scope.get("query_string", b""), session_id, agent_name)}
    sessions[session_id] = (state, now)
    return state


def make_server(suite: Path, question_id: str | None, out: Path, agent_name: str = "mcp-agent", *,
                record_latency: bool = True, mode: str = "tool", budget: int = DEFAULT_BUDGET, warm: bool = False):
    """A low-level MCP ``Server``: the whole suite (``question_id`` None) or one contract, one state per session;
    ``mode`` "context" shows each contract with its context instead of offering the runtime tools; ``warm``:
    agents' calls run first on a throwaway session until memory is steady (``mcp_warmup``)."""
    import mcp_types as types
    from mcp.server import Server

    if mode not in MODES:
        raise InputError(f"--mode: expected tool or context, got {mode!r}")
    tasks = is_task_suite(Path(suite))
    if tasks and mode == "context":
        raise InputError(f"--mode context: {Path(suite) / 'contracts.jsonl'} holds task contracts, served in "
                         "tool mode only")
    if tasks:       # a task-contract suite: TaskSession over its records (judges.groundeval.task_session)
        by_id: dict[str, Any] = {row["question_id"]: TaskView(row["question_id"], row)
                                 for row in read_jsonl(Path(suite) / "contracts.jsonl").values}
        corpus: Any = {r["id"]: r for r in read_jsonl(Path(suite) / "corpus.jsonl").values}
    else:
        by_id = {c.question_id: c for c in load_suite(Path(suite))[1]}
        corpus = Corpus(load_corpus_world(Path(suite)))
    if not by_id:       # a server of no questions would start and answer every list_contracts with nothing
        raise InputError(f"{Path(suite) / 'contracts.jsonl'}: no contracts; nothing to serve")
    if question_id is not None and question_id not in by_id:
        raise InputError(f"--contract: no question {question_id!r} in {Path(suite) / 'contracts.jsonl'}")
    offered: tuple[str, ...] = SUITE_TOOLS if question_id is None else CONTRACT_TOOLS
    if tasks:
        offered = TASK_SUITE_TOOLS if question_id is None else (*CONTRACT_TOOLS[:-1], "use_task_tool", "submit_answer")
    if mode == "context":
        offered = tuple(name for name in offered if name not in RUNTIME_TOOLS)
    session_kind = TaskSession if tasks else SuiteSession
    served = by_id if question_id is None else {question_id: by_id[question_id]}

    logs: dict[str, SubmissionLog] = {}            # one per agent answering through this server
    warming = [False]                              # while True, each new connection is the warm-up's

    @asynccontextmanager
    async def per_connection(_: Any) -> AsyncIterator[dict[str, Any]]:
        # entered once per Server.run (dropped with its connection), once for an HTTP server
        yield {"log": NoWrites()} if warming[0] else {}

    def session_of(ctx: Any) -> SuiteSession:
        held = _connection_state(ctx, agent_name)
        state = held.get("session")
        if state is None:
            agent = held["agent"]
            log = held.get("log") or logs.setdefault(agent, SubmissionLog(Path(out), agent))
            state = held["session"] = session_kind(corpus, served, Path(out), agent, record_latency, log,
                                                   mode=mode, budget=budget)
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

    first = None if question_id is None else dict(by_id[question_id].body) if tasks else shown(by_id[question_id])
    server = Server("orgbench-groundeval", instructions=_instructions(first, mode), lifespan=per_connection,
                    on_list_tools=list_tools, on_call_tool=call_tool)
    if warm:
        warming[0] = True
        try:
            warm_up(server, served, offered)
        finally:
            warming[0] = False
    return server


def serve(suite: Path, question_id: str | None, out: Path, agent_name: str = "mcp-agent",
          http: tuple[str, int] | None = None, mode: str = "tool") -> None:
    """Run the server on stdio until the client disconnects, or on HTTP at ``http`` (host, port) until interrupted."""
    from judges.groundeval.mcp_transports import serve_http, serve_stdio

    server = make_server(suite, question_id, out, agent_name, mode=mode, warm=True)
    check_writable(out)                 # before an agent works on a question, not at its first submit
    if http is None:
        serve_stdio(server)
    else:
        serve_http(server, *http)
