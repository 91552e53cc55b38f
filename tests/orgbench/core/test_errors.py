"""Errors are types: one base (InputError) with config, format and endpoint kinds, each one line naming the place."""

from __future__ import annotations

import socket

import pytest

from orgbench.core.errors import ConfigError, EndpointError, FormatError, InputError, where


def test_the_kinds_are_input_errors_with_one_line_naming_the_place():
    error = FormatError("suite/truth.jsonl", "expected text", line=3, field="item_id")
    assert str(error) == "suite/truth.jsonl:3: field item_id: expected text"
    assert (error.path, error.line, error.field, error.problem) == ("suite/truth.jsonl", 3, "item_id", "expected text")
    assert str(EndpointError("--base-url", "http://127.0.0.1:9/v1 is unreachable")) == \
        "--base-url: http://127.0.0.1:9/v1 is unreachable"
    for kind in (ConfigError, EndpointError, FormatError):
        assert issubclass(kind, InputError)
    assert where("a.json") == "a.json" and where("a.json", field="x") == "a.json: field x"


def test_stages_raise_the_kind_that_fits(tmp_path):
    from orgbench.commands.preflight import check_endpoint
    from orgbench.core.storage import read_json
    from simulator.config import load_config

    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "a": 1,\n}\n', encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_json(bad)
    assert caught.value.line == 3 and str(caught.value).startswith(f"{bad}:3: invalid JSON")
    with pytest.raises(ConfigError, match="days"):
        load_config(days=0)
    with socket.socket() as probe:               # a port nothing listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        with pytest.raises(EndpointError, match=rf"^--base-url: http://127.0.0.1:{port}/v1 is unreachable"):
            check_endpoint("openai:m", f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ConfigError, match="is not an http"):
        check_endpoint("openai:m", "ftp://example.test")
