"""What a CARGO run records of its suite and writes per judgment (no scoring, so judging loads no numpy).

``suite_binding`` is the suite's digest (bound: a resume with another suite is
refused) and its path (a location); ``cargo_line`` is a judgments.jsonl line.
``judges.cargo_scores`` reads both back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmark_builders.cargo.identity import suite_digest
from judges.judgments import Judgment

__all__ = ["cargo_line", "suite_binding"]


def suite_binding(suite_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """What a run of ``suite_dir`` records: ``parameters`` {suite_digest} (binding) and ``locations`` {suite} (its path)."""
    return {"suite_digest": suite_digest(suite_dir)}, {"suite": str(Path(suite_dir).resolve())}


def cargo_line(judgment: Judgment) -> dict[str, Any]:
    """A CARGO judgments.jsonl line: the judgment with ``penalized`` (true, false, or null when undecided or failed)."""
    return {**judgment.to_json(), "penalized": judgment.penalized}
