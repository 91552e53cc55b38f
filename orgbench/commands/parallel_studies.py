"""``orgbench reproduce`` with its studies in parallel: one child process per study, at most ``--jobs`` at once.

The studies are independent (each writes its own folder under ``--out`` and
its own stages under ``--work-dir``; a stage shared by two processes is
built once, under the stage's lock, ``orgbench.stages``). Each child sends
its progress lines as they come (each names its study or its stage's
folder), which the parent echoes whole, then its study's line and the model
requests it counted, which are added to the command's totals. A child's bad input ends the command with
that one line (exit 2); the other children are stopped. A child dies with
the parent (Linux), so a killed command leaves no study running.

Stopping is clean as in a serial run: SIGINT or SIGTERM to the parent (or
Ctrl-C to them all) stops every child as Ctrl-C stops a serial run -- each
unwinds, removing its half-built ``.NAME.PID.*.partial`` folders, while
finished stages and studies are kept -- and the parent waits for them
(``STOP_GRACE`` seconds, then kills the child and removes the partial
folders it left under ``--out`` and ``--work-dir``).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re
import shutil
import signal
import time
import traceback
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from orgbench.core.errors import InputError

__all__ = ["STOP_GRACE", "run_in_parallel", "usable_cores"]

#: Seconds a stopped child has to unwind (remove its partial folders) before it is killed.
STOP_GRACE = 60.0


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity where the system says, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                       # not Linux
        return max(1, os.cpu_count() or 1)


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when its parent dies (Linux; elsewhere nothing)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:                   # the parent died before the request took effect
        os._exit(1)


def _interrupt_once(signum: int, frame: object) -> None:
    """The first SIGINT or SIGTERM is a Ctrl-C; later ones are ignored, so the unwinding it starts (removing
    partial folders) is not cut short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _child(run: Callable, descriptor: Any, out: Path, options: Any, parent: int, conn: Connection) -> None:
    """Run one study, sending ``("line", text)`` for each progress line, then ``("done", (line, totals, error))``:
    error is None, ("input", message), ("interrupted", "") or ("crash", traceback)."""
    from orgbench.commands.progress import Stages, Totals
    from orgbench.core.storage import os_problem

    _die_with_parent(parent)
    signal.signal(signal.SIGINT, _interrupt_once)
    signal.signal(signal.SIGTERM, _interrupt_once)
    totals = Totals()
    options = dataclasses.replace(options, extra={**options.extra, "totals": totals})
    result: tuple[str, tuple[int, int, int, int], tuple[str, str] | None]
    def echo(text: str) -> None:
        conn.send(("line", text))

    try:
        with Stages(echo):
            line = run(descriptor, out, options, echo)
        result = (line, (totals.requests, totals.retries, totals.usage.prompt_tokens,
                         totals.usage.completion_tokens), None)
    except InputError as exc:
        result = ("", (0, 0, 0, 0), ("input", exc.message))
    except OSError as exc:
        where, doing = (exc.filename, "cannot be used") if exc.filename else ("output", "cannot be written")
        result = ("", (0, 0, 0, 0), ("input", os_problem(where, exc, doing).message))
    except KeyboardInterrupt:
        result = ("", (0, 0, 0, 0), ("interrupted", ""))
        signal.signal(signal.SIGINT, signal.SIG_IGN)         # unwound: a late signal must not cut the reply short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except BaseException:                        # a bug: its traceback, shown by the parent
        result = ("", (0, 0, 0, 0), ("crash", traceback.format_exc()))
    try:
        conn.send(("done", result))
        conn.close()
    except OSError:                              # the parent stopped listening (it is stopping every child)
        pass


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While studies run, SIGTERM to this process stops them as Ctrl-C does (then the previous handler again)."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:                           # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(children: Iterable[tuple[Any, Connection]], roots: Iterable[Path]) -> None:
    """Stop the children still running: each asked as Ctrl-C asks (SIGTERM, which they take as one) and given
    ``STOP_GRACE`` seconds to unwind, their messages drained meanwhile (a full pipe would block them), then killed;
    the partial folders a stopped child left under ``roots`` are removed. Signals wait until this is done."""
    children = list(children)
    held = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        for signum in held:
            signal.signal(signum, signal.SIG_IGN)
    except ValueError:                           # not the main thread
        held = {}
    try:
        for process, _ in children:
            process.terminate()
        deadline = time.monotonic() + STOP_GRACE
        for process, reader in children:
            while process.is_alive() and time.monotonic() < deadline:
                try:
                    while reader.poll():
                        reader.recv()
                except (EOFError, OSError):
                    pass
                process.join(0.05)
            if process.is_alive():
                process.kill()
            process.join()
        _remove_partials(roots, {process.pid for process, _ in children})
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)


def _remove_partials(roots: Iterable[Path], pids: set[int | None]) -> None:
    """Remove the ``.NAME.PID.*.partial`` folders (``orgbench.core.storage.staged_directory``'s) of ``pids`` under
    ``roots``: what a child killed before it could unwind left behind."""
    pattern = re.compile(r"\..+\.(\d+)\.[^.]+\.partial")
    for root in roots:
        for current, dirs, _ in os.walk(root):
            for name in list(dirs):
                found = pattern.fullmatch(name)
                if found and int(found.group(1)) in pids:
                    shutil.rmtree(Path(current) / name, ignore_errors=True)
                    dirs.remove(name)


def run_in_parallel(run: Callable, chosen: list, out: Path, options: Any, jobs: int,
                    echo: Callable[[str], None]) -> list[str]:
    """Run the ``chosen`` studies with ``run(descriptor, out, options, echo) -> line`` (``reproduce.run_study``), at
    most ``jobs`` at once; their lines in the studies' order."""
    from judges.backends.base import Usage

    context = multiprocessing.get_context("fork")        # the parent's imports and settings, no re-import
    todo = list(enumerate(chosen))
    running: dict[int, tuple[Any, Connection]] = {}
    lines: dict[int, str] = {}
    totals = options.extra.get("totals")
    with _terminate_as_interrupt():
        try:
            while todo or running:
                while todo and len(running) < jobs:
                    index, descriptor = todo.pop(0)
                    reader, writer = context.Pipe(duplex=False)
                    process = context.Process(target=_child, args=(run, descriptor, out, options, os.getpid(), writer),
                                              name=f"orgbench-{descriptor.name}")
                    process.start()
                    writer.close()
                    running[index] = (process, reader)
                ready = wait([reader for _, reader in running.values()])
                for index in [i for i, (_, reader) in running.items() if reader in ready]:
                    process, reader = running[index]
                    try:
                        kind, message = reader.recv()
                    except EOFError:                 # the child died without a word (killed, out of memory)
                        process.join()
                        del running[index]
                        raise RuntimeError(f"study {chosen[index].name}: its process ended with exit code "
                                           f"{process.exitcode} before finishing") from None
                    if kind == "line":
                        echo(message)
                        continue
                    del running[index]
                    process.join()
                    line, spent, error = message
                    if error is not None:
                        kind, message = error
                        if kind == "input":
                            raise InputError(message)
                        if kind == "interrupted":
                            raise KeyboardInterrupt
                        raise RuntimeError(f"study {chosen[index].name} failed in its process:\n{message}")
                    lines[index] = line
                    if totals is not None:
                        totals.requests += spent[0]
                        totals.retries += spent[1]
                        totals.usage += Usage(spent[2], spent[3])
        finally:                                 # a failure or an interrupt: stop the studies still running
            _stop(running.values(), (out, Path(getattr(options, "work_dir", out))))
    return [lines[index] for index in sorted(lines)]
