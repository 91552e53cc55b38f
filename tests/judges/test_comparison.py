"""`orgbench compare` over real runs: per-judge DI, agreement recounted from the logs, paired ΔDI, prices."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmark_builders" / "cargo"))

from benchmark_builders.cargo import SuiteConfig, build_suite, write_suite  # noqa: E402
from cargo_synthetic import synthetic_cases  # noqa: E402
from judges.cargo_scores import score_run, suite_of_runs  # noqa: E402
from orgbench.cli import cli  # noqa: E402

JUDGES = ("builtin:grounded", "builtin:literal", "builtin:token-f1")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    config = SuiteConfig(sizes={"P1": 4, "P3": 6, "P2": 4, "P4": 4}, gating_per_world=2)
    write_suite(build_suite([(s, synthetic_cases(s, per_procedure=4)) for s in range(2)], config), root / "suite")
    out = {}
    for judge in JUDGES:
        run = root / judge.split(":")[1]
        result = CliRunner().invoke(cli, ["judge", "--suite", str(root / "suite"), "--judge", judge,
                                          "--conditions", "direct,cargo", "--out", str(run)])
        assert result.exit_code == 0, result.output
        out[judge] = run
    return out


def _labels(run: Path, condition: str) -> dict[str, str]:
    rows = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
    return {r["item_id"]: r["verdict"]["verdict"] for r in rows if r["condition"] == condition}


def test_compare_writes_every_judge_and_agreement_recounted_from_the_logs(runs, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('["builtin:literal"]\nprompt_per_million = 2.0\ncompletion_per_million = 8.0\n')
    result = CliRunner().invoke(cli, ["compare", *map(str, runs.values()), "--prices", str(prices),
                                      "--resamples", "500", "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert (tmp_path / "cmp" / "compare.md").read_text().startswith("# Judge comparison")
    truth = suite_of_runs(list(runs.values()))
    for judge, run in runs.items():
        scored = score_run(run, truth, resamples=500)
        for condition in ("cargo", "direct"):
            row = data["judges"][judge]["conditions"][condition]
            assert row["di"] == round(scored.scores[condition].mean.di, 4)
            assert row["judgments"] == 18 and row["parse_rate"] == 1.0
            assert row["cost"] == (0.0 if judge == "builtin:literal" else None)   # built-ins report no tokens
    # Cohen's kappa recounted by hand from two logs
    a, b = _labels(runs["builtin:grounded"], "cargo"), _labels(runs["builtin:literal"], "cargo")
    items = sorted(a)
    agree = sum(a[i] == b[i] for i in items) / len(items)
    shares = [sum(x[i] == k for i in items) / len(items) for x in (a, b) for k in ("pass", "fail")]
    chance = shares[0] * shares[2] + shares[1] * shares[3]
    pair = next(p for p in data["agreement"]["cargo"]["judges"]
                if (p["a"], p["b"]) == ("builtin:grounded", "builtin:literal"))
    expected = None if chance == 1 else round((agree - chance) / (1 - chance), 4)
    assert pair["kappa"] == expected and pair["items"] == 18
    assert data["agreement"]["cargo"]["alpha"]["items"] == 18
    deltas = {(d["kind"], d.get("condition") or d.get("judge"), d["a"], d["b"]): d for d in data["delta_di"]}
    d = deltas[("judges", "cargo", "builtin:grounded", "builtin:literal")]
    di = {j: data["judges"][j]["conditions"]["cargo"]["di"] for j in JUDGES}
    assert d["delta_di"] == pytest.approx(di["builtin:grounded"] - di["builtin:literal"], abs=1e-3)
    assert d["ci"][0] <= d["delta_di"] <= d["ci"][1]
    assert ("conditions", "builtin:grounded", "cargo", "direct") in deltas


def test_a_bad_price_table_is_named(runs, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('["builtin:literal"]\nprompt_per_million = "cheap"\ncompletion_per_million = 1\n')
    result = CliRunner().invoke(cli, ["compare", str(runs["builtin:literal"]), "--prices", str(prices)])
    assert result.exit_code == 2
    assert f"{prices}: ['builtin:literal'] field 'prompt_per_million' missing or not a non-negative number" in result.output


def test_one_judge_twice_is_refused_naming_label(runs):
    run = str(runs["builtin:literal"])
    result = CliRunner().invoke(cli, ["compare", run, run])
    assert result.exit_code == 2 and "judge builtin:literal is in two of the runs given" in result.output
    assert "--label" in result.output


def _truth_fail(run: Path) -> dict[str, bool]:
    truth = suite_of_runs([run])
    from judges.metrics import SHOULD_PENALIZE

    return {item: SHOULD_PENALIZE[family] for item, family in truth.families.items()}


def test_labelled_runs_of_one_spec_accuracy_confusion_disagreements_and_kappa_ci(runs, tmp_path):
    literal, grounded = str(runs["builtin:literal"]), str(runs["builtin:grounded"])
    result = CliRunner().invoke(cli, ["compare", literal, literal, grounded, "--label", "lit-a", "--label", "lit-b",
                                      "--label", "grounded", "--resamples", "300", "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert sorted(data["judges"]) == ["grounded", "lit-a", "lit-b"]
    assert data["judges"]["lit-a"]["judge"] == "builtin:literal"
    # accuracy and the confusion matrix, recounted from the log and the suite's truth
    should = _truth_fail(runs["builtin:grounded"])
    verdicts = _labels(runs["builtin:grounded"], "cargo")
    row = data["judges"]["grounded"]["conditions"]["cargo"]
    fails = {t: sum(1 for i, v in verdicts.items() if v == "fail" and should[i] == (t == "should_fail"))
             for t in ("should_fail", "should_pass")}
    assert {t: row["confusion"][t]["fail"] for t in fails} == fails
    decided = [i for i, v in verdicts.items() if v in ("pass", "fail")]
    right = sum(1 for i in decided if (verdicts[i] == "fail") == should[i])
    assert row["accuracy"] == round(right / len(decided), 4) and row["decided"] == len(decided)
    # the items the judges disagree on are exactly those with different verdicts
    other = _labels(runs["builtin:literal"], "cargo")
    differ = sorted(i for i in verdicts if verdicts[i] != other[i])
    assert [d["item"] for d in data["disagreements"]["cargo"]] == differ
    # identical runs agree perfectly; every κ sits inside its own CI
    for pair in data["agreement"]["cargo"]["judges"]:
        if (pair["a"], pair["b"]) == ("lit-a", "lit-b"):
            assert pair["kappa"] in (1.0, None)
        if pair["kappa"] is not None and pair["ci"][0] is not None:
            assert pair["ci"][0] <= pair["kappa"] + 1e-9 and pair["kappa"] <= pair["ci"][1] + 1e-9
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "## Confusion against the truth" in md and f"cargo: {len(differ)} item(s)" in md
    # view renders the compare folder: one record per disagreement, with every judge's response
    from orgbench.report.views import comparison_view

    viewed = CliRunner().invoke(cli, ["view", str(tmp_path / "cmp"), "--out", str(tmp_path / "cmp.html")])
    assert viewed.exit_code == 0, viewed.output
    _, _, _, records = comparison_view(tmp_path / "cmp")
    cargo = [r for r in records if r["fields"]["condition"] == "cargo"]
    assert [r["fields"]["item"] for r in cargo] == differ
    log = {r["item_id"]: r["response"] for r in map(json.loads, (runs["builtin:grounded"] / "judgments.jsonl")
                                                    .read_text().splitlines()) if r["condition"] == "cargo"}
    assert all(next(s["text"] for s in r["sections"] if s["heading"].startswith("grounded"))
               == log[r["fields"]["item"]][:4000] for r in cargo)
    bad = CliRunner().invoke(cli, ["compare", literal, grounded, "--label", "only-one"])
    assert bad.exit_code == 2 and "--label: give one distinct label per run" in bad.output


def test_each_conditions_time_is_the_measured_request_time_where_the_run_recorded_it(runs, tmp_path):
    import shutil

    measured, older = tmp_path / "measured", tmp_path / "older"
    shutil.copytree(runs["builtin:literal"], measured)
    shutil.copytree(runs["builtin:literal"], older)
    conditions = sorted({json.loads(line)["condition"] for line in (measured / "judgments.jsonl").read_text().splitlines()})
    spent = {c: 1.5 + n for n, c in enumerate(conditions)}
    calls = [{"wall_s": 2.0, "requested": 3, "conditions": {c: {"requests": 1, "request_s": t / 2} for c, t in spent.items()}},
             {"wall_s": 1.0, "requested": 0, "conditions": {}},          # a resume that asked nothing
             {"wall_s": 2.5, "requested": 4, "conditions": {c: {"requests": 1, "request_s": t / 2} for c, t in spent.items()}}]
    (measured / "run_stats.json").write_text(json.dumps({"judge": "builtin:literal", "wall_s": 5.5, "calls": calls}))
    (older / "run_stats.json").write_text(json.dumps({"judge": "builtin:literal", "wall_s": 4.0,
                                                      "calls": [{"wall_s": 4.0, "requested": 7}]}))
    result = CliRunner().invoke(cli, ["compare", str(measured), str(older), "--label", "new", "--label", "old",
                                      "--resamples", "200", "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    judges = json.loads((tmp_path / "cmp" / "compare.json").read_text())["judges"]
    assert {c: (r["time_s"], r["time_kind"]) for c, r in judges["new"]["conditions"].items()} == \
        {c: (t, "requests") for c, t in spent.items()}
    rows = [json.loads(line) for line in (older / "judgments.jsonl").read_text().splitlines()]
    assert {c: (r["time_s"], r["time_kind"]) for c, r in judges["old"]["conditions"].items()} == \
        {c: (round(4.0 * sum(1 for x in rows if x["condition"] == c) / len(rows), 3), "share") for c in conditions}
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert f"| new | {conditions[0]} |" in md and f"| {spent[conditions[0]]:.3f} |" in md
    assert "| ≈ " in md.split("| old |", 1)[1].split("\n", 1)[0]
