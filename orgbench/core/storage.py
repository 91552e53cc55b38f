"""Files on disk: atomic writes, canonical JSON and JSONL, manifests (JSONL is read by ``orgbench.core.jsonl``).

Every stage writes through these functions so that a file is either complete
or absent, JSON is byte-identical for identical data, and a directory's
``MANIFEST.json`` lists each file with its exact-byte SHA-256.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import stat
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Mapping

from orgbench.core.errors import FormatError, InputError
from orgbench.core.pretty import indented

MANIFEST = "MANIFEST.json"


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Temp files and folders are created private (0600/0700); finished ones get the usual modes.
_FILE_MODE = 0o666 & ~_current_umask()
_DIR_MODE = 0o777 & ~_current_umask()


def dumps(obj: Any) -> str:
    """Canonical one-line JSON: sorted keys, no ASCII escaping, compact separators."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dumps_pretty(obj: Any) -> str:
    """Canonical indented JSON for small human-read files, ending in a newline (``json.dumps(obj, sort_keys=True,
    ensure_ascii=False, indent=2)``: the text ``indented`` writes)."""
    return indented(obj) + "\n"


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of exact bytes."""
    import hashlib      # here, not at the top: OpenSSL's load is a twentieth of `orgbench list`, which hashes nothing

    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's exact bytes."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write bytes to ``path`` via a temp file in the same folder and a rename (an OS error: InputError naming it)."""
    _write_atomic(path, "wb", lambda handle: handle.write(data))


def write_text_atomic(path: Path, text: str) -> None:
    """Write UTF-8 text atomically (no newline translation)."""
    write_bytes_atomic(path, text.encode("utf-8"))


#: Pieces ``write_lines_atomic`` joins into one write: one write per line costs a fifth more than the joining.
_PIECES_PER_WRITE = 256


def write_lines_atomic(path: Path, lines: Iterable[str]) -> str:
    """Write UTF-8 text given in pieces (lines, say) atomically, as ``write_text_atomic`` writes them joined,
    without holding the whole text (and its bytes) in memory at once; returns the hex SHA-256 of the bytes
    written (what ``write_manifest`` would read back, for its ``hashed``).

    Each piece is encoded alone and the bytes joined: joining the texts first would widen every ASCII piece
    of a chunk to the widest character of any (one dash in a chunk of lines), and encoding that wide text
    costs more than encoding the pieces (the same bytes: UTF-8 encodes each character alone)."""
    import hashlib

    digest = hashlib.sha256()

    def write(handle: Any) -> None:
        pieces = iter(lines)
        encode = str.encode
        while chunk := list(islice(pieces, _PIECES_PER_WRITE)):
            data = b"".join(map(encode, chunk))
            handle.write(data)
            digest.update(data)

    _write_atomic(path, "wb", write)
    return digest.hexdigest()


def _write_atomic(path: Path, mode: str, write: Callable[[Any], Any]) -> None:
    """``write(handle)`` into a temp file beside ``path`` (opened in ``mode``: ``wb``, or ``w`` for UTF-8 text with
    no newline translation), synced to disk, then renamed over ``path``; nothing is left behind on an error."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile   # here, not at the top: start-up (``orgbench list``) imports this module and writes nothing

        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with (os.fdopen(fd, "wb") if mode == "wb" else os.fdopen(fd, "w", encoding="utf-8", newline="")) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise os_problem(path, exc, "cannot be written", exact=True) from None
    except BaseException:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json(path: Path, obj: Any) -> None:
    """Write canonical indented JSON atomically."""
    write_text_atomic(path, dumps_pretty(obj))


def write_jsonl(path: Path, rows: Iterable[Any]) -> int:
    """Write rows as canonical JSONL atomically; returns the row count."""
    lines = [dumps(row) for row in rows]
    write_text_atomic(path, "".join(line + "\n" for line in lines))
    return len(lines)


#: The largest file read whole (``read_bytes`` and what is built on it); streamed files are read a line at a time.
MAX_FILE_BYTES = 1 << 30
#: The deepest nesting of arrays and objects accepted in a JSON or TOML file.
MAX_DEPTH = 100


def not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file or a directory (None when it is one of those)."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "not a regular file"


def os_problem(path: Path | str, exc: OSError, doing: str = "cannot be read", *, exact: bool = False) -> InputError:
    """One line for an OS error on ``path``: missing, a symlink loop, a read-only or full disk, no permission.

    The line names the file the error names (a parent folder, say) unless ``exact``: then ``path``.
    """
    import errno

    reasons = {errno.ENOENT: "file not found", errno.ELOOP: "a symbolic link loop",
               errno.ENOSPC: f"{doing}: no space left on the device",
               errno.EROFS: f"{doing}: read-only file system", errno.EACCES: f"{doing}: permission denied",
               errno.EPERM: f"{doing}: operation not permitted", errno.EISDIR: "is a directory"}
    where = exc.filename if exc.filename is not None and not exact else path
    return InputError(f"{where}: {reasons.get(exc.errno or 0) or f'{doing} ({exc.strerror or exc})'}")


@contextmanager
def written_as(path: Path) -> Iterator[None]:
    """Turn an OSError raised while writing ``path`` into one line naming it: a full disk's failed write or close
    names no file of its own (the CLI could only say 'output')."""
    try:
        yield
    except OSError as exc:
        raise os_problem(path, exc, "cannot be written", exact=True) from None


def check_appendable(path: Path) -> None:
    """Refuse (InputError) ``path`` if it exists and is not a regular file: opening a FIFO to append to it blocks
    until something reads it, and a folder, device or symbolic link loop fails deep inside a run. Absent passes."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise os_problem(path, exc, exact=True) from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: {'a directory' if stat.S_ISDIR(mode) else not_regular(mode)}, not a regular file")


def check_input_path(path: Path, option: str, *, depth: int = 2) -> None:
    """Refuse (InputError) an input that is, or a folder that holds within ``depth`` levels, a FIFO, a device, a
    socket or a symbolic link loop: reading one would block or fail deep inside a command. Absent paths pass."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{option} {os_problem(path, exc).message}") from None
        return               # missing, under a file, unreadable: the command's own checks name it
    kind = not_regular(mode)
    if kind:
        raise InputError(f"{option} {path}: {kind}, not a regular file or a folder")
    if not stat.S_ISDIR(mode) or depth == 0:
        return
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        raise InputError(f"{option} {os_problem(path, exc).message}") from None
    for entry in entries:
        try:
            inner = entry.stat().st_mode
        except FileNotFoundError:
            if entry.is_symlink():
                raise InputError(f"{option} {path}: {entry.path} is a broken symbolic link") from None
            continue
        except OSError as exc:
            raise InputError(f"{option} {path}: {os_problem(entry.path, exc).message}") from None
        kind = not_regular(inner)
        if kind:
            raise InputError(f"{option} {path}: {entry.path} is {kind}, not a regular file")
        if stat.S_ISDIR(inner) and not entry.is_symlink():
            check_input_path(Path(entry.path), option, depth=depth - 1)


def open_binary(path: Path, on_directory: str = "is a directory") -> BinaryIO:
    """Open a regular file for reading bytes, or InputError naming it (missing, a directory, a FIFO, unreadable).

    Opened without blocking, so a FIFO or a device is refused rather than waited on.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except IsADirectoryError:
        raise InputError(f"{path}: {on_directory}") from None
    except OSError as exc:
        raise os_problem(path, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"{path}: {on_directory}")
        if not stat.S_ISREG(mode):
            raise InputError(f"{path}: {not_regular(mode)}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path, kind: str = "file") -> bytes:
    """A regular file's bytes (at most MAX_FILE_BYTES), or InputError naming the file (missing, unreadable, …)."""
    path = Path(path)
    with open_binary(path, f"is a directory, not a {kind}") as handle:
        try:
            data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise os_problem(path, exc) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB; not read")
    return data


def read_text(path: Path, kind: str = "file") -> str:
    """A UTF-8 text file's content, or InputError naming the file (missing, a directory, unreadable, not UTF-8)."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 ({exc.reason})") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range for a number")
    return value


def depth(value: Any) -> int:
    """How deeply lists and dicts nest in ``value`` (0 for a scalar), without recursion."""
    if not isinstance(value, (list, dict)):
        return 0
    deepest, stack = 1, [(value, 1)]
    while stack:                                       # only containers are pushed: scalars add no depth
        item, level = stack.pop()
        deepest = max(deepest, level)
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (list, dict)):
                stack.append((child, level + 1))
    return deepest


#: ``json.loads(text, parse_constant=_no_constant, parse_float=_finite)`` made once (``loads`` makes one per call).
_STRICT = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)
#: The scanner ``_STRICT`` reads with (an attribute it sets on itself): the value at an index, and where it ends.
_SCAN: Callable[[str, int], tuple[Any, int]] = vars(_STRICT)["scan_once"]
#: What JSON allows around a value (``json.decoder.WHITESPACE``).
_JSON_SPACE = " \t\n\r"


def _strict_decode(text: str) -> Any:
    """``_STRICT.decode(text)``: the value read by its scanner straight from the text's start when nothing but JSON
    whitespace follows it (``decode`` checks the same, around three Python calls); otherwise ``decode`` itself, for
    a value after leading whitespace or the error it names."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return _STRICT.decode(text)
    if end == len(text) or not text[end:].strip(_JSON_SPACE):
        return value
    return _STRICT.decode(text)


def loads_json(text: str, pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """Strict JSON: NaN, Infinity and numbers out of float range refused, nesting bounded; ValueError says why
    (``pairs_hook``: json's ``object_pairs_hook``, which may refuse an object by raising)."""
    try:
        if pairs_hook is None and text.__class__ is str and not text.startswith("\ufeff"):   # what json.loads hands
            value = _strict_decode(text)                                                     # its decoder
        else:
            value = json.loads(text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if text.count("[") + text.count("{") > MAX_DEPTH and depth(value) > MAX_DEPTH:   # depth <= brackets opened
        raise ValueError("nested too deeply")
    return value


def read_json(path: Path) -> Any:
    """Read a JSON file strictly (``loads_json``), raising InputError naming the file on any problem."""
    path = Path(path)
    text = read_text(path, "JSON file")
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"invalid JSON ({exc.msg})", line=exc.lineno) from None
    except ValueError as exc:            # a non-finite number, too deep, an integer with too many digits
        raise FormatError(path, f"invalid JSON ({exc})") from None


def loads_toml(text: str, source: str | Path) -> dict[str, Any]:
    """Strict TOML: inf and nan refused, integers bounded (4,300 digits) and nesting bounded; InputError naming source."""
    import tomllib

    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc), re.DOTALL)   # tomllib's own wording
        if at is None:
            raise InputError(f"{source}: invalid TOML ({exc})") from None
        raise FormatError(source, f"invalid TOML ({at[1]} at column {at[3]})", line=int(at[2])) from None
    except RecursionError:
        raise InputError(f"{source}: invalid TOML (nested too deeply)") from None
    except ValueError as exc:            # e.g. an integer with more digits than Python converts
        raise InputError(f"{source}: invalid TOML ({exc})") from None
    if depth(value) > MAX_DEPTH:
        raise InputError(f"{source}: invalid TOML (nested too deeply)")
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise InputError(f"{source}: field {where}: {item} is not a finite number")
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return value


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file strictly (``loads_toml``), raising InputError naming the file on any problem."""
    return loads_toml(read_text(path, "TOML file"), path)


def write_manifest(directory: Path, extra: dict[str, Any] | None = None,
                   hashed: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Hash every file under ``directory`` (except the manifest) into MANIFEST.json; ``hashed`` gives the hex
    SHA-256 of files (by path relative to ``directory``) the caller has just written (``write_lines_atomic``),
    which are not read back."""
    directory = Path(directory)
    files = {}
    known = hashed or {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory).as_posix()
        if rel == MANIFEST or path.name.startswith("."):
            continue
        digest = known.get(rel)
        files[rel] = {"sha256": sha256_file(path) if digest is None else digest, "bytes": path.stat().st_size}
    manifest = {"files": files}
    if extra:
        manifest.update(extra)
    write_json(directory / MANIFEST, manifest)
    return manifest


def verify_manifest(directory: Path) -> list[str]:
    """Return one problem line per file that is missing, extra or changed (empty if intact)."""
    directory = Path(directory)
    manifest = read_json(directory / MANIFEST)
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(listed, dict) or not all(isinstance(e, dict) for e in listed.values()):
        raise FormatError(directory / MANIFEST, "expected an object of {path: {sha256, bytes}}", field="files")
    problems = []
    for rel, entry in sorted(listed.items()):
        path = directory / rel
        if not path.is_file():
            problems.append(f"{path}: listed in {MANIFEST} but missing")
        elif sha256_file(path) != entry.get("sha256"):
            problems.append(f"{path}: content differs from {MANIFEST} (sha256 mismatch)")
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory).as_posix()
        if rel != MANIFEST and not path.name.startswith(".") and rel not in listed:
            problems.append(f"{path}: not listed in {MANIFEST}")
    return problems



def manifest_digests(directory: Path) -> dict[str, str]:
    """Each listed file's SHA-256 as ``directory``'s manifest gives it (the files' own once ``verify_manifest`` passed)."""
    listed = read_json(Path(directory) / MANIFEST).get("files", {})
    return {rel: entry["sha256"] for rel, entry in listed.items() if isinstance(entry.get("sha256"), str)}


def verify_if_sealed(directory: Path, then: str = "") -> None:
    """Refuse ``directory`` if it holds a manifest its files differ from (the first problem, then ``then``); a
    folder without a manifest is read as it is."""
    directory = Path(directory)
    problems = verify_manifest(directory) if (directory / MANIFEST).is_file() else []
    if problems:
        raise InputError(problems[0] + then)


def require_sealed(directory: Path, what: str) -> None:
    """Refuse ``directory`` unless its manifest is present (else "missing; not ``what``") and every file matches it."""
    directory = Path(directory)
    if not (directory / MANIFEST).is_file():
        raise InputError(f"{directory / MANIFEST}: missing; not {what}")
    problems = verify_manifest(directory)
    if problems:
        raise InputError(problems[0])

def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_abandoned(final: Path) -> None:
    """Remove temporary siblings of ``final`` left by a process that was killed."""
    for leftover in final.parent.glob(f".{final.name}.*.partial"):
        parts = leftover.name[len(final.name) + 2:].split(".")
        if parts and parts[0].isdigit() and not _pid_alive(int(parts[0])):
            shutil.rmtree(leftover, ignore_errors=True)


@contextmanager
def staged_directory(final: Path, *, overwrite: bool = True) -> Iterator[Path]:
    """Build a directory under a temporary name and rename it into place on success.

    On any error the temporary directory is removed, so no half-written output
    is left behind looking valid.
    """
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(final)
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.{os.getpid()}.", suffix=".partial", dir=final.parent))
    os.chmod(tmp, _DIR_MODE)
    try:
        yield tmp
        if final.exists():
            if not overwrite:
                raise InputError(f"{final}: already exists")
            backup = final.with_name(f".{final.name}.old")
            if backup.exists():
                shutil.rmtree(backup)
            os.replace(final, backup)
            os.replace(tmp, final)
            shutil.rmtree(backup)
        else:
            os.replace(tmp, final)
    except InputError as exc:           # a file that could not be written: named as it would be in ``final``
        shutil.rmtree(tmp, ignore_errors=True)
        if str(tmp) not in exc.message:
            raise
        raise InputError(exc.message.replace(str(tmp), str(final))) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
