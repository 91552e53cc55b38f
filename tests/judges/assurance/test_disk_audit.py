"""The disk audit: a second checker written apart; each rule has a passing and a failing case."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from benchmark_builders.trajectories.records import ChatMessage, StepLabels, ToolCall, Trajectory
from judges.assurance.disk_audit import AUDIT_RULES, audit, targets_from_labels
from judges.assurance.render import PacketSpec, render_packet
from judges.assurance.targets import select_targets


def _trajectory(extra=()):
    return Trajectory("t", "t", (
        ChatMessage("system", "Support agent."),
        ChatMessage("user", "My device SN-1 is broken.\r\n[odd] line\u2028more"),
        ChatMessage("assistant", "", (ToolCall("a1", "get_asset", '{"serial":"SN-1"}'),)),
        ChatMessage("tool", '{"model":"X"}', (), "a1"),
        ChatMessage("assistant", "", (ToolCall("a2", "create_dispatch", '{\n"serial":"SN-1"}'),)),
        ChatMessage("tool", '{"dispatch_id":"D-1"}', (), "a2"),
        ChatMessage("assistant", "Done."),
    ) + tuple(extra))


LABELS = StepLabels("t", {2: 1, 4: -1, 6: -1}, {4: "skipped verification"})


def _run(trajectory=None, labels=LABELS, edit=None, jobs_edit=None, reverse=True):
    trajectory = trajectory or _trajectory()
    specs = [PacketSpec("t", i, k, e, "restored") for k, i in (("error", 4), ("comparison", 2))
             for e in ("prefix", "full")]
    jobs = [s.to_json() for s in specs]
    packets = {s.packet_id: render_packet(trajectory, s) for s in specs}
    if edit:
        packets[specs[1].packet_id] = edit(packets[specs[1].packet_id])
    if jobs_edit:
        jobs = jobs_edit(jobs)
    return audit((json.dumps(trajectory.to_json()) + "\n").encode(), (json.dumps(labels.to_json()) + "\n").encode(),
                 jobs, packets, ("prefix", "full"), reverse)


def _rules(result):
    return {rule for rule, _ in result.failures}


def test_a_clean_suite_passes_every_rule():
    result = _run()
    assert result.failures == () and result.checked == 6


FAILING = {
    "disk:record-schema": dict(trajectory=_trajectory([ChatMessage("assistant", "", (ToolCall("", "x", "{}"),))])),
    "disk:steps-not-empty": dict(trajectory=_trajectory([ChatMessage("user", "")])),
    "disk:call-ids-unique": dict(trajectory=Trajectory("t", "t", _trajectory().messages[:6] + (
        ChatMessage("assistant", "", (ToolCall("a1", "x", "{}"),)), ChatMessage("tool", "ok", (), "a1"),
        ChatMessage("assistant", "Done.")))),
    "disk:calls-answered": dict(trajectory=_trajectory([ChatMessage("assistant", "", (ToolCall("a9", "x", "{}"),))])),
    "disk:results-answer-calls": dict(trajectory=_trajectory([ChatMessage("tool", "stray", (), "nobody")])),
    "disk:targets-from-labels": dict(jobs_edit=lambda jobs: [{**j, "target_kind": "comparison"} if
                                                            j["target_kind"] == "error" else j for j in jobs]),
    "disk:lines-agree": dict(edit=lambda d: d.replace(b"Done.", b"Done.\r[MESSAGE 7 user]")),
    "disk:grammar": dict(edit=lambda d: d.replace(b"[MESSAGE 6 assistant]", b"[MESSAGE 6 judge]")),
    "disk:markers": dict(edit=lambda d: d.replace(b"[BEGIN TARGET STEP]\n", b"")),
    "disk:extent": dict(edit=lambda d: d[:d.index(b"[MESSAGE 6 assistant]")]),
    "disk:text-equals-source": dict(edit=lambda d: d.replace(b'"serial":"SN-1"}', b'"serial":"SN-2"}', 1)),
}


def test_every_rule_has_a_failing_case():
    assert sorted(FAILING) == sorted(AUDIT_RULES)


@pytest.mark.parametrize("rule", sorted(FAILING))
def test_each_rule_fails_its_case(rule):
    assert rule in _rules(_run(**FAILING[rule]))


def test_reverse_matching_only_under_p3():
    assert "disk:results-answer-calls" not in _rules(_run(reverse=False, **FAILING["disk:results-answer-calls"]))


def test_a_leaked_label_is_text_the_source_does_not_give():
    result = _run(edit=lambda d: d.replace(b"Done.", b"Done.\nlabel: -1 (skipped verification)"))
    assert "disk:text-equals-source" in _rules(result)


def test_targets_agree_with_the_selector_on_the_simulated_cohort(small_cohort):
    trajectories, labels = small_cohort
    for t in trajectories:
        mine = select_targets(t, labels[t.trajectory_id])
        theirs = targets_from_labels([m.to_json() for m in t.messages], labels[t.trajectory_id].to_json()["labels"])
        assert theirs == ({"error": mine.error, "comparison": mine.comparison} if mine else {})


def test_the_audit_shares_no_code_with_the_inline_checker_or_the_renderer():
    tree = ast.parse((Path(__file__).parents[3] / "judges/assurance/disk_audit.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | \
        {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported if m and (m.startswith("judges") or m.startswith("benchmark_builders"))}
