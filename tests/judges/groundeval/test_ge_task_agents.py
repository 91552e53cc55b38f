"""Task contracts run by any agent: a search tool over the task corpus, a model agent (``openai:`` against a real
OpenAI-compatible server on 127.0.0.1) and a plugin agent registered for task suites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.groundeval.task_track import TaskRuntime, score_task
from orgbench.cli import cli
from tests.benchmark_builders.groundeval.test_ge_domains import TASK_CONFIG, write_task_domain
from tests.judges.chat_server import ChatServer


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _suite(tmp_path: Path, config: str = TASK_CONFIG) -> Path:
    domain = write_task_domain(tmp_path / "tasks", config.replace("roles:\n", "roles:\n  hr: {subsystems: [people]}\n"))
    (domain / "data" / "people.json").write_text(json.dumps({"id": "EMP-1", "subsystem": "people", "salary": 9,
                                                             "note": "refund desk"}), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    return tmp_path / "s"


def test_search_finds_records_by_value_within_the_gates_and_never_returns_a_value(tmp_path):
    suite = _suite(tmp_path)
    contracts = {c["name"]: c for c in _rows(suite / "contracts.jsonl")}
    corpus = {r["id"]: r for r in _rows(suite / "corpus.jsonl")}
    paid = contracts["refund_only_paid_invoices"]
    runtime = TaskRuntime(corpus, paid)
    assert runtime.call("search_artifacts", {"query": "disputed"}) == {
        "results": [{"id": "INV-8", "subsystem": "ledger", "fields": ["amount", "state"]}]}
    assert runtime.call("search_artifacts", {"query": "refund desk"}) == {"results": []}      # EMP-1: hr only
    assert runtime.call("search_artifacts", {"query": "salary", "subsystem": "people"}) == {"results": []}
    assert runtime.call("search_artifacts", {"query": "x", "limit": "5"})["error"] == "invalid_call"
    assert runtime.call("risk_lookup", {})["error"] == "invalid_call"       # not this contract's tool
    assert [(c["tool"], c["outcome"], c["gates"]["subsystem"]) for c in runtime.calls] == [
        ("search_artifacts", "ok", False), ("search_artifacts", "empty", False), ("search_artifacts", "empty", True),
        ("search_artifacts", "invalid", False), ("risk_lookup", "invalid", False)]
    truth = next(t for t in _rows(suite / "truth.jsonl") if t["question_id"] == paid["question_id"])
    answer = {"should_refund": True, "preconditions_verified": [
        {"check": "invoice_paid", "facts_found": {"state": "paid"}, "evidence_artifacts": ["INV-7"]},
        {"check": "customer_active", "facts_found": {"status": "active"}, "evidence_artifacts": ["C-3"]}]}
    calls = [{"tool": "search_artifacts", "args": {"query": "salary", "subsystem": "people"}},
             {"tool": "search_artifacts", "args": {"query": "INV-7"}}] + [
        {"tool": "fetch_artifact", "args": {"artifact_id": a}} for a in ("INV-7", "C-3")]
    scored = score_task(paid, truth, answer, calls, corpus)     # the scorer re-runs each search for its gates
    assert (scored.s_verify, scored.v, scored.n_calls) == (1.0, 0.25, 4)
    assert score_task(paid, truth, answer, calls[1:], corpus).s_adj == 1.0       # a search is not an action


def _call(number: int, name: str, arguments: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call-{number}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _model(body: dict) -> dict:
    """A scripted model: finds each record by searching, reads it (a fixture tool where the contract has one),
    then submits in upstream main's answer keys. It sees the contract only; what it reports it read."""
    contract = json.loads(body["messages"][1]["content"])
    done = [m for m in body["messages"] if m["role"] == "tool"]
    if done and "status" in json.loads(done[-1]["content"]):   # submitted: a framework's loop asks once more
        return {"role": "assistant", "content": "submitted"}
    plan = {"refund_only_paid_invoices": [("search_artifacts", {"query": "INV-7"}),
                                          ("fetch_artifact", {"artifact_id": "INV-7"}),
                                          ("search_artifacts", {"query": "active", "subsystem": "crm"}),
                                          ("fetch_artifact", {"artifact_id": "C-3"})],
            "no_refund_for_disputed": [("fetch_artifact", {"artifact_id": "INV-8"}), ("risk_lookup", {})]}
    steps = plan[contract["name"]]
    if len(done) < len(steps):
        return _call(len(done), *steps[len(done)])
    read = [json.loads(m["content"]) for m in done]
    fields = {**{r["artifact"]["id"]: r["artifact"]["fields"] for r in read if "artifact" in r},
              **({"RISK-8": read[-1]["returns"]} if "returns" in read[-1] else {})}
    if contract["name"] == "refund_only_paid_invoices":
        checks = [("invoice_paid", "INV-7", "state"), ("customer_active", "C-3", "status")]
        decision = fields["INV-7"]["state"] == "paid" and fields["C-3"]["status"] == "active"
    else:
        checks = [("not_disputed", "INV-8", "state"), ("fraud_score_low", "RISK-8", "score")]
        decision = fields["INV-8"]["state"] != "disputed" and fields["RISK-8"]["score"] < 50
    answer = {"preconditions_verified": [{"check": c, "passed": decision, "facts_found": {f: fields[a][f]},
                                          "evidence_artifacts": [a]} for c, a, f in checks],
              "all_preconditions_pass": decision, contract["decision_field"]: decision, "reasoning": "read them"}
    return _call(len(done), "submit_answer", {"answer": answer})


def test_an_openai_agent_runs_task_contracts_with_search_and_fixture_tools_and_scores_full(tmp_path):
    suite = _suite(tmp_path)
    runner = CliRunner()
    with ChatServer(answer=_model) as server:
        result = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "openai:scripted",
                                     "--base-url", server.base_url, "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    rows = {r["question_id"]: r for r in _rows(tmp_path / "run" / "answers.jsonl")}
    names = {c["question_id"]: c["name"] for c in _rows(suite / "contracts.jsonl")}
    tools = {names[q]: [c["tool"] for c in r["calls"]] for q, r in rows.items()}
    assert tools == {"refund_only_paid_invoices": ["search_artifacts", "fetch_artifact", "search_artifacts",
                                                   "fetch_artifact"],
                     "no_refund_for_disputed": ["fetch_artifact", "risk_lookup"]}
    search = next(r for r in rows.values() if names[r["question_id"]] == "refund_only_paid_invoices")["calls"][0]
    assert search["returned_ids"] == ["INV-7", "INV-8"] and search["outcome"] == "ok"     # INV-7 holds both terms
    scored = runner.invoke(cli, ["score", "groundeval", "--suite", str(suite), "--answers", str(tmp_path / "run"),
                                 "--out", str(tmp_path / "scores")])
    assert scored.exit_code == 0, scored.output
    whole = json.loads((tmp_path / "scores" / "summary.json").read_text())
    summary = whole["agents"]["openai:scripted"]
    assert (summary["s_decision"], summary["s_verify"], summary["v"], summary["s_adj"]) == (1.0, 1.0, 0.0, 1.0)
    assert whole["scoring"] == "task-1" and "scoring task-1" in scored.output        # every score output says which
    assert {json.loads(line)["scoring"] for line in (tmp_path / "scores" / "questions.jsonl").open()} == {"task-1"}


def test_a_plugin_agent_registered_for_task_suites_runs_them(tmp_path, monkeypatch):
    from judges.groundeval import agent_registry
    from orgbench.core import registry

    def make(suite, world):
        assert world is None

        def procedure(contract, runtime, context):
            runtime.call("search_artifacts", {"query": contract["task"]})
            return {"preconditions_verified": [], contract["decision_field"]: False, "reasoning": "declines"}
        return procedure

    own = tuple(agent_registry._own())
    monkeypatch.setitem(registry._CACHE, agent_registry.ENTRY_POINT_GROUP,
                        own + (agent_registry.Agent("declines", ("tasks",), make, builtin=False),))
    suite = _suite(tmp_path)
    result = CliRunner().invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "declines",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    rows = _rows(tmp_path / "run" / "answers.jsonl")
    assert [r["calls"][0]["tool"] for r in rows] == ["search_artifacts", "search_artifacts"]
    refused = CliRunner().invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "bm25",
                                       "--out", str(tmp_path / "bm25")])
    assert refused.exit_code == 2 and "'bm25' does not run task contracts (task agents: oracle, " \
           "skip-precondition, wrong-field, declines; or openai:MODEL" in refused.output


def test_serve_mcp_runs_a_task_suite_and_its_answers_score(tmp_path):
    """The suite-wide MCP server on a task suite: list, start, search, fetch, a contract's own tool through
    use_task_tool, an answer with an unknown key refused at submit (the contract stays open), then scored."""
    import asyncio

    from mcp import Client

    from judges.groundeval.mcp_server import make_server

    suite = _suite(tmp_path)
    contracts = {c["name"]: c for c in _rows(suite / "contracts.jsonl")}
    paid, disputed = contracts["refund_only_paid_invoices"], contracts["no_refund_for_disputed"]
    server = make_server(suite, None, tmp_path / "out", "mcp-tasks")

    async def walk() -> dict:
        async with Client(server) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            listed = (await client.call_tool("list_contracts", {})).structured_content
            await client.call_tool("start_contract", {"question_id": paid["question_id"]})
            found = (await client.call_tool("search_artifacts", {"query": "INV-7"})).structured_content
            for record in ("INV-7", "C-3"):
                await client.call_tool("fetch_artifact", {"artifact_id": record})
            checks = [{"check": "invoice_paid", "passed": True, "facts_found": {"state": "paid"},
                       "evidence_artifacts": ["INV-7"]},
                      {"check": "customer_active", "passed": True, "facts_found": {"status": "active"},
                       "evidence_artifacts": ["C-3"]}]
            typo = (await client.call_tool("submit_answer", {"answer": {
                "preconditions_verified": checks, "should_refund": True, "confident": True}})).structured_content
            done = (await client.call_tool("submit_answer", {"answer": {
                "preconditions_verified": checks, "should_refund": True, "reasoning": "both hold"}})).structured_content
            await client.call_tool("start_contract", {"question_id": disputed["question_id"]})
            await client.call_tool("fetch_artifact", {"artifact_id": "INV-8"})
            risk = (await client.call_tool("use_task_tool", {"name": "risk_lookup"})).structured_content
            await client.call_tool("submit_answer", {"answer": {"should_act": False, "preconditions_verified": [
                {"check": "not_disputed", "passed": False, "facts": {"state": "disputed"}, "evidence": ["INV-8"]},
                {"check": "fraud_score_low", "passed": False, "facts": {"score": risk["returns"]["score"]},
                 "evidence": ["RISK-8"]}]}})
            return {"names": names, "listed": listed, "found": found, "typo": typo, "done": done, "risk": risk}

    seen = asyncio.run(walk())
    assert seen["names"] == ["fetch_artifact", "get_contract", "list_contracts", "search_artifacts",
                             "start_contract", "submit_answer", "use_task_tool"]
    assert [c["track"] for c in seen["listed"]["contracts"]] == ["task", "task"]
    assert [r["id"] for r in seen["found"]["results"]] == ["INV-7", "INV-8"]
    assert seen["typo"]["error"] == "invalid_answer" and "unknown answer key(s) confident" in seen["typo"]["message"]
    assert seen["done"]["status"] == "submitted" and seen["risk"]["returns"] == {"band": "high", "score": 91}
    rows = _rows(tmp_path / "out" / "answers.jsonl")
    assert [[c["tool"] for c in r["calls"]] for r in rows] == [
        ["search_artifacts", "fetch_artifact", "fetch_artifact"], ["fetch_artifact", "risk_lookup"]]
    result = CliRunner().invoke(cli, ["score", "groundeval", "--suite", str(suite), "--answers",
                                      str(tmp_path / "out"), "--out", str(tmp_path / "scores")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "scores" / "summary.json").read_text())["agents"]["mcp-tasks"]
    assert (summary["s_decision"], summary["s_verify"], summary["s_adj"]) == (1.0, 1.0, 1.0)


def test_an_openai_agent_answers_task_contracts_from_the_context(tmp_path):
    """Context mode: the model is offered submit_answer only and reads the records in its messages; its citations
    are checked through the gates, and the scorer rebuilds the context."""
    suite = _suite(tmp_path)

    def model(body: dict) -> dict:
        assert [t["function"]["name"] for t in body["tools"]] == ["submit_answer"]
        contract = json.loads(body["messages"][1]["content"])
        assert "INV-7" in body["messages"][2]["content"] and "EMP-1" not in body["messages"][2]["content"]
        if contract["name"] != "refund_only_paid_invoices":
            return _call(0, "submit_answer", {"answer": {"preconditions_verified": [], "should_act": False}})
        answer = {"should_refund": True, "preconditions_verified": [
            {"check": "invoice_paid", "passed": True, "facts_found": {"state": "paid"}, "evidence_artifacts": ["INV-7"]},
            {"check": "customer_active", "passed": True, "facts_found": {"status": "active"},
             "evidence_artifacts": ["C-3", "EMP-1"]}]}
        return _call(0, "submit_answer", {"answer": answer})

    runner = CliRunner()
    with ChatServer(answer=model) as server:
        result = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "openai:ctx", "--mode", "context",
                                     "--base-url", server.base_url, "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    names = {c["question_id"]: c["name"] for c in _rows(suite / "contracts.jsonl")}
    rows = {names[r["question_id"]]: r for r in _rows(tmp_path / "run" / "answers.jsonl")}
    cited = [c for c in rows["refund_only_paid_invoices"]["calls"] if c["tool"] == "cite_artifact"]
    assert [(c["args"]["artifact_id"], c["gates"]["subsystem"]) for c in cited] == [
        ("INV-7", False), ("C-3", False), ("EMP-1", True)]
    assert runner.invoke(cli, ["score", "groundeval", "--suite", str(suite), "--answers", str(tmp_path / "run"),
                               "--out", str(tmp_path / "scores")]).exit_code == 0
    scores = {names[r["question_id"]]: r for r in _rows(tmp_path / "scores" / "questions.jsonl")}
    paid = scores["refund_only_paid_invoices"]
    assert (paid["s_answer"], paid["s_traj"], paid["v"]) == (1.0, 1.0, round(1 / 7, 6))   # 4 reads + 3 citations


def test_a_model_run_on_task_contracts_journals_resumes_and_replays(tmp_path):
    """Like the other tracks' model runs: a run stopped after its first contract (the server then refuses the key)
    leaves that contract in ``.run.journal.jsonl`` and nothing that looks finished; the same command resumes, asking
    the model only the second contract's turns, writes ``turns.jsonl`` and answers byte-identical to an
    uninterrupted run; ``replay:RUN`` reruns it with no server; a run through ``--cache`` reruns from the cache."""
    suite = _suite(tmp_path)
    runner = CliRunner()

    def run(server: ChatServer, out: str, *extra: str):
        return runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "openai:scripted", "--base-url",
                                   server.base_url, "--concurrency", "1", "--no-latency", "--out",
                                   str(tmp_path / out), *extra])

    with ChatServer(answer=_model) as server:
        whole = run(server, "whole", "--cache", str(tmp_path / "turns.sqlite"))
        asked_whole, gone = server.total, server.base_url
    assert whole.exit_code == 0, whole.output
    assert not (tmp_path / ".whole.journal.jsonl").exists()

    holder: dict[str, ChatServer] = {}

    def first_contract_only(body: dict) -> dict:
        reply = _model(body)
        if reply["tool_calls"][0]["function"]["name"] == "submit_answer":
            holder["server"].api_key = "refused"        # every later request is refused (401)
        return reply

    with ChatServer(answer=first_contract_only) as server:
        holder["server"] = server
        stopped = run(server, "run")
    assert stopped.exit_code == 2 and "401" in stopped.output, stopped.output
    journal = _rows(tmp_path / ".run.journal.jsonl")
    first = _rows(suite / "contracts.jsonl")[0]["question_id"]
    assert [r["question_id"] for r in journal[1:]] == [first] and not (tmp_path / "run").exists()
    assert journal[0]["agent"] == "openai:scripted" and journal[0]["mode"] == "tool"

    with ChatServer(answer=_model) as server:
        resumed = run(server, "run")
        asked = server.total
    assert resumed.exit_code == 0, resumed.output
    turns = _rows(tmp_path / "run" / "turns.jsonl")
    per_question = {q: sum(1 for t in turns if t["question_id"] == q) for q in {t["question_id"] for t in turns}}
    assert asked == per_question[_rows(suite / "contracts.jsonl")[1]["question_id"]] == asked_whole - per_question[first]
    assert not (tmp_path / ".run.journal.jsonl").exists()
    assert (tmp_path / "run" / "answers.jsonl").read_bytes() == (tmp_path / "whole" / "answers.jsonl").read_bytes()
    assert (tmp_path / "run" / "turns.jsonl").read_bytes() == (tmp_path / "whole" / "turns.jsonl").read_bytes()
    assert set(turns[0]) == {"question_id", "turn", "request_hash", "message", "usage", "model"}

    replayed = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", f"replay:{tmp_path / 'run'}",
                                   "--no-latency", "--out", str(tmp_path / "replayed")])
    assert replayed.exit_code == 0, replayed.output
    assert (tmp_path / "replayed" / "answers.jsonl").read_bytes() == (tmp_path / "run" / "answers.jsonl").read_bytes()
    cached = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "openai:scripted", "--base-url",
                                 gone, "--cache", str(tmp_path / "turns.sqlite"), "--no-latency",
                                 "--out", str(tmp_path / "cached")])
    assert cached.exit_code == 0 and f"{asked_whole} of {asked_whole} turns from" in cached.output, cached.output
    assert (tmp_path / "cached" / "answers.jsonl").read_bytes() == (tmp_path / "whole" / "answers.jsonl").read_bytes()


@pytest.mark.slow          # a real framework agent per contract (3-7 s each, loaded machine)
@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
@pytest.mark.parametrize("framework", ["openai-agents", "langgraph"])
def test_a_framework_agent_runs_task_contracts_through_observe_and_scores_as_run_agent(framework, tmp_path,
                                                                                       monkeypatch):
    """``observe`` on a task suite: a real OpenAI Agents SDK / LangGraph agent gets the contract's search, fetch and
    own tools (risk_lookup), the scripted model behind the in-repo server drives it as it drives ``run-agent``'s
    openai: agent, and the two runs record the same calls and score the same (S_adj 1.0)."""
    from tests.judges.groundeval.extras import require

    require(framework, {"openai-agents": "agents", "langgraph": "langgraph"}[framework])
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    suite = _suite(tmp_path)
    runner = CliRunner()
    factory = {"openai-agents": "openai_agent", "langgraph": "langgraph_agent"}[framework]
    with ChatServer(answer=_model) as server:
        observed = runner.invoke(cli, ["observe", "--framework", framework, "--agent",
                                       f"tests.judges.groundeval.adapter_agents:{factory}", "--suite", str(suite),
                                       "--model", "scripted", "--base-url", server.base_url, "--out",
                                       str(tmp_path / "obs")])
        direct = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "openai:scripted", "--base-url",
                                     server.base_url, "--out", str(tmp_path / "run")])
    assert observed.exit_code == 0, observed.output
    assert direct.exit_code == 0, direct.output
    seen = {r["question_id"]: r for r in _rows(tmp_path / "obs" / "answers.jsonl")}
    ran = {r["question_id"]: r for r in _rows(tmp_path / "run" / "answers.jsonl")}
    assert {q: (r["answer"], r["calls"]) for q, r in seen.items()} == {q: (r["answer"], r["calls"])
                                                                       for q, r in ran.items()}
    assert any(c["tool"] == "risk_lookup" for r in seen.values() for c in r["calls"])
    summaries = {}
    for name in ("obs", "run"):
        scored = runner.invoke(cli, ["score", "groundeval", "--suite", str(suite), "--answers", str(tmp_path / name),
                                     "--out", str(tmp_path / f"scores-{name}")])
        assert scored.exit_code == 0, scored.output
        [summaries[name]] = json.loads((tmp_path / f"scores-{name}" / "summary.json").read_text())["agents"].values()
    assert summaries["obs"] == summaries["run"] and summaries["obs"]["s_adj"] == 1.0
