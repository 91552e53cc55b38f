"""A killed contrast resumes from its journal: the rerun asks only what is unanswered and writes the same bytes.

``orgbench assure contrast`` runs as a real subprocess against the in-repo chat server (127.0.0.1, one answer at
a time, so the run is still dispatching when it is killed); it is SIGKILLed once its journal holds a few answers.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from tests.judges.chat_server import ChatServer

OUTPUTS = ("contrast.json", "contrast.md", "contrast.csv", "contrast.tex", "flags.csv")
LIMIT, DRAWS = 3, 2
ASKED = LIMIT * 8 * DRAWS                   # eight packets per trajectory, each judged per draw


def _verdict(body: dict) -> str:
    """A verdict that depends on the packet and the draw's seed only, so any run gets the same answers."""
    digest = hashlib.sha256(f"{body['messages'][-1]['content']}|{body.get('seed')}".encode("utf-8")).digest()
    return json.dumps({"dimensions": {}, "claims": [], "verdict": ("fail", "pass", "fail")[digest[0] % 3]})


def _args(suite, out, url) -> list[str]:
    return ["assure", "contrast", "--source", str(suite), "--out", str(out), "--judge", "openai:judge-model",
            "--base-url", url, "--draws", str(DRAWS), "--limit", str(LIMIT)]


def _answered(journal) -> int:
    """Complete answer lines in the journal (its header and a torn last line left out)."""
    lines = journal.read_bytes().split(b"\n")[1:-1]
    return sum(1 for line in lines if json.loads(line).get("response"))


@pytest.mark.slow          # the contrast twice and a killed subprocess run (16 s, loaded machine)
def test_a_killed_contrast_asks_only_what_is_unanswered_and_writes_the_same_bytes(suite_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    journal = tmp_path / "cut" / ".contrast.journal.jsonl"
    with ChatServer(answer=_verdict, delay=0.1, slots=1) as server:
        whole = CliRunner().invoke(cli, _args(suite_dir, tmp_path / "whole", server.base_url))
        assert whole.exit_code == 0, whole.output
        assert server.total == ASKED and not (tmp_path / "whole" / ".contrast.journal.jsonl").exists()
        server.reset()
        run = subprocess.Popen([sys.executable, "-m", "orgbench.cli", *_args(suite_dir, tmp_path / "cut",
                                                                              server.base_url)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while run.poll() is None and time.monotonic() < deadline:
            if journal.is_file() and _answered(journal) >= 6:
                break
            time.sleep(0.05)
        os.kill(run.pid, signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL
        answered = _answered(journal)
        assert 6 <= answered < ASKED and not (tmp_path / "cut" / "contrast.json").exists()
        server.reset()
        again = CliRunner().invoke(cli, _args(suite_dir, tmp_path / "cut", server.base_url))
        assert again.exit_code == 0, again.output
        assert server.total == ASKED - answered            # the journal's answers are not asked again
    assert not journal.exists()
    for name in OUTPUTS:
        assert (tmp_path / "cut" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    flags = json.loads((tmp_path / "whole" / "contrast.json").read_text())["cells"]
    assert sum(cell["flags"] for cell in flags.values()) > 0       # the answers mix fail and pass
