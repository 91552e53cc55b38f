"""The static HTML report and the results README, built from a results directory only.

Each study directory under results/ holds its tables as CSV (with the
papers' rows beside ours), its figures as PNG, and optionally
``drilldown.jsonl``: one record per item / question / case with ``id``,
``title``, ``fields`` (the filterable columns) and ``sections`` (text or small
tables). The report embeds all of it in one self-contained ``index.html``:
no network at view time.
"""

from __future__ import annotations

import base64
import csv
import io
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from simulator.errors import InputError
from simulator.storage import read_jsonl, write_text_atomic

__all__ = ["write_report", "write_results_readme", "STUDY_TITLES"]

STUDY_TITLES = {
    "cargo": "CARGO-Bench: reference-based judges on live instances",
    "groundeval": "GroundEval: answers reached through permitted evidence",
    "assurance": "Judge-input assurance: what reached the judge",
}
STUDY_INTROS = {
    "cargo": "Penalty rate per family (lower is better for P1/P3, higher for P2/P4) and DI = TP − FP with "
             "item-level bootstrap 95% CIs. Rows marked 'paper' are the published numbers (gpt-oss-120b); "
             "ours come from the judge named in each row.",
    "groundeval": "Deterministic scores per agent, mode and track: S_answer, S_traj, S_adj and the share of tool "
                  "calls that broke a gate.",
    "assurance": "Each constructed fault under controls P0–P3: did an altered or stale byte reach the judge, "
                 "and which stage and check stopped it; then the later-context contrast G.",
}
#: Drill-down fields offered as filters, when a study's records carry them.
FILTER_FIELDS = ("family", "condition", "judge", "track", "agent", "mode", "outcome", "control", "case", "kind")


def _read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [row for row in csv.reader(handle)]


def _cell_class(header: str, text: str) -> str:
    if header in ("reached_judge",):
        return "yes" if text.lower() == "true" else "no" if text.lower() == "false" else ""
    return ""


def _table(path: Path) -> dict[str, Any] | None:
    rows = _read_csv(path)
    if not rows:
        return None
    header, body = rows[0], rows[1:]
    source_col = next((i for i, h in enumerate(header) if h.lower() in ("source", "judge", "row")), None)
    out_rows = []
    for row in body:
        paper = source_col is not None and source_col < len(row) and "paper" in row[source_col].lower()
        cells = [{"text": c, "cls": _cell_class(header[i] if i < len(header) else "", c)} for i, c in enumerate(row)]
        out_rows.append({"paper": paper, "cells": cells})
    title = path.stem.replace("_", " ")
    return {"name": path.stem, "title": title, "header": header, "rows": out_rows}


def _drilldown(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    records = read_jsonl(path)
    if not records:
        return None
    columns: list[str] = []
    for record in records[:50]:
        for key in record.get("fields", {}):
            if key not in columns:
                columns.append(key)
    filters = [f for f in FILTER_FIELDS if f in columns]
    return {"columns": columns, "filters": filters, "records": records}


def _study(results: Path, key: str) -> dict[str, Any] | None:
    directory = results / key
    if not directory.is_dir():
        return None
    tables = [t for t in (_table(p) for p in sorted(directory.glob("*.csv"))) if t]
    figures = [{"title": p.stem.replace("_", " "), "data": base64.b64encode(p.read_bytes()).decode("ascii")}
               for p in sorted(directory.glob("*.png"))]
    return {"key": key, "title": STUDY_TITLES.get(key, key), "intro": STUDY_INTROS.get(key, ""),
            "tables": tables, "figures": figures, "drilldown": _drilldown(directory / "drilldown.jsonl")}


def write_report(results: Path, target: Path) -> Path:
    """Write one self-contained index.html for every study found under ``results``."""
    results = Path(results)
    if not results.is_dir():
        raise InputError(f"{results}: no such results directory (run `orgbench reproduce` first)")
    studies = [s for s in (_study(results, k) for k in STUDY_TITLES) if s]
    if not studies:
        raise InputError(f"{results}: holds none of {', '.join(STUDY_TITLES)}; run `orgbench reproduce` first")
    env = Environment(loader=PackageLoader("orgbench.report", "."), autoescape=select_autoescape(["html", "j2"]))
    drill = {s["key"]: s["drilldown"] for s in studies if s["drilldown"]}
    drill_json = json.dumps(drill, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    drill_json = drill_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    html = env.get_template("template.html.j2").render(
        studies=studies, drill_json=drill_json,
        subtitle="Reproduced by `orgbench reproduce` from seeded worlds; self-contained, no network needed.",
    )
    write_text_atomic(Path(target), html)
    return Path(target)


def write_results_readme(results: Path) -> Path:
    """Write results/README.md: what each file shows and where its numbers come from."""
    from orgbench.report.readme import render_results_readme

    text = render_results_readme(Path(results))
    write_text_atomic(Path(results) / "README.md", text)
    return Path(results) / "README.md"
