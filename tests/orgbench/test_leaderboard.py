"""The report's judge leaderboard: shown only for two judges or more, ranked by the study's headline number."""

from __future__ import annotations

import json
from pathlib import Path

from orgbench.report.leaderboard import leaderboard


def _cargo_entry(di: float | None, wall: float) -> dict:
    cond = {"di": di, "ci": [None if di is None else di - 0.1, None if di is None else di + 0.1], "judgments": 10,
            "parse_rate": 0.9, "cannot_decide": 1, "errors": 0, "prompt_tokens": 100, "completion_tokens": 20,
            "cost": None}
    return {"run": "r", "wall_s": wall, "conditions": {"cargo": cond, "direct": {**cond, "di": 0.5}}}


def test_one_judge_or_no_comparison_shows_no_leaderboard(tmp_path: Path):
    assert leaderboard(tmp_path, "cargo") is None
    (tmp_path / "compare.json").write_text(json.dumps({"judges": {"a": _cargo_entry(0.2, 1.0)}}))
    assert leaderboard(tmp_path, "cargo") is None
    assert leaderboard(tmp_path, "unknown-study") is None


def test_cargo_judges_are_ranked_by_di_under_cargo_with_undefined_last(tmp_path: Path):
    judges = {"b": _cargo_entry(0.1, 2.0), "a": _cargo_entry(None, 3.0), "c": _cargo_entry(0.4, 4.5)}
    (tmp_path / "compare.json").write_text(json.dumps({"judges": judges}))
    board = leaderboard(tmp_path, "cargo")
    rows = [[cell["text"] for cell in row["cells"]] for row in board["rows"]]
    assert [r[:3] for r in rows] == [["1", "c", "0.400"], ["2", "b", "0.100"], ["3", "a", "–"]]
    header = board["header"]
    assert rows[0][header.index("judgments")] == "20" and rows[0][header.index("parse rate")] == "0.900"
    assert rows[0][header.index("cannot_decide")] == "2" and rows[0][header.index("wall s")] == "4.500"
    assert rows[0][header.index("95% CI")] == "[0.300, 0.500]"


def test_contrast_judges_are_ranked_by_the_reduction(tmp_path: Path):
    def judge(reduction: float) -> dict:
        g = {"G": 1, "per_trajectory": reduction, "ci": [reduction - 0.2, reduction + 0.2]}
        return {"packets": 8, "draws": 16, "parse_rate": 1.0, "cannot_decide": 0, "unparsed": 0, "flags": 2,
                "wall_s": 9.0, "G": {"original": g, "restored": g, "reduction": g}}

    (tmp_path / "compare.json").write_text(json.dumps({"judges": {"x": judge(0.1), "y": judge(0.3)}}))
    rows = [[c["text"] for c in r["cells"]] for r in leaderboard(tmp_path, "assurance")["rows"]]
    assert [r[:3] for r in rows] == [["1", "y", "0.300"], ["2", "x", "0.100"]]
