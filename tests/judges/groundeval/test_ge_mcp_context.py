"""serve-mcp in context mode: each contract shown with the context run-agent builds, scored as run-agent's context runs."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from judges.groundeval.mcp_server import make_server
from judges.groundeval.question_score import load_scores
from judges.groundeval.run import run_agent, score_run
from tests.judges.groundeval.mcp_wire import ROOT


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _without_latency(calls: list[dict]) -> list[dict]:
    return [{k: v for k, v in call.items() if k != "latency_ms"} for call in calls]


def test_context_mode_over_mcp_is_run_agents_context_mode(rt_suite, rt_corpus, tmp_path):
    """bm25's context-mode answers submitted over MCP: the same contexts, traces and scores as run-agent's."""
    from mcp import Client

    run_agent(rt_suite, "bm25", "context", tmp_path / "run", record_latency=False, corpus=rt_corpus)
    answers = {row["question_id"]: row["answer"] for row in _rows(tmp_path / "run" / "answers.jsonl")}
    contexts = {row["question_id"]: row for row in _rows(tmp_path / "run" / "contexts.jsonl")}
    server = make_server(rt_suite, None, tmp_path / "mcp", "bm25", record_latency=False, mode="context")

    async def session() -> dict:
        async with Client(server) as client:
            tools = sorted(t.name for t in (await client.list_tools()).tools)
            listed = (await client.call_tool("list_contracts", {})).structured_content["contracts"]
            shown, refused, done = {}, None, []
            for row in listed:
                qid = row["question_id"]
                shown[qid] = (await client.call_tool("start_contract", {"question_id": qid})).structured_content
                if refused is None:
                    refused = (await client.call_tool("search_artifacts", {"query": "incident"})).structured_content
                again = (await client.call_tool("get_contract", {})).structured_content
                assert again == shown[qid]["contract"]
                done.append((await client.call_tool("submit_answer", {"answer": answers[qid]})).structured_content)
            return {"tools": tools, "shown": shown, "refused": refused, "done": done}

    got = asyncio.run(session())
    assert got["tools"] == ["get_contract", "list_contracts", "start_contract", "submit_answer"]
    assert got["refused"]["error"] == "unknown_tool"
    assert {d.get("status") for d in got["done"]} == {"submitted"}
    for qid, reply in got["shown"].items():
        context = reply["contract"]["context"]
        assert [item["id"] for item in context["items"]] == contexts[qid]["ids"]
        assert [(s["id"], s["query"], s["ids"]) for s in context["searches"]] == \
            [(s["id"], s["query"], s["ids"]) for s in contexts[qid]["searches"]]
        assert context["used"] == contexts[qid]["used"] and context["text"].startswith("[search:")
    traces = {row["question_id"]: row for row in _rows(tmp_path / "mcp" / "traces.jsonl")}
    run_traces = {row["question_id"]: row for row in _rows(tmp_path / "run" / "traces.jsonl")}
    assert {q: (t["mode"], _without_latency(t["calls"])) for q, t in traces.items()} == \
        {q: ("context", _without_latency(t["calls"])) for q, t in run_traces.items()}
    assert any(call["tool"] == "cite_artifact" for t in traces.values() for call in t["calls"])
    score_run(rt_suite, tmp_path / "run", tmp_path / "run-scores", corpus=rt_corpus)
    score_run(rt_suite, tmp_path / "mcp", tmp_path / "mcp-scores", corpus=rt_corpus)
    ours = {(r.question_id, r.mode): (r.s_answer, r.s_traj, r.s_adj, r.v, r.answer_correct)
            for r in load_scores(tmp_path / "mcp-scores" / "questions.jsonl")}
    theirs = {(r.question_id, r.mode): (r.s_answer, r.s_traj, r.s_adj, r.v, r.answer_correct)
              for r in load_scores(tmp_path / "run-scores" / "questions.jsonl")}
    assert ours == theirs and {mode for _, mode in ours} == {"context"}


def test_a_refused_context_answer_is_not_cited_twice(rt_suite, rt_corpus, tmp_path):
    """A submit the log refuses leaves the contract open without the citations it checked."""
    from judges.groundeval.mcp_session import SuiteSession
    from judges.groundeval.submissions import SubmissionRefused
    from judges.groundeval.traces import load_suite

    contracts = {c.question_id: c for c in load_suite(rt_suite)[1]}
    qid, contract = next(iter(contracts.items()))
    session = SuiteSession(rt_corpus, contracts, tmp_path, "a", False, mode="context")
    opened = session.start_contract(qid)
    cited = [item["id"] for item in opened["contract"]["context"]["items"][:2]]
    answer = {"exists": False, "could_actor_have_known": False, "outcome_changed": False, "evidence_artifacts": cited,
              "reasoning": "x", "blocked_subsystems": [], "cause_event_id": "", "effect_event_id": "", "actors": [],
              "causal_mechanism": "no_causal_link", "mechanism_direction": "no_causal_link"}

    class Refusing:
        def submit(self, trace, row):
            raise SubmissionRefused("unreadable_log", "refused")

    session.log = Refusing()      # type: ignore[assignment]
    calls = opened["calls_so_far"]
    assert session.submit_answer(answer)["error"] == "unreadable_log"
    assert session.current is not None and len(session.current.runtime.calls) == calls
    session.log = None
    assert session.submit_answer(answer)["calls_recorded"] == calls + len(cited)


def test_serve_mcp_context_mode_refuses_what_it_cannot_serve(rt_suite, tmp_path):
    bad = subprocess.run([sys.executable, "-m", "orgbench", "serve-mcp", "--suite", str(rt_suite), "--out",
                          str(tmp_path / "o"), "--mode", "contexts"], cwd=ROOT, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL)
    assert bad.returncode == 2 and "--mode" in bad.stderr
