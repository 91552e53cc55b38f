"""The OpenAI-compatible backend end to end against a real local chat-completions server, and the registry."""

from __future__ import annotations

import asyncio
import socket

import pytest

from tests.judges.chat_server import Reply
from judges.backends import FatalBackendError, GenerationParams, JudgeRequest, Message, make_backend
from judges.backends.base import BackendError, JudgeResponse, Usage
from judges.backends.openai_compat import ChatClient, OpenAICompatBackend, parse_retry_after
from orgbench.core.errors import InputError

KEY_ENV = "ORGBENCH_TEST_JUDGE_KEY"


def _backend(server, **options) -> OpenAICompatBackend:
    options.setdefault("backoff_base", 0.01)
    options.setdefault("api_key_env", KEY_ENV)
    return make_backend("openai:judge-model", base_url=server.base_url, **options)


def _request(text="Is this answer right?", seed=7) -> JudgeRequest:
    return JudgeRequest((Message("system", "You are a judge."), Message("user", text)), GenerationParams(seed=seed))


def _complete(backend, request=None):
    async def go():
        try:
            return await backend.complete(backend.prepare(request or _request()))
        finally:
            await backend.aclose()
    return asyncio.run(go())


def test_answers_well_and_passes_parameters_through(chat, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    backend = _backend(chat, temperature=0.3, max_tokens=256, extra={"reasoning_effort": "high"})
    response = _complete(backend, _request("check SHOULD_FAIL please"))
    assert '"verdict": "fail"' in response.text
    assert response.model == "judge-model"
    assert response.usage == Usage(prompt_tokens=(16 + 24) // 4, completion_tokens=len(response.text) // 4)
    (body,) = chat.bodies
    assert body == {"model": "judge-model", "temperature": 0.3, "max_tokens": 256, "seed": 7,
                    "reasoning_effort": "high",
                    "messages": [{"role": "system", "content": "You are a judge."},
                                 {"role": "user", "content": "check SHOULD_FAIL please"}]}
    assert chat.headers[0]["Authorization"] == "Bearer sk-test"


def test_no_key_sends_no_authorization(chat, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    _complete(_backend(chat))
    assert "Authorization" not in chat.headers[0]


def test_bytes_content_is_sent_as_its_text(chat):
    request = JudgeRequest((Message("user", "caf\u00e9 bytes".encode("utf-8")),), GenerationParams(seed=1))
    _complete(_backend(chat), request)
    assert chat.bodies[0]["messages"] == [{"role": "user", "content": "caf\u00e9 bytes"}]


def test_slow_answer_within_timeout(chat):
    chat.plan(Reply(delay=0.4))
    response = _complete(_backend(chat, timeout=10))
    assert '"verdict": "pass"' in response.text
    assert chat.total == 1


def test_429_retry_after_is_honoured(chat):
    chat.plan(Reply("status", status=429, headers={"Retry-After": "1"}))
    response = _complete(_backend(chat))
    assert '"verdict"' in response.text
    assert chat.total == 2
    # backoff alone would wait at most 0.01 s; the server asked for 1 s.
    assert chat.arrivals[1] - chat.arrivals[0] >= 0.95


def test_500_then_success(chat):
    chat.plan(Reply("status", status=500), Reply("status", status=503))
    response = _complete(_backend(chat))
    assert '"verdict": "pass"' in response.text
    assert chat.total == 3


def test_malformed_body_is_retried_then_succeeds(chat):
    chat.plan(Reply("malformed"), Reply("malformed", body='{"choices": []}'))
    assert '"verdict"' in _complete(_backend(chat)).text
    assert chat.total == 3


def test_malformed_forever_fails_this_request_only(chat):
    chat.plan(*[Reply("malformed")] * 3)
    with pytest.raises(BackendError, match="malformed chat completion.*gave up after 3 attempts") as info:
        _complete(_backend(chat, max_retries=2))
    assert not isinstance(info.value, FatalBackendError)
    assert chat.total == 3


def test_no_answer_times_out_after_retries(chat):
    chat.plan(Reply("hang"), Reply("hang"))
    with pytest.raises(BackendError, match=r"no answer within 0.3 s; gave up after 2 attempts") as info:
        _complete(_backend(chat, timeout=0.3, max_retries=1))
    assert not isinstance(info.value, FatalBackendError)
    assert chat.total == 2


def test_bad_key_fails_fast_with_a_clear_line(chat, monkeypatch):
    chat.api_key = "sk-right"
    monkeypatch.setenv(KEY_ENV, "sk-wrong")
    with pytest.raises(FatalBackendError) as info:
        _complete(_backend(chat))
    message = str(info.value)
    assert "HTTP 401" in message and f"${KEY_ENV} was refused" in message and chat.base_url in message
    assert "\n" not in message
    assert chat.total == 1  # no retries on a refused key


def test_missing_key_is_named(chat, monkeypatch):
    chat.api_key = "sk-right"
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(FatalBackendError, match=f"{KEY_ENV} is not set"):
        _complete(_backend(chat))


def test_client_error_is_not_retried(chat):
    chat.plan(Reply("status", status=400, body='{"error": {"message": "context length exceeded"}}'))
    with pytest.raises(BackendError, match="HTTP 400 \\(context length exceeded\\)") as info:
        _complete(_backend(chat))
    assert not isinstance(info.value, FatalBackendError)
    assert chat.total == 1


def test_404_is_fatal(chat):
    chat.plan(Reply("status", status=404))
    with pytest.raises(FatalBackendError, match="no chat-completions endpoint there"):
        _complete(_backend(chat))


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_endpoint_is_fatal_after_the_retries():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    backend = make_backend("openai:m", base_url=url, max_retries=2, backoff_base=0.01)
    with pytest.raises(FatalBackendError) as info:
        _complete(backend)
    message = str(info.value)
    assert message.startswith(f"{url}/chat/completions: unreachable after 3 attempts")
    assert "\n" not in message
    assert backend.client.requests_sent == 3


def test_chat_client_returns_tool_calls_for_agents(chat):
    call = {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"q": "CASE-1"}'}}
    chat.plan(Reply(message={"role": "assistant", "content": None, "tool_calls": [call]}))
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]

    async def go():
        client = ChatClient(chat.base_url, "agent-model", api_key_env=None)
        try:
            return await client.chat([{"role": "user", "content": "find CASE-1"}], tools, GenerationParams(seed=3))
        finally:
            await client.aclose()

    turn = asyncio.run(go())
    assert turn["message"]["tool_calls"] == [call]
    assert turn["finish_reason"] == "tool_calls"
    assert turn["model"] == "agent-model"
    assert chat.bodies[0]["tools"] == tools and chat.bodies[0]["seed"] == 3


def test_concurrent_requests_share_one_pool(chat):
    backend = _backend(chat)
    backend.ensure_pool(8)

    async def go():
        try:
            return await asyncio.gather(*[backend.complete(_request(f"q{i}")) for i in range(40)])
        finally:
            await backend.aclose()

    responses = asyncio.run(go())
    assert len(responses) == 40 and all(isinstance(r, JudgeResponse) for r in responses)
    assert chat.total == 40


def test_parse_retry_after_forms():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("100000") == 300.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=1445412480.0) == 5.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_generation_options_override_the_request_but_keep_its_seed(chat):
    backend = _backend(chat, temperature=0.5, extra={"top_p": 0.9})
    request = JudgeRequest((Message("user", "x"),),
                           GenerationParams(temperature=0.0, max_tokens=64, seed=4, extra={"top_p": 1.0, "stop": ["}"]}))
    prepared = backend.prepare(request)
    assert prepared.params == GenerationParams(0.5, 64, 4, {"top_p": 0.9, "stop": ["}"]})
    default = make_backend("openai:m", base_url=chat.base_url)
    plain = _request()
    assert default.prepare(plain) is plain


@pytest.mark.parametrize("spec, message", [
    ("gpt-4o", "unknown"), ("openai", "name the model"), ("openai:", "name the model"),
    ("replay", "replay:PATH"), ("stubby", "unknown"), ("builtin-x", "unknown"),
])
def test_registry_rejects_bad_specs(spec, message):
    with pytest.raises(InputError, match=message):
        make_backend(spec)


def test_registry_makes_named_backends(tmp_path):
    backend = make_backend("openai:llama3", base_url="http://127.0.0.1:11434/v1/")
    assert backend.name == "openai:llama3"
    assert backend.identity() == {"kind": "openai", "model": "llama3", "base_url": "http://127.0.0.1:11434/v1"}
    recorded = tmp_path / "responses.jsonl"
    recorded.write_text('{"request_hash": "abc", "text": "{\\"verdict\\": \\"pass\\"}"}\n')
    assert make_backend(f"replay:{recorded}").recorded["abc"].text == '{"verdict": "pass"}'
    assert make_backend("replay", replay_path=recorded).name == "replay"


def test_parse_extra_reads_json_values_or_text():
    from judges.backends import parse_extra

    assert parse_extra(["reasoning_effort=high", "top_p=0.9", "stop=[\"}\"]", "flag=true"]) == {
        "reasoning_effort": "high", "top_p": 0.9, "stop": ["}"], "flag": True}
    with pytest.raises(InputError, match="expected key=value"):
        parse_extra(["oops"])


def test_registry_resolves_backends_owned_by_other_areas_lazily(tmp_path):
    pytest.importorskip("judges.backends.stub")
    assert make_backend("stub").name == "stub"
    assert make_backend(f"stub:{tmp_path / 'reads.jsonl'}").name == "stub"


def test_bytes_that_are_not_utf8_fail_that_request_without_sending(chat):
    request = JudgeRequest((Message("user", b"caf\xe9"),), GenerationParams(seed=1))
    with pytest.raises(BackendError, match="not UTF-8 .* at byte 3"):
        _complete(_backend(chat), request)
    assert chat.total == 0
