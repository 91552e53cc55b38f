"""Adaptive concurrency against real slot-limited servers: a known slot count never queues; AIMD backs off."""

from __future__ import annotations

import asyncio
import time

import pytest

from judges.backends import make_backend
from judges.backends.openai_compat import ChatClient
from judges.backends.pacing import OK, OTHER, OVERLOAD, Pacer
from tests.judges.chat_server import ChatServer, Reply

BODY = {"model": "m", "messages": [{"role": "user", "content": "judge this"}]}


def _send_all(client: ChatClient, n: int) -> list:
    async def go():
        try:
            return await asyncio.gather(*(client.post({**BODY, "seed": i}) for i in range(n)),
                                        return_exceptions=True)
        finally:
            await client.aclose()
    return asyncio.run(go())


def test_a_known_slot_count_keeps_queued_requests_in_the_client_so_none_times_out():
    # eight at once against one slot answering in 0.5 s: unpaced, the fifth and later wait > 2 s in the server
    with ChatServer(slots=1, delay=0.5) as server:
        client = ChatClient(server.base_url, "m", api_key_env=None, timeout=2.0, max_retries=0,
                            pacer=Pacer(1, fixed=True))
        answers = _send_all(client, 8)
    assert all(isinstance(a, dict) for a in answers)
    stats = client.pacer.stats()
    assert (stats.timeouts, stats.attempts, stats.most_in_flight, server.total) == (0, 8, 1, 8)


def test_unpaced_the_same_load_times_out():
    with ChatServer(slots=1, delay=0.5) as server:
        client = ChatClient(server.base_url, "m", api_key_env=None, timeout=2.0, max_retries=0, pool_size=8)
        answers = _send_all(client, 8)
    assert sum(isinstance(a, Exception) for a in answers) >= 3
    assert client.pacer.stats().timeouts >= 3


@pytest.mark.slow          # waits on timeouts (8 s at any load)
def test_aimd_halves_on_timeouts_and_answers_everything_with_retries():
    with ChatServer(slots=1, delay=0.4) as server:
        client = ChatClient(server.base_url, "m", api_key_env=None, timeout=1.5, max_retries=6, pool_size=8,
                            backoff_base=0.01)
        answers = _send_all(client, 8)
    assert all(isinstance(a, dict) for a in answers)
    stats = client.pacer.stats()
    assert stats.timeouts >= 1 and stats.decreases >= 1 and stats.least_window <= 4
    # one burst of timeouts counts once: decreases are far fewer than timeouts would make them
    assert stats.decreases <= stats.timeouts


def test_429_with_retry_after_pauses_every_new_attempt():
    with ChatServer() as server:
        server.plan(Reply(kind="status", status=429, headers={"Retry-After": "1"}))
        client = ChatClient(server.base_url, "m", api_key_env=None, timeout=5.0, max_retries=2, pool_size=4)
        answers = _send_all(client, 1)
        answers += _send_all(client, 1)
    assert all(isinstance(a, dict) for a in answers)
    assert server.total == 3
    assert server.arrivals[1] - server.arrivals[0] >= 0.95
    assert client.pacer.stats().overloads == 1


def test_pacer_window_grows_additively_and_decreases_once_per_window():
    async def go():
        pacer = Pacer(8)
        tickets = [await pacer.acquire() for _ in range(8)]
        for ticket in tickets[:3]:                       # three timeouts of requests sent in one window
            await pacer.release(ticket, OVERLOAD, timed_out=True)
        halved = pacer.window
        for ticket in tickets[3:]:
            await pacer.release(ticket, OTHER)
        for _ in range(4):
            await pacer.release(await pacer.acquire(), OK)
        return halved, pacer.window, pacer.stats()
    halved, grown, stats = asyncio.run(go())
    assert halved == 4.0 and stats.decreases == 1 and stats.timeouts == 3
    assert 4.0 < grown <= 5.0


def test_a_local_backend_ignores_a_larger_concurrency():
    pacer = Pacer(1, fixed=True)
    pacer.set_ceiling(16)
    assert pacer.window == 1.0
    adaptive = make_backend("openai:m", base_url="http://127.0.0.1:9/v1")
    adaptive.ensure_pool(32)
    assert adaptive.client.pacer.window == 32.0


def test_retry_after_pause_holds_acquire():
    async def go():
        pacer = Pacer(2)
        ticket = await pacer.acquire()
        await pacer.release(ticket, OVERLOAD, retry_after=0.3)
        started = time.monotonic()
        await pacer.acquire()
        return time.monotonic() - started
    assert asyncio.run(go()) >= 0.29
