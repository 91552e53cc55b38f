"""serve-mcp's warm-up: an agent's calls on a throwaway connection before the first request, leaving no trace."""

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner

from benchmark_builders.groundeval.contracts import ANSWER_SCHEMAS
from judges.groundeval import mcp_warmup
from judges.groundeval.mcp_server import make_server
from judges.groundeval.mcp_warmup import MAX_CONTRACTS, by_track, plainest_answer
from judges.groundeval.scoring import parse_answer
from judges.groundeval.traces import load_suite
from orgbench.cli import cli
from tests.benchmark_builders.groundeval.test_ge_domains import TASK_CONFIG, write_task_domain
from tests.judges.groundeval.mcp_wire import valid_answer


def _contracts(suite: Path) -> list[dict]:
    return [json.loads(line) for line in (suite / "contracts.jsonl").read_text().splitlines()]


def _counting(monkeypatch) -> list[int]:
    """Record how many contracts each warm-up ran."""
    ran: list[int] = []
    real = mcp_warmup.warm_up

    def counted(*args):
        ran.append(real(*args))
        return ran[-1]

    monkeypatch.setattr("judges.groundeval.mcp_server.warm_up", counted)
    return ran


def test_the_plainest_answer_of_every_track_passes_the_scorers_reading():
    for track, schema in ANSWER_SCHEMAS.items():
        answer = plainest_answer(dict(schema))
        assert parse_answer(answer, track) == (answer, None), track
    assert plainest_answer({"exists": "bool", "evidence_artifacts": "[artifact id]", "reasoning": "str"}) == {
        "exists": False, "evidence_artifacts": [], "reasoning": ""}
    assert plainest_answer(None) == {}


def test_contracts_are_taken_one_track_at_a_time(rt_suite):
    contracts = {c.question_id: c for c in load_suite(rt_suite)[1]}
    order = list(by_track(contracts))
    assert sorted(order) == sorted(contracts)
    tracks = [contracts[q].track for q in order]
    assert tracks[:3] == ["perspective", "counterfactual", "silence"]
    assert tracks[3:6] == ["perspective", "counterfactual", "silence"]
    for track in ("perspective", "counterfactual", "silence"):     # each track in suite order
        assert [q for q in order if contracts[q].track == track] == [q for q in contracts
                                                                      if contracts[q].track == track]


def test_a_warmed_server_wrote_nothing_and_serves_a_fresh_session(rt_suite, tmp_path, monkeypatch):
    from mcp import Client

    ran = _counting(monkeypatch)
    out = tmp_path / "out"
    server = make_server(rt_suite, None, out, "warm-agent", warm=True)
    assert 1 <= ran[0] <= MAX_CONTRACTS
    assert not out.exists() or list(out.iterdir()) == []          # no answer, trace or lock file
    first = _contracts(rt_suite)[0]

    async def agent() -> tuple[dict, dict, dict]:
        async with Client(server) as client:
            listed = (await client.call_tool("list_contracts", {})).structured_content
            opened = (await client.call_tool("start_contract", {"question_id": first["question_id"]})).structured_content
            done = (await client.call_tool("submit_answer", {"answer": valid_answer(first["track"])})).structured_content
            return listed, opened, done

    listed, opened, done = asyncio.run(agent())
    assert not any(row["submitted"] for row in listed["contracts"])     # the warm-up's answers are not this session's
    assert opened["resumed"] is False and opened["calls_so_far"] == 0
    assert done == {"status": "submitted", "question_id": first["question_id"], "agent": "warm-agent",
                    "calls_recorded": 0}
    rows = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert [(r["question_id"], r["agent"]) for r in rows] == [(first["question_id"], "warm-agent")]


def test_the_warm_up_runs_each_contract_at_most_once_and_stops_at_a_refused_answer(rt_suite, tmp_path, monkeypatch):
    ran = _counting(monkeypatch)
    make_server(rt_suite, _contracts(rt_suite)[0]["question_id"], tmp_path / "one", warm=True)
    assert ran == [1]                                             # one-contract mode: its contract, once
    make_server(rt_suite, None, tmp_path / "ctx", mode="context", warm=True)
    assert 1 <= ran[1] <= MAX_CONTRACTS
    monkeypatch.setattr(mcp_warmup, "plainest_answer", lambda schema: {"not": "an answer"})
    make_server(rt_suite, None, tmp_path / "refused", warm=True)
    assert ran[2] == 1                                            # the schema refused it: the warm-up ends there
    assert not (tmp_path / "one").exists() and not (tmp_path / "ctx").exists() and not (tmp_path / "refused").exists()


def test_a_task_suite_warms_up_through_its_own_tools_and_writes_nothing(tmp_path, monkeypatch):
    ran = _counting(monkeypatch)
    domain = write_task_domain(tmp_path / "tasks", TASK_CONFIG)
    built = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert built.exit_code == 0, built.output
    make_server(tmp_path / "s", None, tmp_path / "out", warm=True)
    assert ran[0] == len(_contracts(tmp_path / "s"))             # every task contract (fewer than the bound)
    assert not (tmp_path / "out").exists()
