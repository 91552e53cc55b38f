"""GroundEval in inspect_ai: inspect's mock model calls the gated runtime's tools; the scores are `orgbench score`'s."""

from __future__ import annotations

import json

import pytest

from tests.orgbench.clitools import ok

inspect_ai = pytest.importorskip("inspect_ai", reason="needs the inspect extra (pip install 'orgbench[inspect]')")


def scripted(input, tools, tool_choice, config):
    """A mock agent: search (on every third contract in a subsystem that may be closed to it), fetch the first hit
    (or an id from the question), then submit an answer citing what it fetched, following submit_answer's schema
    (inspect refuses arguments that do not) (token counts given, so the mock model counts none with a tokenizer it
    would download)."""
    from inspect_ai.model import ModelUsage

    output = _turn(input)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def _turn(input):
    from inspect_ai.model import ModelOutput

    contract = json.loads(next(m.text for m in input if m.role == "user"))
    turns = sum(1 for m in input if m.role == "assistant")
    results = [json.loads(m.text) for m in input if m.role == "tool"]
    if turns == 0:
        args = {"query": contract["question"][:80]}
        if int(contract["question_id"][-1], 16) % 3 == 0:
            args["subsystem"] = "hr"
        return ModelOutput.for_tool_call("mockllm", "search_artifacts", args, tool_call_id="c1")
    if turns == 1:
        hits = results[0].get("results") or []
        wanted = hits[0]["id"] if hits else contract["question"].split()[-1].strip("?.")
        return ModelOutput.for_tool_call("mockllm", "fetch_artifact", {"artifact_id": wanted}, tool_call_id="c2")
    fetched = results[-1].get("id")
    answer = {name: [] for name, kind in contract["answer_schema"].items() if kind.startswith("[")}
    answer.update(evidence_artifacts=[fetched] if fetched else [], reasoning="scripted")
    for name, kind in contract["answer_schema"].items():     # every other field as submit_answer's schema types it
        if kind == "bool":
            answer[name] = bool(fetched)
        elif " | " in kind:
            answer[name] = kind.split(" | ")[-1]
        elif name not in answer:
            answer[name] = None
    return ModelOutput.for_tool_call("mockllm", "submit_answer", {"answer": answer}, tool_call_id="c3")


@pytest.mark.slow       # a world, a suite and scripted conversations over 5 contracts of each track
def test_groundeval_task_scores_what_orgbench_score_gives(tmp_path):
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import get_model

    from orgbench.harness.inspect_tasks import groundeval

    ok("simulate", "--out", tmp_path / "world", "--days", 20, "--people", 25)
    ok("build", "groundeval", "--world", tmp_path / "world", "--out", tmp_path / "suite")
    contracts = [json.loads(line) for line in (tmp_path / "suite" / "contracts.jsonl").read_text().splitlines()]
    chosen = [c for track in ("perspective", "counterfactual", "silence")
              for c in [c for c in contracts if c["track"] == track][:5]]
    limit = max(contracts.index(c) for c in chosen) + 1
    logs = inspect_ai.eval(groundeval(suite=str(tmp_path / "suite"), limit=limit),
                           model=get_model("mockllm/model", custom_outputs=scripted), log_dir=str(tmp_path / "logs"),
                           display="none")
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    scores = {s.id: s.scores["groundeval_rules"] for s in log.samples}
    assert len(scores) == limit
    calls = [call for score in scores.values() for call in score.metadata["calls"]]
    assert {c["tool"] for c in calls} == {"search_artifacts", "fetch_artifact"}
    broke = [any(c["gates"].values()) for c in calls]
    assert any(broke) and not all(broke)                    # some calls broke a gate, others did not

    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"question_id": qid, "agent": "mock", "mode": "tool",
                                           "answer": score.metadata["answer"], "calls": score.metadata["calls"]})
                               + "\n" for qid, score in sorted(scores.items())), encoding="utf-8")
    ok("score", "groundeval", "--suite", tmp_path / "suite", "--answers", answers, "--out", tmp_path / "scores",
       "--answered-only")
    rows = {r["question_id"]: r for r in map(json.loads, (tmp_path / "scores" / "questions.jsonl").read_text()
                                            .splitlines())}
    assert sorted(rows) == sorted(scores)
    for qid, score in scores.items():
        assert score.value == {name: rows[qid][name] for name in ("s_answer", "s_traj", "v", "s_adj")}, qid
    assert len({r["s_adj"] for r in rows.values()}) > 1

    summary = json.loads((tmp_path / "scores" / "summary.json").read_text())["agents"]["mock"]["tool"]
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    for track in ("perspective", "counterfactual", "silence", "all"):
        if summary[track]["n"]:
            for name in ("s_answer", "s_traj", "s_adj", "violation_rate"):
                assert metrics[f"{track}/{name}"] == pytest.approx(summary[track][name]), (track, name)


def _scripted_server_turn(body: dict) -> dict:
    """The scripted agent above as an OpenAI-compatible server answers: the next assistant message with its call."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser

    shown = []
    for message in body["messages"]:
        if message["role"] == "user":
            shown.append(ChatMessageUser(content=message["content"]))
        elif message["role"] == "assistant":
            shown.append(ChatMessageAssistant(content=message.get("content") or ""))
        elif message["role"] == "tool":
            shown.append(ChatMessageTool(content=message["content"], tool_call_id=message["tool_call_id"]))
    call = _turn(shown).message.tool_calls[0]
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call.id, "type": "function", "function": {"name": call.function,
                                                         "arguments": json.dumps(call.arguments)}}]}


def _conversation(body: dict) -> tuple[str, int]:
    return body["messages"][1]["content"], sum(1 for m in body["messages"] if m["role"] == "assistant")


@pytest.mark.slow       # a world, a suite, run-agent and inspect over HTTP on 12 contracts, scoring twice
def test_groundeval_task_sends_what_run_agent_sends_and_records_the_same_calls(tmp_path, monkeypatch):
    from inspect_ai.log import read_eval_log

    from orgbench.harness.inspect_tasks import groundeval
    from tests.judges.chat_server import ChatServer

    ok("simulate", "--out", tmp_path / "world", "--days", 20, "--people", 25)
    ok("build", "groundeval", "--world", tmp_path / "world", "--out", tmp_path / "suite")
    monkeypatch.setenv("ORGBENCH_CACHE", str(tmp_path / "cache"))
    with ChatServer(answer=_scripted_server_turn) as server:
        ok("run-agent", "--suite", tmp_path / "suite", "--agent", "openai:gpt-4o-mini", "--base-url",
           server.base_url, "--out", tmp_path / "run", "--no-latency", "--limit", 12)
        by_run_agent = {_conversation(b): b for b in server.bodies}
        server.reset()
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        logs = inspect_ai.eval(groundeval(suite=str(tmp_path / "suite"), limit=12), model="openai/gpt-4o-mini",
                               model_base_url=server.base_url, log_dir=str(tmp_path / "logs"), display="none")
        by_inspect = {_conversation(b): b for b in server.bodies}
    assert logs[0].status == "success", logs[0].error
    assert len(by_inspect) == len(by_run_agent) == 12 * 3
    for key, body in by_inspect.items():   # inspect names tool_choice "auto" (the default) and sends "" for no text
        assert body.pop("tool_choice") == "auto"
        for message in body["messages"]:
            if message["role"] == "assistant" and message["content"] == "":
                message["content"] = None
        assert body == by_run_agent[key], key        # messages, tools and their schemas, temperature

    ok("score", "groundeval", "--suite", tmp_path / "suite", "--answers", tmp_path / "run", "--out",
       tmp_path / "scores", "--answered-only")
    rows = {r["question_id"]: r for r in map(json.loads, (tmp_path / "scores" / "questions.jsonl").read_text()
                                            .splitlines())}
    traces = {t["question_id"]: t["calls"] for t in map(json.loads, (tmp_path / "run" / "traces.jsonl").read_text()
                                                        .splitlines())}
    samples = read_eval_log(logs[0].location).samples
    assert sorted(s.id for s in samples) == sorted(rows)
    for sample in samples:
        score = sample.scores["groundeval_rules"]
        assert score.metadata["calls"] == traces[sample.id], sample.id
        assert score.value == {name: rows[sample.id][name] for name in ("s_answer", "s_traj", "v", "s_adj")}


def test_inspects_16_kb_tool_output_limit_is_off_for_the_gated_tools():
    from inspect_ai.model._call_tools import truncate_tool_output
    from inspect_ai.tool import ToolDef

    from orgbench.harness.inspect_groundeval import _tools

    long = "a" * 40_000
    shortened = truncate_tool_output("fetch_artifact", long, None)      # inspect's own default, no limit set
    assert shortened is not None and shortened.truncated_bytes == 16 * 1024
    assert truncate_tool_output("fetch_artifact", long, 0) is None      # 0: never shortened
    from benchmark_builders.groundeval.contracts import TRACKS

    for track in TRACKS:
        tools = {ToolDef(t).name: ToolDef(t).max_output for t in _tools(None, track)}
        assert tools == {"search_artifacts": 0, "fetch_artifact": 0, "submit_answer": 0}, track
