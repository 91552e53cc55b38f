"""``orgbench serve-local MODEL``: run a llama.cpp server for other tools until Ctrl-C."""

from __future__ import annotations

import json
import signal
import time

import click


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def register(cli: click.Group) -> None:
    """Add ``serve-local`` to the CLI."""

    @cli.command("serve-local")
    @click.argument("model")
    @click.option("--slots", type=click.IntRange(1), default=1, show_default=True,
                  help="Requests answered at once (parallel slots of one C++ llama.cpp server; one "
                       "llama-cpp-python process, and one port, each when only that is installed).")
    @click.option("--ctx", "n_ctx", type=click.IntRange(256), default=8192, show_default=True, help="Context size.")
    @click.option("--tools", is_flag=True, help="Use a chat format with function calling (for agents).")
    def serve_local(model: str, slots: int, n_ctx: int, tools: bool) -> None:
        """Serve MODEL (smollm2, gemma3-270m or PATH.gguf) on 127.0.0.1 on free ports until Ctrl-C.

        Prints one JSON line with the base URLs, then waits; point any
        OpenAI-compatible client (`--judge openai:MODEL --base-url URL`) at one.
        """
        from judges.backends.local_server import LocalServer, require_server_package, resolve_model

        spec = f"local:{model}"
        require_server_package(spec)
        server = LocalServer(resolve_model(model, spec), slots=slots, n_ctx=n_ctx, tools=tools)
        signal.signal(signal.SIGTERM, _interrupt)     # `kill PID` stops the children as Ctrl-C does
        with server:
            click.echo(json.dumps({"model": server.model.name, "gguf": str(server.model.path),
                                   "base_urls": server.base_urls, "slots": slots}), nl=True)
            click.echo(f"serving; e.g. --judge openai:{server.model.name} --base-url {server.base_urls[0]} "
                       "(Ctrl-C stops it)", err=True)
            while server.running:
                time.sleep(0.5)
        raise click.ClickException("the llama.cpp server stopped on its own")
