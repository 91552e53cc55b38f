"""The export formats ``orgbench export`` writes: one record each, orgbench's and the plugins'.

A world format's writer is ``write(index, out) -> counts`` (``index`` a
``WorldIndex`` of the world, ``out`` the staged folder, ``counts`` what it
wrote, by name), or ``write(index, out, digests)`` with ``digests=True`` when
it records the world's file digests. A format that writes a suite (or writes
the whole export itself, ``standalone=True``) has ``write(source, kind, out)
-> record``: it verifies ``source`` (a world, or a suite of ``kind``: cargo,
groundeval, groundeval-tasks, trajectories), stages ``out`` and returns what
its EXPORT.json records, as ``benchmark_builders.export.export_hf`` does.

orgbench's own formats are declared in the module that writes them
(``EXPORT_FORMAT = ExportFormat(name=..., ...)``, literal fields; read from
the source, nothing imported), so adding a format is adding its module. A separate package adds one under the
entry-point group ``orgbench.export_formats`` (name = the format's name,
value = ``module:attr`` of its ``ExportFormat``); see docs/plugins.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from orgbench.core.registry import Registry, accept_instance, declared, load_attr

ENTRY_POINT_GROUP = "orgbench.export_formats"
SCOPES = ("world", "suite")


@dataclass(frozen=True)
class ExportFormat:
    """One format: what it exports (a world, a suite or both), its writer, and a line saying what it is."""

    name: str
    scopes: tuple[str, ...]     # ("world",), ("suite",) or both
    write: Any                  # the writer, or its "module:attr"
    summary: str
    digests: bool = False       # the writer takes the world's file digests as a third argument
    extra: str = ""             # the optional dependency group it needs (pip install orgbench[EXTRA])
    standalone: bool = False    # write(source, kind, out) writes the whole export (a suite format always does)

    def __post_init__(self) -> None:
        if not self.scopes or any(scope not in SCOPES for scope in self.scopes):
            raise TypeError(f"export format {self.name!r}: scopes must be some of {', '.join(SCOPES)}")

    def writer(self) -> Callable[..., dict[str, int]]:
        """The writer, imported on first use."""
        return self.write if callable(self.write) else load_attr(self.write, f"export format {self.name!r}")


#: The name a format module declares its ``ExportFormat`` (or a tuple of them) under, at its top level.
DECLARATION = "EXPORT_FORMAT"


def _own() -> tuple[ExportFormat, ...]:
    """orgbench's own formats: every module of this package that declares one, in module order (none imported)."""
    return tuple(fmt for path in sorted(Path(__file__).parent.glob("*.py"))
                 for fmt in declared(path, DECLARATION, ExportFormat))


#: orgbench's own formats, in the order ``orgbench list`` and ``export --help`` show them.
OWN: tuple[ExportFormat, ...] = _own()

EXPORT_FORMATS: Registry[ExportFormat] = Registry("export format", ENTRY_POINT_GROUP, lambda: OWN, lambda f: f.name,
                                                  accept_instance(ExportFormat))


def format_names(scope: str) -> tuple[str, ...]:
    """The registered formats that export a ``scope`` ("world" or "suite")."""
    return tuple(f.name for f in EXPORT_FORMATS.all() if scope in f.scopes)
