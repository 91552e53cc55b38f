"""`orgbench reproduce --quick --judge A --judge B`: every study's model stages, the comparisons, README and report.

Two model judges (``openai:model-a`` and ``openai:model-b``) answer through the
in-repo chat server on 127.0.0.1; the real llama.cpp path is the same code
with ``local:`` specs (tests/judges/test_backends_local.py starts real servers).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from orgbench.studies.models import QUICK
from tests.judges.chat_server import ChatServer
from tests.orgbench.cdp import Browser, chromium_path

#: the fixture builds the default CARGO suite, a GroundEval world and an assurance world (about a minute)
pytestmark = pytest.mark.slow

JUDGES = ("openai:model-a", "openai:model-b")
CONDITION_CELLS = 13          # 8 conditions + cargo+kinds + 4 rubric-swap cells
PACKETS_PER_TRAJECTORY = 8


def _answer(body: dict) -> str:
    """model-b fails every CARGO item and assurance packet, model-a passes them; agents answer at once."""
    from tests.judges.chat_server import judge_answer

    text = judge_answer(body)
    return text.replace('"pass"', '"fail"') if body.get("model") == "model-b" else text


def _reproduce(server: ChatServer, root: Path):
    args = ["reproduce", "--quick", *(f"--judge={j}" for j in JUDGES), "--base-url", server.base_url,
            "--work-dir", str(root / "build"), "--out", str(root / "results-local")]
    return CliRunner().invoke(cli, args)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    root = tmp_path_factory.mktemp("quick")
    with ChatServer(answer=_answer) as server:
        first = _reproduce(server, root)
        assert first.exit_code == 0, first.output
        asked = server.total
        files = {p.relative_to(root): p.read_bytes() for p in (root / "results-local").rglob("*") if p.is_file()}
        second = _reproduce(server, root)
        assert second.exit_code == 0, second.output
        yield {"out": root / "results-local", "asked": asked, "again": server.total - asked, "files": files,
               "root": root, "bodies": list(server.bodies)}


def test_every_study_asks_each_model_the_documented_subset_once(quick):
    cargo = 4 * QUICK.cargo_per_family * CONDITION_CELLS
    contrast = QUICK.contrast_trajectories * PACKETS_PER_TRAJECTORY * 2
    per_model = {m: sum(1 for b in quick["bodies"] if b.get("model") == m) for m in ("model-a", "model-b")}
    for model, n in per_model.items():
        agent = n - cargo - contrast        # each agent turn is one request; at least one per contract
        assert agent >= QUICK.groundeval_contracts, (model, n)
    assert quick["asked"] == sum(per_model.values())
    assert quick["again"] == 0          # the rerun reuses every stage: nothing is asked again
    out = quick["out"]
    again = {p.relative_to(quick["root"]): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert again == quick["files"]      # and writes the same bytes
    verdicts = (out / "cargo" / "verdicts.csv").read_text().splitlines()
    assert verdicts[0] == "judge,condition,family,pass,fail,cannot_decide,unparsed"
    assert sum(int(line.split(",")[3]) for line in verdicts[1:] if line.startswith("openai:model-a")) == cargo
    assert sum(int(line.split(",")[4]) for line in verdicts[1:] if line.startswith("openai:model-b")) == cargo


def test_the_comparisons_hold_both_models_in_every_study(quick):
    out = quick["out"]
    cargo = json.loads((out / "cargo" / "compare.json").read_text())
    assert sorted(cargo["judges"]) == sorted(JUDGES)
    # model-a passes everything, model-b fails everything: DI 0 each, no agreement beyond chance possible
    assert cargo["judges"]["openai:model-b"]["conditions"]["cargo"]["di"] == 0.0
    assert cargo["judges"]["openai:model-a"]["conditions"]["direct"]["parse_rate"] == 1.0
    pair = next(p for p in cargo["agreement"]["cargo"]["judges"])
    assert (pair["a"], pair["b"], pair["items"]) == ("openai:model-a", "openai:model-b", 4 * QUICK.cargo_per_family)
    ge = json.loads((out / "groundeval" / "compare.json").read_text())
    assert sorted(ge["agents"]) == sorted(JUDGES) and len(ge["pairs"]) == 1
    assert ge["agents"]["openai:model-a"]["tracks"]["all"]["n"] == QUICK.groundeval_contracts
    # the test server's agents answer in text at once: one turn per contract, none calling a tool
    assert (ge["agents"]["openai:model-a"]["turns"], ge["agents"]["openai:model-a"]["tool_call_turns"]) == \
        (QUICK.groundeval_contracts, 0)
    contrast = json.loads((out / "assurance" / "compare.json").read_text())
    assert contrast["trajectories"] == QUICK.contrast_trajectories
    packets = QUICK.contrast_trajectories * PACKETS_PER_TRAJECTORY
    assert contrast["judges"]["openai:model-b"]["flags"] == packets   # fails every packet
    assert contrast["judges"]["openai:model-a"]["flags"] == 0
    readme = (out / "README.md").read_text()
    assert "orgbench reproduce --judge openai:model-a --judge openai:model-b --quick" in readme
    cargo_judgments = 4 * QUICK.cargo_per_family * CONDITION_CELLS
    row = f"| `openai:model-b` | {cargo_judgments} | {cargo_judgments}/{cargo_judgments} = 1.000 |"
    assert "is **not** evidence" in readme and row in readme


@pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")
def test_the_report_shows_a_leaderboard_per_study_in_chromium(quick):
    async def look() -> dict:
        async with Browser() as browser:
            await browser.open(quick["out"] / "index.html")
            boards = {}
            for study in ("cargo", "groundeval", "assurance"):
                boards[study] = await browser.table_rows(f"section#{study} table[data-table=leaderboard] tr")
            return {"boards": boards, "errors": browser.console_errors}

    seen = asyncio.run(look())
    assert seen["errors"] == []
    for study, rows in seen["boards"].items():
        assert [r[0] for r in rows[1:]] == ["1", "2"], (study, rows)
        assert sorted(r[1] for r in rows[1:]) == sorted(JUDGES)
    assert seen["boards"]["cargo"][0][:4] == ["rank", "judge", "DI (cargo)", "95% CI"]
    judgments = str(4 * QUICK.cargo_per_family * CONDITION_CELLS)
    assert seen["boards"]["cargo"][1][6:8] == [judgments, "1.000"]         # judgments, parse rate
