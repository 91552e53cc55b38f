"""World records straight to canonical JSON lines, without building their ``to_json`` dicts first.

The records (the simulator's ``Event`` and ``ArtifactVersion``) are read by
attribute only, so this ground-floor module imports nothing of the simulator.

``event_lines`` and ``artifact_lines`` give, byte for byte, what
``storage.dumps(record.to_json()) + "\\n"`` gives (sorted keys, no ASCII
escaping, compact separators): the fixed keys of each record are written in
sorted order here, and only the free-form parts (payloads, facts, join keys)
go through the standard JSON encoder, one call each. Timestamps shared by many
records are formatted once. A record with a field of an unexpected type
(``None`` where text belongs, say) is written by the general encoder, so the
bytes are the canonical ones either way.
"""

from __future__ import annotations

import json
from datetime import datetime
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Iterable, Iterator

from orgbench.core.clock import format_ts

#: Canonical JSON of one value: the same bytes as ``storage.dumps`` (records hold no cycles, so none is looked for)
_dumps = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


#: The C encoder behind ``_dumps``, built once (``JSONEncoder.encode`` builds one per call): a dict's chunks
_dict_chunks = c_make_encoder(None, _refuse, encode_basestring, None, ":", ",", True, False, True) \
    if c_make_encoder is not None else None
#: JSON text of a str (quoted, escaped); raises TypeError for anything else
_esc = encode_basestring


def _texts(values: Iterable[Any]) -> str:
    return "[" + ",".join([_esc(v) if v.__class__ is str else _dumps(v) for v in values]) + "]"


def _number(value: Any) -> str:
    """JSON of a version number: an int's digits as ``repr`` gives them (what the encoder writes), else the encoder."""
    return int.__repr__(value) if value.__class__ is int else _dumps(value)


def _mapping(value: Any) -> str:
    if _dict_chunks is None:
        return _dumps(value if value.__class__ is dict else dict(value))
    return "".join(_dict_chunks(value if value.__class__ is dict else dict(value), 0))


def _acl(acl: Any, seen: dict[int, tuple[Any, str]]) -> str:
    """The ACL's JSON; the simulator shares ACL objects between versions, so each is written once."""
    found = seen.get(id(acl))
    if found is not None and found[0] is acl:
        return found[1]
    text = _acl_text(acl)
    seen[id(acl)] = (acl, text)
    return text


def _acl_text(acl: Any) -> str:
    audience = "null" if acl.audience is None else _texts(acl.audience)
    space = "null" if acl.space is None else _esc(acl.space)
    return f'{{"audience":{audience},"participants":{_texts(acl.participants)},"space":{space}}}'


class Stamps(dict):
    """RFC 3339 text (JSON-quoted) of each datetime, formatted on first use."""

    def __missing__(self, moment: datetime) -> str:
        text = self[moment] = _esc(format_ts(moment))
        return text


def event_lines(events: Iterable[Any], stamps: dict[datetime, str] | None = None) -> Iterator[str]:
    """Each event as one canonical JSON line (with its newline); ``stamps`` may share formatted times."""
    stamps = Stamps() if stamps is None else stamps
    for e in events:
        try:
            if e.parents:
                parents = "[" + ",".join([f'{{"event_id":{_esc(p.event_id)},"join_key":{_mapping(p.join_key)}}}'
                                          for p in e.parents]) + "]"
            else:
                parents = "[]"
            entity = e.entity
            yield (f'{{"actors":{_texts(e.actors)},"artifacts":{_texts(e.artifacts)},'
                   f'"entity":{{"id":{_esc(entity.id)},"kind":{_esc(entity.kind)}}},'
                   f'"event_id":{_esc(e.event_id)},"parents":{parents},"payload":{_mapping(e.payload)},'
                   f'"subsystem":{_esc(e.subsystem)},"ts":{stamps[e.ts]},"type":{_esc(e.type)}}}\n')
        except TypeError:  # a field of an unexpected type (e.g. None for a text): the general encoder
            yield _dumps(e.to_json()) + "\n"


def artifact_lines(versions: Iterable[Any], stamps: dict[datetime, str] | None = None) -> Iterator[str]:
    """Each artifact version as one canonical JSON line (with its newline); ``stamps`` may share formatted times."""
    stamps = Stamps() if stamps is None else stamps
    acls: dict[int, tuple[Any, str]] = {}
    for v in versions:
        try:
            entity = v.entity
            yield (f'{{"acl":{_acl(v.acl, acls)},"artifact_id":{_esc(v.artifact_id)},"author":{_esc(v.author)},'
                   f'"body":{_esc(v.body)},"created_at":{stamps[v.created_at]},'
                   f'"entity":{{"id":{_esc(entity.id)},"kind":{_esc(entity.kind)}}},'
                   f'"facts":{_mapping(v.facts)},"kind":{_esc(v.kind)},"subsystem":{_esc(v.subsystem)},'
                   f'"title":{_esc(v.title)},"version":{_number(v.version)}}}\n')
        except TypeError:  # a field of an unexpected type (e.g. None for a text): the general encoder
            yield _dumps(v.to_json()) + "\n"
