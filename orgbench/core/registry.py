"""One registry per kind of thing: orgbench's own registrations, then those of an entry-point group.

A registry holds frozen registration records (a backend, an agent, an export
format, a study), each under one name. orgbench's own come from a function
that reads the tables in code that define them; a separate package adds its
own under the registry's entry-point group (name = the registration's name,
value = ``module:attr`` of a registration record, see docs/plugins.md). A
name registered twice is an error, never a silent override.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generic, Iterable, TypeVar

from orgbench.core.errors import InputError

T = TypeVar("T")

_CACHE: dict[str, tuple[Any, ...]] = {}
#: The installed entry points of our groups (``GROUPS``), read once per process (one pass over the packages).
_POINTS: dict[str, list["EntryPoint"]] = {}


def load_attr(path: str, what: str) -> Any:
    """The object ``module:attr`` names; InputError naming ``what`` when the module or attribute is missing."""
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise InputError(f"{what}: {module_name} is not available ({exc})") from None
        raise
    value: Any = module
    for part in attr.split(".") if attr else ():
        try:
            value = getattr(value, part)
        except AttributeError:
            raise InputError(f"{what}: {module_name} has no {attr}") from None
    return value


def _assignment(source: str, name: str) -> int:
    """Where the module-level statement assigning ``name`` starts in ``source`` (-1 when there is none).

    Lines starting with ``name`` are found with ``str.find``: a multi-line regular expression over every module
    of a registry's package was most of the time ``orgbench list`` spent reading declarations.
    """
    assigns = re.compile(rf"{re.escape(name)}\s*(:[^=\n]*)?=")
    text = "\n" + source
    at = text.find("\n" + name)
    while at != -1 and not assigns.match(text, at + 1):
        at = text.find("\n" + name, at + 1)
    return at


def _statement(source: str, name: str) -> ast.stmt | None:
    """The module-level statement assigning ``name`` in ``source``, parsed alone (None when there is none)."""
    start = _assignment(source, name)
    if start < 0:
        return None
    lines = source[start:].splitlines()
    # the statement alone (parsing the whole module is slower): first up to the next line at the left margin that
    # does not close a bracket, where the next statement most likely starts; else one line more at a time
    guess = next((i for i, line in enumerate(lines[1:], 1) if line[:1] not in ("", " ", "\t", ")", "]", "}")),
                 len(lines))
    for end in (guess, *range(1, len(lines) + 1)):
        try:
            body = ast.parse("\n".join(lines[:end])).body
        except SyntaxError:
            continue
        return body[0] if body else None
    return None


def declared(path: Path, name: str, record: type[T], **defaults: Any) -> tuple[T, ...]:
    """The records a module's source declares under ``name``, read without importing it.

    ``name = Record(field=literal, ...)`` declares one, ``name = (Record(...), ...)`` several; ``defaults`` fill
    fields the declaration leaves out. Anything else (a positional argument, a field that is not a literal, a
    field the record does not have) is an InputError naming the file, the declaration and the field.
    """
    source = path.read_text(encoding="utf-8")
    if _assignment(source, name) < 0:
        return ()
    where = f"{path}: {name}"
    node = _statement(source, name)
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        calls = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        return tuple(_record(call, where, record, defaults) for call in calls)
    raise InputError(f"{where}: must be {record.__name__}(field=..., ...) with keyword arguments only")


def declared_literal(path: Path, name: str) -> Any:
    """The literal a module's source assigns to ``name``, read without importing it; InputError when it is not one."""
    node = _statement(path.read_text(encoding="utf-8"), name)
    try:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            return ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    raise InputError(f"{path}: {name} must be assigned a literal")


def declared_keys(path: Path, name: str) -> tuple[Any, ...] | None:
    """The keys of the dict literal a module's source assigns to ``name`` (each key a literal), read without
    importing it; None when ``name`` is not assigned such a dict there."""
    try:
        node = _statement(path.read_text(encoding="utf-8"), name)
    except OSError:
        return None
    if not (isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict)):
        return None
    try:
        return tuple(ast.literal_eval(key) for key in node.value.keys if key is not None)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _record(call: ast.expr, where: str, record: type[T], defaults: dict[str, Any]) -> T:
    kind = record.__name__
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == kind and not call.args
            and all(k.arg for k in call.keywords)):
        raise InputError(f"{where}: must be {kind}(field=..., ...) with keyword arguments only")
    fields: dict[str, Any] = {}
    for keyword in call.keywords:
        try:
            fields[str(keyword.arg)] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise InputError(f"{where}: field {keyword.arg!r} is not a literal ({ast.unparse(keyword.value)}); "
                             "orgbench reads it without importing the module") from None
    try:
        return record(**{**defaults, **fields})
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {exc}") from None


@dataclass(frozen=True)
class Registry(Generic[T]):
    """Registrations of one kind: ``own()`` first, then the entry-point ``group``'s, each checked by ``accept``."""

    kind: str                                   # how messages name one: "backend", "export format", …
    group: str                                  # the entry-point group a plugin registers under
    own: Callable[[], Iterable[T]]              # orgbench's own registrations
    name: Callable[[T], str]                    # the name a registration is found under
    accept: Callable[[str, Any], T]             # an entry point's name and loaded object -> a registration

    def all(self) -> tuple[T, ...]:
        """Every registration, orgbench's first (in their tables' order), then the plugins' (by name)."""
        if self.group not in _CACHE:
            found = list(self.own())
            for point in sorted(_entry_points(self.group), key=lambda p: p.name):
                found.append(self.accept(point.name, _load_point(point, self.group)))
            seen: dict[str, T] = {}
            for registration in found:
                key = self.name(registration)
                if key in seen:
                    raise InputError(f"{self.group}: {self.kind} {key!r} is registered twice")
                seen[key] = registration
            _CACHE[self.group] = tuple(found)
        return _CACHE[self.group]

    def names(self) -> tuple[str, ...]:
        """The names of every registration, in ``all()``'s order."""
        return tuple(self.name(r) for r in self.all())

    def get(self, name: str) -> T | None:
        """The registration called ``name``, or None."""
        return next((r for r in self.all() if self.name(r) == name), None)

    def require(self, name: str, where: str) -> T:
        """The registration called ``name``; InputError naming ``where`` and every known name otherwise."""
        found = self.get(name)
        if found is None:
            raise InputError(f"{where}: unknown {self.kind} {name!r} (known: {', '.join(self.names())})")
        return found


@dataclass(frozen=True)
class EntryPoint:
    """One installed entry point: its group, name, ``module:attr`` value and the metadata folder declaring it."""

    group: str
    name: str
    value: str
    info: Path                  # the distribution's .dist-info (or .egg-info) folder

    @property
    def package(self) -> str:
        """The declaring distribution's name, as its metadata spells it (else as its folder does)."""
        for file in ("METADATA", "PKG-INFO"):
            try:
                with open(self.info / file, encoding="utf-8") as metadata:
                    for line in metadata:
                        if line.startswith("Name:"):
                            return line[len("Name:"):].strip()
                        if not line.strip():
                            break
            except OSError:
                continue
        return self.info.name.split("-", 1)[0]


#: Every registry's entry-point group starts so; their points are read together, once per process.
GROUPS = "orgbench."


def _entry_points(group: str) -> list[EntryPoint]:
    """The installed entry points of ``group``; every ``GROUPS`` group's are read once per process
    (``installed_entry_points``), any other group's when asked."""
    if not group.startswith(GROUPS):
        return [point for point in installed_entry_points(prefix=group) if point.group == group]
    if GROUPS not in _POINTS:
        _POINTS[GROUPS] = installed_entry_points(prefix=GROUPS)
    return [point for point in _POINTS[GROUPS] if point.group == group]


def installed_entry_points(path: Iterable[str] | None = None, prefix: str = "") -> list[EntryPoint]:
    """Every entry point the distributions on ``path`` (default ``sys.path``) declare in a group named
    ``prefix``…, as ``importlib.metadata`` finds them (the first distribution of a name wins), read straight from
    each ``entry_points.txt``.

    ``importlib.metadata`` costs ``orgbench list`` more than all the tables it prints (it imports the email
    parser); the format read here is the packaging spec's: ``[group]`` sections of ``name = value`` lines.
    A file that never mentions ``prefix`` is not parsed.
    """
    import os
    import sys

    seen: set[str] = set()
    found: list[EntryPoint] = []
    for entry in (sys.path if path is None else path):
        try:
            with os.scandir(entry or ".") as listing:
                folders = sorted(e.name for e in listing if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:         # not a folder (a zip, a path hook's name): nothing installed there is read here
            continue
        for folder in folders:
            distribution = re.sub(r"[-_.]+", "_", folder.rsplit(".", 1)[0].split("-", 1)[0]).lower()
            if distribution in seen:
                continue
            seen.add(distribution)
            try:        # a plain string path: a Path per distribution would be most of this loop's time
                with open(f"{entry or '.'}/{folder}/entry_points.txt", encoding="utf-8") as listed:
                    text = listed.read()
            except OSError:
                continue
            if prefix not in text:
                continue
            info = Path(entry or ".", folder)
            group = ""
            for line in text.splitlines():
                line = line.strip()
                if not line or line.startswith(("#", ";")):
                    continue
                if line.startswith("[") and line.endswith("]"):
                    group = line[1:-1].strip()
                elif "=" in line and group and group.startswith(prefix):
                    name, _, value = line.partition("=")
                    found.append(EntryPoint(group, name.strip(), value.strip(), info))
    return found


def _load_point(point: EntryPoint, group: str) -> Any:
    """The object an entry point names; a plugin that fails to load is one InputError naming it and its package."""
    package = point.package
    what = f"{group} entry point {point.name!r}" + (f" (package {package})" if package else "")
    try:
        return load_attr(point.value, what)
    except InputError:
        raise
    except Exception as exc:        # a plugin's own import error: named, one line, not a traceback
        raise InputError(f"{what}: loading {point.value} failed: {type(exc).__name__}: {exc}") from None


def accept_instance(kind: type[T]) -> Callable[[str, Any], T]:
    """An ``accept`` that takes only instances of ``kind`` whose ``name`` is the entry point's name."""
    def accept(name: str, value: Any) -> T:
        if not isinstance(value, kind):
            raise InputError(f"entry point {name!r}: expected a {kind.__name__} registration, got {type(value).__name__}")
        if getattr(value, "name", name) != name:
            raise InputError(f"entry point {name!r}: its {kind.__name__} is named {getattr(value, 'name')!r}")
        return value

    return accept


def clear() -> None:
    """Forget every registry's cached registrations (after installing a plugin in this process)."""
    _CACHE.clear()
    _POINTS.clear()
