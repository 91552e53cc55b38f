"""Dispatch to an LLM judge over real HTTP: a local OpenAI-compatible server on 127.0.0.1 reads the verified packets."""

from __future__ import annotations

import hashlib
import json

from click.testing import CliRunner

from judges.assurance.pipeline import STEPS
from orgbench.cli import cli
from tests.judges.chat_server import ChatServer


def test_openai_judge_receives_exactly_the_verified_packets(suite_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    work = tmp_path / "w"
    with ChatServer() as server:
        runner = CliRunner()
        for step in STEPS[:-1]:
            assert runner.invoke(cli, ["assure", step, "--source", str(suite_dir), "--work", str(work)]).exit_code == 0
        result = runner.invoke(cli, ["assure", "dispatch", "--source", str(suite_dir), "--work", str(work),
                                     "--judge", "openai:judge-model", "--base-url", server.base_url])
        assert result.exit_code == 0, result.output
        received = [m["content"] for body in server.bodies for m in body["messages"] if m["role"] == "user"]
    manifest = json.loads((work / "build" / "manifest.json").read_text())["packets"]
    got = sorted(hashlib.sha256(text.encode("utf-8")).hexdigest() for text in received)
    assert got == sorted(list(manifest.values()) * 2)            # every packet, both draws, byte for byte
    responses = [json.loads(line) for line in (work / "dispatch" / "responses.jsonl").read_text().splitlines()]
    assert all('"verdict": "pass"' in r["response"] for r in responses)


def test_contrast_with_an_openai_judge(small_cohort, tmp_path):
    from benchmark_builders.trajectories.records import write_suite
    from judges.assurance.contrast import contrast_summary, judge_cohort
    from judges.backends import make_backend

    trajectories, labels = small_cohort
    write_suite(tmp_path / "suite", trajectories[:3], [labels[t.trajectory_id] for t in trajectories[:3]], {})
    with ChatServer() as server:
        backend = make_backend("openai:judge-model", base_url=server.base_url, api_key_env="ORGBENCH_NO_KEY")
        judged = judge_cohort(tmp_path / "suite", tmp_path / "w", backend, draws=2)
    assert judged and all(v == "pass" for j in judged for v in j.verdicts)
    assert contrast_summary(judged, resamples=100)["G"] == {"original": 0, "restored": 0, "reduction": 0}


def test_dispatch_resumes_from_its_journal_asking_only_what_is_unanswered(suite_dir, tmp_path, monkeypatch):
    from tests.judges.chat_server import Reply

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runner = CliRunner()
    work, fresh = tmp_path / "w", tmp_path / "fresh"
    for directory in (work, fresh):
        for step in STEPS[:-1]:
            assert runner.invoke(cli, ["assure", step, "--source", str(suite_dir), "--work", str(directory)]).exit_code == 0
    dispatch = ["assure", "dispatch", "--source", str(suite_dir), "--judge", "openai:judge-model"]
    journal = work / "journal" / "dispatch.jsonl"
    with ChatServer() as server:
        server.plan(*[Reply()] * 5, *[Reply("status", status=401)] * 500)    # the key is refused after 5 answers
        cut = runner.invoke(cli, [*dispatch, "--work", str(work), "--base-url", server.base_url])
        assert cut.exit_code == 2 and "--base-url:" in cut.output and "HTTP 401" in cut.output, cut.output
        port = server.port
    answered = len(journal.read_text().splitlines()) - 1      # the header, then one line per answer
    assert 5 <= answered and not (work / "dispatch" / "responses.jsonl").exists()
    with ChatServer(port=port) as server:   # the same endpoint: the journal binds the judge's identity, URL included
        resumed = runner.invoke(cli, [*dispatch, "--work", str(work), "--base-url", server.base_url])
        assert resumed.exit_code == 0, resumed.output
        asked = server.total
        again = runner.invoke(cli, [*dispatch, "--work", str(fresh), "--base-url", server.base_url])
        assert again.exit_code == 0, again.output
        handed = server.total - asked
    assert (asked, handed) == (handed - answered, handed), (answered, asked, handed)
    kept = journal.read_text().splitlines()[1:]                  # kept as a signed material, every line sealed
    sealed = {d for line in (work / "journal" / "dispatch.seals.jsonl").read_text().splitlines()
              for d in json.loads(line)["rows"]}
    assert len(kept) == handed and {hashlib.sha256(line.encode()).hexdigest() for line in kept} <= sealed
    assert (work / "dispatch" / "responses.jsonl").read_bytes() == (fresh / "dispatch" / "responses.jsonl").read_bytes()
