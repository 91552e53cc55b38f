"""The static HTML report and the results README, built from a results directory only.

Each study directory under results/ holds its tables as CSV (with the
papers' rows beside ours), its figures as PNG, and optionally
``drilldown.jsonl``: one record per item / question / case with ``id``,
``title``, ``fields`` (the filterable columns), ``sections`` (text or small
tables) and optionally ``shared``: a key into ``drilldown_shared.json``, whose
sections (the text many records have in common) are shown first. The report embeds all of it in one self-contained ``index.html``:
no network at view time.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, read_text, write_text_atomic
from orgbench.core.tables import Table
from orgbench.core.jsonl import read_jsonl

__all__ = ["write_report", "write_results_readme", "render_page", "study_section", "drill_spec", "study_titles"]


def study_titles() -> dict[str, str]:
    """Each registered study's report heading, in the registry's order (the order of the report's sections)."""
    from orgbench.studies.descriptor import STUDIES

    return {s.name: s.heading or s.title for s in STUDIES.all()}


#: Drill-down fields offered as filters, when a study's records carry them.
FILTER_FIELDS = ("family", "condition", "judge", "track", "agent", "mode", "outcome", "control", "case", "kind")


def _read_csv(path: Path) -> list[list[str]]:
    """A CSV table's header and rows, read through the one table type (one line naming a bad file or line)."""
    table = Table.from_csv(read_text(path, "CSV table"), path)
    return [list(table.columns), *(list(row) for row in table.rows)] if table.columns else []


def _cell_class(header: str, text: str) -> str:
    if header in ("reached_judge",):
        return "yes" if text.lower() == "true" else "no" if text.lower() == "false" else ""
    return ""


def _table(path: Path) -> dict[str, Any] | None:
    rows = _read_csv(path)
    if not rows:
        return None
    header, body = rows[0], rows[1:]
    title = _md_title(path.with_suffix(".md")) or path.stem.replace("_", " ")
    from orgbench.report.comparison import comparison_table, is_comparison

    if is_comparison(header):
        return comparison_table(path.stem, title, header, body)
    source_col = next((i for i, h in enumerate(header) if h.lower() in ("source", "judge", "row")), None)
    out_rows = []
    for row in body:
        paper = source_col is not None and source_col < len(row) and "paper" in row[source_col].lower()
        cells = [{"text": c, "cls": _cell_class(header[i] if i < len(header) else "", c)} for i, c in enumerate(row)]
        out_rows.append({"paper": paper, "kind": "paper" if paper else "", "cells": cells})
    return {"name": path.stem, "title": title, "header": header, "rows": out_rows}


def _md_title(path: Path) -> str | None:
    """A table's title: its Markdown heading, else its caption (the first line before the table)."""
    if not path.is_file():
        return None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
        if line.strip() and not line.startswith("|"):
            return line.strip()
    return None


def _fault_matrix(path: Path) -> dict[str, Any]:
    """Pivot faults.csv (one row per case and control) into a case × control matrix."""
    rows = _read_csv(path)
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    col = {name: i for i, name in enumerate(header)}
    missing = [c for c in ("case", "control", "reached_judge", "stopped_at", "stopped_by") if c not in col]
    if missing:
        raise InputError(f"{path}: column {missing[0]} missing (expected case, control, reached_judge, ...)")
    controls: list[str] = []
    cases: dict[str, dict[str, list[str]]] = {}
    for row in body:
        control, case = row[col["control"]], row[col["case"]]
        if control not in controls:
            controls.append(control)
        cases.setdefault(case, {})[control] = row
    paper = col.get("paper_first_stop")  # the paper's first stop for the case (optional column)
    out_rows = []
    for case, per_control in cases.items():
        cells = [{"text": case, "cls": ""}]
        for control in controls:
            found = per_control.get(control)
            if found is None:
                cells.append({"text": "–", "cls": ""})
                continue
            reached = found[col["reached_judge"]].lower() == "true"
            stop = found[col["stopped_at"]]
            text = "reached judge" if reached else (f"stopped: {stop} ({found[col['stopped_by']]})" if stop else "completed")
            cells.append({"text": text, "cls": "yes" if reached else "no"})
        if paper is not None:
            cells.append({"text": next(iter(per_control.values()))[paper] or "–", "cls": "paper"})
        out_rows.append({"paper": False, "cells": cells})
    return {"name": "fault_matrix", "title": "Fault matrix: did an altered or stale byte reach the judge?",
            "header": ["case"] + controls + (["paper: first stop"] if paper is not None else []), "rows": out_rows}


def _drilldown(directory: Path) -> dict[str, Any] | None:
    path = directory / "drilldown.jsonl"
    if not path.is_file():
        return None
    records = read_jsonl(path).values
    if not records:
        return None
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict) or not isinstance(record.get("fields"), dict) \
                or not isinstance(record.get("sections"), list):
            raise InputError(f"{path}: record {number}: expected an object with fields and sections")
    shared_path = directory / "drilldown_shared.json"
    return drill_spec(records, read_json(shared_path) if shared_path.is_file() else {})


def drill_spec(records: list[dict[str, Any]], shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the page's drill-down needs: the columns, the filters offered, the records and their shared texts."""
    columns: list[str] = []
    for record in records[:200]:
        for key in record.get("fields", {}):
            if key not in columns:
                columns.append(key)
    first = ("item", "question", "case") + FILTER_FIELDS
    columns.sort(key=lambda c: (first.index(c) if c in first else len(first), c))
    filters = [f for f in FILTER_FIELDS if f in columns]
    return {"columns": columns, "filters": filters, "records": records, "shared": shared or {}}


def study_section(results: Path, key: str, folder: str | None = None) -> dict[str, Any] | None:
    """Everything the page shows of study ``key`` from ``results/folder`` (the folder defaults to the key)."""
    from orgbench.report.definitions import definitions
    from orgbench.report.study_findings import findings
    from orgbench.report.readme import DESCRIPTIONS

    directory = results / (folder or key)
    if not directory.is_dir():
        return None
    tables = []
    for path in sorted(directory.glob("*.csv")):
        if path.name == "faults.csv":
            tables.append(_fault_matrix(path))
        elif path.with_suffix(".md").is_file():  # a published table; other CSVs are figure data
            table = _table(path)
            if table:
                tables.append(table)
    figures = [{"title": p.stem.replace("_", " "), "caption": DESCRIPTIONS.get(p.stem, p.stem.replace("_", " ")),
                "data": base64.b64encode(p.read_bytes()).decode("ascii")} for p in sorted(directory.glob("*.png"))]
    from orgbench.report.leaderboard import leaderboard
    from orgbench.report.readme import judges_present

    names = judges_present(results, {key: folder or key}).get(key, [])
    from judges.backends.registry import is_builtin

    builtin = [n for n in names if is_builtin(n)]
    llm = [n for n in names if n not in builtin]
    provenance = "; ".join(part for part in (
        "built-in: " + ", ".join(builtin) if builtin else "",
        "LLM (OpenAI-compatible endpoint): " + ", ".join(llm) if llm else "") if part)
    from orgbench.studies.descriptor import STUDIES

    descriptor = STUDIES.get(key)
    return {"key": key, "title": study_titles().get(key, key), "intro": descriptor.intro if descriptor else "",
            "provenance": f"Our numbers come from {provenance}." if provenance else "",
            "leaderboard": leaderboard(directory, key), "tables": tables, "figures": figures, "drilldown": _drilldown(directory),
            "findings": findings(results, key, folder), "definitions": definitions(directory, key),
            "has_llm": any(t.get("has_llm") for t in tables)}


def write_report(results: Path, target: Path) -> Path:
    """Write one self-contained index.html for every study found under ``results``."""
    results = Path(results)
    if not results.is_dir():
        raise InputError(f"{results}: no such results directory (run `orgbench reproduce` first)")
    from orgbench.studies.descriptor import STUDIES

    studies = [s for s in (study_section(results, d.name, d.where) for d in STUDIES.all()) if s]
    if not studies:
        raise InputError(f"{results}: holds none of {', '.join(study_titles())}; run `orgbench reproduce` first")
    from orgbench.report.summary import summary_cards

    return render_page(studies, target, "Reproduced by `orgbench reproduce` from seeded worlds; self-contained, "
                                        "no network needed.", summary_cards(results, studies))


def render_page(studies: list[dict[str, Any]], target: Path, subtitle: str,
                summary: list[dict[str, Any]] | None = None) -> Path:
    """Write the page for these studies (as ``study_section`` returns them) to ``target``, ``summary`` cards first."""
    env = Environment(loader=PackageLoader("orgbench.report", "."), autoescape=select_autoescape(["html", "j2"]))
    drill = {s["key"]: s["drilldown"] for s in studies if s["drilldown"]}
    drill_json = json.dumps(drill, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    drill_json = drill_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    html = env.get_template("template.html.j2").render(studies=studies, drill_json=drill_json, subtitle=subtitle,
                                                       summary=summary or [])
    write_text_atomic(Path(target), html)
    return Path(target)


def write_results_readme(results: Path) -> Path:
    """Write results/README.md: what each file shows and where its numbers come from."""
    from orgbench.report.readme import render_results_readme

    text = render_results_readme(Path(results))
    write_text_atomic(Path(results) / "README.md", text)
    return Path(results) / "README.md"
