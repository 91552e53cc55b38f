"""Framework adapters end to end: a real OpenAI Agents SDK / LangGraph agent, the in-repo chat server playing a policy.

The server (tests/judges/chat_server.py, on 127.0.0.1, no key) is scripted to
issue exactly the tool calls ``run-agent`` recorded for a built-in policy;
the framework runs them through orgbench's native tools; the recorded trace
must equal what the server asked for, and every contract must score exactly
as the same trace submitted directly and as ``run-agent`` with that policy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.groundeval.adapters.base import ModelConfig
from judges.groundeval.adapters.observe import observe
from judges.groundeval.run import run_agent, score_run
from orgbench.cli import cli
from tests.judges.chat_server import ChatServer
from tests.judges.groundeval.extras import require
from tests.judges.groundeval.policy_script import PolicyScript

FACTORIES = {"openai-agents": ("agents", "openai_agent"), "langgraph": ("langgraph", "langgraph_agent")}
MODULE = "tests.judges.groundeval.adapter_agents"
pytestmark = pytest.mark.filterwarnings("ignore:create_react_agent has been moved")


@pytest.fixture(autouse=True)
def _no_remote_tracing(monkeypatch):
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _needs(framework: str) -> None:
    require(framework, FACTORIES[framework][0])


@pytest.fixture(scope="module")
def reference(rt_suite, tmp_path_factory):
    """run-agent runs of the built-in policies (no latency: comparable byte for byte)."""
    root = tmp_path_factory.mktemp("ref")
    for policy in ("oracle", "leaky"):
        run_agent(rt_suite, policy, "tool", root / policy, record_latency=False)
    return root


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _scores(rows: list[dict]) -> dict:
    return {r["question_id"]: {k: v for k, v in r.items() if k != "agent"} for r in rows}


@pytest.mark.slow          # a whole suite through each framework (31-54 s each, loaded machine)
@pytest.mark.parametrize("policy", ["oracle", "leaky"])
@pytest.mark.parametrize("framework", ["openai-agents", "langgraph"])
def test_a_policy_through_the_adapter_scores_as_run_agent(framework, policy, rt_suite, reference, tmp_path):
    _needs(framework)
    ref = reference / policy
    script = PolicyScript(ref)
    turns = max(len(row["calls"]) for row in _lines(ref / "traces.jsonl")) + 2
    with ChatServer(answer=script) as server:
        observe(rt_suite, framework, f"{MODULE}:{FACTORIES[framework][1]}", tmp_path / "obs",
                ModelConfig("scripted", server.base_url, max_turns=turns), record_latency=False)
    traces = _lines(tmp_path / "obs" / "traces.jsonl")
    answers = {a["question_id"]: a["answer"] for a in _lines(tmp_path / "obs" / "answers.jsonl")}
    asked = {}
    for qid, tool, args in script.issued:
        asked.setdefault(qid, []).append((tool, args))
    for trace in traces:      # the trace holds exactly the gated calls the server asked for, in order
        qid = trace["question_id"]
        wanted = asked[qid]
        assert [(c["tool"], c["args"]) for c in trace["calls"]] == [w for w in wanted if w[0] != "submit_answer"]
        assert wanted[-1] == ("submit_answer", {"answer": answers[qid]})
    reference_traces = {t["question_id"]: t["calls"] for t in _lines(ref / "traces.jsonl")}
    assert {t["question_id"]: t["calls"] for t in traces} == reference_traces
    direct = tmp_path / "direct.jsonl"       # the same trace, submitted as any external agent would
    direct.write_text("".join(json.dumps({"question_id": t["question_id"], "agent": "direct", "mode": "tool",
                                          "answer": answers[t["question_id"]], "calls": t["calls"]}) + "\n"
                              for t in traces), encoding="utf-8")
    score_run(rt_suite, tmp_path / "obs", tmp_path / "s-obs")
    score_run(rt_suite, direct, tmp_path / "s-direct")
    score_run(rt_suite, ref, tmp_path / "s-ref")
    observed = _scores(_lines(tmp_path / "s-obs" / "questions.jsonl"))
    assert len(observed) == len(traces) > 50
    assert observed == _scores(_lines(tmp_path / "s-direct" / "questions.jsonl"))
    assert observed == _scores(_lines(tmp_path / "s-ref" / "questions.jsonl"))
    if policy == "leaky":     # the leak is seen through the adapter too
        assert any(any(any(c["gates"].values()) for c in t["calls"]) for t in traces)


@pytest.mark.parametrize("framework", ["openai-agents", "langgraph"])
def test_a_factory_that_raises_is_one_line_exit_2_and_nothing_written(framework, rt_suite, tmp_path):
    _needs(framework)
    with ChatServer() as server:
        result = CliRunner().invoke(cli, ["observe", "--framework", framework, "--agent", f"{MODULE}:broken",
                                          "--suite", str(rt_suite), "--out", str(tmp_path / "run"),
                                          "--base-url", server.base_url, "--model", "m"])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1
    assert "RuntimeError: no model configured for this environment" in result.output
    assert not (tmp_path / "run").exists() and server.total == 0


@pytest.mark.parametrize("spec, says", [
    ("no_such_module_xyz:build", "cannot import no_such_module_xyz"),
    (f"{MODULE}:missing", "has no function 'missing'"),
    ("nocolon", "expected package.module:function"),
])
def test_an_agent_that_cannot_be_had_is_one_line_exit_2(spec, says, rt_suite, tmp_path):
    _needs("openai-agents")
    result = CliRunner().invoke(cli, ["observe", "--framework", "openai-agents", "--agent", spec,
                                      "--suite", str(rt_suite), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and says in result.output, result.output
    assert not (tmp_path / "run").exists()


def _doc_factory(page: str) -> str:
    """The copy-paste factory of a docs page (its ``# my_pkg/...`` python block)."""
    text = (Path(__file__).parents[3] / "docs" / page).read_text(encoding="utf-8")
    block = next(b for b in text.split("```python\n")[1:] if b.startswith("# my_pkg/"))
    return block.split("```", 1)[0]


@pytest.mark.parametrize("framework, page", [("openai-agents", "adapter-openai-agents.md"),
                                             ("langgraph", "adapter-langgraph.md")])
def test_the_docs_example_runs_as_written(framework, page, rt_suite, reference, tmp_path, monkeypatch):
    _needs(framework)
    module = f"doc_agent_{framework.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(_doc_factory(page), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    script = PolicyScript(reference / "oracle")
    with ChatServer(answer=script) as server:
        result = CliRunner().invoke(cli, ["observe", "--framework", framework, "--agent", f"{module}:build_agent",
                                          "--suite", str(rt_suite), "--out", str(tmp_path / "run"), "--limit", "6",
                                          "--base-url", server.base_url, "--model", "scripted", "--no-latency"])
    assert result.exit_code == 0, result.output
    wanted = _lines(reference / "oracle" / "traces.jsonl")[:6]
    assert [t["calls"] for t in _lines(tmp_path / "run" / "traces.jsonl")] == [t["calls"] for t in wanted]


@pytest.mark.slow          # two subprocess runs per framework (50-68 s each, loaded machine)
@pytest.mark.parametrize("framework", ["openai-agents", "langgraph"])
def test_observe_is_byte_identical_under_any_hash_seed(framework, rt_suite, reference, tmp_path):
    import os
    import subprocess
    import sys

    _needs(framework)
    root = Path(__file__).parents[3]
    outputs = []
    with ChatServer(answer=PolicyScript(reference / "leaky")) as server:
        for seed in ("0", "12345"):
            out = tmp_path / f"run-{seed}"
            env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
            subprocess.run([sys.executable, "-m", "orgbench", "observe", "--framework", framework,
                            "--agent", f"{MODULE}:{FACTORIES[framework][1]}", "--suite", str(rt_suite),
                            "--out", str(out), "--limit", "8", "--base-url", server.base_url, "--model", "scripted",
                            "--no-latency", "--max-turns", "200"], cwd=root, env=env, check=True, capture_output=True)
            outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outputs[0] == outputs[1] and len(outputs[0]) == 4


@pytest.mark.parametrize("framework", ["openai-agents", "langgraph"])
def test_ill_typed_calls_reach_the_runtime_uncoerced_and_are_traced(framework, rt_suite, tmp_path):
    _needs(framework)
    sent = [("search_artifacts", {"query": "status", "limit": "5"}), ("fetch_artifact", {"artifact_id": 5}),
            ("search_artifacts", {"query": "status", "limit": 5.0}), ("fetch_artifact", {})]

    def answer(body: dict) -> dict:
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        if done < len(sent):
            tool, args = sent[done]
        elif done == len(sent):
            tool, args = "submit_answer", {"answer": {"exists": False, "evidence_artifacts": []}}
        else:
            return {"role": "assistant", "content": "done"}
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{done}", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]}

    with ChatServer(answer=answer) as server:
        observe(rt_suite, framework, f"{MODULE}:{FACTORIES[framework][1]}", tmp_path / "run",
                ModelConfig("scripted", server.base_url), record_latency=False, limit=1)
    calls = _lines(tmp_path / "run" / "traces.jsonl")[0]["calls"]
    assert [(c["tool"], c["outcome"]) for c in calls] == [(t, "invalid") for t, _ in sent]
    assert calls[0]["args"] == {"query": "status", "subsystem": None, "limit": "5"}
    assert calls[1]["args"] == {"artifact_id": 5} and calls[3]["args"] == {"artifact_id": None}
