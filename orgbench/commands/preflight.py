"""Checks a command makes before it writes anything: is the model endpoint there at all?"""

from __future__ import annotations

import os
import socket
import urllib.parse
from typing import Sequence

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


#: The options that only shape a request to a model (parameter names, in the order judge's --help lists them) ...
REQUEST_OPTIONS = ("base_url", "api_key_env", "temperature", "max_tokens", "timeout", "max_retries", "extra",
                   "structured", "slots")
#: ... those of them only a spec reached at --base-url (openai:MODEL) uses: local:MODEL starts its own server ...
ENDPOINT_OPTIONS = ("base_url", "api_key_env")
#: ... and those only local:MODEL uses (the server it starts).
LOCAL_OPTIONS = ("slots",)


def _uses(spec: str, name: str) -> bool:
    """Whether ``spec`` uses request option ``name``; a spec of no known backend does (its command names it)."""
    from judges.backends.registry import find, is_builtin, takes_base_url

    if not find(spec) and not is_builtin(spec):
        return True
    if name in LOCAL_OPTIONS:
        return spec.startswith("local:")
    return not is_builtin(spec) and (name not in ENDPOINT_OPTIONS or takes_base_url(spec))


def _unused_because(specs: Sequence[str], name: str, role: str) -> str:
    """Why no spec of ``specs`` uses request option ``name``."""
    from judges.backends.registry import is_builtin

    if not specs:
        return f"with no --{role} given, the built-in {role}s send no request"
    if len(specs) > 1:
        return f"none of {', '.join(specs)} " + ("starts a local server" if name in LOCAL_OPTIONS else
                                                 "is reached at --base-url" if name in ENDPOINT_OPTIONS else
                                                 "sends a request (each is built in)")
    if is_builtin(specs[0]):
        return f"{specs[0]} is a built-in {role} and sends no request for it to shape"
    if name in LOCAL_OPTIONS:
        return f"{specs[0]} starts no local server"
    return f"{specs[0]} is not reached at --base-url (an OpenAI-compatible endpoint)"


def refuse_request_options(specs: Sequence[str], role: str = "judge") -> None:
    """Refuse (InputError) the first request option typed on the command line that no spec of ``specs`` uses: any,
    for built-in judges and agents (they send no request); --base-url and --api-key-env also for local:MODEL, --slots
    for all but local:MODEL. Options the command does not have are skipped, so every command taking a judge or agent
    spec calls this one check."""
    from orgbench.commands.options import typed_options
    from orgbench.core.errors import InputError

    for name, option in typed_options(*REQUEST_OPTIONS).items():
        if any(_uses(spec, name) for spec in specs):
            continue
        hint = ("local:MODEL" if name in LOCAL_OPTIONS else "openai:MODEL" if name in ENDPOINT_OPTIONS
                else "openai:MODEL or local:MODEL")
        raise InputError(f"{option}: {_unused_because(specs, name, role)}; drop {option}, or use it with {hint}")
