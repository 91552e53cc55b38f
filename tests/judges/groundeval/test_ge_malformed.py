"""Agent output of every malformed shape, through ``orgbench score groundeval``: exit 0, each question scored 0 with its reason."""

import json
import shutil

import pytest
from click.testing import CliRunner

from judges.groundeval.run import score_submissions
from judges.groundeval.traces import Submission
from orgbench.cli import cli
from orgbench.core.errors import InputError

CLEAN = {"horizon": False, "actor": False, "subsystem": False}


@pytest.fixture(scope="module")
def questions(rt_suite):
    contracts = [json.loads(line) for line in (rt_suite / "contracts.jsonl").read_text().splitlines()]
    return {track: next(c for c in contracts if c["track"] == track) for track in ("perspective", "counterfactual", "silence")}


def _search(query="x", **over):
    return {"seq": 1, "tool": "search_artifacts", "args": {"query": query, "subsystem": None, "limit": 5},
            "returned_ids": [], "outcome": "empty", "gates": CLEAN, "latency_ms": None} | over


SILENCE_ANSWER = {"exists": False, "evidence_artifacts": [], "reasoning": ""}

# agent name -> (track, answer, calls, expected malformed reason)
TRACES = {
    "args-list": ("silence", SILENCE_ANSWER, [_search(args=["ESC-23"])],
                  "trace has a malformed call: call 1: args is a list, not an object"),
    "args-text": ("silence", SILENCE_ANSWER, [_search(), _search(args="ESC-23")],
                  "trace has a malformed call: call 2: args is a str, not an object"),
    "args-missing": ("silence", SILENCE_ANSWER, [{"tool": "search_artifacts"}],
                     "trace has a malformed call: call 1: no args"),
    "tool-list": ("silence", SILENCE_ANSWER, [_search(tool=["search_artifacts"])],
                  "trace has a malformed call: call 1: tool is a list, not a string"),
    "tool-number": ("perspective", None, [_search(tool=3)], "trace has a malformed call: call 1: tool is a int, not a string"),
    "tool-missing": ("perspective", None, [{"args": {}}], "trace has a malformed call: call 1: no tool"),
    "ids-text": ("silence", SILENCE_ANSWER, [_search(returned_ids="A-1@1")],
                 "trace has a malformed call: call 1: returned_ids is a str, not a list"),
    "ids-mixed": ("silence", SILENCE_ANSWER, [_search(returned_ids=["A-1@1", {"id": 2}])],
                  "trace has a malformed call: call 1: returned_ids holds a dict, not only strings"),
    "seq-text": ("counterfactual", None, [_search(seq="one")], "trace has a malformed call: call 1: seq is a str, not an integer"),
    "seq-float": ("counterfactual", None, [_search(seq=1.5)], "trace has a malformed call: call 1: seq is a float, not an integer"),
    "outcome-list": ("silence", SILENCE_ANSWER, [_search(outcome=["ok"])],
                     "trace has a malformed call: call 1: outcome is a list, not a string"),
    "gates-list": ("silence", SILENCE_ANSWER, [_search(gates=[False])],
                   "trace has a malformed call: call 1: gates is a list, not an object"),
    "gate-text": ("silence", SILENCE_ANSWER, [_search(gates={"horizon": "no"})],
                  "trace has a malformed call: call 1: a gate is a str, not a boolean"),
    "call-number": ("silence", SILENCE_ANSWER, [_search(), 7], "trace has a malformed call: call 2: not an object (a int)"),
    "call-null": ("silence", SILENCE_ANSWER, [None], "trace has a malformed call: call 1: not an object (a NoneType)"),
    "call-list": ("silence", SILENCE_ANSWER, [["search_artifacts"]], "trace has a malformed call: call 1: not an object (a list)"),
    "calls-object": ("silence", SILENCE_ANSWER, {"0": _search()}, "the trace is a dict, not a list of calls"),
    "calls-text": ("silence", SILENCE_ANSWER, "search x", "the trace is a str, not a list of calls"),
    "calls-null": ("silence", SILENCE_ANSWER, None, "the trace is a NoneType, not a list of calls"),
}
ANSWERS = {
    "exists-text": ("silence", {"exists": "no"}, "field exists is a str, not bool"),
    "evidence-text": ("silence", {"exists": False, "evidence_artifacts": "INC-1"}, "field evidence_artifacts is not a list of strings"),
    "evidence-mixed": ("silence", {"exists": False, "evidence_artifacts": ["INC-1", 2]}, "field evidence_artifacts is not a list of strings"),
    "verdict-missing": ("perspective", {"evidence_artifacts": []}, "missing field could_actor_have_known"),
    "blocked-object": ("perspective", {"could_actor_have_known": False, "blocked_subsystems": {"a": 1}},
                       "field blocked_subsystems is not a list of strings"),
    "cause-number": ("counterfactual", {"outcome_changed": False, "causal_mechanism": "x", "cause_event_id": 5,
                                        "effect_event_id": "E", "mechanism_direction": "no_causal_link"},
                     "field cause_event_id is a int, not str or null"),
    "direction-null": ("counterfactual", {"outcome_changed": False, "causal_mechanism": None, "cause_event_id": None,
                                          "effect_event_id": None, "mechanism_direction": None},
                       "field mechanism_direction is a NoneType, not str"),
    "answer-list": ("silence", [True], "answer is a list, not an object"),
    "answer-null": ("silence", None, "answer is a NoneType, not an object"),
    "answer-deep": ("silence", "[" * 100_000 + "]" * 100_000, "answer is not JSON"),
    "answer-long-int": ("silence", "9" * 10_000, "answer is not JSON"),
    "answer-broken": ("silence", '{"exists": tru', "answer is not JSON"),
}


def test_a_battery_of_malformed_traces_and_answers_is_scored_not_raised(rt_suite, questions, tmp_path):
    lines = []
    for agent, (track, answer, calls, _) in TRACES.items():
        contract = questions[track]
        if answer is None:
            answer = {"could_actor_have_known": False} if track == "perspective" else {
                "outcome_changed": False, "causal_mechanism": None, "cause_event_id": None, "effect_event_id": None,
                "mechanism_direction": "no_causal_link"}
        for mode in ("tool", "context"):
            lines.append({"question_id": contract["question_id"], "agent": agent, "mode": mode, "answer": answer,
                          "calls": calls})
    for agent, (track, answer, _) in ANSWERS.items():
        lines.append({"question_id": questions[track]["question_id"], "agent": agent, "mode": "tool", "answer": answer,
                      "calls": [_search(args=["also malformed"])]})
    lines.append({"question_id": questions["silence"]["question_id"], "agent": "well-formed", "mode": "tool",
                  "answer": SILENCE_ANSWER, "calls": [_search()]})
    unreadable = ["[" * 100_000 + "]" * 100_000, '{"question_id": ' + "9" * 10_000 + "}"]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + "\n".join(unreadable) + "\n")

    result = CliRunner().invoke(cli, ["score", "groundeval", "--suite", str(rt_suite), "--answers",
                                      str(tmp_path / "answers.jsonl"), "--out", str(tmp_path / "score"), "--answered-only", "--on-error", "skip"])
    assert result.exit_code == 0, (result.output, result.exception)
    rows = {(r["agent"], r["mode"]): r for r in map(json.loads, (tmp_path / "score" / "questions.jsonl").read_text().splitlines())}
    assert len(rows) == 2 * len(TRACES) + len(ANSWERS) + 1
    for agent, (_, _, calls, reason) in TRACES.items():
        for mode in ("tool", "context"):
            row = rows[agent, mode]
            assert row["malformed"] == reason, (agent, mode)
            assert (row["s_answer"], row["s_traj"], row["s_adj"], row["answer_correct"]) == (0.0, 0.0, 0.0, False)
            assert row["diagnostics"]["trace_check"]["malformed_calls"] >= 1
            first = row["diagnostics"]["malformed_calls"][0]
            assert reason.endswith(first["problem"]) and first["call"] == (None if "the trace is" in reason else first["call"])
            assert row["diagnostics"]["calls"] == (calls if isinstance(calls, list) else [])
    for agent, (_, _, reason) in ANSWERS.items():
        row = rows[agent, "tool"]
        assert row["malformed"] == reason and row["s_adj"] == 0.0, agent
        assert row["diagnostics"]["malformed_calls"] == [{"call": 1, "problem": "args is a list, not an object"}]
    assert rows["well-formed", "tool"]["malformed"] is None
    summary = json.loads((tmp_path / "score" / "summary.json").read_text())
    assert summary["agents"]["args-list"]["tool"]["all"]["malformed"] == 1
    assert [note.split(": ", 1)[-1][:40] for note in summary["unreadable_lines"]] == [
        "invalid JSON (nested too deeply)", "invalid JSON (Exceeds the limit (4300 di"]


def test_an_answer_to_a_truth_question_without_a_contract_is_refused_naming_the_contracts_file(rt_suite, tmp_path):
    """``score_submissions`` called directly (the CLI's strict read refuses the line before): the question has a
    truth but its contract was removed from an unsigned copy of the suite, so its calls cannot be re-derived."""
    suite = tmp_path / "suite"
    shutil.copytree(rt_suite, suite)
    (suite / "MANIFEST.json").unlink()
    first, *rest = (suite / "contracts.jsonl").read_text().splitlines(keepends=True)
    (suite / "contracts.jsonl").write_text("".join(rest))
    qid = json.loads(first)["question_id"]
    others = [Submission(json.loads(line)["question_id"], "a", "tool", None) for line in rest[:3]]
    with pytest.raises(InputError, match=rf"contracts\.jsonl: no contract for question {qid} of truth\.jsonl"):
        score_submissions(suite, [*others, Submission(qid, "a", "tool", None)], index_cache=tmp_path / "cache")
