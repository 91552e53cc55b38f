"""Each study's findings box, every number read from its results files and tagged with where it came from.

A number is a ``Num``: its text and a key naming its source, so that the
page shows ``<span class="num" data-key="…">`` and a test can recompute it.
Key forms (paths relative to the results directory):

- ``csv:PATH|COL=VALUE|…|@COLUMN`` — a cell of the one row matching every COL=VALUE
- ``json:PATH|a.b.c`` — a value in a JSON file, shown with 3 decimals if a float
- ``diff:KEY~KEY`` — the first number minus the second, signed, 2 decimals
- ``count:PATH|COL=VALUE|COL^PREFIX|COL!^PREFIX|#COLUMN`` — distinct values of COLUMN over the rows
  matching every condition (``^``: starting with, ``!^``: not starting with)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from orgbench.core.errors import InputError


@dataclass(frozen=True)
class Num:
    """One number on the page and the key it was read from."""

    key: str
    text: str

    def html(self) -> Markup:
        """The number as a tagged span."""
        return Markup(f'<span class="num" data-key="{escape(self.key)}">{escape(self.text)}</span>')


def short(value: float, signed: bool = False) -> str:
    """Two decimals without the leading zero, as the papers print them (.57, -.44, +1.00)."""
    text = f"{value:+.2f}" if signed else f"{value:.2f}"
    return text.replace("0.", ".", 1) if text.lstrip("+-").startswith("0.") else text


class Source:
    """Reads the results files of one results directory and hands out tagged numbers."""

    def __init__(self, results: Path) -> None:
        self.results = Path(results)
        self._csv: dict[str, list[dict[str, str]]] = {}
        self.unread: dict[str, str] = {}         #: results file -> why it could not be read (shown, never dropped)

    def rows(self, path: str) -> list[dict[str, str]]:
        """The rows of a CSV under the results directory (empty if absent or unreadable: noted in ``unread``)."""
        if path not in self._csv:
            from orgbench.core.storage import read_text
            from orgbench.core.tables import Table

            try:
                self._csv[path] = Table.from_csv(read_text(self.results / path), self.results / path).records()
            except InputError as exc:       # unreadable, or not a rectangular CSV (FormatError)
                self.unread[path] = str(exc)
                self._csv[path] = []
        return self._csv[path]

    def cell(self, path: str, column: str, **match: str) -> Num | None:
        """The cell of the one row matching ``match``."""
        found = [r for r in self.rows(path) if all(r.get(k) == v for k, v in match.items())]
        if len(found) != 1 or found[0].get(column) in (None, "", "–"):
            return None
        where = "".join(f"|{k}={v}" for k, v in match.items())
        return Num(f"csv:{path}{where}|@{column}", found[0][column])

    def json_value(self, path: str, dotted: str) -> Any:
        """A raw value in a JSON file (None if absent)."""
        from orgbench.core.storage import read_json

        try:
            value: Any = read_json(self.results / path)
        except InputError as exc:
            self.unread[path] = str(exc)
            return None
        if not isinstance(value, dict):
            self.unread[path] = f"{self.results / path}: not a JSON object"
            return None
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    def json(self, path: str, dotted: str) -> Num | None:
        """A value in a JSON file, as a tagged number."""
        value = self.json_value(path, dotted)
        if value is None or isinstance(value, (dict, list)):
            return None
        text = f"{value:.3f}" if isinstance(value, float) else str(value)
        return Num(f"json:{path}|{dotted}", text)

    def count(self, path: str, column: str, **match: str) -> Num:
        """How many distinct ``column`` values the rows matching ``match`` have (``COL__pre``: starts with, ``COL__not``: does not)."""
        tests = []
        for key, value in match.items():
            name, _, how = key.partition("__")
            tests.append((name, value, {"": "=", "pre": "^", "not": "!^"}[how]))

        def keep(row: dict[str, str]) -> bool:
            for name, value, how in tests:
                cell = row.get(name, "")
                if (how == "=" and cell != value) or (how == "^" and not cell.startswith(value)) \
                        or (how == "!^" and cell.startswith(value)):
                    return False
            return True

        found = {r[column] for r in self.rows(path) if keep(r)}
        where = "".join(f"|{name}{how}{value}" for name, value, how in tests)
        return Num(f"count:{path}{where}|#{column}", str(len(found)))


def diff(a: Num | None, b: Num | None) -> Num | None:
    """``a`` minus ``b`` as a signed number (None if either is missing)."""
    if a is None or b is None:
        return None
    return Num(f"diff:{a.key}~{b.key}", short(float(a.text) - float(b.text), signed=True))


def sentence(template: str, **numbers: Num | str | None) -> Markup | None:
    """The template with each number put in as a tagged span (None if any number is missing)."""
    if any(v is None for v in numbers.values()):
        return None
    parts = {k: v.html() if isinstance(v, Num) else Markup(f'<span class="name">{escape(v)}</span>')
             for k, v in numbers.items()}
    return Markup(escape(template).format(**parts))
