"""The suite-wide MCP server: sessions kept apart, no row lost to parallel submitters, bad calls traced as in-process."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.judges.groundeval.mcp_wire import ROOT, WireServer, valid_answer
from judges.groundeval.mcp_server import make_server
from judges.groundeval.run import score_run
from judges.groundeval.runtime import GatedRuntime
from judges.groundeval.traces import load_suite


def _contracts(suite: Path) -> list[dict]:
    return [json.loads(line) for line in (suite / "contracts.jsonl").read_text().splitlines()]


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_sessions_on_one_suite_server_are_isolated(rt_suite, tmp_path):
    from mcp import Client

    c1, c2, c3 = (c["question_id"] for c in _contracts(rt_suite)[:3])
    track = {c["question_id"]: c["track"] for c in _contracts(rt_suite)}
    server = make_server(rt_suite, None, tmp_path / "out", "suite-agent")

    async def first(client, started: asyncio.Event, b_done: asyncio.Event) -> dict:
        listed = (await client.call_tool("list_contracts", {})).structured_content
        opened = (await client.call_tool("start_contract", {"question_id": c1})).structured_content
        await client.call_tool("search_artifacts", {"query": "incident", "limit": 3})
        await client.call_tool("fetch_artifact", {"artifact_id": "NOPE-1"})
        started.set()
        await b_done.wait()                          # B works on c1 too, in its own session, meanwhile
        refused = (await client.call_tool("start_contract", {"question_id": c2})).structured_content
        back = (await client.call_tool("start_contract", {"question_id": c1})).structured_content
        done1 = (await client.call_tool("submit_answer", {"answer": valid_answer(track[c1], x=1)})).structured_content
        await client.call_tool("start_contract", {"question_id": c2})
        await client.call_tool("fetch_artifact", {"artifact_id": "NOPE-2"})
        done2 = (await client.call_tool("submit_answer", {"answer": valid_answer(track[c2], x=2)})).structured_content
        again = (await client.call_tool("start_contract", {"question_id": c1})).structured_content
        return {"listed": listed, "opened": opened, "back": back, "done": [done1, done2], "again": again,
                "refused": refused}

    async def second(client, started: asyncio.Event, b_done: asyncio.Event) -> dict:
        await started.wait()
        early = (await client.call_tool("search_artifacts", {"query": "incident"})).structured_content
        await client.call_tool("start_contract", {"question_id": c3})
        done = (await client.call_tool("submit_answer", {"answer": valid_answer(track[c3], x=3)})).structured_content
        opened = (await client.call_tool("start_contract", {"question_id": c1})).structured_content
        await client.call_tool("search_artifacts", {"query": "deploy", "limit": 2})      # c1 left open, unsubmitted
        listed = (await client.call_tool("list_contracts", {})).structured_content
        b_done.set()
        return {"early": early, "opened": opened, "done": done, "listed": listed}

    async def both():
        started, b_done = asyncio.Event(), asyncio.Event()
        async with Client(server) as a, Client(server) as b:
            names = sorted(t.name for t in (await a.list_tools()).tools)
            return names, *(await asyncio.gather(first(a, started, b_done), second(b, started, b_done)))

    names, a, b = asyncio.run(both())
    assert names == ["fetch_artifact", "get_contract", "list_contracts", "search_artifacts", "start_contract",
                     "submit_answer"]
    assert a["listed"]["count"] == len(_contracts(rt_suite)) and not any(r["submitted"] for r in a["listed"]["contracts"])
    assert "gold" not in json.dumps(a["listed"]) and a["opened"]["resumed"] is False
    assert all(set(r) == {"question_id", "track", "actor", "role", "as_of", "submitted"} for r in a["listed"]["contracts"])
    assert a["back"] == {"contract": a["opened"]["contract"], "resumed": True, "calls_so_far": 2}
    assert [d["calls_recorded"] for d in a["done"]] == [2, 1] and a["again"]["error"] == "closed"
    assert a["refused"]["error"] == "contract_open" and c1 in a["refused"]["message"]   # one contract at a time
    assert b["early"]["error"] == "no_contract"
    assert b["opened"]["resumed"] is False and b["opened"]["calls_so_far"] == 0      # A's calls on c1 are not B's
    assert b["done"]["calls_recorded"] == 0
    submitted = {r["question_id"] for r in b["listed"]["contracts"] if r["submitted"]}
    assert submitted == {c3}                             # A submitted c1 and c2 by then, in its own session
    traces = {t["question_id"]: [(c["tool"], c["args"]) for c in t["calls"]] for t in _rows(tmp_path / "out" / "traces.jsonl")}
    assert traces == {c1: [("search_artifacts", {"query": "incident", "limit": 3}),
                           ("fetch_artifact", {"artifact_id": "NOPE-1"})],
                      c2: [("fetch_artifact", {"artifact_id": "NOPE-2"})], c3: []}
    score_run(rt_suite, tmp_path / "out", tmp_path / "score", answered_only=True)
    scored = _rows(tmp_path / "score" / "questions.jsonl")
    assert sorted(r["question_id"] for r in scored) == sorted([c1, c2, c3])
    assert all(r["trace_tampered"] is False and r["diagnostics"]["trace_check"]["mismatched_calls"] == 0
               for r in scored)


@pytest.mark.slow          # six serve-mcp subprocesses (9-11 s, loaded machine)
def test_six_serve_mcp_processes_submitting_at_once_lose_no_row(rt_suite, tmp_path):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    chosen = [c["question_id"] for c in _contracts(rt_suite)[:6]]
    track = {c["question_id"]: c["track"] for c in _contracts(rt_suite)}
    out = tmp_path / "shared"

    async def one(qid: str, ready: list, go: asyncio.Event) -> dict:
        whole = chosen.index(qid) % 2 == 0                # half serve the whole suite, half one contract
        params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), args=[
            "-m", "orgbench", "serve-mcp", "--suite", str(rt_suite), "--out", str(out)]
            + ([] if whole else ["--contract", qid]))
        # errlog given at call time: mcp's default (sys.stderr bound when it is first imported) may be another
        # test's CliRunner stream, which has no file descriptor for the server process
        async with stdio_client(params, errlog=sys.__stderr__) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                if whole:
                    await client.call_tool("start_contract", {"question_id": qid})
                await client.call_tool("search_artifacts", {"query": qid, "limit": 2})
                ready.append(qid)
                if len(ready) == len(chosen):
                    go.set()
                await go.wait()                     # all six submit together
                return (await client.call_tool("submit_answer", {"answer": valid_answer(track[qid], qid=qid)})).structured_content

    async def all_six():
        ready: list = []
        go = asyncio.Event()
        return await asyncio.gather(*(one(q, ready, go) for q in chosen))

    done = asyncio.run(all_six())
    assert [d["status"] for d in done] == ["submitted"] * 6
    traces, answers = _rows(out / "traces.jsonl"), _rows(out / "answers.jsonl")
    assert sorted(t["question_id"] for t in traces) == sorted(chosen)
    assert {a["question_id"]: a["answer"]["qid"] for a in answers} == {q: q for q in chosen}


@pytest.mark.slow          # six writer subprocesses (7-9 s, loaded machine)
def test_parallel_writers_lose_no_row(tmp_path):
    """Six processes, each merging 30 submissions into one directory as fast as it can."""
    script = ("import sys; from pathlib import Path; from judges.groundeval.submissions import write_submission\n"
              "w = sys.argv[1]\n"
              "for i in range(30):\n"
              "    base = {'question_id': f'{w}-{i}', 'agent': 'a', 'mode': 'tool'}\n"
              "    write_submission(Path(sys.argv[2]), {**base, 'calls': []}, {**base, 'answer': {}})\n")
    writers = [subprocess.Popen([sys.executable, "-c", script, f"w{n}", str(tmp_path)], cwd=ROOT) for n in range(6)]
    assert [w.wait() for w in writers] == [0] * 6
    expected = sorted(f"w{n}-{i}" for n in range(6) for i in range(30))
    for name in ("traces.jsonl", "answers.jsonl"):
        assert sorted(r["question_id"] for r in _rows(tmp_path / name)) == expected


BAD_CALLS = [   # (tool, arguments as raw JSON text, expected outcome)
    ("fetch_artifact", "{}", "invalid"),
    ("fetch_artifact", '{"artifact_id": 5}', "invalid"),
    ("fetch_artifact", '{"artifact_id": null}', "invalid"),
    ("fetch_artifact", '{"artifact_id": "\\ud800"}', "not_found"),
    ("fetch_artifact", '{"artifact_id": "NOPE-9", "extra": 1}', "not_found"),
    ("search_artifacts", '{"query": "incident", "limit": 5.5}', "invalid"),
    ("search_artifacts", '{"query": "incident", "limit": 1e400}', "invalid"),
    ("search_artifacts", '{"query": "incident", "limit": "5"}', "invalid"),
    ("search_artifacts", '{"query": "incident", "limit": 5.0}', "invalid"),
    ("search_artifacts", '{"query": "incident", "limit": true}', "invalid"),
    ("search_artifacts", '{"query": "incident", "limit": 0}', "invalid"),
    ("search_artifacts", '{"query": "incident", "limit": -3}', "invalid"),
    ("search_artifacts", '{"query": "incident", "subsystem": ["crm"]}', "invalid"),
    ("search_artifacts", '{"subsystem": "crm"}', "invalid"),
    ("search_artifacts", '{"query": 7}', "invalid"),
    ("search_artifacts", '{"query": "incident \\udfff", "limit": 1}', "ok"),
    ("search_artifacts", '{"query": "2026", "limit": 500}', "ok"),
]


@pytest.mark.slow          # a serve-mcp subprocess and a scoring (4-6 s, loaded machine)
def test_bad_calls_are_traced_alike_in_process_and_over_mcp(rt_suite, rt_corpus, tmp_path):
    contract = next(c for c in load_suite(rt_suite)[1] if c.track == "perspective")
    runtime = GatedRuntime(rt_corpus, contract.actor, contract.as_of, record_latency=False)
    local = [runtime.call(tool, json.loads(raw)) for tool, raw, _ in BAD_CALLS]
    with WireServer("--suite", str(rt_suite), "--contract", contract.question_id, "--out", str(tmp_path / "out")) as wire:
        remote = [wire.call(tool, raw) for tool, raw, _ in BAD_CALLS]       # every request answered
        wire.call("submit_answer", json.dumps({"answer": valid_answer(contract.track)}))
    assert remote == local
    trace = _rows(tmp_path / "out" / "traces.jsonl")[0]["calls"]
    strip = [{k: v for k, v in c.items() if k != "latency_ms"} for c in trace]
    assert strip == [{k: v for k, v in c.items() if k != "latency_ms"} for c in runtime.trace()]
    assert [c["outcome"] for c in trace] == [outcome for _, _, outcome in BAD_CALLS]
    assert trace[3]["args"] == {"artifact_id": "\ufffd"} and trace[6]["args"]["limit"] == {"non_finite_number": "inf"}
    assert len(trace[-2]["returned_ids"]) == 1                     # the lone surrogate is U+FFFD: no token
    assert trace[-1]["returned_ids"] == list(runtime.ranked_ids("2026", None, 50)) and len(trace[-1]["returned_ids"]) > 10
    # the positional in-process API gives the same outcomes for what it can express
    positional = GatedRuntime(rt_corpus, contract.actor, contract.as_of, record_latency=False)
    for limit in (5.5, float("inf"), "5", 5.0, True, 0, -3):
        positional.search_artifacts("incident", None, limit)
    positional.fetch_artifact(5)
    assert {c.outcome for c in positional.calls} == {"invalid"}
    # the scorer re-derives every one of these calls to the same outcome
    score_run(rt_suite, tmp_path / "out", tmp_path / "score", answered_only=True)
    row = _rows(tmp_path / "score" / "questions.jsonl")[0]
    assert row["diagnostics"]["trace_check"]["mismatched_calls"] == 0 and row["trace_tampered"] is False


def test_an_external_trace_with_lone_surrogates_is_scored_as_the_runtime_would_trace_it(rt_suite, tmp_path):
    qid = _contracts(rt_suite)[0]["question_id"]
    line = ('{"question_id": "%s", "agent": "x", "answer": {"could_actor_have_known": true, "reasoning": "\\ud800"}, '
            '"calls": [{"tool": "fetch_artifact", "args": {"artifact_id": "\\udc00"}, "outcome": "not_found"}]}\n' % qid)
    (tmp_path / "answers.jsonl").write_text(line)
    score_run(rt_suite, tmp_path / "answers.jsonl", tmp_path / "score", answered_only=True)   # written as UTF-8
    row = _rows(tmp_path / "score" / "questions.jsonl")[0]
    assert row["diagnostics"]["calls"][0]["args"] == {"artifact_id": "\ufffd"}
    assert row["diagnostics"]["calls"][0]["outcome"] == "not_found" and row["trace_tampered"] is False


def test_lone_surrogate_escapes_in_any_case_and_in_keys_are_read_as_u_fffd_and_pairs_kept(tmp_path):
    """A run directory's traces: an escaped lone surrogate (lower or upper case, value or key) reads as U+FFFD, an
    escaped pair as its character; a file with no surrogate escape is read as it is (``may_hold_surrogates``)."""
    from judges.groundeval.call_args import may_hold_surrogates
    from judges.groundeval.traces import load_submissions

    (tmp_path / "answers.jsonl").write_text('{"question_id": "q1", "agent": "x", "answer": {}}\n')
    (tmp_path / "traces.jsonl").write_text(
        '{"question_id": "q1", "agent": "x", "calls": [{"tool": "fetch_artifact", '
        '"args": {"artifact_id": "\\uDFFF", "\\ud9ab": "\\ud83d\\ude00"}}]}\n')
    calls = load_submissions(tmp_path)[0][0].calls
    assert calls[0]["args"] == {"artifact_id": "\ufffd", "\ufffd": "\U0001f600"}
    assert not may_hold_surrogates(b'{"a": "\\u00e9\\ud7ff\\ue000"}') and may_hold_surrogates(b'"\\uD800"')


def test_one_session_through_many_contracts_never_sees_past_each_contracts_gates(rt_suite, rt_world, tmp_path):
    """Contracts of different actors in one connection: every id, both forms, and searches, checked by the policy."""
    from mcp import Client

    from orgbench.core.clock import parse_ts

    chosen, actors = [], set()
    for c in _contracts(rt_suite):
        if c["actor"] not in actors:
            actors.add(c["actor"])
            chosen.append(c)
    chosen = chosen[:6]
    ids = sorted({v.artifact_id for v in rt_world.artifacts} | {v.ref for v in rt_world.artifacts})
    versions = {v.ref: v for v in rt_world.artifacts}
    current = {}
    server = make_server(rt_suite, None, tmp_path / "out")

    async def walk():
        async with Client(server) as client:
            seen = []
            for c in chosen:
                await client.call_tool("start_contract", {"question_id": c["question_id"]})
                for ref in ids:
                    seen.append((c, ref, (await client.call_tool("fetch_artifact", {"artifact_id": ref})).structured_content))
                for query in ("incident", "2026", c["actor"], "deploy change", "case priority"):
                    found = (await client.call_tool("search_artifacts", {"query": query, "limit": 50})).structured_content
                    seen.append((c, None, found))
                await client.call_tool("submit_answer", {"answer": valid_answer(c["track"])})
            return seen

    for contract, ref, reply in asyncio.run(walk()):
        actor, moment = contract["actor"], parse_ts(contract["as_of"])
        if ref is None:
            assert all(rt_world.policy.can_see(actor, versions[h["id"]], moment) for h in reply["results"])
            continue
        if "artifact" in reply:
            shown_ref = reply["artifact"]["id"]
            assert rt_world.policy.can_see(actor, versions[shown_ref], moment)
            current[(contract["question_id"], ref)] = shown_ref
        else:
            assert reply == {"error": "not_found", "message": f"no artifact {ref!r} is available"}
    assert len(chosen) == 6 and current           # some reads succeeded, every one within the gates
