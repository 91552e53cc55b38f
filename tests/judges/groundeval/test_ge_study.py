"""The GroundEval study on the default world of seed 0: tables, figure and drill-down, byte-identical on rerun."""

import json
import re

import pytest

from orgbench.report import write_report
from orgbench.studies import ReproduceOptions
from orgbench.studies.groundeval import AGENTS, reproduce

pytestmark = pytest.mark.slow      # runs the GroundEval study twice (218 s setup in a loaded `-m "not slow"` run)

FIELDS = {"question", "track", "kind", "agent", "mode", "outcome", "s_adj", "scoring"}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    base = tmp_path_factory.mktemp("study")
    options = ReproduceOptions(work_dir=base / "build", seeds=(0,))
    reproduce(base / "results" / "groundeval", options)
    reproduce(base / "again", options)                      # the stages are reused; the outputs are rewritten
    return base


def test_oracle_is_perfect_on_the_default_world_of_seed_0(study):
    summary = json.loads((study / "results" / "groundeval" / "summary.json").read_text())
    assert summary["checks"]["oracle_s_adj_min"] == 1.0     # both modes, every contract


def test_study_outputs_are_byte_identical_on_rerun(study):
    first = {p.name: p.read_bytes() for p in (study / "results" / "groundeval").iterdir()}
    second = {p.name: p.read_bytes() for p in (study / "again").iterdir()}
    assert first == second and {"agents_by_track.png", "drilldown.jsonl"} <= set(first)
    png = first["agents_by_track.png"]
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in png and b"matplotlib" not in png


def test_drilldown_has_one_record_per_question_and_agent_in_tool_mode(study):
    directory = study / "results" / "groundeval"
    lines = (directory / "drilldown.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    contracts = json.loads((directory / "summary.json").read_text())["contracts"]
    assert len(records) == contracts * len(AGENTS)
    assert [r["id"] for r in records] == sorted({r["id"] for r in records})
    assert all(set(r["fields"]) == FIELDS and r["fields"]["mode"] == "tool" and r["fields"]["scoring"] == "orgbench-2"
               for r in records)
    assert all(isinstance(v, str) for r in records for v in r["fields"].values())
    assert {r["fields"]["outcome"] for r in records} == {"correct", "wrong"}
    assert (directory / "drilldown.jsonl").stat().st_size < 3_800_000 / 3 * 1.1     # ~3.8 MB for three seeds
    leaky = [r for r in records if r["fields"]["agent"] == "leaky"]
    calls = [s for r in leaky for s in r["sections"] if s["heading"].startswith("Tool calls") and "rows" in s]
    assert calls and calls[0]["columns"][-3:] == ["horizon", "actor", "subsystem"]
    assert any("broken" in row for s in calls for row in s["rows"])          # leaky's broken gates are shown
    for record in records[:50]:
        assert [s["heading"] for s in record["sections"]][:3] == ["Question", "Answer", "Score parts"]
        assert float(record["fields"]["s_adj"]) == pytest.approx(float(record["sections"][2]["rows"][3][1]), abs=0.006)


def test_report_renders_the_study(study, tmp_path):
    html = write_report(study / "results", tmp_path / "index.html").read_text(encoding="utf-8")
    assert "agents by track" in html and "data:image/png;base64," in html
    columns = re.search(r'"groundeval":\{"columns":(\[[^\]]*\])', html)
    assert columns and set(json.loads(columns.group(1))) == FIELDS
