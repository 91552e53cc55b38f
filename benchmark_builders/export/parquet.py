"""A world as Parquet: one table per record file (actors, events, artifacts, claims), written with pyarrow.

Every row of ``actors.jsonl``, ``events.jsonl``, ``artifacts.jsonl`` and the
truth sidecar ``claims.jsonl`` becomes one row, in the same order (claims get
the labelled version's ``artifact_id`` and ``version`` as columns too; a
world without claims gets an empty claims table). Scalar fields are columns of their own
(times as UTC timestamps, lists as list<string>); nested objects (payload,
parents, facts, acl, a claim's value and true value) are canonical JSON strings, so nothing is lost. Each
file's schema metadata names the world file it came from and that file's
SHA-256 from the world's manifest; the export's MANIFEST.json lists the
Parquet files' own digests. pyarrow is the optional extra ``orgbench[export]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from benchmark_builders.export.world_index import WorldIndex
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps, written_as
from benchmark_builders.export.formats import ExportFormat

TIME = "timestamp[us, tz=UTC]"


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise InputError("--format parquet: needs pyarrow (pip install 'orgbench[export]')") from None
    return pyarrow


def _columns(pa) -> dict[str, list[tuple[str, Any, Callable[[Any], Any]]]]:
    """Table → (column, arrow type, value of a record) in file order."""
    text, stamp, texts = pa.string(), pa.timestamp("us", tz="UTC"), pa.list_(pa.string())
    return {
        "actors": [
            ("actor_id", text, lambda a: a.actor_id), ("name", text, lambda a: a.name),
            ("email", text, lambda a: a.email), ("title", text, lambda a: a.title), ("team", text, lambda a: a.team),
            ("role", text, lambda a: a.role), ("manager", text, lambda a: a.manager),
            ("joined_at", stamp, lambda a: a.joined_at), ("left_at", stamp, lambda a: a.left_at),
            ("office", text, lambda a: a.office), ("utc_offset", pa.int32(), lambda a: a.utc_offset),
        ],
        "events": [
            ("event_id", text, lambda e: e.event_id), ("ts", stamp, lambda e: e.ts), ("type", text, lambda e: e.type),
            ("actors", texts, lambda e: list(e.actors)), ("subsystem", text, lambda e: e.subsystem),
            ("entity_kind", text, lambda e: e.entity.kind), ("entity_id", text, lambda e: e.entity.id),
            ("payload", text, lambda e: dumps(dict(e.payload))),
            ("parents", text, lambda e: dumps([p.to_json() for p in e.parents])),
            ("artifacts", texts, lambda e: list(e.artifacts)),
        ],
        "artifacts": [
            ("artifact_id", text, lambda v: v.artifact_id), ("version", pa.int32(), lambda v: v.version),
            ("subsystem", text, lambda v: v.subsystem), ("kind", text, lambda v: v.kind),
            ("created_at", stamp, lambda v: v.created_at), ("author", text, lambda v: v.author),
            ("entity_kind", text, lambda v: v.entity.kind), ("entity_id", text, lambda v: v.entity.id),
            ("title", text, lambda v: v.title), ("body", text, lambda v: v.body),
            ("facts", text, lambda v: dumps(dict(v.facts))), ("acl", text, lambda v: dumps(v.acl.to_json())),
        ],
        "claims": [
            ("ref", text, lambda c: c.ref), ("artifact_id", text, lambda c: c.ref.rpartition("@")[0]),
            ("version", pa.int32(), lambda c: int(c.ref.rpartition("@")[2])), ("field", text, lambda c: c.field),
            ("value", text, lambda c: dumps(c.value)), ("true_value", text, lambda c: dumps(c.true_value)),
            ("kind", text, lambda c: c.kind), ("source", text, lambda c: c.source),
        ],
    }


def _records(index: WorldIndex, table: str) -> tuple[Any, ...]:
    """The world's records of ``table`` (actors, events, artifact versions or claims)."""
    world = index.world
    return {"actors": world.actors, "events": world.events, "artifacts": world.artifacts,
            "claims": tuple(world.claims)}[table]


def write_table(path: Path, columns: Sequence[tuple[str, Any, Sequence[Any]]], metadata: Mapping[str, str]) -> Any:
    """The one Parquet writer: ``columns`` (name, arrow type, values) with an explicit schema into ``path``.

    zstd, one row group per 65,536 rows; the same columns give the same bytes under one pyarrow version.
    Returns the table written.
    """
    pa = _pyarrow()
    schema = pa.schema([pa.field(name, kind) for name, kind, _ in columns], metadata=dict(metadata))
    arrays = [pa.array(list(values), type=kind) for _, kind, values in columns]
    table = pa.Table.from_arrays(arrays, schema=schema)
    with written_as(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        pa.parquet.write_table(table, path, compression="zstd", row_group_size=65536)
    return table


def world_tables(index: WorldIndex, source_digests: Mapping[str, str]):
    """(table, columns as ``write_table`` takes them, schema metadata) for actors, events, artifacts, claims."""
    pa = _pyarrow()
    for table, columns in _columns(pa).items():
        records = _records(index, table)
        metadata = {"orgbench.source": f"{table}.jsonl",
                    "orgbench.source_sha256": source_digests.get(f"{table}.jsonl", "")}
        yield table, [(name, kind, [value(r) for r in records]) for name, kind, value in columns], metadata


def write_parquet(index: WorldIndex, out: Path, source_digests: dict[str, str]) -> dict[str, int]:
    """Write ``out/<table>.parquet`` for actors, events, artifacts and labelled claims; returns row counts."""
    counts = {}
    for table, columns, metadata in world_tables(index, source_digests):
        write_table(out / f"{table}.parquet", columns, metadata)
        counts[table] = len(columns[0][2])
    return counts


#: The format this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = ExportFormat(name="parquet", scopes=("world",), write="benchmark_builders.export.parquet:write_parquet",
                             summary="one table per record file", digests=True, extra="export")
