"""A real OpenAI-compatible chat-completions server on 127.0.0.1, scriptable per test (aiohttp.web).

``ChatServer`` runs in a background thread with its own event loop and
answers ``POST /v1/chat/completions``. By default it answers well: a short
reasoning sentence and a fenced JSON verdict, ``fail`` when the last user
message contains ``SHOULD_FAIL``, ``pass`` otherwise. Tests script it with
``plan(...)``: a queue of :class:`Reply` consumed one per request before the
default resumes — slow answers, 429 with Retry-After, 500, a malformed body,
no answer at all. With ``api_key`` set, requests without that bearer key get
401. With ``slots`` it answers at most that many at once and queues the rest
(as a llama.cpp server does); ``refuse_formats`` answers 400 to those
``response_format`` types. ``counts`` holds requests per key (last user message + seed), so a test
can prove that finished work is not asked again.

Run as a script it serves in the foreground (for benchmarks and subprocess
tests) and prints ``{"port": N}`` on its first line:
``python tests/judges/chat_server.py --delay 0.05``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from aiohttp import web


@dataclass(frozen=True)
class Reply:
    """One scripted reply: an answer (optionally late), an HTTP status, a malformed body, or silence."""

    kind: str = "answer"  # answer | status | malformed | hang
    delay: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    text: str | None = None
    message: dict[str, Any] | None = None


def judge_answer(body: dict[str, Any]) -> str:
    """The default judge answer: reasoning, then a fenced JSON verdict decided by a marker in the prompt."""
    last = _last_user(body)
    verdict = "fail" if "SHOULD_FAIL" in last else "pass"
    status = "contradicted" if verdict == "fail" else "supported"
    answer = {"dimensions": {"accuracy": 1 if verdict == "fail" else 5, "procedure": 4},
              "claims": [{"text": "the status is open", "status": status}], "verdict": verdict}
    return "I compared the answer with the live context.\n```json\n" + json.dumps(answer) + "\n```"


def _last_user(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content"))
    return ""


def request_key(body: dict[str, Any]) -> str:
    """How the server counts requests: the last user message and the seed."""
    return f"{_last_user(body)}|seed={body.get('seed')}"


class ChatServer:
    """The scriptable chat-completions server (see the module docstring)."""

    def __init__(self, *, delay: float = 0.0, api_key: str | None = None,
                 answer: Callable[[dict[str, Any]], str | dict[str, Any]] = judge_answer, record: bool = True,
                 port: int = 0, slots: int | None = None, refuse_formats: tuple[str, ...] = ()) -> None:
        self.delay = delay
        self.slots = slots                      # at most this many answered at once; the rest queue (as llama.cpp)
        self.refuse_formats = set(refuse_formats)   # response_format types answered with HTTP 400
        self._slot_gate: asyncio.Semaphore | None = None
        self.api_key = api_key
        self.answer = answer
        self.record = record
        self.counts: collections.Counter[str] = collections.Counter()
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.arrivals: list[float] = []
        self.total = 0
        self.stop_after: int | None = None
        self._plan: collections.deque[Reply] = collections.deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._release: asyncio.Event | None = None
        self.port = port  # 0: any free port (the bound one is stored here once started)

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL clients are given."""
        return f"http://127.0.0.1:{self.port}/v1"

    def plan(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        with self._lock:
            self._plan.extend(replies)

    def reset(self) -> None:
        """Forget counts, recorded requests and any unconsumed plan."""
        with self._lock:
            self.counts.clear()
            self.bodies.clear()
            self.headers.clear()
            self.arrivals.clear()
            self._plan.clear()
            self.total = 0
            self.stop_after = None

    def _next(self) -> Reply | None:
        with self._lock:
            return self._plan.popleft() if self._plan else None

    def app(self) -> web.Application:
        """The aiohttp application."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        return app

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        with self._lock:
            self.total += 1
            number = self.total
            if self.record:
                self.arrivals.append(time.monotonic())
        if self.stop_after is not None and number > self.stop_after:
            # gone away: a request that slipped in before the shutdown finished gets its connection dropped
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        if self.api_key is not None and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return web.json_response({"error": {"message": "Incorrect API key provided"}}, status=401)
        try:
            body = json.loads(raw)
        except ValueError:
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        with self._lock:
            self.counts[request_key(body)] += 1
            if self.record:
                self.bodies.append(body)
                self.headers.append(dict(request.headers))
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") in self.refuse_formats:
            return web.json_response({"error": {"message": f"response_format {fmt.get('type')} not supported"}},
                                     status=400)
        if self._slot_gate is not None:
            async with self._slot_gate:
                return await self._reply(body, number)
        return await self._reply(body, number)

    async def _reply(self, body: dict[str, Any], number: int) -> web.StreamResponse:
        reply = self._next() or Reply(delay=self.delay)
        if reply.kind == "hang":
            assert self._release is not None
            try:
                await asyncio.wait_for(self._release.wait(), timeout=120)
            except asyncio.TimeoutError:
                pass
            return web.Response(status=503)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.kind == "status":
            return web.Response(status=reply.status, headers=reply.headers,
                                text=reply.body or json.dumps({"error": {"message": f"scripted {reply.status}"}}),
                                content_type="application/json")
        if reply.kind == "malformed":
            return web.Response(status=200, text=reply.body or '{"choices": [{"message": ', content_type="application/json")
        text = reply.text if reply.text is not None else self.answer(body)
        if isinstance(text, dict):           # an answer callable may give a whole assistant message (tool calls)
            message, text = text, json.dumps(text)
        else:
            message = reply.message or {"role": "assistant", "content": text}
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        completion = {
            "id": f"chatcmpl-{number}", "object": "chat.completion", "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": prompt // 4, "completion_tokens": len(text) // 4,
                      "total_tokens": prompt // 4 + len(text) // 4},
        }
        response = web.json_response(completion)
        if self.stop_after is not None and number >= self.stop_after and self._loop is not None:
            self._loop.call_soon(lambda: asyncio.ensure_future(self._shutdown()))
        return response

    async def _serve(self, port: int = 0) -> None:
        self._release = asyncio.Event()
        self._slot_gate = asyncio.Semaphore(self.slots) if self.slots else None
        self._runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _shutdown(self) -> None:
        if self._release is not None:
            self._release.set()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    def start(self) -> "ChatServer":
        """Start serving in a background thread; returns self once the port is bound."""
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(self._serve(self.port))
            ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._shutdown())
            # Requests still in flight end here, while the loop runs: a handler task left pending would be
            # destroyed by a later garbage collection on a closed loop, logging a traceback from whatever test
            # is running then (on Python 3.11 inside ast.parse, which then fails).
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

        self._thread = threading.Thread(target=run, name="chat-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def go_away(self) -> None:
        """Stop listening and drop open connections (the port then refuses connections)."""
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)

    def stop(self) -> None:
        """Stop the server and its thread."""
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> "ChatServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """Serve in the foreground until killed, printing the port first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--slots", type=int, default=None, help="answer at most this many at once; others queue")
    args = parser.parse_args()
    server = ChatServer(delay=args.delay, api_key=args.api_key, record=False, slots=args.slots)

    async def serve() -> None:
        await server._serve(args.port)
        print(json.dumps({"port": server.port}), flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
