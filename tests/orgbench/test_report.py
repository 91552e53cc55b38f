"""The HTML report renders in headless Chromium: tables, figures, drill-down, no console errors."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest

from orgbench.report import write_report
from orgbench.core.errors import InputError
from tests.orgbench.cdp import Browser, chromium_path

needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")


def _png(path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    fig.savefig(path)
    plt.close(fig)


@pytest.fixture()
def small_results(tmp_path: Path) -> Path:
    cargo = tmp_path / "cargo"
    cargo.mkdir()
    with open(cargo / "table1_headline.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["condition", "source", "P1", "P3", "P2", "P4", "DI"])
        writer.writerow(["CARGO+Auth", "paper (gpt-oss-120b)", ".00", ".04", "1.00", ".20", ".57"])
        writer.writerow(["CARGO+Auth", "builtin:grounded", ".00", ".01", "1.00", ".94", ".96"])
    (cargo / "table1_headline.md").write_text("### Table 1: headline conditions\n")
    _png(cargo / "risk_coverage.png")
    records = [
        {"id": f"item-{i}", "title": f"Item {i}", "fields": {"family": fam, "condition": "cargo", "outcome": out},
         "sections": [{"heading": "Candidate", "text": f"candidate text {i} <b>not bold</b>"},
                      {"heading": "Claims", "columns": ["claim", "status"], "rows": [["a", "supported"]]}]}
        for i, (fam, out) in enumerate([("P1", "pass"), ("P2", "fail"), ("P4", "fail")])
    ]
    (cargo / "drilldown.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return tmp_path


def test_report_is_self_contained(small_results: Path) -> None:
    html = write_report(small_results, small_results / "index.html").read_text()
    assert "http://" not in html and "https://" not in html
    assert "data:image/png;base64," in html
    assert "<b>not bold</b>" not in html  # drill-down text is data, never markup


def test_report_refuses_a_missing_results_dir(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such results directory"):
        write_report(tmp_path / "nope", tmp_path / "index.html")


@needs_chromium
def test_report_renders_in_chromium(small_results: Path, tmp_path: Path) -> None:
    page = write_report(small_results, small_results / "index.html")

    async def drive():
        async with Browser() as browser:
            await browser.open(page)
            cells = await browser.evaluate(
                "Array.from(document.querySelectorAll('table[data-table=table1_headline] td')).map(td => td.textContent)")
            image_ok = await browser.evaluate(
                "Array.from(document.images).every(img => img.complete && img.naturalWidth > 0)")
            await browser.evaluate("document.querySelector('select[data-filter=family]').value = 'P2';"
                                   "document.querySelector('select[data-filter=family]').dispatchEvent(new Event('change'))")
            rows = await browser.evaluate("document.querySelectorAll('.drill .rows tbody tr').length")
            await browser.evaluate("document.querySelector('.drill .rows tbody tr').click()")
            detail = await browser.evaluate("document.querySelector('.drill .detail').textContent")
            shot = await browser.screenshot(tmp_path / "report.png")
            return cells, image_ok, rows, detail, shot, browser.console_errors

    cells, image_ok, rows, detail, shot, errors = asyncio.run(drive())
    assert cells[:7] == ["CARGO+Auth", "paper (gpt-oss-120b)", ".00", ".04", "1.00", ".20", ".57"]
    assert ".96" in cells
    assert image_ok is True
    assert rows == 1
    assert "candidate text 1 <b>not bold</b>" in detail and "supported" in detail
    assert shot.stat().st_size > 10_000
    assert errors == []


RESULTS = Path(__file__).resolve().parents[2] / "results"


@pytest.mark.slow          # renders every study's report (5-8 s, loaded machine)
@needs_chromium
@pytest.mark.skipif(not (RESULTS / "cargo").is_dir(), reason="results/ not committed")
def test_the_committed_report_renders_every_study(tmp_path: Path) -> None:
    """The real results: Table 1 with the paper's row, the fault matrix, figures and drill-downs, no console errors."""
    page = write_report(RESULTS, tmp_path / "index.html")
    table1 = list(csv.reader(open(RESULTS / "cargo" / "table1_headline.csv", encoding="utf-8")))
    grounded = next(r for r in table1 if r[0] == "cargo+auth" and r[1] == "builtin:grounded")
    faults = list(csv.DictReader(open(RESULTS / "assurance" / "faults.csv", encoding="utf-8")))

    async def drive():
        async with Browser() as browser:
            await browser.open(page)
            rows = await browser.table_rows("table[data-table=table1_headline] tr")
            matrix = await browser.table_rows("table[data-table=fault_matrix] tbody tr")
            images = await browser.evaluate(
                "Array.from(document.images).map(img => [img.alt, img.complete && img.naturalWidth > 0])")
            studies = await browser.evaluate(
                "Array.from(document.querySelectorAll('.drill')).map(d => d.getAttribute('data-study'))")
            await browser.evaluate("var s = document.querySelector('#groundeval select[data-filter=track]');"
                                   "s.value = 'silence'; s.dispatchEvent(new Event('change'));"
                                   "document.querySelector('#groundeval .rows tbody tr').click()")
            detail = await browser.evaluate("document.querySelector('#groundeval .detail').textContent")
            await browser.screenshot(tmp_path / "report.png")
            return rows, matrix, images, studies, detail, browser.console_errors

    rows, matrix, images, studies, detail, errors = asyncio.run(drive())
    assert ["cargo+auth", "paper: gpt-oss-120b", ".00", ".04", "1.00", ".20", ".57", "[.47, .67]"] == rows[
        next(i for i, r in enumerate(rows) if r[:2] == ["cargo+auth", "paper: gpt-oss-120b"])][:8]
    assert grounded[:8] in [r[:8] for r in rows]
    assert len(matrix) == len({f["case"] for f in faults}) == 22
    p3 = [r[4] for r in matrix]
    assert not any(cell == "reached judge" for cell in p3)  # under P3 nothing reached the judge
    assert all(r[1] == "reached judge" for r in matrix if not r[0].startswith("control"))  # under P0 every fault did
    assert images and all(ok for _, ok in images)
    assert sorted(studies) == ["assurance", "cargo", "groundeval"]
    assert detail.startswith("SIL-") and "Tool calls (gates re-derived)" in detail
    assert "horizon" in detail and "subsystem" in detail  # each call's gate outcome is shown
    assert errors == []
