"""The judge leaderboard of a study: one row per judge (or model agent) from the study's ``compare.json``.

``orgbench reproduce --judge A --judge B`` (and ``orgbench compare --out``
into a study folder) writes ``compare.json``; when it holds two judges or
more, the report shows their rows ranked by the study's headline number:
CARGO DI under the CARGO condition (with its CI), GroundEval S_adj,
the contrast's G reduction per trajectory (with its CI); beside it the parse
rate, abstentions, tokens and wall time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from orgbench.core.storage import read_json


def _f(x: Any) -> str:
    return "–" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def _ci(pair: Any) -> str:
    return f"[{_f(pair[0])}, {_f(pair[1])}]" if pair else "–"


def _cargo(result: Mapping[str, Any]) -> tuple[list[str], list[tuple[float | None, list[str]]]]:
    header = ["judge", "DI (cargo)", "95% CI", "DI (direct)", "95% CI", "judgments", "parse rate", "cannot_decide",
              "errors", "prompt tokens", "completion tokens", "wall s"]
    rows = []
    for judge, entry in result.get("judges", {}).items():
        conds = list(entry["conditions"].values())
        n = sum(c["judgments"] for c in conds)
        parsed = sum(round((c["parse_rate"] or 0) * c["judgments"]) for c in conds)
        cargo, direct = entry["conditions"].get("cargo") or {}, entry["conditions"].get("direct") or {}
        rows.append((cargo.get("di"), [judge, _f(cargo.get("di")), _ci(cargo.get("ci")), _f(direct.get("di")),
                                       _ci(direct.get("ci")), str(n), _f(parsed / n) if n else "–",
                                       str(sum(c["cannot_decide"] for c in conds)),
                                       str(sum(c["errors"] for c in conds)),
                                       str(sum(c["prompt_tokens"] for c in conds)),
                                       str(sum(c["completion_tokens"] for c in conds)), _f(entry.get("wall_s"))]))
    return header, rows


def _groundeval(result: Mapping[str, Any]) -> tuple[list[str], list[tuple[float | None, list[str]]]]:
    header = ["agent", "S_adj", "S_answer", "S_traj", "contracts", "violation rate", "correct, invalid path", "wall s"]
    rows = []
    for agent, entry in result.get("agents", {}).items():
        a = entry["tracks"].get("all") or {}
        rows.append((a.get("s_adj"), [agent, _f(a.get("s_adj")), _f(a.get("s_answer")), _f(a.get("s_traj")),
                                      str(a.get("n", 0)), _f(a.get("violation_rate")),
                                      str(a.get("correct_invalid_path", 0)), _f(entry.get("wall_s"))]))
    return header, rows


def _assurance(result: Mapping[str, Any]) -> tuple[list[str], list[tuple[float | None, list[str]]]]:
    header = ["judge", "G reduction per trajectory", "95% CI", "G original", "G restored", "packets", "draws",
              "parse rate", "cannot_decide", "unparsed", "wall s"]
    rows = []
    for judge, row in result.get("judges", {}).items():
        g = row["G"]
        rows.append((g["reduction"]["per_trajectory"], [
            judge, _f(g["reduction"]["per_trajectory"]), _ci(g["reduction"]["ci"]), str(g["original"]["G"]),
            str(g["restored"]["G"]), str(row["packets"]), str(row["draws"]), _f(row["parse_rate"]),
            str(row["cannot_decide"]), str(row["unparsed"]), _f(row.get("wall_s"))]))
    return header, rows


BUILDERS: dict[str, tuple[Callable, str]] = {
    "cargo": (_cargo, "ranked by DI under the CARGO condition (higher is better)"),
    "groundeval": (_groundeval, "ranked by mean S_adj (higher is better)"),
    "assurance": (_assurance, "ranked by the G reduction per trajectory (what restoring the calls removes)"),
}


def leaderboard(directory: Path, key: str) -> dict[str, Any] | None:
    """The leaderboard table of study ``key`` from ``directory/compare.json``, or None (absent, or one judge)."""
    path = Path(directory) / "compare.json"
    if key not in BUILDERS or not path.is_file():
        return None
    build, order = BUILDERS[key]
    header, rows = build(read_json(path))
    if len(rows) < 2:
        return None
    ranked = sorted(rows, key=lambda r: (r[0] is None, -(r[0] or 0.0), r[1][0]))
    return {"name": "leaderboard", "title": f"Judge leaderboard ({order})", "header": ["rank", *header],
            "rows": [{"paper": False, "kind": "llm", "first": False,
                      "cells": [{"text": str(i), "cls": ""}] + [{"text": c, "cls": ""} for c in cells]}
                     for i, (_, cells) in enumerate(ranked, start=1)]}
