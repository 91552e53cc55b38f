"""Helpers for CLI tests: run orgbench in-process, expect one error line, snapshot folders, a refusing server."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import socket
from pathlib import Path

from click.testing import CliRunner, Result

from orgbench.cli import cli

SIZES = ["--sizes", "P1=3,P3=3,P2=3,P4=3"]


def run(*args) -> Result:
    """Invoke the orgbench CLI in-process with string arguments."""
    return CliRunner().invoke(cli, [str(a) for a in args])


def ok(*args) -> str:
    result = run(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


#: A progress line printed off a terminal (judges.run_log.Progress): not an error line.
PROGRESS = re.compile(r"^.+: \d+/\d+ (done, starting|\(\d+%, [\d.]+/s\))$")


def fails(*args, says: tuple[str, ...]) -> str:
    """Run a command that must fail with exit code 2 and exactly one ``error:`` line containing ``says``."""
    result = run(*args)
    assert result.exit_code == 2, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception   # no traceback
    lines = [line for line in result.stderr.strip().splitlines() if not PROGRESS.match(line)]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in says:
        assert text in lines[0], lines[0]
    return lines[0]


def usage_error(*args, option: str) -> None:
    """A bad option value is refused by click itself: exit code 2 and a line naming the option."""
    result = run(*args)
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"Invalid value for '{option}'" in result.stderr.strip().splitlines()[-1], result.stderr


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` with its bytes (to show nothing was replaced)."""
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Refusing(http.server.BaseHTTPRequestHandler):
    """A chat-completions endpoint that answers every request with HTTP 400 (e.g. a model it cannot run)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'{"error": {"message": "model m cannot do that"}}'
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_rows(path: Path, items: list) -> None:
    path.write_text("".join(json.dumps(item) + "\n" for item in items))


