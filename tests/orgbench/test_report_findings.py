"""The committed report explains itself: findings recomputed from the results files, definitions, figures at
natural size or their card's width, the per-condition comparison with its built-in toggle, and drill-down rows beyond the 500th.

The findings' numbers are recomputed here by a reader written apart from orgbench.report.findings: it
parses each number's source key and reads the CSV / JSON files itself.
"""

from __future__ import annotations

import asyncio
import csv
import json
import re
from pathlib import Path

import pytest

from orgbench.report import write_report
from tests.orgbench.cdp import Browser, chromium_path

RESULTS = Path(__file__).resolve().parents[2] / "results"
pytestmark = [pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed"),
              pytest.mark.skipif(not (RESULTS / "cargo").is_dir(), reason="results/ not committed")]


def _csv(path: str, root: Path = RESULTS) -> list[dict[str, str]]:
    with open(root / path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _signed(value: float) -> str:
    return f"{value:+.2f}".replace("+0.", "+.").replace("-0.", "-.")


def recompute(key: str, root: Path = RESULTS) -> str:
    """The text a number with this source key must show, read from the results files under ``root``."""
    kind, _, rest = key.partition(":")
    if kind == "diff":
        first, second = rest.split("~")
        return _signed(float(recompute(first, root)) - float(recompute(second, root)))
    path, *parts = rest.split("|")
    if kind == "json":
        value = json.loads((root / path).read_text(encoding="utf-8"))
        for name in parts[0].split("."):
            value = value[name]
        return f"{value:.3f}" if isinstance(value, float) else str(value)
    rows = _csv(path, root)
    *conditions, target = parts
    for cond in conditions:
        if "!^" in cond:
            name, prefix = cond.split("!^", 1)
            rows = [r for r in rows if not r[name].startswith(prefix)]
        elif "^" in cond:
            name, prefix = cond.split("^", 1)
            rows = [r for r in rows if r[name].startswith(prefix)]
        else:
            name, value = cond.split("=", 1)
            rows = [r for r in rows if r[name] == value]
    if kind == "count":
        return str(len({r[target[1:]] for r in rows}))
    assert kind == "csv" and len(rows) == 1, key
    return rows[0][target[1:]]


async def _toggle(browser: Browser, cells: str) -> tuple[list, list]:
    """Table 1's visible rows (``cells`` of each ``tr``) before and after ticking the built-in toggle."""
    visible = ("Array.from(document.querySelectorAll('table[data-table=table1_headline] tbody tr'))"
               f".filter(tr => tr.offsetParent !== null).map(tr => {cells})")
    before = await browser.evaluate(visible)
    await browser.evaluate("document.querySelector('#cargo input.show-builtin').click()")
    return before, await browser.evaluate(visible)


def _drive(page: Path, shot: Path):
    async def go():
        async with Browser() as browser:
            await browser.open(page)
            spans = await browser.evaluate(
                "Array.from(document.querySelectorAll('.findings .num')).map(s => [s.dataset.key, s.textContent])")
            boxes = await browser.evaluate(
                "Array.from(document.querySelectorAll('section.study')).map(s => {"
                " const f = s.querySelector('.findings'); const c = f ? f.cloneNode(true) : null;"
                " if (c) c.querySelectorAll('.num, .name').forEach(x => x.remove());"
                " return [s.id, f ? Array.from(f.querySelectorAll('h3')).map(h => h.textContent) : [],"
                " c ? c.textContent : '', Array.from(s.querySelectorAll('dl.defs dt')).map(d => d.textContent)]})")
            images = await browser.evaluate(
                "Array.from(document.images).map(i => [i.alt, i.naturalWidth, i.clientWidth])")
            before, after = await _toggle(browser, "tr.children[1].textContent")
            paging = await browser.evaluate(
                "var box = document.querySelector('#cargo .drill'); var s = box.querySelector('select[data-filter=family]');"
                "s.value = 'P3'; s.dispatchEvent(new Event('change'));"
                "box.querySelector('.next').click(); box.querySelector('.next').click();"
                "var rows = box.querySelectorAll('.rows tbody tr'); rows[rows.length - 1].click();"
                "[box.querySelector('.count').textContent, rows.length, rows[rows.length - 1].dataset.id,"
                " box.querySelector('.detail h4').textContent]")
            await browser.screenshot(shot)
            return spans, boxes, images, before, after, paging, browser.console_errors
    return asyncio.run(go())


@pytest.mark.slow          # the committed report in Chromium (4-6 s, loaded machine)
def test_the_report_explains_itself(tmp_path: Path) -> None:
    page = write_report(RESULTS, tmp_path / "index.html")
    spans, boxes, images, before, after, paging, errors = _drive(page, tmp_path / "report.png")
    assert errors == []

    # every number in a findings box comes from a results file, and says what that file says
    assert len(spans) > 30
    for key, text in spans:
        assert text == recompute(key), key
    for study, headings, text, terms in boxes:
        assert headings == ["What it shows", "Compared with the paper", "Built-in and LLM"], study
        stripped = re.sub(r"\bP[0-4]\b|\bJ0\b|95%|S_\w+|CARGO\+Auth|P0–P3|P1–P3|\borgbench-\d+\b", "", text)
        assert not re.search(r"\d", stripped), (study, stripped)       # no number typed into the prose
        assert terms, study
    defs = {study: terms for study, _, _, terms in boxes}
    assert {"P1 entity transplant", "P4 procedural corruption", "DI", "Δ vs paper"} <= set(defs["cargo"])
    assert {"S_answer", "S_traj", "S_adj", "v (violation rate)", "Perspective", "Silence"} <= set(defs["groundeval"])
    assert {"P0–P3", "G", "reached judge"} <= set(defs["assurance"])
    assert any("publishes no table" in text for study, _, text, _ in boxes if study == "groundeval")

    # figures at their natural size, or shrunk to fit their card (max-width: 100%)
    assert len(images) >= 2 and all(0 < shown <= natural for _, natural, shown in images), images

    # one comparison per condition: the paper's row, then literal and grounded; the other built-ins on request
    table1 = _csv("cargo/table1_headline.csv")
    conditions = list(dict.fromkeys(r["condition"] for r in table1))
    assert before == [j for _ in conditions for j in ("paper: gpt-oss-120b", "builtin:literal", "builtin:grounded")]
    assert len(after) == len(table1) and sorted(after) == sorted(r["judge"] for r in table1)

    # the drill-down pages past its 500th row: P3 has 96 items x every condition
    p3 = sum(1 for line in (RESULTS / "cargo" / "drilldown.jsonl").read_text().splitlines()
             if json.loads(line)["fields"]["family"] == "P3")
    count, listed, last_id, title = paging
    assert p3 > 600 and count.startswith(f"rows 401–600 of {p3} matching") and listed == 200
    ordered = [json.loads(line)["id"] for line in (RESULTS / "cargo" / "drilldown.jsonl").read_text().splitlines()
               if json.loads(line)["fields"]["family"] == "P3"]
    assert ordered.index(last_id) == 599 and title.startswith(last_id.split(".")[0])


def test_an_llm_judge_is_compared_with_the_paper_and_built_ins_fold_away(tmp_path: Path) -> None:
    """With an LLM's rows, the page shows the paper and the LLM per condition; the built-ins behind the toggle."""
    cargo = tmp_path / "cargo"
    cargo.mkdir()
    header = "condition,judge,P1,P3,P2,P4,DI,CI95,judged,cannot_decide,unparsed\n"
    rows = [f"{c},paper: gpt-oss-120b,.00,.04,1.00,.20,.57,\"[.47, .67]\",–,–,–" for c in ("direct", "cargo+auth")]
    rows += [f"{c},{j},.10,.20,.90,.60,.62,\"[.50, .70]\",20,0,0" for c in ("direct", "cargo+auth")
             for j in ("builtin:literal", "builtin:grounded", "openai:m")]
    (cargo / "table1_headline.csv").write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    (cargo / "table1_headline.md").write_text("### Table 1: headline conditions\n", encoding="utf-8")
    page = write_report(tmp_path, tmp_path / "index.html")

    async def go():
        async with Browser() as browser:
            await browser.open(page)
            before, after = await _toggle(browser, "[tr.children[1].textContent, tr.lastChild.textContent]")
            spans = await browser.evaluate(
                "Array.from(document.querySelectorAll('.findings .num')).map(s => [s.dataset.key, s.textContent])")
            text = await browser.evaluate("document.querySelector('.findings').textContent")
            return before, after, spans, text, browser.console_errors

    before, after, spans, text, errors = asyncio.run(go())
    assert errors == []
    assert before == [["paper: gpt-oss-120b", ""], ["openai:m", "+.05"]] * 2       # ΔDI = .62 − .57
    assert len(after) == 8
    assert "LLM judges: openai:m" in text and "builtin:grounded" in text
    assert spans and all(value == recompute(key, tmp_path) for key, value in spans)
    assert any(key.startswith("diff:") and "judge=openai:m" in key for key, _ in spans)


def _widths(page: Path, shots: Path):
    async def go():
        out = {}
        async with Browser() as browser:
            for width in (1024, 1280):
                await browser.send("Emulation.setDeviceMetricsOverride", width=width, height=768, deviceScaleFactor=1,
                                   mobile=False)
                await browser.open(page)
                out[width] = await browser.evaluate(
                    "({overflow: document.documentElement.scrollWidth - window.innerWidth,"
                    " wide: Array.from(document.querySelectorAll('main *')).filter(e => e.getBoundingClientRect().right"
                    "  > window.innerWidth + 1 && !e.closest('section.study')).map(e => e.tagName + '.' + e.className),"
                    " images: Array.from(document.images).map(i => [i.naturalWidth, i.clientWidth,"
                    "  i.closest('section').clientWidth]),"
                    " cards: Array.from(document.querySelectorAll('#summary .card')).map(c => [c.dataset.study,"
                    "  c.getBoundingClientRect().bottom <= window.innerHeight, c.textContent.length])})")
                result = await browser.send("Page.captureScreenshot", format="png")
                (shots / f"first-screen-{width}.png").write_bytes(__import__("base64").b64decode(result["data"]))
            return out, browser.console_errors
    return asyncio.run(go())


@pytest.mark.slow          # the committed report in Chromium at two widths (4-8 s, loaded machine)
def test_the_first_screen_fits_1024_and_1280_pixels_and_names_every_study(tmp_path: Path) -> None:
    page = write_report(RESULTS, tmp_path / "index.html")
    measured, errors = _widths(page, tmp_path)
    assert errors == []
    for width, seen in measured.items():
        assert seen["overflow"] <= 0 and seen["wide"] == [], (width, seen["overflow"], seen["wide"][:5])
        assert all(0 < shown <= min(natural, box) for natural, shown, box in seen["images"]), (width, seen["images"])
        assert [c[0] for c in seen["cards"]] == ["cargo", "groundeval", "assurance"], width
        assert all(on_screen and length > 100 for _, on_screen, length in seen["cards"]), (width, seen["cards"])
