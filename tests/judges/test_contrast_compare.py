"""`orgbench compare` over contrast runs: G per judge and paired ΔG, from hand-written flags.csv files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.assurance.contrast_compare import compare_contrast_runs
from orgbench.cli import cli
from orgbench.core.errors import InputError

HEADER = "trajectory_id,cluster,target_kind,extent,rendering,verdicts,flag,blank_target,checks_failed\n"
#: trajectory -> cluster (shared user request): T1 and T2 share one request
CLUSTERS = {"T1": "C1", "T2": "C1", "T3": "C2"}
CELLS = [(k, e, r) for k in ("comparison", "error") for e in ("full", "prefix") for r in ("original", "restored")]


def _run(root: Path, name: str, judge: str, flagged: set[tuple[str, str, str, str]],
         odd: dict[tuple[str, str, str, str], str] | None = None, drop: tuple | None = None) -> Path:
    """A contrast run: every packet passes (both draws) except ``flagged`` (both fail) and ``odd`` draws."""
    run = root / name
    run.mkdir()
    lines = [HEADER]
    for trajectory, cluster in CLUSTERS.items():
        for kind, extent, rendering in CELLS:
            key = (trajectory, kind, extent, rendering)
            if key == drop:
                continue
            verdicts = "fail|fail" if key in flagged else (odd or {}).get(key, "pass|pass")
            flag = "true" if key in flagged else "false"
            lines.append(f"{trajectory},{cluster},{kind},{extent},{rendering},{verdicts},{flag},false,\n")
    (run / "flags.csv").write_text("".join(lines), encoding="utf-8")
    (run / "contrast.json").write_text(json.dumps({"judge": judge, "draws": 2}), encoding="utf-8")
    return run


@pytest.fixture()
def two(tmp_path: Path) -> tuple[Path, Path]:
    # A: T1 and T2 flag the error step with full context (+1 each), T3 flags the comparison step (−1)
    a = _run(tmp_path, "a", "model-a", {("T1", "error", "full", "original"), ("T2", "error", "full", "original"),
                                        ("T3", "comparison", "full", "original")})
    # B: T1 flags the error step with full context under both renderings; one abstention, one unparsed draw
    b = _run(tmp_path, "b", "model-b", {("T1", "error", "full", "original"), ("T1", "error", "full", "restored")},
             odd={("T2", "error", "prefix", "original"): "cannot_decide|pass",
                  ("T3", "error", "prefix", "restored"): "unparsed|pass"})
    return a, b


def test_g_per_judge_and_paired_deltas_are_the_hand_counted_ones(two):
    result = compare_contrast_runs(list(two), resamples=500)
    a, b = result["judges"]["model-a"], result["judges"]["model-b"]
    assert (result["trajectories"], result["clusters"]) == (3, 2)
    # A: original (F_E − P_E) − (F_C − P_C) = 2 − 1 = 1, restored 0; B: original 1, restored 1
    assert [a["G"][n]["G"] for n in ("original", "restored", "reduction")] == [1, 0, 1]
    assert [b["G"][n]["G"] for n in ("original", "restored", "reduction")] == [1, 1, 0]
    assert a["G"]["reduction"]["per_trajectory"] == round(1 / 3, 4)
    assert (a["packets"], a["draws"], a["parse_rate"], a["cannot_decide"], a["unparsed"], a["flags"]) == \
        (24, 48, 1.0, 0, 0, 3)
    assert (b["cannot_decide"], b["unparsed"], b["parse_rate"], b["flags"]) == (1, 1, round(47 / 48, 4), 2)
    (delta,) = result["delta"]
    assert (delta["a"], delta["b"]) == ("model-a", "model-b")
    assert delta["original"]["delta"] == 0.0
    assert delta["restored"]["delta"] == round(1 / 3, 4)
    assert delta["reduction"]["delta"] == round(-1 / 3, 4)
    # per cluster the reduction differs by −2 (C1, 2 trajectories) and +1 (C2, 1): a resample of C1 only
    # gives −1, of C2 only +1, so the interval lies in [−1, 1] and holds the estimate
    low, high = delta["reduction"]["ci"]
    assert -1.0 <= low <= -1 / 3 <= high <= 1.0


def test_runs_of_other_packets_or_the_same_judge_are_refused(tmp_path: Path, two):
    short = _run(tmp_path, "short", "model-c", set(), drop=("T3", "error", "full", "restored"))
    with pytest.raises(InputError, match=r"short/flags.csv: judged other packets"):
        compare_contrast_runs([two[0], short])
    again = _run(tmp_path, "again", "model-a", set())
    with pytest.raises(InputError, match="a judge appears in two"):
        compare_contrast_runs([two[0], again])


def test_the_compare_command_reads_contrast_runs_and_refuses_mixed_kinds(tmp_path: Path, two):
    out = tmp_path / "cmp"
    result = CliRunner().invoke(cli, ["compare", str(two[0]), str(two[1]), "--out", str(out), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert "| model-a | model-b | +0.000 |" in result.output
    assert json.loads((out / "compare.json").read_text())["kind"] == "assurance"
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "answers.jsonl").write_text("", encoding="utf-8")
    mixed = CliRunner().invoke(cli, ["compare", str(two[0]), str(tmp_path / "agent")])
    assert mixed.exit_code == 2 and "a groundeval run, but" in mixed.output
    regression = CliRunner().invoke(cli, ["compare", str(two[0]), str(two[1]), "--fail-on-regression", "0"])
    assert regression.exit_code == 2 and "not assurance runs" in regression.output
