"""results/README.md is written from what the results hold: which judges and agents, which files."""

from __future__ import annotations

import json
from pathlib import Path

from orgbench.report.readme import judges_present, render_results_readme

HEADER = "condition,judge,P1,P3,P2,P4,DI,CI95,judged,cannot_decide,unparsed\n"


def _cargo(root: Path, judges: list[str]) -> None:
    cargo = root / "cargo"
    cargo.mkdir(parents=True)
    rows = ["cargo,paper: gpt-oss-120b,.00,–,1.00,.20,.58,\"[.48, .68]\",–,–,–"]
    rows += [f"cargo,{j},.10,.20,.90,.80,.70,\"[.6, .8]\",246,0,0" for j in judges]
    (cargo / "table1_headline.csv").write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    (cargo / "scores.json").write_text(json.dumps({"runs": [{"judge": j} for j in judges], "gating": []}))


def _groundeval(root: Path, agents: list[str]) -> None:
    ge = root / "groundeval"
    ge.mkdir(parents=True)
    (ge / "summary.json").write_text(json.dumps({"agents": {a: {} for a in agents}}))
    (ge / "agents_by_track.png").write_bytes(b"\x89PNG\r\n\x1a\n")


def test_built_in_results_say_no_number_comes_from_an_llm(tmp_path: Path) -> None:
    _cargo(tmp_path, ["builtin:literal", "builtin:grounded"])
    _groundeval(tmp_path, ["bm25", "oracle"])
    text = render_results_readme(tmp_path)
    assert judges_present(tmp_path) == {"cargo": ["builtin:literal", "builtin:grounded"],
                                        "groundeval": ["bm25", "oracle"]}
    assert "No number here comes from an LLM." in text and "**LLM**" not in text
    assert "| condition | paper P1 / P3 / P2 / P4, DI | builtin:grounded | builtin:literal |" in text
    assert "| cargo | .00 / – / 1.00 / .20, DI .58 | .10 / .20 / .90 / .80, DI .70 | .10 / .20 / .90 / .80, DI .70 |" \
        in text
    # a figure gets a real description, not "PNG figure (PNG figure)"
    assert "| `groundeval/agents_by_track.png` | S_answer beside S_adj per agent, one panel per track" in text
    assert "PNG figure (PNG figure)" not in text


def test_an_llm_beside_built_in_judges_gets_its_own_column_and_is_named_as_an_llm(tmp_path: Path) -> None:
    _cargo(tmp_path, ["builtin:grounded", "openai:qwen"])
    _groundeval(tmp_path, ["bm25", "openai:qwen"])
    text = render_results_readme(tmp_path)
    assert "| condition | paper P1 / P3 / P2 / P4, DI | openai:qwen | builtin:grounded |" in text
    assert ("- cargo — CARGO tables, judges: built-in (procedural, offline, deterministic): `builtin:grounded`; "
            "**LLM** through an OpenAI-compatible endpoint: `openai:qwen`.") in text
    assert ("- groundeval — GroundEval tables, agents: built-in (procedural, offline, deterministic): `bm25`; "
            "**LLM** through an OpenAI-compatible endpoint: `openai:qwen`.") in text
    assert "No number here comes from an LLM" not in text
    assert "Beside it: `openai:qwen` (an LLM judge" in text
