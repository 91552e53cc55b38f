"""A world or a suite as a Hugging Face dataset folder: Parquet per config and split, and a dataset card.

``write_hf`` writes ``data/<config>/test-00000-of-00001.parquet`` for each
config of the source's kind (``benchmark_builders.export.hf_configs``) with
the one Parquet writer (``parquet.write_table``, explicit schemas), and
``README.md`` (``hf_card``) whose YAML header declares the configs, their
features and row counts, so ``datasets.load_dataset(DIR, CONFIG)`` reads each
config as written. Rows keep the suite file's order. The CARGO ``prompts``
config needs the judge's prompt templates, which this layer may not import:
the caller passes ``prompts`` (item rows -> (item_id, condition, system,
user) rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from benchmark_builders.export.hf_configs import SPLIT, Column, ConfigSpec, specs
from benchmark_builders.export.parquet import _pyarrow, world_tables, write_table
from benchmark_builders.export.world_index import WorldIndex
from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import dumps, read_json
from benchmark_builders.export.formats import ExportFormat

PromptRows = Callable[[list[dict[str, Any]]], Iterable[tuple[str, str, str, str]]]


@dataclass(frozen=True)
class WrittenConfig:
    """A config as written: its spec, the columns (declared or not) with their arrow types, and its row count."""

    spec: ConfigSpec
    columns: tuple[tuple[Column, Any], ...]     # (column, its arrow type), in file order
    rows: int
    nbytes: int

    @property
    def path(self) -> str:
        """The Parquet file, relative to the dataset folder."""
        return data_file(self.spec.name)


def data_file(config: str) -> str:
    """Where a config's one split lives in the folder."""
    return f"data/{config}/{SPLIT}-00000-of-00001.parquet"


def source_kind(holds: str, source: Path) -> str:
    """The export kind of a source ``orgbench.outdir.holds`` named (a GroundEval suite of task contracts apart)."""
    from benchmark_builders.export.hf_configs import KINDS

    kind = KINDS[holds]
    if kind == "groundeval" and (source / "suite.json").is_file():
        meta = read_json(source / "suite.json")
        if isinstance(meta, dict) and meta.get("format") == "groundeval-tasks":
            return "groundeval-tasks"
    return kind


def _arrow(pa, kind: str):
    return {"text": pa.string(), "json": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(),
            "texts": pa.list_(pa.string())}[kind]


def _value(kind: str, value: Any, where: str, name: str) -> Any:
    """A suite field as its column holds it; InputError naming the line and field when it has another type."""
    if kind == "json":
        return dumps(value)
    if value is None:
        return None
    ok = {"text": lambda v: isinstance(v, str), "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          "bool": lambda v: isinstance(v, bool),
          "texts": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)}[kind]
    if not ok(value):
        raise InputError(f"{where}: field {name!r} is not {kind} ({type(value).__name__}); the suite is malformed")
    return float(value) if kind == "float" else value


def _suite_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for number, row in read_jsonl(path).numbered():
        if not isinstance(row, dict):
            raise InputError(f"{path}:{number}: not a JSON object")
        rows.append((f"{path}:{number}", row))
    return rows


def _undeclared(rows: Sequence[tuple[str, dict[str, Any]]], declared: Sequence[Column]) -> tuple[Column, ...]:
    known = {c.name for c in declared}
    extra = sorted({key for _, row in rows for key in row} - known)
    return tuple(Column(name, "json", "not declared by this exporter (canonical JSON)") for name in extra)


def _file_config(pa, spec: ConfigSpec, rows: Sequence[tuple[str, dict[str, Any]]], out: Path,
                 metadata: Mapping[str, str]) -> WrittenConfig:
    columns = spec.columns + _undeclared(rows, spec.columns)
    typed = tuple((c, _arrow(pa, c.kind)) for c in columns)
    data = [(c.name, t, [_value(c.kind, row.get(c.name), where, c.name) for where, row in rows]) for c, t in typed]
    table = write_table(out / data_file(spec.name), data, metadata)
    return WrittenConfig(spec, typed, len(rows), table.nbytes)


def _world_configs(source: Path, out: Path, specs_: Sequence[ConfigSpec], prefix: str) -> list[WrittenConfig]:
    from benchmark_builders.export.hf_card import world_column
    from orgbench.core.storage import MANIFEST
    from simulator.world import load_world

    listed = read_json(source / MANIFEST).get("files", {})
    digests = {name: entry["sha256"] for name, entry in sorted(listed.items())}
    tables = {table: (columns, metadata) for table, columns, metadata in
              world_tables(WorldIndex.of(load_world(source, verify=True)), digests)}
    written = []
    for spec in specs_:
        columns, metadata = tables[spec.name.removeprefix(prefix)]
        table = write_table(out / data_file(spec.name), columns, metadata)
        typed = tuple((world_column(spec.name.removeprefix(prefix), name), kind) for name, kind, _ in columns)
        written.append(WrittenConfig(spec, typed, table.num_rows, table.nbytes))
    return written


def write_hf(source: Path, kind: str, out: Path, digests: Mapping[str, str], *,
             prompts: PromptRows | None = None) -> list[WrittenConfig]:
    """Write every config of ``source`` (a world or suite of ``kind``) into ``out``; the configs written, in order.

    ``digests`` are the source's manifest digests (file -> SHA-256), recorded in each file's schema metadata
    (a world's own, for a suite's world). Without ``prompts`` a CARGO export has no ``prompts`` config.
    """
    pa = _pyarrow()
    source = Path(source)
    all_specs = specs(kind)
    if kind == "world":
        return _world_configs(source, out, all_specs, "")
    written: list[WrittenConfig] = []
    world_specs = [s for s in all_specs if s.source.startswith("world/")]
    for spec in all_specs:
        if spec in world_specs:
            continue
        rows = _suite_rows(source / spec.source)
        metadata = {"orgbench.source": spec.source, "orgbench.source_sha256": digests.get(spec.source, "")}
        if spec.name == "prompts":
            if prompts is None:
                continue
            names = ("item_id", "condition", "system", "user")
            rows = [(str(source / spec.source), dict(zip(names, r))) for r in prompts([row for _, row in rows])]
        written.append(_file_config(pa, spec, rows, out, metadata))
    if world_specs:
        written += _world_configs(source / "world", out, world_specs, "world_")
    return written


#: The format this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = ExportFormat(name="hf", scopes=("world", "suite"), write="benchmark_builders.export:export_hf",
                             summary="a Hugging Face dataset folder of a world or a CARGO, GroundEval or trajectory suite",
                             extra="export", standalone=True)
