"""The one output-directory rule every command follows: never replace work the user did not ask to replace.

``holds(path)`` names what a directory holds (a world, a suite, a judge run,
an agent run, scores, a table set, results). ``guard`` refuses an ``--out``
that holds something else, or the same kind made from other inputs (a run
whose bound header differs; resuming or redoing the same one is allowed),
unless ``--overwrite`` was given. ``bind`` records the inputs of a finished
table or score folder in ``.orgbench.json`` so that a later command can tell
"the same" from "another". ``removed_on_failure`` takes away a folder the
command created when it fails, so nothing half-made is left looking finished.
``one_writer`` holds an ``fcntl.flock`` on ``.NAME.lock`` beside each folder a
command writes (the CLI takes it for --out, --work and --work-dir of every
command), so a second writer is refused naming the first, and a killed
holder's lock goes with it.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from orgbench.core.errors import InputError

BINDING = ".orgbench.json"

#: kind -> the sets of files that mark it, checked in order; the first kind one of whose sets is all present
#: names the folder.
KINDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "results (orgbench reproduce)": (("README.md", "index.html"), ("cargo", "drilldown.jsonl")),
    "an orgbench export": (("EXPORT.json",),),
    "a world": (("world.json", "events.jsonl"),),
    "a CARGO suite": (("items.jsonl", "truth.jsonl"),),
    "a GroundEval suite": (("contracts.jsonl",),),
    "a trajectory suite": (("trajectories.jsonl",),),
    "a CARGO judge run": (("judgments.jsonl",), ("run.json", "cache.sqlite")),
    "a CARGO dry run": (("requests.jsonl",),),
    "a GroundEval agent run": (("answers.jsonl", "run.json"),),
    "GroundEval scores": (("summary.json", "questions.jsonl"),),
    "CARGO tables": (("table1_headline.csv",),),
    "GroundEval tables": (("table_agents.csv",),),
    "assurance tables": (("faults.csv",), ("contrast.json",)),
    "an assurance workspace": (("records",),),
    "a comparison": (("compare.json", "compare.md"),),
}


def holds(path: Path) -> str | None:
    """What ``path`` holds in the user's terms, "other files" for anything unknown, None if empty or absent."""
    path = Path(path)
    if not path.is_dir() or not any(p for p in path.iterdir() if not p.name.startswith(".")):
        return None          # hidden entries: the binding, and folders a killed command left half-built
    for kind, marker_sets in KINDS.items():
        if any(all((path / name).exists() for name in markers) for markers in marker_sets):
            return kind
    return "other files"


def _binding(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads((Path(path) / BINDING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _agent_run_header(path: Path) -> dict[str, Any] | None:
    try:
        run = json.loads((Path(path) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(run, dict):
        return None
    return {k: run.get(k) for k in ("suite_contracts_sha256", "agent", "mode", "context_budget", "base_url")}


def _first_difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            return _first_difference(a, b)
        if isinstance(a, str) and isinstance(b, str) and len(a) == len(b) == 64:   # file digests
            return f"{key} differs"
        if isinstance(a, list) or isinstance(b, list):
            return f"{key} differ"
        return f"{key} is {json.dumps(a)} there, {json.dumps(b)} now"
    return None


def check_parents(path: Path, option: str = "--out") -> None:
    """Refuse an output path that lies under a file (InputError naming ``option``)."""
    path = Path(path)
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{option} {path}: {parent} is a file, not a directory")
            break


def check_path(path: Path, option: str = "--out") -> None:
    """Refuse an output path that is a file or lies under one (InputError naming ``option``)."""
    path = Path(path)
    check_parents(path, option)
    if path.exists() and not path.is_dir():
        raise InputError(f"{option} {path}: exists and is not a directory; refusing to replace it")


def guard(path: Path, kind: str, inputs: Mapping[str, Any] | None = None, *, overwrite: bool = False,
          option: str = "--out") -> None:
    """Refuse (InputError, exit 2) an output folder holding another kind of output, or the same kind from other inputs.

    ``inputs`` is what binds this output (for an agent run: the header its
    run.json records; for tables and scores: the runs and options read).
    Without ``inputs`` only a folder of the same kind is accepted as is.
    With ``overwrite`` anything but a file or a path under a file is accepted.
    """
    path = Path(path)
    check_path(path, option)
    found = holds(path)
    if found is None or overwrite:
        return
    if found != kind:
        raise InputError(f"{option} {path}: holds {found}, not {kind}; choose another directory "
                         f"(or add --overwrite to replace it)")
    if inputs is None:
        return
    old = _agent_run_header(path) if kind == "a GroundEval agent run" else (_binding(path) or {}).get("inputs")
    if old is None:
        raise InputError(f"{option} {path}: holds {found} made by an earlier version (no record of its inputs); "
                         f"choose another directory (or add --overwrite to replace it)")
    difference = _first_difference(old, dict(inputs))
    if difference:
        raise InputError(f"{option} {path}: holds {kind} made from other inputs ({difference}); choose another "
                         f"directory (or add --overwrite to replace it)")


def bind(path: Path, command: str, inputs: Mapping[str, Any]) -> None:
    """Record in ``path/.orgbench.json`` which command and inputs made this folder."""
    from orgbench.core.storage import dumps_pretty, write_text_atomic

    write_text_atomic(Path(path) / BINDING, dumps_pretty({"command": command, "inputs": dict(inputs)}))


@contextlib.contextmanager
def bound(path: Path, kind: str, command: str, inputs: Mapping[str, Any], *, overwrite: bool = False) -> Iterator[None]:
    """``guard`` the folder, let the block write it, then ``bind`` it to these inputs."""
    guard(path, kind, inputs, overwrite=overwrite)
    yield
    bind(path, command, inputs)


def digest_of(value: Any) -> str:
    """SHA-256 of a JSON-able value (e.g. a config as a dict), to bind an output to it."""
    import hashlib

    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def file_digest(path: Path | None) -> str | None:
    """SHA-256 of a file's bytes, or None when there is none."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path is not None and Path(path).is_file() else None


@contextlib.contextmanager
def removed_on_failure(path: Path) -> Iterator[None]:
    """Remove ``path`` if it did not exist before and the block fails (an interrupt keeps it: it can resume)."""
    path = Path(path)
    existed = path.exists()
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException:
        if not existed and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        raise


def overwrite_option(command):
    """The ``--overwrite`` flag shared by every command that writes an output folder."""
    import click

    return click.option("--overwrite", is_flag=True,
                        help="Replace what --out holds even if it is another run, suite or table set.")(command)


#: The options naming a directory a command writes; each is held by one process at a time.
WRITTEN_OPTIONS = ("out", "work", "work_dir")
#: Commands whose --out many processes share by design (each serve-mcp locks every submission it appends).
SHARED_OUT = frozenset({"serve-mcp"})
_held: dict[str, int] = {}


def lock_path(path: Path) -> Path:
    """The lock file of an output path: beside it, so that replacing the folder keeps the lock."""
    path = Path(path).absolute()
    return path.parent / f".{path.name}.lock"


def _holder(lock: Path) -> str:
    try:
        info = json.loads(lock.read_text(encoding="utf-8"))
        return f"pid {int(info['pid'])} ({info['command']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _acquire(path: Path, command: str, option: str) -> int:
    """Lock ``path`` for this process (fcntl.flock: the kernel releases it when the holder dies); the descriptor."""
    import errno
    import fcntl
    import os

    lock = lock_path(path)
    while True:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise InputError(f"{option} {path}: cannot create its lock {lock} ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise InputError(f"{option} {path}: in use by {_holder(lock)}; wait for it to finish or choose "
                                 f"another directory") from None
            raise InputError(f"{option} {path}: cannot lock {lock} ({exc.strerror})") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino     # not unlinked by a holder finishing meanwhile
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "command": command}).encode("utf-8"))
        return fd


@contextlib.contextmanager
def one_writer(paths: list[tuple[str, Path]], command: str) -> Iterator[None]:
    """Hold the lock of each (option, path) while the block runs; a second writer gets InputError naming the first.

    Re-entrant within a process (a command that runs another in-process on the same folder).
    """
    import os

    taken: list[tuple[str, int]] = []
    try:
        for option, path in sorted(paths, key=lambda p: str(lock_path(p[1]))):
            key = str(lock_path(path))
            if key in _held:
                continue
            check_parents(path, option)
            _held[key] = _acquire(path, command, option)
            taken.append((key, _held[key]))
        yield
    finally:
        for key, fd in reversed(taken):
            with contextlib.suppress(OSError):
                os.unlink(key)            # unlink first, then unlock: a waiter re-checks the inode
            os.close(fd)
            _held.pop(key, None)


def check_apart(written: Sequence[tuple[str, Path]], inputs: Sequence[tuple[str, Path]]) -> None:
    """Refuse an output that is, or lies inside, an input folder sealed by its MANIFEST.json (a world, suite, run or
    export): what the command writes there would break the input, and every later command would refuse it."""
    for in_option, folder in inputs:
        if not (folder / "MANIFEST.json").is_file():
            continue
        root = folder.resolve()
        for out_option, out in written:
            target = out.resolve()
            if target == root or root in target.parents:
                raise InputError(f"{out_option} {out}: inside {in_option} {folder}, which its MANIFEST.json seals; "
                                 "writing there would break it, choose a directory outside it")


def with_one_writer(command):
    """Wrap a click command's callback: refuse inputs that are FIFOs, devices or symlink loops, then hold the lock of
    every directory it writes (WRITTEN_OPTIONS) while it runs."""
    import functools

    import click

    callback = command.callback
    if callback is None or command.name in SHARED_OUT:
        return command

    @functools.wraps(callback)
    def locked(*args, **kwargs):
        from orgbench.core.storage import check_input_path

        ctx = click.get_current_context()
        options = {p.name: (p.opts[0] if p.opts else p.name) for p in command.params}
        inputs = []
        for param in command.params:              # inputs: no FIFO, device or symlink loop (they block or fail late)
            if param.name in WRITTEN_OPTIONS or not isinstance(param.type, click.Path):
                continue
            given = ctx.params.get(param.name or "")
            for value in (given if isinstance(given, (tuple, list)) else (given,)):
                if value is not None and str(value) != "-":
                    name = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
                    check_input_path(Path(value), name)
                    inputs.append((name, Path(value)))
        paths = [(options.get(name, name), Path(ctx.params[name])) for name in WRITTEN_OPTIONS
                 if ctx.params.get(name) is not None]
        check_apart(paths, inputs)
        with one_writer(paths, " ".join(["orgbench", *ctx.command_path.split()[1:]])):
            return callback(*args, **kwargs)

    command.callback = locked
    return command
