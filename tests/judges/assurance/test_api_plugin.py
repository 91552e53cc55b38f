"""The library API and the opt-in pytest plugin on a renderer that is not ours."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_builders.trajectories.records import ChatMessage, ToolCall, Trajectory
from judges.assurance.api import MUTATORS, all_obligations, content_problems


class JsonLinesRenderer:
    """Someone else's renderer: one JSON object per message, the target flagged, tool calls kept."""

    def __init__(self, drop_calls: bool = False) -> None:
        self.drop_calls = drop_calls

    def render(self, trajectory, target, extent):
        last = target if extent == "prefix" else len(trajectory.messages) - 1
        rows = []
        for i, m in enumerate(trajectory.messages[:last + 1]):
            row = {"i": i, "role": m.role, "text": m.content, "target": i == target}
            if m.tool_calls and not self.drop_calls:
                row["calls"] = [{"id": c.id, "tool": c.name, "args": c.arguments} for c in m.tool_calls]
            rows.append(json.dumps(row, ensure_ascii=False))
        return ("\n".join(rows) + "\n").encode("utf-8")


def _trajectories():
    return [Trajectory("t1", "t1", (
        ChatMessage("user", "My unit SN-1 is broken."),
        ChatMessage("assistant", "", (ToolCall("c1", "get_asset", "SN-1"), ToolCall("c2", "check_entitlement", "X1"))),
        ChatMessage("tool", "model X", (), "c1"), ChatMessage("tool", "active", (), "c2"),
        ChatMessage("assistant", "", (ToolCall("c3", "create_dispatch", "D1"),)),
        ChatMessage("tool", "DSP-1", (), "c3"), ChatMessage("assistant", "Your dispatch is on its way."))),
    ]


def test_a_faithful_renderer_that_is_not_ours_meets_all_four():
    evidence = all_obligations(JsonLinesRenderer(), _trajectories())
    assert [e.obligation for e in evidence] == [1, 2, 3, 4]
    assert all(e.ok for e in evidence), [e.failures for e in evidence]
    assert evidence[1].tried > len(MUTATORS)              # clean packets plus every mutation that applies


def test_a_renderer_that_drops_calls_fails_obligation_one():
    evidence = all_obligations(JsonLinesRenderer(drop_calls=True), _trajectories())
    assert not evidence[0].ok and "call c1 name missing" in evidence[0].failures[0]


def test_a_checker_that_accepts_everything_fails_obligations_two_and_three():
    evidence = all_obligations(JsonLinesRenderer(), _trajectories(), checker=lambda *a: [])
    assert evidence[0].ok and not evidence[1].ok and not evidence[2].ok


def test_content_problems_reads_the_json_escaping_renderer_as_missing():
    t = Trajectory("t", "t", (ChatMessage("user", 'quote "x"'), ChatMessage("assistant", "", (ToolCall("c", "f", '{"a": 1}'),)),
                              ChatMessage("tool", "ok", (), "c")))
    packet = JsonLinesRenderer().render(t, 1, "full")        # JSON-escaped arguments are not the source bytes
    assert content_problems(t, 1, "full", packet)


PLUGIN_TEST = '''
from benchmark_builders.trajectories.records import ChatMessage, ToolCall, Trajectory

class Plain:
    def render(self, trajectory, target, extent):
        last = target if extent == "prefix" else len(trajectory.messages) - 1
        out = []
        for m in trajectory.messages[:last + 1]:
            out.append(m.role + ": " + m.content)
            out += ["  call " + c.id + " " + c.name + " " + c.arguments for c in m.tool_calls]
        return ("\\n".join(out) + "\\n").encode()

def test_plain_renderer(assure, recording_stub, packet_mutators):
    t = Trajectory("t", "t", (ChatMessage("user", "hi there"), ChatMessage("assistant", "", (ToolCall("c", "f", "A1"),)),
                              ChatMessage("tool", "done", (), "c"), ChatMessage("assistant", "bye now")))
    evidence = assure(Plain(), [t])
    assert [e.ok for e in evidence] == [True] * 4 and recording_stub.reads == [] and "leak-a-label" in packet_mutators
'''


def _pytest(tmp_path, *args):
    (tmp_path / "test_plugin_user.py").write_text(PLUGIN_TEST)
    root = Path(__file__).parents[3]
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args,
                           str(tmp_path / "test_plugin_user.py")], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


@pytest.mark.slow          # pip-installs a package (35-42 s, loaded machine)
def test_the_plugin_is_opt_in(tmp_path):
    loaded = _pytest(tmp_path, "-p", "judges.assurance.pytest_plugin")
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    without = _pytest(tmp_path)
    assert without.returncode != 0 and "fixture 'assure' not found" in without.stdout
