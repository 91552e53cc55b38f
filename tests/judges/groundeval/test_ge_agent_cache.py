"""Model agents get the judges' response cache, a ``replay:`` agent and a ``stub:`` agent.

Against the real in-repo chat server (tests/judges/chat_server.py), playing an agent that searches for the
question's last id, fetches the top hit and submits it: a run with ``--cache`` reruns from the cache with the
server stopped, byte for byte; ``replay:RUN`` (and ``replay:CACHE``) reproduces a run and its scores with no
server; a setting that changes what the model reads (the context budget, the model) misses the cache.
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from judges.backends.base import GenerationParams
from judges.groundeval.turns import turn_hash
from orgbench.cli import cli
from tests.judges.chat_server import ChatServer

_ID = re.compile(r"\b[A-Z]{2,5}-\d+\b")
FILES = ("answers.jsonl", "traces.jsonl", "turns.jsonl")


def _call(number: int, name: str, arguments: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call-{number}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _agent(body: dict) -> dict:
    """Search for the question's last id, fetch the top hit, submit it (context mode: submit the first cited id)."""
    messages = body["messages"]
    question = json.loads(messages[1]["content"])["question"]
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    if not any(t["function"]["name"] == "search_artifacts" for t in body.get("tools", [])):
        return _call(0, "submit_answer", {"answer": {"evidence_artifacts": re.findall(r"\[([A-Z]+-\d+@\d+)\]",
                                                                                     messages[-1]["content"])[:1]}})
    if not results:
        return _call(0, "search_artifacts", {"query": (_ID.findall(question) or [question])[-1], "limit": 3})
    if len(results) == 1:
        hits = results[0].get("results") or [{"id": "NOTHING-1"}]
        return _call(1, "fetch_artifact", {"artifact_id": hits[0]["id"]})
    fetched = results[1].get("artifact")
    return _call(2, "submit_answer", {"answer": {"evidence_artifacts": [fetched["id"]] if fetched else []}})


def _run(suite, out, agent, *more):
    return CliRunner().invoke(cli, ["run-agent", "--suite", str(suite), "--agent", agent, "--out", str(out),
                                    "--limit", "6", "--no-latency", "--concurrency", "2", *map(str, more)])


def _same(a, b, files=FILES) -> None:
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_a_cached_run_reruns_from_the_cache_once_the_server_is_gone(rt_suite, tmp_path):
    cache = tmp_path / "turns.sqlite"
    with ChatServer(answer=_agent) as server:
        first = _run(rt_suite, tmp_path / "a", "openai:scripted", "--base-url", server.base_url, "--cache", cache)
        asked = server.total
        ctx = _run(rt_suite, tmp_path / "c", "openai:scripted", "--base-url", server.base_url, "--cache", cache,
                   "--mode", "context")
        url = server.base_url
    assert first.exit_code == 0 and ctx.exit_code == 0, first.output + ctx.output
    assert asked == 6 * 3 and "; 0 of 18 turns from" in first.output        # search, fetch, submit per question
    again = _run(rt_suite, tmp_path / "b", "openai:scripted", "--base-url", url, "--cache", cache)
    assert again.exit_code == 0, again.output
    assert "totals: 0 requests (0 retries)" in again.output and "; 18 of 18 turns from" in again.output
    _same(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "a" / "run.json").read_bytes() == (tmp_path / "b" / "run.json").read_bytes()
    # what the model reads changes with the context budget and the model: neither is answered from the cache
    budget = _run(rt_suite, tmp_path / "d", "openai:scripted", "--base-url", url, "--cache", cache,
                  "--mode", "context", "--budget", "1500")
    model = _run(rt_suite, tmp_path / "e", "openai:other", "--base-url", url, "--cache", cache)
    for missed in (budget, model):
        assert missed.exit_code == 2 and "--base-url:" in missed.output, missed.output
    same_ctx = _run(rt_suite, tmp_path / "f", "openai:scripted", "--base-url", url, "--cache", cache, "--mode", "context")
    assert same_ctx.exit_code == 0, same_ctx.output
    _same(tmp_path / "c", tmp_path / "f", (*FILES, "contexts.jsonl"))


def test_replay_reproduces_a_run_and_its_scores_with_no_server(rt_suite, tmp_path):
    with ChatServer(answer=_agent) as server:
        recorded = _run(rt_suite, tmp_path / "run", "openai:scripted", "--base-url", server.base_url,
                        "--cache", tmp_path / "c.sqlite")
    assert recorded.exit_code == 0, recorded.output
    replayed = _run(rt_suite, tmp_path / "replay", f"replay:{tmp_path / 'run'}")
    from_cache = _run(rt_suite, tmp_path / "from-cache", f"replay:{tmp_path / 'c.sqlite'}")
    assert replayed.exit_code == 0 and from_cache.exit_code == 0, replayed.output + from_cache.output
    _same(tmp_path / "run", tmp_path / "replay")
    # a cache does not say which agent asked: the same traces and turns, answered under the replay's name
    _same(tmp_path / "run", tmp_path / "from-cache", ("turns.jsonl",))
    first = [json.loads(x) for x in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    cached = [json.loads(x) for x in (tmp_path / "from-cache" / "traces.jsonl").read_text().splitlines()]
    assert [t["calls"] for t in first] == [t["calls"] for t in cached] and cached[0]["agent"].startswith("replay:")
    for name in ("run", "replay"):
        scored = CliRunner().invoke(cli, ["score", "groundeval", "--suite", str(rt_suite), "--answers",
                                          str(tmp_path / name), "--out", str(tmp_path / f"score-{name}"),
                                          "--answered-only"])
        assert scored.exit_code == 0, scored.output
    assert (tmp_path / "score-run" / "questions.jsonl").read_bytes() == \
        (tmp_path / "score-replay" / "questions.jsonl").read_bytes()
    other = _run(rt_suite, tmp_path / "x", f"replay:{tmp_path / 'run'}", "--mode", "context")
    assert other.exit_code == 2 and "has no recorded turn for request" in other.output
    assert not (tmp_path / "x").exists()


def test_the_stub_agent_runs_the_model_loop_without_a_model(rt_suite, tmp_path):
    log = tmp_path / "stub.jsonl"
    ran = _run(rt_suite, tmp_path / "run", f"stub:{log}")
    assert ran.exit_code == 0, ran.output
    traces = [json.loads(x) for x in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    answers = [json.loads(x) for x in (tmp_path / "run" / "answers.jsonl").read_text().splitlines()]
    assert [[c["tool"] for c in t["calls"]] for t in traces] == [["search_artifacts"]] * 6
    assert [a["answer"]["evidence_artifacts"] for a in answers] == [t["calls"][0]["returned_ids"] for t in traces]
    reads = [json.loads(x) for x in log.read_text().splitlines()]
    turns = [json.loads(x) for x in (tmp_path / "run" / "turns.jsonl").read_text().splitlines()]
    assert len(reads) == len(turns) == 12 and [r["sha256"] for r in reads] == [t["request_hash"] for t in turns]
    again = _run(rt_suite, tmp_path / "again", "stub:")
    assert again.exit_code == 0, again.output
    _same(tmp_path / "run", tmp_path / "again", ("turns.jsonl",))


def test_a_turns_hash_names_what_the_model_reads():
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    tools = [{"type": "function", "function": {"name": "submit_answer"}}]
    base = turn_hash(messages, tools, GenerationParams())
    assert base == turn_hash([dict(reversed(list(m.items()))) for m in messages], tools, GenerationParams())
    assert len({base, turn_hash(messages, [], GenerationParams()), turn_hash(messages[:1], tools, GenerationParams()),
                turn_hash(messages, tools, GenerationParams(temperature=0.7)),
                turn_hash(messages, tools, GenerationParams(extra={"reasoning_effort": "high"}))}) == 5
