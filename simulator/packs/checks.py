"""Field checks for domain packs: each returns the value or raises one InputError line naming file and field."""

from __future__ import annotations

import re
from typing import Any, Mapping

from orgbench.core.errors import UNSHOWN, InputError, one_line

ID_FACT = re.compile(r"^([A-Z][A-Z0-9]{1,9})-([0-9]{1,9})$")
FIRMWARE_LINE = re.compile(r"^[0-9]{1,4}\.[0-9]{1,4}$")
DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")


class Fields:
    """Reads one pack file's tables, failing with ``file: field: message``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, field: str, message: str) -> InputError:
        """The one-line error for ``field``."""
        return InputError(f"{self.source}: {field}: {message}")

    def check_table(self, value: Any, field: str, known: tuple[str, ...]) -> Mapping[str, Any]:
        """``value`` as a table whose keys are all in ``known``."""
        if not isinstance(value, dict):
            raise self.fail(field, "missing or not a table")
        for key in value:
            if key not in known:
                raise self.fail(f"{field}.{key}", f"unknown key (keys are {', '.join(known)})")
        return value

    def text(self, table: Mapping[str, Any], field: str, key: str) -> str:
        """A non-empty string."""
        value = table.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{field}.{key}", "missing or not a non-empty string")
        return self.shown(value, f"{field}.{key}")

    def shown(self, value: str, field: str) -> str:
        """``value`` unless it holds a character that breaks a line or shows as nothing (``UNSHOWN``): a name
        or sentence holding one would be written into every world's text, ids and exports as it is."""
        hidden = UNSHOWN.search(value)
        if hidden is not None:
            raise self.fail(field, f"holds {one_line(hidden.group())} (a control, direction or zero-width "
                                   "character); write it as one line of visible text")
        return value

    def texts(self, table: Mapping[str, Any], field: str, key: str, *, unique: bool = False,
              allowed: tuple[str, ...] | None = None, empty: bool = False) -> tuple[str, ...]:
        """A list of non-empty strings (``allowed``: each one of these)."""
        value = table.get(key, [] if empty else None)
        if not isinstance(value, list) or (not value and not empty):
            raise self.fail(f"{field}.{key}", "missing or not a non-empty list of strings")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                raise self.fail(f"{field}.{key}[{i}]", "must be a non-empty string")
            self.shown(item, f"{field}.{key}[{i}]")
            if allowed is not None and item not in allowed:
                raise self.fail(f"{field}.{key}[{i}]", f"unknown value {item!r} (known: {', '.join(allowed)})")
            if unique and value.index(item) != i:
                raise self.fail(f"{field}.{key}[{i}]", f"{item!r} is listed twice")
        return tuple(value)

    def flag(self, table: Mapping[str, Any], field: str, key: str) -> bool:
        """A boolean (false when absent)."""
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(f"{field}.{key}", "must be true or false")
        return value

    def matching(self, table: Mapping[str, Any], field: str, key: str, pattern: re.Pattern, what: str) -> str:
        """A string matching ``pattern``."""
        value = self.text(table, field, key)
        if not pattern.match(value):
            raise self.fail(f"{field}.{key}", f"must be {what}, not {value!r}")
        return value

    def array(self, raw: Mapping[str, Any], key: str, where: str | None = None) -> list[Mapping[str, Any]]:
        """A non-empty array of tables (``[[key]]``) at ``where`` (default: ``key``)."""
        value = raw.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
            raise self.fail(where or key, f"missing or not an array of tables ([[{where or key}]])")
        return value
