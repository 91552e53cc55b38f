"""The response cache and the hashes that key it."""

from __future__ import annotations

import subprocess
import sys

from judges.backends.base import GenerationParams, JudgeBackend, JudgeRequest, JudgeResponse, Message, Usage
from judges.cache import ResponseCache, backend_identity, cache_key, request_hash


def _request(text="judge this", seed=0, **params) -> JudgeRequest:
    return JudgeRequest((Message("system", "You are a judge."), Message("user", text)),
                        GenerationParams(seed=seed, **params))


def test_request_hash_changes_with_everything_that_changes_the_answer():
    base = request_hash(_request())
    assert request_hash(_request()) == base
    variants = [
        _request("judge this!"),
        _request(seed=1),
        _request(temperature=0.7),
        _request(max_tokens=512),
        _request(extra={"reasoning_effort": "high"}),
        JudgeRequest((Message("user", "You are a judge."), Message("user", "judge this")), GenerationParams(seed=0)),
        JudgeRequest((Message("system", "You are a judge.judge this"),), GenerationParams(seed=0)),
    ]
    hashes = {request_hash(v) for v in variants}
    assert base not in hashes and len(hashes) == len(variants)


def test_bytes_and_str_content_with_the_same_bytes_hash_alike():
    as_bytes = JudgeRequest((Message("system", b"You are a judge."), Message("user", "judge this".encode())),
                            GenerationParams(seed=0))
    assert request_hash(as_bytes) == request_hash(_request())


def test_request_hash_is_stable_across_hash_seeds():
    code = ("from judges.cache import request_hash;from judges.backends.base import *;"
            "print(request_hash(JudgeRequest((Message('user','x'),),"
            "GenerationParams(seed=3, extra={'b': 1, 'a': 2}))))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    assert len(outs) == 1


class _Named(JudgeBackend):
    name = "builtin:literal"

    async def complete(self, request):
        raise NotImplementedError


class _Identified(_Named):
    name = "openai:m"

    def identity(self):
        return {"kind": "openai", "model": "m", "base_url": "http://a/v1"}


def test_cache_key_separates_backends_but_not_transport_settings():
    h = request_hash(_request())
    assert backend_identity(_Named()) == {"name": "builtin:literal"}
    k1 = cache_key(backend_identity(_Identified()), h)
    assert k1 == cache_key({"base_url": "http://a/v1", "model": "m", "kind": "openai"}, h)
    assert k1 != cache_key({"kind": "openai", "model": "m2", "base_url": "http://a/v1"}, h)
    assert k1 != cache_key({"kind": "openai", "model": "m", "base_url": "http://b/v1"}, h)


def test_cache_round_trip_and_persistence(tmp_path):
    path = tmp_path / "cache.sqlite"
    entries = [(f"k{i}", JudgeResponse(f"answer {i} \u00e9", Usage(i, 2 * i), "m")) for i in range(1200)]
    with ResponseCache(path) as cache:
        assert cache.put_many(entries) == 1200
        assert cache.put_many([]) == 0
    with ResponseCache(path) as cache:
        assert len(cache) == 1200
        found = cache.get_many([f"k{i}" for i in range(0, 1300, 7)])
        assert len(found) == len(range(0, 1200, 7))
        assert found["k7"] == JudgeResponse("answer 7 \u00e9", Usage(7, 14), "m")
        assert cache.get("missing") is None


def test_a_file_that_is_not_a_cache_is_an_input_error(tmp_path):
    import pytest

    from orgbench.core.errors import InputError

    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InputError, match="cache.sqlite"):
        ResponseCache(path)
