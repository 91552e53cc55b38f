"""Join paths on events, as the GroundEval format means them: a dotted path into the whole event record.

``artifact_ids.<subsystem>`` names the ids the event lists in that subsystem
(``artifact_ids`` alone: all of them), ``facts.<key>`` (or ``payload.<key>``)
a fact, ``id`` / ``type`` / ``timestamp`` / ``actors`` the record's own
fields; a bare name that is none of these is a fact. A path resolves to a
tuple of values (a list value gives each element; missing or empty gives
none), and two events join on a pair of paths when their values share an
element.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from orgbench.core.clock import format_ts
from simulator.model import Event
from orgbench.core.storage import dumps

TOP_LEVEL = ("id", "event_id", "type", "timestamp", "actors")
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def _values(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for item in value:
            for v in _values(item):
                if v not in out:
                    out.append(v)
        return tuple(out)
    if isinstance(value, dict):
        return ()
    return (value if isinstance(value, str) else dumps(value),)


def _nested(value: Any, keys: list[str]) -> Any:
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def field_values(event: Event, path: str, subsystem_of: Mapping[str, str]) -> tuple[str, ...]:
    """The values of ``path`` on an event (see the module docstring); ``subsystem_of`` maps artifact id → subsystem."""
    head, _, rest = path.partition(".")
    if path in ("id", "event_id"):
        return (event.event_id,)
    if path == "type":
        return (event.type,)
    if path == "timestamp":
        return (format_ts(event.ts),)
    if path == "actors":
        return _values(list(event.actors))
    if path == "entity.id":
        return _values(event.entity.id)
    if path == "entity.kind":
        return _values(event.entity.kind)
    if head == "artifact_ids":
        ids = [ref.rsplit("@", 1)[0] for ref in event.artifacts]
        return _values([a for a in ids if not rest or subsystem_of.get(a) == rest])
    if head in ("facts", "payload"):
        return _values(_nested(event.payload, rest.split(".")) if rest else None)
    return _values(_nested(event.payload, path.split(".")))


def joined(join: tuple[tuple[str, str], ...], left: Event, right: Event, subsystem_of: Mapping[str, str]) -> bool:
    """True if every pair of paths shares a value on the two events (no pairs: always true)."""
    for left_path, right_path in join:
        if not set(field_values(left, left_path, subsystem_of)) & set(field_values(right, right_path, subsystem_of)):
            return False
    return True


def placeholders(template: str) -> tuple[str, ...]:
    """The ``{path}`` placeholders of a template, in order."""
    return tuple(_PLACEHOLDER.findall(template))


def render(template: str, resolve: Callable[[str], tuple[str, ...]]) -> str | None:
    """The template with each ``{path}`` filled (list values joined by ", "); None if a placeholder has no value."""
    missing = False

    def fill(match: re.Match[str]) -> str:
        nonlocal missing
        values = resolve(match.group(1))
        if not values:
            missing = True
        return ", ".join(values)

    text = _PLACEHOLDER.sub(fill, template)
    return None if missing else text
