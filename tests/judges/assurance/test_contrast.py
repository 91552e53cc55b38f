"""The built-in step judge (reads only packet text) and the later-context contrast with its cluster bootstrap."""

from __future__ import annotations

import asyncio
import json

from benchmark_builders.trajectories.records import ChatMessage, ToolCall, Trajectory
from judges.assurance.contrast import contrast_summary, contrast_table, flags_csv, judge_cohort
from judges.assurance.render import PacketSpec, render_packet
from judges.backends.step import PacketStepJudge, judge_packet
from judges.backends.base import JudgeRequest, Message


def _trajectory(target_call, result, correction=""):
    return Trajectory("t", "t", (
        ChatMessage("user", "My unit SN-123 fails with BAT-0x41."),
        ChatMessage("assistant", "", (ToolCall("c1", "check_entitlement", '{"serial":"SN-123"}'),)),
        ChatMessage("tool", '{"entitlement":"active"}', (), "c1"),
        ChatMessage("assistant", "", (target_call,)),
        ChatMessage("tool", result, (), target_call.id),
        ChatMessage("assistant", correction or "Next step."),
    ))


def _verdict(trajectory, extent, rendering="restored"):
    return judge_packet(render_packet(trajectory, PacketSpec("t", 3, "error", extent, rendering)).decode())[0]


def test_prefix_rules_flag_visible_errors():
    wrong_serial = _trajectory(ToolCall("c2", "get_asset", '{"serial":"SN-124"}'), '{"error":"asset not found"}')
    broken = _trajectory(ToolCall("c2", "create_dispatch", '{"serial":"SN-1'), '{"error":"invalid arguments"}')
    fine = _trajectory(ToolCall("c2", "create_dispatch", '{"serial":"SN-123"}'), '{"dispatch_id":"DSP-1"}')
    assert _verdict(wrong_serial, "prefix") == "fail"
    assert _verdict(broken, "prefix") == "fail"
    assert _verdict(fine, "prefix") == "pass" and _verdict(fine, "full") == "pass"


def test_later_context_flags_what_the_prefix_cannot_show():
    wrong_tool = _trajectory(ToolCall("c2", "search_kb", '{"query":"SN-123"}'), '{"error":"no such index"}',
                             "Sorry, wrong tool; retrying.")
    assert _verdict(wrong_tool, "prefix") == "pass"
    assert _verdict(wrong_tool, "full") == "fail"


def test_blank_target_abstains_in_prefix_and_flags_from_later_context():
    wrong_tool = _trajectory(ToolCall("c2", "search_kb", '{"query":"SN-123"}'), '{"error":"no such index"}')
    assert _verdict(wrong_tool, "prefix", "original") == "cannot_decide"
    assert _verdict(wrong_tool, "full", "original") == "fail"


def test_judge_answers_a_parseable_verdict_from_bytes():
    trajectory = _trajectory(ToolCall("c2", "get_asset", '{"serial":"SN-124"}'), '{"error":"not found"}')
    data = render_packet(trajectory, PacketSpec("t", 3, "error", "prefix", "restored"))
    response = asyncio.run(PacketStepJudge().complete(JudgeRequest((Message("system", "x"), Message("user", data)))))
    assert json.loads(response.text)["verdict"] == "fail"


def test_contrast_counts_and_g(suite_dir, tmp_path):
    judged = judge_cohort(suite_dir, tmp_path / "w", PacketStepJudge(), draws=2)
    summary = contrast_summary(judged, resamples=500, seed=1)
    n = summary["trajectories"]
    assert len(judged) == 8 * n and all(len(j.verdicts) == 2 for j in judged)
    cells = summary["cells"]
    for rendering in ("original", "restored"):
        f = lambda k, e: sum(j.flag for j in judged if (j.rendering, j.target_kind, j.extent) == (rendering, k, e))
        assert summary["G"][rendering] == (f("error", "full") - f("error", "prefix")) - (
            f("comparison", "full") - f("comparison", "prefix"))
        assert cells[f"{rendering}.error.full"]["flags"] == f("error", "full")
    assert summary["G"]["reduction"] == summary["G"]["original"] - summary["G"]["restored"]
    assert cells["original.error.prefix"]["blank_targets"] == n          # every error target acts through calls only
    assert cells["original.error.prefix"]["flags"] == 0                   # blank prefix steps draw abstentions
    assert cells["restored.error.prefix"]["packets_failing_checks"] == 0
    assert cells["original.error.prefix"]["packets_failing_checks"] == 0   # held to the calls-omitted contract
    assert summary["bootstrap"]["clusters"] == summary["clusters_by_request"] == len({j.cluster for j in judged})
    lo, hi = summary["per_trajectory"]["reduction"]["ci95"]
    assert lo <= summary["per_trajectory"]["reduction"]["mean"] <= hi
    assert summary == contrast_summary(judged, resamples=500, seed=1)     # seeded: identical on rerun
    assert "| error | full |" in contrast_table(summary)
    assert flags_csv(judged).count("\n") == len(judged) + 1


def test_contrast_csv_and_drilldown(suite_dir, tmp_path):
    import csv
    import io

    from judges.assurance.contrast import contrast_csv, drilldown_records

    judged = judge_cohort(suite_dir, tmp_path / "w", PacketStepJudge(), draws=1)
    summary = contrast_summary(judged, resamples=100)
    rows = list(csv.DictReader(io.StringIO(contrast_csv(summary, "builtin:step"))))
    assert [r["source"] for r in rows] == ["orgbench (builtin:step)"] * 3 + ["paper (J0)"] * 3
    assert rows[0]["G"] == str(summary["G"]["original"]) and rows[3]["G"] == "13"
    records = drilldown_records(judged)
    assert len(records) == len(judged) // 2 and all(r["fields"]["kind"] == "packet" for r in records)
    blank = next(r for r in records if r["fields"]["control"] == "original" and r["fields"]["mode"] == "error prefix")
    assert blank["sections"][-1]["text"].endswith("[END TARGET STEP]\n")


def test_the_contrast_runs_through_the_checked_pipeline(suite_dir, tmp_path):
    from judges.assurance.manifest import read_record

    judge_cohort(suite_dir, tmp_path / "w", PacketStepJudge(), draws=1)
    assert [read_record(tmp_path / "w", s).return_code for s in ("build", "check", "stage", "emit", "dispatch")] \
        == [0] * 5
    assert read_record(tmp_path / "w", "dispatch").controls == "P3"


def test_restored_packets_made_to_drop_their_calls_stop_the_contrast(suite_dir, tmp_path):
    import pytest

    from judges.assurance.contrast import ContrastStopped
    from judges.assurance.faults import delete_target_call

    def drop(spec, data):
        return delete_target_call(data) if spec.rendering == "restored" else data

    with pytest.raises(ContrastStopped) as stopped:
        judge_cohort(suite_dir, tmp_path / "w", PacketStepJudge(), draws=1, render_hook=drop)
    assert stopped.value.step == "build" and stopped.value.requirement == "calls-rendered"
    assert not (tmp_path / "w" / "dispatch").exists()


def test_cluster_bootstrap_resamples_clusters_not_trajectories():
    from judges.assurance.contrast import Judged

    def cell(tid, cluster, flagged):
        return [Judged(tid, cluster, "error", "full", "original", ("fail",) if flagged else ("pass",), False, ())]

    # two clusters: one of three trajectories each contributing 1, one of a single trajectory contributing 0
    judged = [j for t in ("a", "b", "c") for j in cell(t, "big", True)] + cell("d", "small", False)
    summary = contrast_summary(judged, resamples=400, seed=3)
    assert summary["clusters_by_request"] == 2 and summary["trajectories"] == 4
    lo, hi = summary["per_trajectory"]["original"]["ci95"]
    # resampling clusters: each resample's per-trajectory G is 0, 0.75 or 1 -- never the 0.25 or 0.5 that
    # resampling the four trajectories one by one would often give
    assert {lo, hi} <= {0.0, 0.75, 1.0}
