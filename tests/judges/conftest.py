"""Shared fixtures for judge tests: one local chat-completions server per module, reset before each test."""

from __future__ import annotations

import pytest

from tests.judges.chat_server import ChatServer


@pytest.fixture(scope="module")
def server():
    """A scriptable OpenAI-compatible server on 127.0.0.1 for the whole module."""
    with ChatServer() as running:
        yield running


@pytest.fixture
def chat(server):
    """The module's server with counts, plans, key and delay back to their defaults."""
    server.reset()
    server.api_key = None
    server.delay = 0.0
    return server
