"""CARGO tables as one comparison per condition: the paper's row, then one row per judge with its difference.

Rows of built-in judges carry the class ``builtin``; the report hides them
behind a toggle when an LLM judge ran, and otherwise shows the two built-in
judges the findings discuss (literal, grounded) with the rest behind it.
"""

from __future__ import annotations

from typing import Any

from benchmark_builders.cargo.records import FAMILIES as CARGO_FAMILIES, families_in
from judges.backends.registry import is_builtin
from orgbench.report.findings import short
from orgbench.studies.descriptor import BESIDE_PAPER

#: The columns compared with the paper in every CARGO table (a plugin family present adds its own).
FAMILIES = (*families_in(()), "DI")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def is_comparison(header: list[str]) -> bool:
    """True for a table with condition and judge columns and the family rates (CARGO Tables 1–3)."""
    return {"condition", "judge", *FAMILIES} <= set(header)


def comparison_table(name: str, title: str, header: list[str], body: list[list[str]]) -> dict[str, Any]:
    """The table as per-condition groups: the paper row first, each judge's row with Δ vs the paper."""
    rows = [dict(zip(header, row)) for row in body]
    judges = list(dict.fromkeys(r["judge"] for r in rows))
    has_llm = any(not is_builtin(j) and not j.startswith("paper") for j in judges)
    keep = [h for h in header if h not in ("cannot_decide", "unparsed")]
    compared = [f for f in CARGO_FAMILIES if f in header] + ["DI"]
    out_header = keep + [f"Δ{f}" for f in compared]
    out_rows = []
    for condition in dict.fromkeys(r["condition"] for r in rows):
        group = [r for r in rows if r["condition"] == condition]
        paper = next((r for r in group if r["judge"].startswith("paper")), None)
        ordered = ([paper] if paper else []) + [r for r in group if r is not paper]
        for index, row in enumerate(ordered):
            cells = [{"text": row.get(h, ""), "cls": "cond" if h == "condition" and index else ""} for h in keep]
            for family in compared:
                ours, theirs = _number(row.get(family, "")), _number(paper.get(family, "")) if paper else None
                text = short(ours - theirs, signed=True) if row is not paper and ours is not None \
                    and theirs is not None else ""
                cells.append({"text": text, "cls": "delta"})
            judge = row["judge"]
            kind = "paper" if row is paper else "llm" if not is_builtin(judge) else \
                "builtin" if not has_llm and judge in BESIDE_PAPER else "builtin extra"
            out_rows.append({"paper": row is paper, "kind": kind, "first": index == 0, "cells": cells})
    return {"name": name, "title": title, "header": out_header, "rows": out_rows, "comparison": True,
            "has_llm": has_llm}
