"""Checks a command makes before it writes anything: is the model endpoint there at all?"""

from __future__ import annotations

import os
import socket
import urllib.parse

from orgbench.core.errors import ConfigError, EndpointError

CONNECT_TIMEOUT_S = 3.0


def endpoint_url(base_url: str | None) -> str:
    """The endpoint an ``openai:MODEL`` spec will call: --base-url, else $OPENAI_BASE_URL, else OpenAI's."""
    from judges.backends.openai_compat import DEFAULT_BASE_URL

    return base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL


def check_endpoint(spec: str | None, base_url: str | None, option: str = "--base-url") -> None:
    """For a spec reached at ``--base-url`` (``openai:``; its backend says so), refuse (EndpointError) an endpoint
    that no server answers on, before anything is written."""
    from judges.backends.registry import takes_base_url

    if not spec or spec.endswith(":") or ":" not in spec or not takes_base_url(spec):
        return                      # not a model endpoint, or no model named (the command says so)
    url = endpoint_url(base_url)
    scheme: str | None
    host: str | None
    port: int | None
    try:
        parts = urllib.parse.urlsplit(url)
        scheme, host = parts.scheme, parts.hostname
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        scheme = host = port = None
    if scheme not in ("http", "https") or not host:
        raise ConfigError(f"{option}: {url!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise EndpointError(option, f"{url} is unreachable (nothing answers at {host}:{port}: {reason}); start the "
                            "server or fix the URL; nothing was written") from None
