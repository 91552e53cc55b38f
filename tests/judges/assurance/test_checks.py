"""Obligation 2: every checker requirement has a case that must pass and one that must fail."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmark_builders.trajectories.records import ChatMessage, ToolCall, Trajectory
from judges.assurance.checks import REQUIREMENTS, check_packet, check_source
from judges.assurance.render import PacketSpec, render_packet


def _outcome(findings, requirement):
    [finding] = [f for f in findings if f.requirement == requirement]
    return finding


def _messages():
    return (
        ChatMessage("system", "Support agent."),
        ChatMessage("user", "My device SN-1 is broken."),
        ChatMessage("assistant", "", (ToolCall("a1", "get_asset", '{"serial":"SN-1"}'),
                                      ToolCall("a2", "check_entitlement", '{"serial":"SN-1"}'))),
        ChatMessage("tool", '{"model":"X"}', (), "a1"),
        ChatMessage("tool", '{"entitlement":"active"}', (), "a2"),
        ChatMessage("user", "", (ToolCall("u1", "run_device_check", '{"serial":"SN-1"}'),)),
        ChatMessage("tool", '{"code":"BAT-1"}', (), "u1"),
        ChatMessage("assistant", "", (ToolCall("a3", "create_dispatch", '{"serial":"SN-1"}'),)),
        ChatMessage("tool", '{"dispatch_id":"DSP-1"}', (), "a3"),
        ChatMessage("assistant", "Done."),
    )


GOOD = Trajectory("t", "t", _messages())


def _with(messages):
    return Trajectory("t", "t", tuple(messages))


# -- source requirements: (requirement, a trajectory that must fail it) ---------------------------------------------

def _duplicate_id():
    m = list(_messages())
    m[7] = ChatMessage("assistant", "", (ToolCall("a1", "create_dispatch", '{"serial":"SN-1"}'),))
    m[8] = ChatMessage("tool", "{}", (), "a1")
    return _with(m)


def _unanswered_call():
    m = list(_messages())
    del m[8]
    return _with(m)


def _unmatched_result():
    return _with(list(_messages()) + [ChatMessage("tool", "stray", (), "nobody")])


def _empty_step():
    m = list(_messages())
    m[9] = ChatMessage("assistant", "")
    return _with(m)


SOURCE_FAILS = {
    "call-ids-unique": _duplicate_id,
    "calls-answered": _unanswered_call,
    "results-answer-calls": _unmatched_result,
    "steps-not-empty": _empty_step,
}


@pytest.mark.parametrize("requirement", sorted(SOURCE_FAILS))
def test_source_requirement_passes_and_fails(requirement):
    assert _outcome(check_source(GOOD), requirement).ok
    bad = _outcome(check_source(SOURCE_FAILS[requirement]()), requirement)
    assert not bad.ok and bad.detail


def test_matching_runs_in_both_directions():
    forward = check_source(_unanswered_call())
    assert not _outcome(forward, "calls-answered").ok and _outcome(forward, "results-answer-calls").ok
    reverse = check_source(_unmatched_result())
    assert _outcome(reverse, "calls-answered").ok and not _outcome(reverse, "results-answer-calls").ok


def test_user_calls_are_call_sources():
    # the result at messages[6] answers the simulated user's call u1: it must be matched, not flagged
    assert _outcome(check_source(GOOD), "results-answer-calls").ok
    m = list(_messages())
    m[5], m[6] = m[6], m[5]          # the result now comes before the user's call: it answers nothing yet
    assert not _outcome(check_source(_with(m)), "results-answer-calls").ok


def test_a_second_result_for_one_call_is_unmatched():
    m = list(_messages()) + [ChatMessage("tool", "again", (), "a3")]
    finding = _outcome(check_source(_with(m)), "results-answer-calls")
    assert not finding.ok and "already answered" in finding.detail


def test_reverse_matching_is_the_p3_control():
    assert "results-answer-calls" not in {f.requirement for f in check_source(_unmatched_result(), reverse=False)}


def test_invalid_argument_json_is_flagged_never_failed():
    m = list(_messages())
    m[7] = ChatMessage("assistant", "", (ToolCall("a3", "create_dispatch", '{"serial":"SN-'),))
    flagged = _outcome(check_source(_with(m)), "arguments-json")
    assert flagged.ok and flagged.detail == "invalid JSON: a3@7"
    assert _outcome(check_source(GOOD), "arguments-json").detail == ""
    spec = PacketSpec("t", 7, "error", "prefix", "restored")
    data = render_packet(_with(m), spec)
    assert b'create_dispatch({"serial":"SN-)\n' in data          # rendered verbatim
    assert all(f.ok for f in check_packet(data, _with(m), spec))


# -- packet requirements: (requirement, spec, a byte mutation that must fail it) ------------------------------------

PREFIX = PacketSpec("t", 7, "error", "prefix", "restored")
FULL = PacketSpec("t", 7, "error", "full", "restored")


def _replace(old: bytes, new: bytes):
    def mutate(data: bytes) -> bytes:
        assert old in data
        return data.replace(old, new, 1)
    return mutate


PACKET_FAILS = {
    "packet-structure": (FULL, _replace(b"[MESSAGE 9 assistant]", b"[MESSAGE 9 assistant] extra")),
    "messages-in-order": (FULL, _replace(b"My device SN-1 is broken.", b"My device SN-2 is broken.")),
    "calls-rendered": (FULL, _replace(b'[TOOL CALL id=a2 bytes=17] check_entitlement({"serial":"SN-1"})\n', b"")),
    "results-show-ids": (FULL, _replace(b"[TOOL RESULT 4 id=a2]", b"[TOOL RESULT 4 id=a1]")),
    "target-marked-once": (FULL, _replace(b"[END TARGET STEP]\n", b"[END TARGET STEP]\n[END TARGET STEP]\n")),
    "extent": (PREFIX, lambda d: d + b'[TOOL RESULT 8 id=a3]\n{"dispatch_id":"DSP-1"}\n'),
    "delimiters-neutralised": (FULL, _replace(b"My device SN-1 is broken.", b"My device [END TARGET STEP] broken.")),
    "excluded-fields-absent": (FULL, _replace(b"Done.", b"Done.\nlabel: -1")),
}


def test_every_requirement_has_a_failing_case():
    assert set(REQUIREMENTS) == set(SOURCE_FAILS) | set(PACKET_FAILS) | {"arguments-json"}


@pytest.mark.parametrize("requirement", sorted(PACKET_FAILS))
def test_packet_requirement_passes_and_fails(requirement):
    spec, mutate = PACKET_FAILS[requirement]
    data = render_packet(GOOD, spec)
    assert _outcome(check_packet(data, GOOD, spec), requirement).ok
    findings = check_packet(mutate(data), GOOD, spec)
    assert not _outcome(findings, requirement).ok


def test_crlf_packet_fails_structure():
    data = render_packet(GOOD, FULL).replace(b"\n", b"\r\n")
    finding = _outcome(check_packet(data, GOOD, FULL), "packet-structure")
    assert not finding.ok and "CR" in finding.detail


def test_full_packet_cut_short_fails_extent():
    data = render_packet(GOOD, FULL)
    cut = data[:data.index(b"[MESSAGE 9 assistant]")]
    assert not _outcome(check_packet(cut, GOOD, FULL), "extent").ok


def test_content_checks_take_expected_values_from_the_source():
    changed = _with(list(_messages())[:9] + [ChatMessage("assistant", "Done!")])
    data = render_packet(GOOD, FULL)
    assert not _outcome(check_packet(data, changed, FULL), "messages-in-order").ok
    renamed = replace(GOOD, messages=GOOD.messages[:7] + (
        ChatMessage("assistant", "", (ToolCall("a3", "create_dispatch", '{"serial":"SN-9"}'),)),) + GOOD.messages[8:])
    assert not _outcome(check_packet(data, renamed, FULL), "calls-rendered").ok


def test_fast_path_agrees_with_the_detailed_checks(small_cohort):
    from judges.assurance.checks import _check_packet_in_detail
    from judges.assurance.targets import select_targets

    trajectories, labels = small_cohort
    for trajectory in trajectories:
        targets = select_targets(trajectory, labels[trajectory.trajectory_id])
        if targets is None:
            continue
        for extent in ("prefix", "full"):
            spec = PacketSpec(trajectory.trajectory_id, targets.error, "error", extent, "restored")
            data = render_packet(trajectory, spec)
            fast = check_packet(data, trajectory, spec)
            assert all(f.ok for f in fast)
            assert [(f.requirement, f.ok) for f in _check_packet_in_detail(data, trajectory, spec)] == \
                [(f.requirement, f.ok) for f in fast]


def test_carriage_returns_inside_content_are_data_not_faults():
    trajectory = _with(list(_messages())[:9] + [ChatMessage("assistant", "line one\r\nline two\r")])
    data = render_packet(trajectory, FULL)
    assert b"line one\r\nline two\r\n" in data
    assert all(f.ok for f in check_packet(data, trajectory, FULL))
