"""A scripted OpenAI-compatible chat server with function calling, on 127.0.0.1 (aiohttp.web, own thread).

It plays a small agent: on the first turn it searches for the first id-like
token of the question, then fetches the top hit, then submits an answer that
cites it — reading only the messages it is sent, like a model would. In
context mode (only ``submit_answer`` offered) it submits at once, citing the
first id in the context. Every request body is kept in ``requests``.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading

from aiohttp import web

_ID = re.compile(r"\b[A-Z]{2,5}-\d+\b")


def _answer(track: str, cited: list[str]) -> dict:
    if track == "perspective":
        return {"could_actor_have_known": bool(cited), "evidence_artifacts": cited, "blocked_subsystems": []}
    if track == "counterfactual":
        return {"outcome_changed": False, "causal_mechanism": "no_causal_link", "cause_event_id": "",
                "effect_event_id": "", "mechanism_direction": "no_causal_link", "evidence_artifacts": cited}
    return {"exists": False, "evidence_artifacts": cited}


class ToolChatServer:
    """Start with ``with ToolChatServer() as server: server.base_url``."""

    def __init__(self, refuse_after: int | None = None) -> None:
        self.refuse_after = refuse_after       # answer 401 (key refused) from this request on
        self.requests: list[dict] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.port = 0

    def _reply(self, body: dict) -> dict:
        messages = body["messages"]
        contract = json.loads(messages[1]["content"])
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        tool_turns = [m for m in messages if m["role"] == "tool"]
        n = len(self.requests)
        if "search_artifacts" not in tools:
            ids = re.findall(r"\[([A-Z]+-\d+@\d+)\]", messages[-1]["content"])
            call = ("submit_answer", {"answer": _answer(contract["track"], ids[:1])})
        elif not tool_turns:
            found = _ID.findall(contract["question"])
            call = ("search_artifacts", {"query": found[-1] if found else contract["question"], "limit": 3})
        elif len(tool_turns) == 1:
            hits = json.loads(tool_turns[0]["content"]).get("results", [])
            call = ("fetch_artifact", {"artifact_id": hits[0]["id"] if hits else "NOTHING-1"})
        else:
            fetched = json.loads(tool_turns[1]["content"]).get("artifact")
            call = ("submit_answer", {"answer": _answer(contract["track"], [fetched["id"]] if fetched else [])})
        name, args = call
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call-{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
        return {"id": f"r{n}", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}}

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        if self.refuse_after is not None and len(self.requests) >= self.refuse_after:
            return web.json_response({"error": {"message": "key refused"}}, status=401)
        reply = self._reply(body)
        self.requests.append(body)
        return web.json_response(reply)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> "ToolChatServer":
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
