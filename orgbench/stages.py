"""Reusable pipeline stages: a directory built once per set of inputs, atomically.

A stage's directory carries ``MANIFEST.json`` with the fingerprint of the
inputs that built it. The stage is reused when that fingerprint matches and
every file still matches its hash; otherwise it is rebuilt under a temporary
name and renamed into place, so an interrupted stage never looks finished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from orgbench.core.errors import InputError
from orgbench.core.storage import MANIFEST, dumps, read_json, sha256_bytes, staged_directory, verify_manifest, write_manifest


def code_fingerprint(*relative: str, root: Path | None = None) -> str:
    """SHA-256 over the source files (py, j2, yaml, toml) under these paths of the source tree (or ``root``).

    A stage puts it in its inputs so that it rebuilds when the code that builds it changes.
    """
    import hashlib

    root = Path(__file__).resolve().parents[1] if root is None else Path(root)
    digest = hashlib.sha256()
    for rel in relative:
        base = root / rel
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*")
                                                     if p.suffix in (".py", ".j2", ".yaml", ".toml"))
        for path in paths:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint(inputs: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a stage's inputs."""
    return sha256_bytes(dumps(inputs).encode("utf-8"))


def is_current(directory: Path, inputs: Mapping[str, Any]) -> bool:
    """True if ``directory`` was built from exactly these inputs and is intact."""
    manifest_path = Path(directory) / MANIFEST
    if not manifest_path.is_file():
        return False
    try:
        manifest = read_json(manifest_path)
    except Exception:
        return False
    if not isinstance(manifest, dict) or manifest.get("stage_inputs") != fingerprint(inputs):
        return False
    try:
        return not verify_manifest(Path(directory))
    except InputError:  # a damaged manifest: rebuild the stage
        return False


def run_stage(directory: Path, inputs: Mapping[str, Any], build: Callable[[Path], None], *, fresh: bool = False) -> bool:
    """Build ``directory`` with ``build(tmp_dir)`` unless it is current; return True if reused.

    Either way the running command's stage reporter hears of it at once (orgbench.progress).
    """
    import time

    from orgbench.progress import stage_done

    directory = Path(directory)
    started = time.perf_counter()
    if not fresh and is_current(directory, inputs):
        stage_done(str(directory), time.perf_counter() - started, True)
        return True
    with staged_directory(directory) as tmp:
        build(tmp)
        write_manifest(tmp, extra={"stage_inputs": fingerprint(inputs)})
    stage_done(str(directory), time.perf_counter() - started, False)
    return False
