"""One registry per kind of thing: orgbench's own registrations, then those of an entry-point group.

A registry holds frozen registration records (a backend, an agent, an export
format, a study), each under one name. orgbench's own come from a function
that reads the tables in code that define them; a separate package adds its
own under the registry's entry-point group (name = the registration's name,
value = ``module:attr`` of a registration record, see docs/plugins.md). A
name registered twice is an error, never a silent override.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, TypeVar

from orgbench.core.errors import InputError

T = TypeVar("T")

_CACHE: dict[str, tuple[Any, ...]] = {}


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
            from importlib.metadata import entry_points

            found = list(self.own())
            for point in sorted(entry_points(group=self.group), key=lambda p: p.name):
                found.append(self.accept(point.name, load_attr(point.value, f"{self.group} entry point {point.name!r}")))
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
