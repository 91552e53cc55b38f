"""Export format ``toys-authors``: a world's records and who wrote each version, as one CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from benchmark_builders.export.formats import ExportFormat


def write_authors(index: Any, out: Path) -> dict[str, int]:
    """``authors.csv``: one row per artifact version (ref, subsystem, author), in ref order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["ref", "subsystem", "author"])
    versions = sorted(index.world.artifacts, key=lambda v: (v.artifact_id, v.version))
    for version in versions:
        writer.writerow([version.ref, version.subsystem, version.author])
    (Path(out) / "authors.csv").write_text(buffer.getvalue(), encoding="utf-8")
    return {"versions": len(versions)}


AUTHORS = ExportFormat("toys-authors", ("world",), write_authors, "who wrote each record version (a toy plugin)")
