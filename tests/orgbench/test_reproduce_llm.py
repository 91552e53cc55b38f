"""`orgbench reproduce` with an LLM judge: a real OpenAI-compatible server on 127.0.0.1 (tests/judges/chat_server.py).

What the results say about where their numbers come from, the README and report
after a single-study run, and the LLM run directory keyed on everything that
changes its answers (judge, endpoint, seeds, suite), with --fresh redoing it.
"""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from tests.judges.chat_server import ChatServer, judge_answer
from tests.orgbench.cdp import Browser, chromium_path

#: every test shares a module fixture that runs reproduce with an LLM judge (about two minutes here)
pytestmark = pytest.mark.slow

JUDGE = "openai:judge-model"
CARGO_REQUESTS = 246 * 13 * 3  # items x (8 conditions + cargo+kinds + 4 rubric-swap cells) x judge seeds 0, 1, 2


def _answer(body: dict) -> str:
    """A 'model' that reads CARGO prompts like builtin:grounded and passes every assurance packet."""
    from judges.backends.base import JudgeRequest, Message
    from judges.backends.builtin import make_builtin

    messages = tuple(Message(m["role"], m["content"]) for m in body["messages"])
    if any("[BEGIN TARGET STEP]" in m.content for m in messages):
        return judge_answer(body)
    verdict = make_builtin("grounded").judge_text(JudgeRequest(messages)).splitlines()[-1]
    return "Let me check the claims.\n```json\n" + verdict + "\n```"


def _reproduce(*args: str):
    result = CliRunner().invoke(cli, ["reproduce", *args])
    return result


@pytest.fixture(scope="module")
def llm(tmp_path_factory):
    """cargo and then assurance reproduced with the LLM judge into one results folder; the server stays up."""
    root = tmp_path_factory.mktemp("reproduce_llm")
    out, work = root / "results", root / "build"
    with ChatServer(answer=_answer) as server:
        common = ["--judge", JUDGE, "--base-url", server.base_url, "--out", str(out), "--work-dir", str(work)]
        first = _reproduce("cargo", *common)
        assert first.exit_code == 0, first.output
        # a single-study run writes the README and the report from what the folder holds
        assert (out / "README.md").is_file() and (out / "index.html").is_file()
        cargo_only_readme = (out / "README.md").read_text(encoding="utf-8")
        requests_after_cargo = server.total
        second = _reproduce("assurance", *common)
        assert second.exit_code == 0, second.output
        yield {"out": out, "work": work, "server": server, "cargo_requests": requests_after_cargo,
               "cargo_only_readme": cargo_only_readme, "common": common}


def _table(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path, encoding="utf-8")))


def test_the_readme_says_which_numbers_come_from_the_llm_and_sets_its_rows_beside_the_papers(llm):
    out = llm["out"]
    assert llm["cargo_requests"] == CARGO_REQUESTS
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "offline" not in readme.split("## cargo")[0].split("built-in (procedural")[0]
    assert f"- cargo — CARGO tables, judges: **LLM** through an OpenAI-compatible endpoint: `{JUDGE}`." in readme
    assert f"- assurance — later-context contrast, judge: **LLM** through an OpenAI-compatible endpoint: `{JUDGE}`." \
        in readme
    assert "No number here comes from an LLM" not in readme and "(built-in step judge)" not in readme
    assert f"(LLM judge `{JUDGE}`)" in readme
    # the comparison table: the paper's column, then the LLM's, with the LLM's numbers from table1
    assert f"| condition | paper P1 / P3 / P2 / P4, DI | {JUDGE} |" in readme
    rows = {r["condition"]: r for r in _table(out / "cargo" / "table1_headline.csv") if r["judge"] == JUDGE}
    assert (rows["cargo"]["P1"], rows["cargo"]["P3"], rows["cargo"]["P2"], rows["cargo"]["P4"], rows["cargo"]["DI"]) \
        == (".02", ".04", "1.00", ".92", ".93")  # the 'model' reads like builtin:grounded
    assert "| cargo | .00 / – / 1.00 / .20, DI .58 | .02 / .04 / 1.00 / .92, DI .93 |" in readme
    assert "| direct | 1.00 / 1.00 / 1.00 / 1.00, DI .00 | 1.00 / 1.00 / 1.00 / 1.00, DI .00 |" in readme
    assert "builtin:grounded" not in readme.split("### Compared with the paper")[1].split("## groundeval")[0]
    notes = (out / "cargo" / "NOTES.md").read_text(encoding="utf-8")
    assert f"`{JUDGE}` at {llm['server'].base_url} (judge seeds 0, 1, 2;" in notes
    assert "built-in judges" not in notes.lower().replace("in place of the built-in judges", "")
    assurance = (out / "assurance" / "NOTES.md").read_text(encoding="utf-8")
    assert "procedural baseline" not in assurance and f"The contrast above is `{JUDGE}`'s" in assurance
    contrast = json.loads((out / "assurance" / "contrast.json").read_text())
    assert contrast["judge"] == JUDGE


def test_a_single_study_run_rewrites_readme_and_report_from_the_complete_study_folders(llm):
    out = llm["out"]
    assert "## cargo" in llm["cargo_only_readme"] and "## assurance" not in llm["cargo_only_readme"]
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "## cargo" in readme and "## assurance" in readme and "## groundeval" not in readme
    html = (out / "index.html").read_text(encoding="utf-8")
    assert f"Our numbers come from LLM (OpenAI-compatible endpoint): {JUDGE}." in html
    assert 'data-table="fault_matrix"' in html and 'data-table="selective_risk"' in html
    # written atomically: no temporary files left (.orgbench.json records which judges' results the folder holds)
    assert [p.name for p in out.glob(".*")] == [".orgbench.json"]


def test_assurance_tables_come_in_markdown_csv_and_latex_with_the_papers_first_stop(llm):
    assurance = llm["out"] / "assurance"
    for stem in ("faults", "contrast"):
        assert {p.suffix for p in assurance.glob(f"{stem}.*")} >= {".md", ".csv", ".tex"}
    tex = (assurance / "contrast.tex").read_text(encoding="utf-8")
    assert "\\begin{tabular}" in tex and "paper (J0) & restored & 2 & 0.067 & -0.05 to 0.21 & 30" in tex
    assert f"orgbench ({JUDGE}) & original & 0 &" in tex  # the passing 'model' flags nothing: G = 0
    faults = {(r["case"], r["control"]): r for r in _table(assurance / "faults.csv")}
    assert faults[("source-result-unknown-id", "P0")]["paper_first_stop"] == "P3: reverse matching"
    assert faults[("extra-stale-script", "P3")]["paper_first_stop"] == "none: unused under P0-P3 (never ran)"
    assert faults[("crlf-before-staging", "P1")]["paper_first_stop"] == "not among the paper's 19 cases"
    md = (assurance / "faults.md").read_text(encoding="utf-8")
    assert "| first stop | paper's first stop |" in md
    assert "| P1: stage (staged-bytes-match-manifest) | P1: staging |" in md  # after-build-delete-call
    ftex = (assurance / "faults.tex").read_text(encoding="utf-8")
    assert "extra-stale-script & altered/stale bytes read & altered/stale bytes read & stopped at dispatch " \
           "(scripts-exact) & stopped at dispatch (scripts-exact) & P2: dispatch (scripts-exact) & none: unused " \
           "under P0-P3 (never ran) \\\\" in ftex
    notes = (assurance / "NOTES.md").read_text(encoding="utf-8")
    assert "\"Three added controls stopped 18 of 19 constructed fault cases before the stub read any\npacket. " \
           "The remaining stale script never ran.\"" in notes
    assert "\"was\nnot among the 19 cases\"" in notes
    assert "missed the CRLF" not in notes and "missed the CRLF" not in (llm["out"] / "README.md").read_text()


def test_selective_risk_reports_the_coverage_reached_beside_each_target(llm):
    cargo = llm["out"] / "cargo"
    rows = _table(cargo / "selective_risk.csv")
    reached = "coverage reached (smallest ≥ target)"
    assert [r["target coverage"] for r in rows] == ["0.50", "0.80", "0.90", "1.00"]
    assert all(float(r[reached]) >= float(r["target coverage"]) for r in rows)
    scores = json.loads((cargo / "scores.json").read_text())
    gating = scores["gating"][0]["selective_risk"]
    assert set(gating["0.9"]) == {"target_coverage", "coverage_reached", "risk", "tau"}
    assert gating["0.9"]["target_coverage"] == 0.9
    curve = [r for r in _table(cargo / "risk_coverage.csv") if r["judge"] == JUDGE]
    achievable = sorted(float(r["coverage"]) for r in curve)
    # the reached coverage is the smallest any τ gives that is at least the target
    for row in rows:
        target = float(row["target coverage"])
        assert float(row[reached]) == pytest.approx(min(c for c in achievable if c >= target - 1e-9), abs=5e-4)
    md = (cargo / "selective_risk.md").read_text(encoding="utf-8")
    assert "smallest coverage any threshold τ gives that is at least the target" in md
    assert "\\begin{tabular}" in (cargo / "selective_risk.tex").read_text(encoding="utf-8")


def test_llm_run_directory_is_keyed_on_what_changes_its_answers_and_fresh_redoes_it(llm, tmp_path):
    server, work = llm["server"], llm["work"]  # the fixture's cache; results go elsewhere
    out = tmp_path / "results"
    common = ["--judge", JUDGE, "--base-url", server.base_url, "--out", str(out), "--work-dir", str(work)]
    runs = work / "cargo" / "runs"

    def llm_runs() -> list[str]:
        return sorted(p.name for p in runs.iterdir() if p.name.startswith("openai-judge-model-"))

    first_runs = llm_runs()
    assert len(first_runs) == 1
    # the same settings resume the same run: nothing is asked again
    before = server.total
    again = _reproduce("cargo", *common)
    assert again.exit_code == 0, again.output
    assert server.total == before and llm_runs() == first_runs

    # another endpoint: its own directory, every request asked there
    with ChatServer(answer=_answer) as other:
        moved = _reproduce("cargo", "--judge", JUDGE, "--base-url", other.base_url, "--out", str(out),
                           "--work-dir", str(work))
        assert moved.exit_code == 0, moved.output
        assert other.total == CARGO_REQUESTS
    assert len(llm_runs()) == 2

    # --fresh redoes the run (and its cache) in place
    before = server.total
    fresh = _reproduce("cargo", *common, "--fresh")
    assert fresh.exit_code == 0, fresh.output
    assert server.total == before + CARGO_REQUESTS and len(llm_runs()) == 2

    # other world seeds: another suite, so another run directory
    seeds = _reproduce("cargo", *common, "--seeds", "1-10")
    assert seeds.exit_code == 0, seeds.output
    assert len(llm_runs()) == 3
    assert "seeds 1, 2, 3, 4, 5, 6, 7, 8, 9, 10" in (out / "cargo" / "NOTES.md").read_text(encoding="utf-8")

    # a folder holding the model's results is not replaced by another judge's unless asked (--overwrite)
    refused = _reproduce("cargo", "--judge", "builtin:grounded", "--out", str(out), "--work-dir", str(work))
    assert refused.exit_code == 2 and f"holds the results of {JUDGE}, not of builtin:grounded" in refused.output
    # a built-in judge named with --judge is the cached built-in stage (one judge seed), reused on a rerun
    for _ in range(2):
        builtin = _reproduce("cargo", "--judge", "builtin:grounded", "--out", str(out), "--work-dir", str(work),
                             "--overwrite")
        assert builtin.exit_code == 0, builtin.output
    run = json.loads((runs / "builtin-grounded" / "run.json").read_text())
    assert run["parameters"]["seeds"] == [0]
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "- cargo — CARGO tables, judges: built-in (procedural, offline, deterministic): `builtin:grounded`." in readme


@pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")
def test_the_llm_report_renders_its_rows_the_papers_first_stops_and_selective_risk(llm, tmp_path):
    from orgbench.report import write_report

    page = write_report(llm["out"], tmp_path / "index.html")

    async def drive():
        async with Browser() as browser:
            await browser.open(page)
            matrix = await browser.table_rows("table[data-table=fault_matrix] tr")
            risk = await browser.table_rows("table[data-table=selective_risk] tr")
            notes = await browser.evaluate(
                "Array.from(document.querySelectorAll('p.provenance')).map(p => p.textContent)")
            return matrix, risk, notes, browser.console_errors

    matrix, risk, notes, errors = asyncio.run(drive())
    assert matrix[0][-1] == "paper: first stop"
    by_case = {row[0]: row for row in matrix[1:]}
    assert by_case["source-result-unknown-id"][-1] == "P3: reverse matching"
    assert by_case["crlf-before-staging"][-1] == "not among the paper's 19 cases"
    assert risk[0][:4] == ["judge", "condition", "target coverage", "coverage reached (smallest ≥ target)"]
    assert [r[2] for r in risk[1:]] == ["0.50", "0.80", "0.90", "1.00"]
    assert notes == [f"Our numbers come from LLM (OpenAI-compatible endpoint): {JUDGE}."] * 2
    assert errors == []
