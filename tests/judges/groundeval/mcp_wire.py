"""A `serve-mcp` process driven by raw JSON-RPC lines over its stdin/stdout (exact bytes, no client-side coercion)."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[3]
PATIENCE_S = 60      # a safety net against a hung server, not a timing assertion


class WireServer:
    """``orgbench serve-mcp ARGS`` with the MCP handshake done; ``request`` sends one line and returns the reply."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "orgbench", "serve-mcp", *args], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._next = 0
        self.request_line(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "wire", "version": "1"}}}))
        self._send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def request_line(self, line: str) -> dict[str, Any] | None:
        """Send one raw line (a request); the reply, or None if none came."""
        self._send(line)
        return self.reply()

    def reply(self) -> dict[str, Any] | None:
        """The next line the server writes, or None if it writes none."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], PATIENCE_S)
        line = self.process.stdout.readline() if ready else b""
        return json.loads(line) if line else None

    def call_line(self, tool: str, arguments_json: str) -> str:
        """A tools/call request line with the arguments object given as raw JSON text."""
        self._next += 1
        return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s}}'
                % (self._next, json.dumps(tool), arguments_json))

    def call(self, tool: str, arguments_json: str) -> dict[str, Any] | None:
        """Call a tool with raw JSON arguments; its structured result (None: no reply)."""
        reply = self.request_line(self.call_line(tool, arguments_json))
        return None if reply is None else reply["result"]["structuredContent"]

    def close(self) -> str:
        """Close stdin, wait for the process, return its stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        self.process.wait(PATIENCE_S)
        return self.process.stderr.read().decode("utf-8", "replace")

    def __enter__(self) -> "WireServer":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.close()


VALID_ANSWERS = {   # the smallest answer of each track that the answer schema accepts
    "perspective": {"could_actor_have_known": False, "evidence_artifacts": [], "blocked_subsystems": [], "reasoning": ""},
    "counterfactual": {"outcome_changed": False, "causal_mechanism": "no_causal_link", "cause_event_id": None,
                       "effect_event_id": None, "mechanism_direction": "no_causal_link", "evidence_artifacts": [],
                       "actors": [], "reasoning": ""},
    "silence": {"exists": False, "evidence_artifacts": [], "reasoning": ""},
}


def valid_answer(track: str, **extra: Any) -> dict[str, Any]:
    """A well-formed answer for a contract of ``track`` (``extra`` fields added)."""
    return {**VALID_ANSWERS[track], **extra}
