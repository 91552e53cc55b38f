"""The runner end to end against a real local chat server: logging, resume after SIGKILL, cache, replay, exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judges.backends import GenerationParams, JudgeRequest, Message, make_backend
from judges.cache import ResponseCache
from judges.judgments import JUDGMENTS, Judgment, load_judgments
from judges.runner import Job, run_jobs_sync
from orgbench.core.errors import InputError
from tests.judges.chat_server import ChatServer, Reply, request_key

REPO = Path(__file__).resolve().parents[2]


def make_jobs(items=6, conditions=("cargo", "direct"), seeds=(0, 1)) -> list[Job]:
    """Jobs whose prompts name their key; odd items carry the server's fail marker."""
    jobs = []
    for i in range(items):
        for condition in conditions:
            for seed in seeds:
                marker = " SHOULD_FAIL" if i % 2 else ""
                text = f"judge item-{i:03d} under {condition}{marker}"
                request = JudgeRequest((Message("system", "You are a judge."), Message("user", text)),
                                       GenerationParams(seed=seed))
                jobs.append(Job(f"item-{i:03d}", condition, seed, request))
    return jobs


def server_key(job: Job) -> str:
    request = job.rendered()        # a CLI job carries its render (issue 36), a hand-made one its request
    return request_key({"messages": [{"role": m.role, "content": m.text()} for m in request.messages],
                        "seed": request.params.seed})


def backend_for(server, **options):
    options.setdefault("backoff_base", 0.01)
    return make_backend("openai:judge", base_url=server.base_url, api_key_env="ORGBENCH_NO_KEY", **options)


def lines_of(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / JUDGMENTS).read_text().splitlines()]


def keys_of(rows) -> list[tuple]:
    return [(r["item_id"], r["condition"], r["seed"]) for r in rows]


def penalized_of(row: dict) -> bool | None:
    """A line's penalised reading, through the typed record (the generic runner writes no ``penalized`` field)."""
    return Judgment.from_json(row, JUDGMENTS).penalized


def test_a_run_writes_one_sorted_line_per_key(chat, tmp_path):
    jobs = make_jobs()
    summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", concurrency=5, progress=False,
                            parameters={"suite": "s1"})
    rows = lines_of(tmp_path / "run")
    assert keys_of(rows) == sorted(job.key for job in jobs)
    assert summary.jobs == summary.requested == summary.written == summary.judgments == 24
    assert (summary.penalized, summary.passed, summary.errors, summary.unparsed) == (12, 12, 0, 0)
    assert summary.usage.prompt_tokens == sum(r["usage"]["prompt_tokens"] for r in rows) > 0
    assert summary.usage.completion_tokens == sum(r["usage"]["completion_tokens"] for r in rows) > 0
    first = rows[0]
    assert first["item_id"] == "item-000" and penalized_of(first) is False and first["error"] is None
    assert "penalized" not in first      # a CARGO field, added by judges.cargo_scores.cargo_line
    assert first["verdict"]["verdict"] == "pass" and first["verdict"]["claims"][0]["status"] == "supported"
    assert len(first["request_hash"]) == 64 and first["model"] == "judge"
    assert rows[4]["item_id"] == "item-001" and penalized_of(rows[4]) is True
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["judge"] == "openai:judge" and run["parameters"] == {"suite": "s1"}
    assert run["backend"] == {"kind": "openai", "model": "judge", "base_url": chat.base_url}
    assert set(chat.counts.values()) == {1}


def test_run_stats_time_each_conditions_requests_apart(chat, tmp_path):
    jobs = make_jobs(items=3)
    chat.plan(*[Reply(delay=0.02) for _ in range(4)])      # the first four requests answer late
    run_jobs_sync(jobs[:8], backend_for(chat), tmp_path / "run", concurrency=1, progress=False)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", concurrency=1, progress=False)   # the rest on resume
    stats = json.loads((tmp_path / "run" / "run_stats.json").read_text())
    first, resumed = stats["calls"]
    asked = {c: sum(1 for j in jobs[:8] if j.condition == c) for c in ("cargo", "direct")}
    assert {c: row["requests"] for c, row in first["conditions"].items()} == asked
    assert {c: row["requests"] for c, row in resumed["conditions"].items()} == {"cargo": 2, "direct": 2}
    for call in stats["calls"]:     # one request at a time: the conditions' request time lies within the wall time
        assert 0 < sum(row["request_s"] for row in call["conditions"].values()) <= call["wall_s"]


def test_same_jobs_give_byte_identical_logs_at_any_concurrency(chat, tmp_path):
    jobs = make_jobs(items=10)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "a", concurrency=1, progress=False)
    run_jobs_sync(list(reversed(jobs)), backend_for(chat), tmp_path / "b", concurrency=16, progress=False)
    assert (tmp_path / "a" / JUDGMENTS).read_bytes() == (tmp_path / "b" / JUDGMENTS).read_bytes()


def test_resume_asks_only_for_what_is_missing(chat, tmp_path):
    jobs = make_jobs()
    run_jobs_sync(jobs[:10], backend_for(chat), tmp_path / "run", progress=False)
    summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    assert (summary.already_done, summary.requested, summary.judgments) == (10, 14, 24)
    assert keys_of(lines_of(tmp_path / "run")) == sorted(job.key for job in jobs)
    assert set(chat.counts.values()) == {1} and len(chat.counts) == 24
    again = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    assert again.requested == 0 and chat.total == 24


def test_torn_last_line_is_truncated_and_redone(chat, tmp_path):
    jobs = make_jobs(items=3)
    run_jobs_sync(jobs[:5], backend_for(chat), tmp_path / "run", progress=False)
    log = tmp_path / "run" / JUDGMENTS
    torn = log.read_text().splitlines()[-1][:40]
    log.write_text("".join(line + "\n" for line in log.read_text().splitlines()[:-1]) + torn)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    assert keys_of(lines_of(tmp_path / "run")) == sorted(job.key for job in jobs)
    assert chat.total == 5 + 8  # the torn judgment was asked again, nothing else


def test_errors_are_logged_then_retried_on_resume(chat, tmp_path):
    jobs = make_jobs(items=2)
    chat.plan(Reply("status", status=400, body='{"error": {"message": "prompt too long"}}'))
    summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", concurrency=1, progress=False)
    assert summary.errors == 1 and summary.judgments == 8
    (bad,) = [r for r in lines_of(tmp_path / "run") if r["error"]]
    assert "HTTP 400 (prompt too long)" in bad["error"]
    assert penalized_of(bad) is None and bad["verdict"] is None and bad["response"] is None
    summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    assert (summary.requested, summary.errors, summary.judgments) == (1, 0, 8)
    assert keys_of(lines_of(tmp_path / "run")) == sorted(job.key for job in jobs)


def test_unparsed_and_cannot_decide_are_counted_apart(chat, tmp_path):
    jobs = make_jobs(items=1, seeds=(0,))
    chat.plan(Reply(text="I think it is fine."), Reply(text='{"verdict": "cannot_decide"}'))
    summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", concurrency=1, progress=False)
    assert (summary.unparsed, summary.cannot_decide, summary.passed, summary.penalized) == (1, 1, 0, 0)
    rows = lines_of(tmp_path / "run")
    assert [r["verdict"]["verdict"] for r in rows] == ["unparsed", "cannot_decide"]
    assert [penalized_of(r) for r in rows] == [None, None]
    assert rows[0]["response"] == "I think it is fine."


def test_cache_answers_a_new_run_without_requests(chat, tmp_path):
    jobs = make_jobs()
    with ResponseCache(tmp_path / "cache.sqlite") as cache:
        run_jobs_sync(jobs, backend_for(chat), tmp_path / "a", progress=False, cache=cache)
        assert len(cache) == 24
        summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "b", progress=False, cache=cache)
    assert (summary.from_cache, summary.requested) == (24, 0)
    assert chat.total == 24
    assert (tmp_path / "a" / JUDGMENTS).read_bytes() == (tmp_path / "b" / JUDGMENTS).read_bytes()
    with ResponseCache(tmp_path / "cache.sqlite") as cache:
        other = make_backend("openai:other", base_url=chat.base_url, api_key_env="ORGBENCH_NO_KEY")
        summary = run_jobs_sync(jobs[:4], other, tmp_path / "c", progress=False, cache=cache)
    assert summary.requested == 4  # another model is another cache key


def test_replay_reproduces_a_run_exactly(chat, tmp_path):
    jobs = make_jobs()
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "live", progress=False)
    summary = run_jobs_sync(jobs, make_backend(f"replay:{tmp_path / 'live'}"), tmp_path / "replayed", progress=False)
    assert summary.requested == 24 and chat.total == 24
    live, replayed = lines_of(tmp_path / "live"), lines_of(tmp_path / "replayed")
    assert live == replayed
    extra = make_jobs(items=7)[-1]
    with pytest.raises(InputError, match="no recorded response for request"):
        run_jobs_sync([extra], make_backend(f"replay:{tmp_path / 'live'}"), tmp_path / "missing", progress=False)


def test_endpoint_going_away_stops_the_run_and_keeps_its_judgments(tmp_path):
    jobs = make_jobs(items=10)
    with ChatServer() as server:
        server.stop_after = 12
        backend = make_backend("openai:judge", base_url=server.base_url, max_retries=2, backoff_base=0.01)
        with pytest.raises(InputError) as info:
            run_jobs_sync(jobs, backend, tmp_path / "run", concurrency=1, progress=False)
        message = str(info.value)
        assert "unreachable after 3 attempts" in message and server.base_url in message and "\n" not in message
    kept = lines_of(tmp_path / "run")
    assert len(kept) == 12 and len(set(keys_of(kept))) == 12
    port = server.port
    with ChatServer() as other:  # a server on another port may serve other weights: refused
        backend = make_backend("openai:judge", base_url=other.base_url)
        with pytest.raises(InputError, match=r"run.json: backend.base_url is .* in this run, .* now"):
            run_jobs_sync(jobs, backend, tmp_path / "run", progress=False)
    with ChatServer(port=port) as back:  # the server comes back where it was: resume there
        backend = make_backend("openai:judge", base_url=back.base_url)
        summary = run_jobs_sync(jobs, backend, tmp_path / "run", progress=False)
        assert (summary.already_done, summary.requested) == (12, 28)
        assert keys_of(lines_of(tmp_path / "run")) == sorted(job.key for job in jobs)


def test_bad_arguments_are_input_errors(chat, tmp_path):
    jobs = make_jobs(items=1)
    with pytest.raises(InputError, match="given twice"):
        run_jobs_sync(jobs + jobs[:1], backend_for(chat), tmp_path / "run", progress=False)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    other = make_backend("openai:other", base_url=chat.base_url)
    with pytest.raises(InputError, match='run.json: judge is "openai:judge" in this run, "openai:other" now'):
        run_jobs_sync(jobs, other, tmp_path / "run", progress=False)
    (tmp_path / "run" / JUDGMENTS).write_text('{"item_id": "x"}\n')
    with pytest.raises(InputError, match=r"judgments.jsonl:1: a judgment needs item_id, condition and seed"):
        run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)


def test_load_judgments_refuses_a_torn_tail_or_a_repeat_and_says_to_resume(chat, tmp_path):
    run_jobs_sync(make_jobs(items=1), backend_for(chat), tmp_path / "run", progress=False)
    log = tmp_path / "run" / JUDGMENTS
    whole = log.read_text()
    assert len(load_judgments(tmp_path / "run")) == 4
    with open(log, "a") as handle:
        handle.write('{"item_id": "item-9')
    with pytest.raises(InputError, match=r"judgments.jsonl:5: its last line is cut short .*again to resume"):
        load_judgments(tmp_path / "run")
    log.write_text(whole + whole.splitlines(keepends=True)[1])
    with pytest.raises(InputError, match=r"judgments.jsonl:5: repeats the judgment of line 2 .*again to resume"):
        load_judgments(tmp_path / "run")
    # resuming drops the repeat: the log is whole again, and asks nothing
    asked = chat.total
    run_jobs_sync(make_jobs(items=1), backend_for(chat), tmp_path / "run", progress=False)
    assert log.read_text() == whole and chat.total == asked


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    """A 30-item CARGO suite (synthetic cases): with conditions direct, cargo and seeds 0, 1, 120 judgments."""
    sys.path.insert(0, str(REPO / "tests" / "benchmark_builders" / "cargo"))
    from benchmark_builders.cargo import SuiteConfig, build_suite, write_suite
    from cargo_synthetic import synthetic_cases

    out = tmp_path_factory.mktemp("runner_suite") / "suite"
    config = SuiteConfig(sizes={"P1": 8, "P3": 8, "P2": 7, "P4": 7}, gating_per_world=2)
    write_suite(build_suite([(s, synthetic_cases(s, per_procedure=4)) for s in range(2)], config), out)
    return out


def _suite_jobs(suite: Path, limit: int | None = None) -> list[Job]:
    """The jobs `orgbench judge --conditions direct,cargo --seeds 0,1` makes of the suite (the first ``limit`` items)."""
    from benchmark_builders.cargo.records import read_items
    from judges.cargo_run import make_jobs
    from judges.conditions import parse_conditions

    return make_jobs(read_items(suite, limit), parse_conditions("direct,cargo"), (0, 1))


def _judge_cmd(suite: Path, out: Path, base_url: str, *extra: object) -> list[str]:
    """`orgbench judge` (the one CLI) against an OpenAI-compatible endpoint."""
    return [sys.executable, "-m", "orgbench.cli", "judge", "--suite", str(suite), "--judge", "openai:judge",
            "--conditions", "direct,cargo", "--seeds", "0,1", "--out", str(out), "--base-url", base_url,
            "--api-key-env", "ORGBENCH_NO_KEY", *map(str, extra)]


def _counts(stdout: str) -> dict[str, int]:
    """judgments, requested and already done from the judge command's summary line."""
    import re

    found = re.search(r": (\d+) judgments \(.*\); (\d+) requested, (\d+) already done", stdout)
    assert found, stdout
    return dict(zip(("judgments", "requested", "already_done"), map(int, found.groups())))


@pytest.mark.slow          # two judge subprocesses, one killed (5-48 s, loaded machine)
def test_sigkill_half_way_then_resume_gives_exactly_one_judgment_per_key(suite, tmp_path):
    jobs = _suite_jobs(suite)  # 120 judgments
    assert len(jobs) == 120
    out = tmp_path / "run"
    with ChatServer(delay=0.05) as server:
        proc = subprocess.Popen(_judge_cmd(suite, out, server.base_url, "--concurrency", "4"), cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        log = out / JUDGMENTS
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and log.read_bytes().count(b"\n") >= 40:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        survived = [json.loads(line) for line in log.read_bytes().split(b"\n")[:-1]]
        assert 40 <= len(survived) < 120, "the kill must land half way"
        done_keys = set(keys_of(survived))
        asked_before = dict(server.counts)

        resumed = subprocess.run(_judge_cmd(suite, out, server.base_url, "--concurrency", "8"), cwd=REPO,
                                 capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        summary = _counts(resumed.stdout)
        assert summary["already_done"] == len(done_keys) and summary["judgments"] == 120
        rows = lines_of(out)
        assert keys_of(rows) == sorted(job.key for job in jobs)  # exactly one per key, nothing else
        for job in jobs:
            count = server.counts[server_key(job)]
            if job.key in done_keys:
                assert count == 1, f"{job.key} was finished before the kill but asked again"
            else:
                assert count == asked_before.get(server_key(job), 0) + 1


@pytest.mark.slow          # two judge subprocesses and retries (5-46 s, loaded machine)
def test_unreachable_endpoint_exits_2_with_one_line_and_keeps_judgments(suite, tmp_path):
    jobs = _suite_jobs(suite, limit=3)
    out = tmp_path / "run"
    with ChatServer() as server:
        first = subprocess.run(_judge_cmd(suite, out, server.base_url, "--limit", 1), cwd=REPO,
                               capture_output=True, text=True, timeout=60)
        assert first.returncode == 0, first.stderr
        gone = server.base_url
    before = (out / JUDGMENTS).read_bytes()
    # the library the command calls: a fatal backend error names the judgment and the endpoint, writes nothing
    from judges.backends import EndpointConfig
    from judges.cargo_run import run_cargo_jobs

    with pytest.raises(InputError) as raised:
        run_cargo_jobs(jobs, "openai:judge", out, suite=suite, conditions=["direct", "cargo"], seeds=(0, 1),
                       endpoint=EndpointConfig(base_url=gone, api_key_env="ORGBENCH_NO_KEY", max_retries=2,
                                               backoff_base=0.01))
    assert raised.value.message.startswith("item ")
    assert f"{gone}/chat/completions: unreachable after 3 attempts" in raised.value.message
    assert (out / JUDGMENTS).read_bytes() == before
    # the one CLI: exit 2, nothing on stdout, one line on stderr, the judgments as they were
    result = subprocess.run(_judge_cmd(suite, out, gone, "--limit", 3, "--max-retries", 2), cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: ") and gone in result.stderr and "unreachable" in result.stderr
    assert (out / JUDGMENTS).read_bytes() == before


def test_an_endpoint_that_fails_every_request_stops_the_run(chat, tmp_path):
    jobs = make_jobs(items=10)
    chat.plan(*[Reply("status", status=500)] * 200)
    with pytest.raises(InputError, match=r"5 requests in a row failed.*last: .*HTTP 500"):
        run_jobs_sync(jobs, backend_for(chat, max_retries=1), tmp_path / "run", concurrency=2, progress=False,
                      max_consecutive_errors=5)
    rows = lines_of(tmp_path / "run")
    assert 5 <= len(rows) <= 6 and all(r["error"] for r in rows)
    chat.reset()
    summary = run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    assert (summary.errors, summary.judgments, summary.requested) == (0, 40, 40)


def test_a_log_cut_at_any_byte_resumes_to_exactly_one_line_per_key(chat, tmp_path):
    """Wherever a kill cuts the log, resuming asks only for the judgments that were lost."""
    jobs = make_jobs(items=2)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "full", progress=False)
    full = (tmp_path / "full" / JUDGMENTS).read_bytes()
    ends = [i + 1 for i, byte in enumerate(full) if byte == ord("\n")]
    cuts = sorted({0, len(full), *ends, *(e - 7 for e in ends), *(e + 3 for e in ends[:-1])})
    for cut in cuts:
        run = tmp_path / f"cut-{cut}"
        run.mkdir()
        (run / "run.json").write_bytes((tmp_path / "full" / "run.json").read_bytes())
        (run / JUDGMENTS).write_bytes(full[:cut])
        intact = sum(1 for e in ends if e <= cut)
        chat.reset()
        summary = run_jobs_sync(jobs, backend_for(chat), run, progress=False)
        assert (summary.already_done, summary.requested, chat.total) == (intact, 8 - intact, 8 - intact), cut
        assert (run / JUDGMENTS).read_bytes() == full, cut


def test_no_jobs_is_an_empty_run(chat, tmp_path):
    summary = run_jobs_sync([], backend_for(chat), tmp_path / "run", progress=False)
    assert (summary.jobs, summary.judgments, summary.requested) == (0, 0, 0)
    assert (tmp_path / "run" / JUDGMENTS).read_bytes() == b""


def test_a_refused_key_stops_the_run_and_keeps_what_was_judged(chat, tmp_path, monkeypatch):
    jobs = make_jobs(items=4)
    run_jobs_sync(jobs[:6], backend_for(chat), tmp_path / "run", progress=False)
    before = (tmp_path / "run" / JUDGMENTS).read_bytes()
    chat.api_key = "sk-right"
    monkeypatch.setenv("ORGBENCH_WRONG_KEY", "sk-wrong")
    try:
        backend = make_backend("openai:judge", base_url=chat.base_url, api_key_env="ORGBENCH_WRONG_KEY")
        with pytest.raises(InputError, match=r"HTTP 401 .*ORGBENCH_WRONG_KEY was refused"):
            run_jobs_sync(jobs, backend, tmp_path / "run", concurrency=4, progress=False)
    finally:
        chat.api_key = None
    assert (tmp_path / "run" / JUDGMENTS).read_bytes() == before


def _snapshot(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.is_file()}


def _with_temperature(jobs, temperature: float) -> list[Job]:
    return [Job(j.item_id, j.condition, j.seed, JudgeRequest(j.request.messages, GenerationParams(
        temperature=temperature, seed=j.request.params.seed))) for j in jobs]


@pytest.mark.parametrize("change", ["temperature", "suite", "judge", "backend option"])
def test_a_resume_with_other_settings_is_refused_and_changes_nothing(chat, tmp_path, change):
    """A different suite or answer-changing setting into an existing run: one line naming run.json and the field."""
    jobs = make_jobs(items=3)
    parameters = {"suite_digest": "a" * 64, "temperature": 0.0, "conditions": ["cargo", "direct"], "seeds": [0, 1]}
    run_jobs_sync(jobs[:8], backend_for(chat), tmp_path / "run", progress=False, parameters=parameters)
    before = _snapshot(tmp_path / "run")
    backend, again = backend_for(chat), jobs
    if change == "temperature":
        parameters, again = {**parameters, "temperature": 0.7}, _with_temperature(jobs, 0.7)
        expected = r"parameters.temperature is 0.0 in this run, 0.7 now"
    elif change == "suite":
        parameters = {**parameters, "suite_digest": "b" * 64}
        expected = r"parameters.suite_digest is \"a+\" in this run, \"b+\" now"
    elif change == "judge":
        backend = make_backend("openai:other", base_url=chat.base_url, api_key_env="ORGBENCH_NO_KEY")
        expected = r'judge is "openai:judge" in this run, "openai:other" now'
    else:
        backend = backend_for(chat, max_tokens=50)  # generation options the backend adds change every request
        expected = r"item item-000 condition cargo seed 0 was judged from another request"
    asked = chat.total
    with pytest.raises(InputError, match=expected) as info:
        run_jobs_sync(again, backend, tmp_path / "run", progress=False, parameters=parameters)
    assert "\n" not in str(info.value) and str(tmp_path / "run") in str(info.value)
    assert _snapshot(tmp_path / "run") == before and chat.total == asked


def test_a_resume_that_changes_only_how_it_runs_is_accepted(chat, tmp_path):
    """Concurrency, progress, timeouts, retries, the cache and recorded locations may change between resumes."""
    jobs = make_jobs(items=3)
    parameters = {"suite_digest": "a" * 64, "temperature": 0.0}
    run_jobs_sync(jobs[:5], backend_for(chat), tmp_path / "run", progress=False, concurrency=1,
                  parameters=parameters, locations={"suite": "/old/place"})
    with ResponseCache(tmp_path / "cache.sqlite") as cache:
        summary = run_jobs_sync(jobs, backend_for(chat, timeout=5, max_retries=1), tmp_path / "run", concurrency=7,
                                progress=True, cache=cache, parameters=parameters, locations={"suite": "/new/place"})
    assert (summary.already_done, summary.requested, summary.judgments) == (5, 7, 12)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["locations"] == {"suite": "/new/place"} and run["parameters"] == parameters


def test_jobs_whose_requests_changed_are_refused_without_parameters(tmp_path):
    """A run that records no parameters: the logged request hashes still bind the run."""
    jobs = make_jobs(items=2)
    out = tmp_path / "run"
    with ChatServer() as server:
        run_jobs_sync(jobs, backend_for(server), out, progress=False)
        before = _snapshot(out)
        changed = [Job(j.item_id, j.condition, j.seed, JudgeRequest(
            j.request.messages[:1] + (Message("user", j.request.messages[1].text() + " (another suite)"),),
            j.request.params)) for j in jobs]  # same keys, other prompts: another suite's items
        with pytest.raises(InputError) as refused:
            run_jobs_sync(changed, backend_for(server), out, progress=False)
        assert server.total == 8
    assert refused.value.message.count("\n") == 0
    assert "judgments.jsonl: item item-000 condition cargo seed 0 was judged from another request" in \
        refused.value.message
    assert _snapshot(out) == before


def test_a_run_json_of_an_older_format_is_refused(chat, tmp_path):
    jobs = make_jobs(items=1)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    (tmp_path / "run" / "run.json").write_text('{"format_version": 1, "judge": "openai:judge", "parameters": {}}\n')
    before = _snapshot(tmp_path / "run")
    with pytest.raises(InputError, match="run.json: format_version 1, not 2: it does not record"):
        run_jobs_sync(jobs, backend_for(chat), tmp_path / "run", progress=False)
    assert _snapshot(tmp_path / "run") == before


def _rendered_later(jobs: list[Job], rendered: list[tuple]) -> list[Job]:
    """The same jobs, each rendered when taken (noting its key in ``rendered``)."""
    def later(job: Job):
        def render() -> JudgeRequest:
            rendered.append(job.key)
            assert job.request is not None
            return job.request
        return Job(job.item_id, job.condition, job.seed, render=render)
    return [later(job) for job in jobs]


def test_a_run_asks_before_every_prompt_is_rendered_and_logs_the_same_bytes(chat, tmp_path):
    jobs = make_jobs(items=10)
    rendered: list[tuple] = []
    renders_at_first_request: list[int] = []
    backend = backend_for(chat)
    complete = backend.complete

    async def noting(request):
        renders_at_first_request.append(len(rendered))
        return await complete(request)

    backend.complete = noting
    run_jobs_sync(_rendered_later(jobs, rendered), backend, tmp_path / "later", concurrency=2, progress=False)
    run_jobs_sync(jobs, backend_for(chat), tmp_path / "given", concurrency=2, progress=False)
    assert renders_at_first_request[0] <= 2 < len(jobs)        # one prompt per worker, not all 40
    assert sorted(rendered) == sorted(job.key for job in jobs)   # each job rendered once
    assert (tmp_path / "later" / JUDGMENTS).read_bytes() == (tmp_path / "given" / JUDGMENTS).read_bytes()

    # a resume renders the finished jobs to check them: another prompt under a finished key is still refused
    changed = [Job(j.item_id, j.condition, j.seed, render=lambda j=j: JudgeRequest(
        (j.request.messages[0], Message("user", j.request.messages[1].text() + " (another suite)")),
        j.request.params)) for j in jobs]
    with pytest.raises(InputError, match="was judged from another request"):
        run_jobs_sync(changed, backend_for(chat), tmp_path / "later", progress=False)
    with pytest.raises(ValueError, match="a request or a render"):
        Job("item-000", "cargo", 0)
