"""Fixtures shared by the CLI tests: one small world and everything built from it, and a refusing server."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

from tests.orgbench.clitools import SIZES, Refusing, ok


@pytest.fixture(scope="session")
def refusing_url():
    """The base URL of a real local server (127.0.0.1) that refuses every request."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def fx(tmp_path_factory) -> dict[str, Path]:
    """A world and what is built from it: CARGO, GroundEval and trajectory suites, a judge run, an agent run."""
    base = tmp_path_factory.mktemp("cli_errors")
    paths = {name: base / name for name in ("world", "cargo", "ge", "tr", "judged", "answered")}
    ok("simulate", "--out", paths["world"], "--days", 20, "--people", 25)
    ok("build", "cargo", "--world", paths["world"], "--out", paths["cargo"], *SIZES)
    ok("build", "groundeval", "--world", paths["world"], "--out", paths["ge"])
    ok("build", "trajectories", "--world", paths["world"], "--out", paths["tr"], "--n", 6)
    ok("judge", "--suite", paths["cargo"], "--judge", "builtin:literal", "--conditions", "direct,cargo",
       "--out", paths["judged"])
    ok("run-agent", "--suite", paths["ge"], "--agent", "oracle", "--out", paths["answered"])
    (base / "a-file").write_text("mine\n")
    paths["file"] = base / "a-file"
    return paths


