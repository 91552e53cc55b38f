"""The ways in: the CLI end to end, answers from any agent as JSONL, the MCP server, and the openai:MODEL agent."""

import asyncio
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.judges.groundeval.ge_tool_server import ToolChatServer
from judges.groundeval.run import run_agent, score_run
from orgbench.cli import cli
from simulator.world import save_world

ROOT = Path(__file__).parents[3]


def test_cli_build_run_score(rt_world, tmp_path):
    save_world(rt_world, tmp_path / "world")
    runner = CliRunner()
    steps = [
        ["build", "groundeval", "--world", str(tmp_path / "world"), "--out", str(tmp_path / "suite"), "--seed", "3"],
        ["run-agent", "--suite", str(tmp_path / "suite"), "--agent", "bm25", "--mode", "context", "--out", str(tmp_path / "run")],
        ["score", "groundeval", "--suite", str(tmp_path / "suite"), "--answers", str(tmp_path / "run"), "--out", str(tmp_path / "score")],
    ]
    for args in steps:
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
    assert "bm25 (context, scoring orgbench-2): S_answer" in result.output
    summary = json.loads((tmp_path / "score" / "summary.json").read_text())
    assert set(summary["agents"]["bm25"]["context"]) == {"perspective", "counterfactual", "silence", "all", "rejected_lines"}
    contexts = (tmp_path / "run" / "contexts.jsonl").read_text().splitlines()
    assert all(json.loads(line)["used"] <= 24_000 for line in contexts)
    bad = runner.invoke(cli, ["run-agent", "--suite", str(tmp_path / "suite"), "--agent", "psychic", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "unknown agent 'psychic'" in bad.output and not (tmp_path / "x").exists()
    missing = runner.invoke(cli, ["score", "groundeval", "--suite", str(tmp_path / "nowhere"), "--answers",
                                  str(tmp_path / "run"), "--out", str(tmp_path / "y")])
    assert missing.exit_code == 2


def test_external_jsonl_with_broken_lines_is_scored_without_crashing(rt_suite, tmp_path):
    contracts = [json.loads(line) for line in (rt_suite / "contracts.jsonl").read_text().splitlines()]
    first = next(c for c in contracts if c["track"] == "silence")
    lines = [
        json.dumps({"question_id": first["question_id"], "agent": "ext", "answer": "{not json",
                    "calls": []}),
        json.dumps({"question_id": "PER-000000000000", "agent": "ext", "answer": {"could_actor_have_known": True}}),
        "this line is not JSON",
        json.dumps({"question_id": first["question_id"], "agent": "ext", "answer": {"exists": True}}),
    ]
    (tmp_path / "answers.jsonl").write_text("\n".join(lines) + "\n")
    score_run(rt_suite, tmp_path / "answers.jsonl", tmp_path / "score")
    rows = [json.loads(line) for line in (tmp_path / "score" / "questions.jsonl").read_text().splitlines()]
    by_reason = {}
    for row in rows:
        by_reason.setdefault(row["malformed"], []).append(row)
    assert by_reason["answer is not JSON"][0]["question_id"] == first["question_id"]
    assert len(by_reason["unknown question id"]) == 1
    assert len(by_reason["duplicate answer (the first one is scored)"]) == 1
    assert len(by_reason["no answer"]) == len(contracts) - 1
    summary = json.loads((tmp_path / "score" / "summary.json").read_text())
    assert summary["unreadable_lines"] == [f"{tmp_path / 'answers.jsonl'}:3: invalid JSON (Expecting value)"]


def test_mcp_server_over_stdio_with_the_official_client(rt_suite, rt_world, tmp_path):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    contract = next(json.loads(line) for line in (rt_suite / "contracts.jsonl").read_text().splitlines()
                    if json.loads(line)["track"] == "perspective" and json.loads(line)["role"] == "support_l1")
    hidden = next(v.artifact_id for v in rt_world.artifacts if v.subsystem == "deploys")
    out = tmp_path / "mcp"

    async def session():
        params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), args=[
            "-m", "orgbench", "serve-mcp", "--suite", str(rt_suite), "--contract", contract["question_id"], "--out", str(out)])
        # errlog given at call time: mcp's default (sys.stderr bound when it is first imported) may be another
        # test's CliRunner stream, which has no file descriptor for the server process
        async with stdio_client(params, errlog=sys.__stderr__) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                names = sorted(t.name for t in (await client.list_tools()).tools)
                shown = (await client.call_tool("get_contract", {})).structured_content
                hits = (await client.call_tool("search_artifacts", {"query": contract["subject"]["entity"]["id"], "limit": 5})).structured_content
                withheld = (await client.call_tool("fetch_artifact", {"artifact_id": hidden})).structured_content
                absent = (await client.call_tool("fetch_artifact", {"artifact_id": "NOPE-404"})).structured_content
                done = (await client.call_tool("submit_answer", {"answer": {"could_actor_have_known": False}})).structured_content
                return names, shown, hits, withheld, absent, done

    names, shown, hits, withheld, absent, done = asyncio.run(session())
    assert names == ["fetch_artifact", "get_contract", "search_artifacts", "submit_answer"]
    assert shown["question_id"] == contract["question_id"] and "gold" not in json.dumps(shown)
    from orgbench.core.clock import parse_ts
    versions = {v.ref: v for v in rt_world.artifacts}
    assert hits["results"] and all(rt_world.policy.can_see(contract["actor"], versions[h["id"]], parse_ts(contract["as_of"]))
                                   for h in hits["results"])
    assert withheld["message"].replace(hidden, "X") == absent["message"].replace("NOPE-404", "X")
    assert done == {"status": "submitted", "question_id": contract["question_id"], "agent": "mcp-agent",
                    "calls_recorded": 3}
    trace = json.loads((out / "traces.jsonl").read_text())
    assert [c["outcome"] for c in trace["calls"]][1:] == ["withheld", "not_found"]
    assert trace["calls"][1]["gates"]["subsystem"] is True
    score_run(rt_suite, out, tmp_path / "score")
    row = next(json.loads(line) for line in (tmp_path / "score" / "questions.jsonl").read_text().splitlines()
               if json.loads(line)["question_id"] == contract["question_id"])
    assert row["n_calls"] == 3 and row["v"] == round(1 / 3, 6) and row["malformed"] is None
    # the scorer re-derives every call from the suite's corpus: the MCP server's own record agrees with it
    assert row["trace_tampered"] is False and row["diagnostics"]["trace_check"]["mismatched_calls"] == 0
    rederived = row["diagnostics"]["calls"]
    assert [(c["outcome"], c["gates"], c["returned_ids"]) for c in rederived] == \
        [(c["outcome"], c["gates"], c["returned_ids"]) for c in trace["calls"]]
    only = CliRunner().invoke(cli, ["score", "groundeval", "--suite", str(rt_suite), "--answers", str(out),
                                    "--out", str(tmp_path / "only"), "--answered-only"])
    assert only.exit_code == 0, only.output
    assert len((tmp_path / "only" / "questions.jsonl").read_text().splitlines()) == 1


def _schemas_sent(requests: list[dict]) -> dict[str, dict]:
    """submit_answer's ``answer`` parameter, as each HTTP body carried it, by question id: the track's answer JSON
    Schema (an object requiring the track's fields, each list field an array of strings), checked here."""
    validator = pytest.importorskip("jsonschema").Draft7Validator
    required = {"perspective": ["could_actor_have_known"], "silence": ["exists"],
                "counterfactual": ["outcome_changed", "causal_mechanism", "cause_event_id", "effect_event_id",
                                   "mechanism_direction"]}
    seen, sent = set(), {}
    for body in requests:
        shown = json.loads(body["messages"][1]["content"])
        track = shown["track"]
        submit = next(t["function"] for t in body["tools"] if t["function"]["name"] == "submit_answer")
        schema = submit["parameters"]["properties"]["answer"]
        assert submit["parameters"]["required"] == ["answer"]
        assert schema["type"] == "object" and schema["required"] == required[track]
        assert schema["properties"]["evidence_artifacts"] == {"description": "[artifact id]", "type": "array",
                                                              "items": {"type": "string"}}
        validator.check_schema(schema)
        seen.add(track)
        sent.setdefault(shown["question_id"], schema)
    assert seen == set(required)
    return sent


def test_openai_agent_calls_tools_through_the_gates(rt_suite, rt_world, rt_corpus, tmp_path):
    with ToolChatServer() as server:
        tool = run_agent(rt_suite, "openai:scripted", "tool", tmp_path / "tool", base_url=server.base_url,
                         corpus=rt_corpus, world=rt_world, concurrency=4)
        run_agent(rt_suite, "openai:scripted", "context", tmp_path / "context", base_url=server.base_url,
                  corpus=rt_corpus, world=rt_world, concurrency=4)
        requests = list(server.requests)
    contracts = len((rt_suite / "contracts.jsonl").read_text().splitlines())
    assert len(requests) == 4 * contracts            # search, fetch, submit in tool mode; one submit in context mode
    # what the run spent is returned for the totals line (three answered turns per contract, no retries), never
    # written into run.json
    assert {k: tool["usage"][k] for k in ("turns", "requests", "retries")} == \
        {"turns": 3 * contracts, "requests": 3 * contracts, "retries": 0}
    assert "usage" not in json.loads((tmp_path / "tool" / "run.json").read_text())
    assert all("gold" not in json.dumps(r) and "why" not in json.dumps(r["messages"][1]) for r in requests)
    schemas = _schemas_sent(requests)
    traces = [json.loads(line) for line in (tmp_path / "tool" / "traces.jsonl").read_text().splitlines()]
    assert all([c["tool"] for c in t["calls"]] == ["search_artifacts", "fetch_artifact"] for t in traces)
    answers = [json.loads(line) for line in (tmp_path / "tool" / "answers.jsonl").read_text().splitlines()]
    for answer, trace in zip(answers, traces):
        fetched = trace["calls"][1]["returned_ids"]
        assert answer["answer"]["evidence_artifacts"] == fetched
        pytest.importorskip("jsonschema").validate(answer["answer"], schemas[answer["question_id"]])
    summary = score_run(rt_suite, tmp_path / "tool", tmp_path / "score")
    assert summary["openai:scripted"]["tool"]["all"]["violation_rate"] == 0.0
    assert summary["openai:scripted"]["tool"]["all"]["malformed"] == 0
    ctx = [json.loads(line) for line in (tmp_path / "context" / "traces.jsonl").read_text().splitlines()]
    assert all(c["tool"] in ("search_artifacts", "fetch_artifact", "cite_artifact") for t in ctx for c in t["calls"])


def test_openai_run_resumes_after_an_interruption(rt_suite, rt_world, rt_corpus, tmp_path):
    import pytest
    from orgbench.core.errors import InputError

    contracts = len((rt_suite / "contracts.jsonl").read_text().splitlines())
    with ToolChatServer(refuse_after=30) as server:
        with pytest.raises(InputError):
            run_agent(rt_suite, "openai:scripted", "context", tmp_path / "run", base_url=server.base_url,
                      corpus=rt_corpus, world=rt_world, concurrency=1)
    journal = tmp_path / ".run.journal.jsonl"
    finished = len(journal.read_text().splitlines()) - 1
    assert finished == 30 and not (tmp_path / "run").exists()
    with ToolChatServer() as server:
        run_agent(rt_suite, "openai:scripted", "context", tmp_path / "run", base_url=server.base_url,
                  corpus=rt_corpus, world=rt_world, concurrency=3)
        asked = len(server.requests)
    assert asked == contracts - finished and not journal.exists()
    answers = [json.loads(line) for line in (tmp_path / "run" / "answers.jsonl").read_text().splitlines()]
    order = [json.loads(line)["question_id"] for line in (rt_suite / "contracts.jsonl").read_text().splitlines()]
    assert [a["question_id"] for a in answers] == order


@pytest.mark.slow          # runs in subprocesses (6-7 s, loaded machine)
def test_runs_are_byte_identical_under_any_hash_seed(rt_suite, tmp_path):
    import os
    import subprocess

    outputs = []
    for hash_seed in ("1", "999"):
        produced = {}
        for agent, mode in (("leaky", "tool"), ("proximity", "context")):
            out = tmp_path / f"{agent}-{mode}-{hash_seed}"
            subprocess.run([sys.executable, "-m", "orgbench", "run-agent", "--suite", str(rt_suite), "--agent", agent,
                            "--mode", mode, "--out", str(out), "--no-latency"], check=True, cwd=ROOT,
                           env={**os.environ, "PYTHONHASHSEED": hash_seed}, capture_output=True)
            produced.update({f"{agent}-{mode}/{p.name}": p.read_bytes() for p in out.iterdir()})
        outputs.append(produced)
    assert outputs[0] == outputs[1] and len(outputs[0]) == 9
