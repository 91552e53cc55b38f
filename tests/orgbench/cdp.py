"""A minimal Chrome DevTools Protocol driver for headless Chromium (tests only).

Starts Debian's chromium with --remote-debugging-port=0 on 127.0.0.1, opens a
page, collects console errors and uncaught exceptions, evaluates JavaScript
and takes screenshots — enough to check a static report like a person would.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import aiohttp

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0", "--window-size=1280,2000",
)


def chromium_path() -> str | None:
    """The chromium binary, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium process and one page, driven over CDP."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="orgbench-chromium-")
        self.proc: subprocess.Popen | None = None
        self.session: aiohttp.ClientSession | None = None
        self.ws = None
        self.next_id = 0
        self.console_errors: list[str] = []
        self.pending: dict[int, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None
        self.loaded = asyncio.Event()

    async def __aenter__(self) -> "Browser":
        self.proc = subprocess.Popen(
            [chromium_path(), *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        port = await asyncio.get_running_loop().run_in_executor(None, self._read_port)
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as resp:
            targets = await resp.json()
        page = next(t for t in targets if t.get("type") == "page")
        self.ws = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        self.reader = asyncio.create_task(self._read())
        await self.send("Runtime.enable")
        await self.send("Page.enable")
        await self.send("Log.enable")
        return self

    def _read_port(self) -> int:
        assert self.proc and self.proc.stderr
        for line in self.proc.stderr:
            match = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if match:
                return int(match.group(1))
        raise RuntimeError("chromium did not report a DevTools port")

    async def _read(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
                continue
            method = data.get("method")
            params = data.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                self.console_errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                self.console_errors.append(params.get("exceptionDetails", {}).get("text", "exception"))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                self.console_errors.append(params["entry"].get("text", ""))
            elif method == "Page.loadEventFired":
                self.loaded.set()

    async def send(self, method: str, **params):
        """Send one CDP command and return its result."""
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self.ws.send_str(json.dumps({"id": self.next_id, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def open(self, path: Path) -> None:
        """Navigate to a local file and wait for its load event."""
        self.loaded.clear()
        await self.send("Page.navigate", url=Path(path).resolve().as_uri())
        await asyncio.wait_for(self.loaded.wait(), 30)

    async def evaluate(self, expression: str):
        """Evaluate JavaScript in the page and return its value."""
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "evaluation failed"))
        return result["result"].get("value")

    async def table_rows(self, selector: str) -> list[list[str]]:
        """The text of every cell of the rows ``selector`` matches (e.g. ``table[data-table=x] tbody tr``)."""
        return await self.evaluate(
            f"Array.from(document.querySelectorAll('{selector}'))"
            ".map(tr => Array.from(tr.children).map(td => td.textContent))")

    async def screenshot(self, target: Path) -> Path:
        """Save a PNG of the full page."""
        result = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        Path(target).write_bytes(base64.b64decode(result["data"]))
        return Path(target)

    async def __aexit__(self, *exc) -> None:
        if self.reader:
            self.reader.cancel()
        if self.ws is not None:
            await self.ws.close()
        if self.session is not None:
            await self.session.close()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
