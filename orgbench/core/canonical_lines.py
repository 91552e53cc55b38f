"""World records straight to canonical JSON lines, without building their ``to_json`` dicts first.

The records (the simulator's ``Event`` and ``ArtifactVersion``) are read by
attribute only, so this ground-floor module imports nothing of the simulator.

``event_lines`` and ``artifact_lines`` give, byte for byte, what
``storage.dumps(record.to_json()) + "\\n"`` gives (sorted keys, no ASCII
escaping, compact separators): the fixed keys of each record are written in
sorted order here, and each field's value — the one ``to_json`` puts under
that key — goes through the standard encoder (``json.JSONEncoder.encode``,
the documented API, or for a text the string encoder it calls for every
str, ``json.encoder.encode_basestring``). A call of the encoder costs more
than encoding a short text, so the values of ``BATCH`` records are encoded in one call and the
result cut apart (``each_json``); names, kinds and types that recur in many
records are encoded once (``Quoted``), and so are timestamps and an ACL
shared by many records.
"""

from __future__ import annotations

import json
from datetime import datetime
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

from orgbench.core.clock import format_ts

#: Canonical JSON of one value: the same bytes as ``storage.dumps`` (records hold no cycles, so none is looked for)
_dumps = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
#: Records whose values are encoded in one encoder call.
BATCH = 128
#: Put between the values encoded together: a str records are not expected to hold (``each_json``).
_SEPARATOR = "\x00"
_CUT = "," + _dumps(_SEPARATOR) + ","
#: The JSON text of a str: what ``_dumps`` gives for one (``JSONEncoder.encode`` calls it for every str), without
#: the call through ``encode``; anything but a str raises TypeError (``_in_batches`` then writes the record by to_json).
_text = json.encoder.encode_basestring
#: The same text for a str of ASCII characters other than DEL (which ``_text`` leaves as it is and this escapes),
#: written by the encoder's faster ASCII path (``ensure_ascii``): a third less time for the ASCII bodies.
_ascii_text = json.encoder.encode_basestring_ascii
_DEL = "\x7f"
#: An int as the encoder writes it (its ``repr`` digits).
_int_repr = int.__repr__


def each_json(values: list[Any]) -> list[str]:
    """The canonical JSON of each value (what ``_dumps`` gives for it), from one encoder call for the lot.

    The values are encoded as one array with ``_SEPARATOR`` between each two, and the text is cut at each
    ``,"\\u0000",``. No cut can straddle a value and a separator: a value's text never ends with ``,"\\u0000"``
    (inside a string a quote is escaped; any other value ends with ``]``, ``}``, a digit or a letter), and a cut
    overlapping the end of a separator would begin with its closing ``,``, after the separator's own cut was
    taken. So the text holds one cut between each two values and one more for each time a value holds the
    separator itself: when the pieces are exactly as many as the values they are the values' texts; otherwise
    each value is encoded alone.
    """
    if len(values) < 2:
        return [_dumps(v) for v in values]
    interleaved: list[Any] = [_SEPARATOR] * (2 * len(values) - 1)
    interleaved[::2] = values
    texts = _dumps(interleaved)[1:-1].split(_CUT)
    return texts if len(texts) == len(values) else [_dumps(v) for v in values]


class Stamps(dict):
    """RFC 3339 text (JSON-quoted) of each datetime, formatted on first use."""

    def __missing__(self, moment: datetime) -> str:
        text = self[moment] = _dumps(format_ts(moment))
        return text


def _in_batches(records: Iterable[Any], write: Callable[[list[Any]], list[str]]) -> Iterator[str]:
    """``write`` each batch of records; a batch with an unhashable value where a name belongs (which ``Quoted``
    cannot look up) is written by ``to_json`` and the encoder, record by record."""
    records = iter(records)
    while batch := list(islice(records, BATCH)):
        try:
            lines = write(batch)
        except TypeError:
            lines = [_dumps(record.to_json()) + "\n" for record in batch]
        yield from lines


class Quoted(dict):
    """JSON text of each value, encoded on first use: the names, kinds and types that recur in many records."""

    def __missing__(self, value: Any) -> str:
        text = _dumps(value)
        if value.__class__ is str:  # only a str: 1, 1.0 and True are equal keys with other texts
            self[value] = text
        return text


def _dict(value: Any) -> dict:
    """``dict(value)`` (what ``to_json`` writes), without copying a dict."""
    return value if value.__class__ is dict else dict(value)


def event_lines(events: Iterable[Any], stamps: dict[datetime, str] | None = None) -> Iterator[str]:
    """Each event as one canonical JSON line (with its newline); ``stamps`` may share formatted times."""
    stamps = Stamps() if stamps is None else stamps
    j, q = _text, Quoted()
    name = q.__getitem__

    def write(batch: list[Any]) -> list[str]:
        payloads = each_json([e.payload if e.payload.__class__ is dict else dict(e.payload) for e in batch])
        keys = iter(each_json([_dict(p.join_key) for e in batch for p in e.parents]))
        lines = []
        for e, payload in zip(batch, payloads):
            parents = ",".join([f'{{"event_id":{j(p.event_id)},"join_key":{next(keys)}}}' for p in e.parents]) \
                if e.parents else ""
            entity = e.entity
            # map, not a list comprehension: no frame per record
            lines.append(f'{{"actors":[{",".join(map(name, e.actors))}],'
                         f'"artifacts":[{",".join(map(j, e.artifacts))}],'
                         f'"entity":{{"id":{j(entity.id)},"kind":{q[entity.kind]}}},"event_id":{j(e.event_id)},'
                         f'"parents":[{parents}],"payload":{payload},"subsystem":{q[e.subsystem]},'
                         f'"ts":{stamps[e.ts]},"type":{q[e.type]}}}\n')
        return lines

    return _in_batches(events, write)


def artifact_lines(versions: Iterable[Any], stamps: dict[datetime, str] | None = None) -> Iterator[str]:
    """Each artifact version as one canonical JSON line (with its newline); ``stamps`` may share formatted times."""
    stamps = Stamps() if stamps is None else stamps
    acls: dict[int, tuple[Any, str]] = {}
    j, q = _text, Quoted()

    def write(batch: list[Any]) -> list[str]:
        lines = []
        for v, facts in zip(batch, each_json([v.facts if v.facts.__class__ is dict else dict(v.facts) for v in batch])):
            acl = v.acl  # the simulator shares ACL objects between versions: each is written once
            found = acls.get(id(acl))
            if found is None or found[0] is not acl:
                found = acls[id(acl)] = (acl, _dumps(acl.to_json()))
            body, entity, version = v.body, v.entity, v.version
            body = _ascii_text(body) if body.__class__ is str and body.isascii() and _DEL not in body else j(body)
            lines.append(f'{{"acl":{found[1]},"artifact_id":{j(v.artifact_id)},"author":{q[v.author]},'
                         f'"body":{body},"created_at":{stamps[v.created_at]},'
                         f'"entity":{{"id":{j(entity.id)},"kind":{q[entity.kind]}}},"facts":{facts},'
                         f'"kind":{q[v.kind]},"subsystem":{q[v.subsystem]},"title":{q[v.title]},'
                         f'"version":{_int_repr(version) if version.__class__ is int else _dumps(version)}}}\n')
        return lines

    return _in_batches(versions, write)
