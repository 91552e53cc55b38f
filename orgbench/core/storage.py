"""Files on disk: atomic writes, canonical JSON and JSONL, manifests (JSONL is read by ``orgbench.core.jsonl``).

Every stage writes through these functions so that a file is either complete
or absent, JSON is byte-identical for identical data, and a directory's
``MANIFEST.json`` lists each file with its exact-byte SHA-256.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

from orgbench.core.errors import FormatError, InputError

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
    """Canonical indented JSON for small human-read files, ending in a newline."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of exact bytes."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's exact bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write bytes to ``path`` via a temp file in the same folder and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write UTF-8 text atomically (no newline translation)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json(path: Path, obj: Any) -> None:
    """Write canonical indented JSON atomically."""
    write_text_atomic(path, dumps_pretty(obj))


def write_jsonl(path: Path, rows: Iterable[Any]) -> int:
    """Write rows as canonical JSONL atomically; returns the row count."""
    lines = [dumps(row) for row in rows]
    write_text_atomic(path, "".join(line + "\n" for line in lines))
    return len(lines)


def open_binary(path: Path, on_directory: str = "is a directory") -> BinaryIO:
    """Open a file for reading bytes, or InputError naming it (missing, a directory: ``on_directory``, unreadable)."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: {on_directory}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None


def read_bytes(path: Path, kind: str = "file") -> bytes:
    """A file's bytes, or InputError naming the file (missing, a directory, unreadable)."""
    path = Path(path)
    with open_binary(path, f"is a directory, not a {kind}") as handle:
        return handle.read()


def read_text(path: Path, kind: str = "file") -> str:
    """A UTF-8 text file's content, or InputError naming the file (missing, a directory, unreadable, not UTF-8)."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 ({exc.reason})") from None


def read_json(path: Path) -> Any:
    """Read a JSON file, raising InputError naming the file on any problem."""
    path = Path(path)
    text = read_text(path, "JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"invalid JSON ({exc.msg})", line=exc.lineno) from None


def write_manifest(directory: Path, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Hash every file under ``directory`` (except the manifest) into MANIFEST.json."""
    directory = Path(directory)
    files = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory).as_posix()
        if rel == MANIFEST or path.name.startswith("."):
            continue
        files[rel] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
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
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
