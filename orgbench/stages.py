"""Reusable pipeline stages: a directory built once per set of inputs, atomically.

A stage's directory carries ``MANIFEST.json`` with the fingerprint of the
inputs that built it. The stage is reused when that fingerprint matches and
every file still matches its hash; otherwise it is rebuilt under a temporary
name and renamed into place, so an interrupted stage never looks finished.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping

from orgbench.core.errors import InputError
from orgbench.core.storage import MANIFEST, dumps, read_json, sha256_bytes, staged_directory, verify_manifest, write_manifest


#: The packages whose modules a stage's import graph follows (anything else is a third-party dependency).
OUR_PACKAGES = ("orgbench", "simulator", "benchmark_builders", "judges")
#: Files beside the modules that the code reads at run time (templates, prompts, phrase tables, default configs).
DATA_SUFFIXES = (".j2", ".yaml", ".toml", ".json")
_SPEC = re.compile(r"^(%s)(\.[A-Za-z_][A-Za-z0-9_]*)*(:[A-Za-z_][A-Za-z0-9_.]*|\.\*)?$" % "|".join(OUR_PACKAGES))


def _module_file(name: str, root: Path) -> Path | None:
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported_names(path: Path, package: str) -> set[str]:
    """Every module of ours that the file names: imports at any depth (local ones too) and "module:attr" strings.

    A ``"package.*"`` string (a registry that finds its modules at run time) names every module of that package.
    """
    names, everything_in = _names_in_source(path.read_bytes(), str(path), package)
    found = set(names)
    for wanted in everything_in:                                 # every module of a package
        folder = path.parents[package.count(".") + 1].joinpath(*wanted.split("."))
        found.update(f"{wanted}.{m.stem}" for m in folder.glob("*.py"))
    return {n for n in found if n.split(".")[0] in OUR_PACKAGES}


@functools.lru_cache(maxsize=None)
def _names_in_source(source: bytes, filename: str, package: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The module names a source text names, and the packages it names with ``"package.*"``.

    Parsed once per distinct text: every stage's fingerprint walks mostly the same files, and an edited file
    is a different text, so it is parsed again.
    """
    tree = ast.parse(source, filename=filename)
    names: set[str] = set()
    everything_in: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)   # ``from pkg import module``
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _SPEC.match(node.value):
            if node.value.endswith(".*"):
                everything_in.append(node.value[:-2])
            else:
                names.add(node.value.split(":")[0])              # a lazy "module:attr" table entry
    return frozenset(names), tuple(everything_in)


def import_closure(*modules: str, root: Path | None = None) -> list[Path]:
    """The source files a stage's entry modules run: every module of ours they import, transitively.

    Imports are read from the source (at any depth, so imports inside functions count, and so do
    ``"module:attr"`` strings of a lazy registry); each module brings its packages' ``__init__.py``
    and the data files (templates, prompts, configs) in its folder and the non-package folders below it.
    """
    root = Path(__file__).resolve().parents[1] if root is None else Path(root)
    seen: set[Path] = set()
    looked_up: set[str] = set()                          # each dotted name is resolved once
    todo = list(modules)
    while todo:
        parts = todo.pop().split(".")
        for depth in range(1, len(parts) + 1):           # the packages on the way, then the module itself
            name = ".".join(parts[:depth])
            if name in looked_up:
                continue
            looked_up.add(name)
            path = _module_file(name, root)
            if path is None or path in seen:
                continue
            seen.add(path)
            package = name if path.name == "__init__.py" else ".".join(parts[:depth - 1])
            todo.extend(_imported_names(path, package))
    files = set(seen)
    for folder in {path.parent for path in seen}:
        files.update(_data_files(folder))
    return sorted(files)


def _data_files(folder: Path) -> list[Path]:
    """Data files in ``folder`` and in its subfolders that are not packages of their own."""
    found = [p for p in folder.iterdir() if p.is_file() and p.suffix in DATA_SUFFIXES]
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not (p / "__init__.py").exists()):
        found.extend(_data_files(sub))
    return found


def module_fingerprint(*modules: str, alone: tuple[str, ...] = (), root: Path | None = None) -> str:
    """SHA-256 over the files ``import_closure`` finds for a stage's entry modules, plus the ``alone`` modules' own files.

    A stage puts it in its inputs so that it rebuilds when any code it runs changes, however deep the import.
    A module in ``alone`` counts as its one file only ("this file only"), not what it imports: e.g. a dispatcher
    that imports every builder lazily, whose change should not rebuild stages of every kind through its imports.
    """
    root = Path(__file__).resolve().parents[1] if root is None else Path(root)
    found = {name: _module_file(name, root) for name in modules + alone}
    missing = [name for name, path in found.items() if path is None]
    if missing:   # a moved module would otherwise key the stage on nothing
        raise ValueError(f"module_fingerprint: no module {missing[0]!r} under {root}")
    files = set(import_closure(*modules, root=root)) | {path for name, path in found.items()
                                                         if name in alone and path is not None}
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def stage_digest(directory: Path) -> str:
    """SHA-256 of a stage's ``MANIFEST.json``: the fingerprint of its inputs and the hash of every file it holds.

    A later stage keyed on it is rebuilt when an earlier stage's files change, not only when its inputs do.
    """
    return sha256_bytes((Path(directory) / MANIFEST).read_bytes())


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


#: Who hears of each finished stage: the running command's reporter (``None``: nobody).
_reporter: Callable[[str, float, bool], None] | None = None


@contextmanager
def reporting(callback: Callable[[str, float, bool], None]) -> Iterator[None]:
    """While in the block, ``callback(stage, seconds, reused)`` hears of every stage ``run_stage`` finishes."""
    global _reporter
    previous, _reporter = _reporter, callback
    try:
        yield
    finally:
        _reporter = previous


def stage_done(name: str, seconds: float, reused: bool) -> None:
    """Tell the running command's reporter (if any) that a stage finished."""
    if _reporter is not None:
        _reporter(name, seconds, reused)


def run_stage(directory: Path, inputs: Mapping[str, Any], build: Callable[[Path], None], *, fresh: bool = False) -> bool:
    """Build ``directory`` with ``build(tmp_dir)`` unless it is current; return True if reused.

    Either way the running command's stage reporter (``reporting``) hears of it at once.
    """
    import time

    directory = Path(directory)
    started = time.perf_counter()
    with stage_lock(directory):
        if not fresh and is_current(directory, inputs):
            stage_done(str(directory), time.perf_counter() - started, True)
            return True
        with staged_directory(directory) as tmp:
            build(tmp)
            write_manifest(tmp, extra={"stage_inputs": fingerprint(inputs)})
    stage_done(str(directory), time.perf_counter() - started, False)
    return False


@contextmanager
def stage_lock(directory: Path) -> Iterator[None]:
    """Hold the stage's lock (``.NAME.stage.lock`` beside it, an exclusive ``flock``): of two processes that would
    build the same stage, the second waits and then finds it current. Nothing where ``fcntl`` is missing. Not
    ``outdir``'s ``.NAME.lock``: a command holding its --out folder may build a stage there, and a second ``flock``
    by the same process on another descriptor of that file would wait for itself."""
    try:
        import fcntl
    except ImportError:                                  # not POSIX: one process at a time is the user's to keep
        yield
        return
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.stage.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def published_stage(directory: Path, inputs: Mapping[str, Any], build: Callable[[Path], None], out: Path, *,
                    fresh: bool = False) -> bool:
    """``run_stage`` for files a study publishes: built into ``directory`` unless current, then copied into ``out``.

    The files copied are those the stage's manifest lists, checked against it just before, so a cached study
    publishes the bytes a fresh one does. Return True if the stage was reused.
    """
    import shutil

    reused = run_stage(directory, inputs, build, fresh=fresh)
    directory, out = Path(directory), Path(out)
    for name in sorted(read_json(directory / MANIFEST)["files"]):      # hidden files are neither hashed nor published
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(directory / name, target)
    return reused
