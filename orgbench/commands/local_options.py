"""The options every model-calling command shares for structured outputs and local servers."""

from __future__ import annotations

from typing import Callable

import click


def structured_options(command: Callable) -> Callable:
    """Add ``--structured auto|on|off`` and ``--slots N`` to a click command."""
    command = click.option(
        "--slots", type=click.IntRange(1), default=1, show_default=True,
        help="local:MODEL only: requests the started server answers at once (parallel slots of one llama.cpp C++ server; one llama-cpp-python process each when only that is installed).")(command)
    return click.option(
        "--structured", type=click.Choice(("auto", "on", "off")), default=None,
        help="Send the answer's JSON schema as response_format: auto (if the endpoint accepts it), on (must), off. "
             "Default: auto for local:MODEL, off for openai:MODEL (an existing run keeps resuming). The dialect "
             "used is recorded in run.json.")(command)


def structured_mode(spec: str, given: str | None) -> str:
    """The --structured mode for a judge spec: the one given, else auto for local: and off for the rest."""
    if given is not None:
        return given
    return "auto" if spec.startswith("local:") else "off"
