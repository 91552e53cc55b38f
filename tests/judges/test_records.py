"""The typed records at the judges' boundaries: Judgment (a judgments.jsonl line) and QuestionScore (a questions.jsonl line)."""

from __future__ import annotations

import json

import pytest

from judges.backends.base import JudgeResponse, Usage
from judges.cargo_scores import cargo_line, load_cargo_judgments
from judges.judgments import JUDGMENTS, Judgment, load_judgments
from judges.groundeval.question_score import QuestionScore
from judges.verdict import Claim, Verdict
from orgbench.core.errors import FormatError

PASS = '{"dimensions": {"correctness": 0.9}, "claims": [{"text": "ok", "status": "supported"}], "verdict": "pass"}'


def test_a_judgment_reads_back_what_it_wrote():
    answered = Judgment.answered(("i-1", "cargo", 2), "h" * 64, JudgeResponse(PASS, Usage(30, 7), "m"))
    assert answered.verdict == Verdict("pass", {"correctness": 0.9}, (Claim("ok", "supported"),))
    assert answered.penalized is False and answered.usage == Usage(30, 7)
    failed = Judgment.failed(("i-1", "direct", 0), "h" * 64, "HTTP 500")
    assert failed.penalized is None and failed.verdict is None and failed.usage == Usage()
    for judgment in (answered, failed):
        line = json.loads(json.dumps(judgment.to_json()))
        assert Judgment.from_json(line, JUDGMENTS) == judgment
        assert "penalized" not in line
        assert Judgment.from_json(cargo_line(judgment), JUDGMENTS) == judgment
    assert cargo_line(answered)["penalized"] is False and cargo_line(failed)["penalized"] is None


def test_a_line_that_is_not_a_judgment_names_its_line(tmp_path):
    good = Judgment.answered(("i-1", "cargo", 0), "h", JudgeResponse(PASS))
    bad = {**good.to_json(), "usage": {"prompt_tokens": "many"}}
    (tmp_path / JUDGMENTS).write_text(json.dumps(good.to_json()) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(FormatError, match=r"judgments.jsonl:2: field 'usage' malformed"):
        load_judgments(tmp_path)


def test_a_cargo_line_whose_penalized_contradicts_its_verdict_is_refused(tmp_path):
    judgment = Judgment.answered(("i-1", "cargo", 0), "h", JudgeResponse(PASS))
    (tmp_path / JUDGMENTS).write_text(json.dumps(cargo_line(judgment)) + "\n")
    assert load_cargo_judgments(tmp_path) == [judgment]
    (tmp_path / JUDGMENTS).write_text(json.dumps({**cargo_line(judgment), "penalized": True}) + "\n")
    assert load_judgments(tmp_path) == [judgment]          # the generic reader knows no penalized field
    with pytest.raises(FormatError, match=r"judgments.jsonl:1: field 'penalized' is True but .* say False"):
        load_cargo_judgments(tmp_path)


def test_a_question_score_reads_back_what_it_wrote():
    score = QuestionScore("q-1", "perspective", "direct", "easy", "tool", 1.0, 0.5, 0.25, 0.4, True, 4, None,
                          diagnostics={"answer": {"verdict": True}, "calls": []}, agent="oracle")
    line = json.loads(json.dumps(score.to_json()))
    assert QuestionScore.from_json(line, "questions.jsonl", 1) == score
    assert "agent" not in QuestionScore("q-2", None, None, None, "tool", 0.0, 0.0, 0.0, 0.0, False, 0,
                                        "unknown question id").to_json()
    del line["s_adj"]
    with pytest.raises(FormatError, match=r"questions.jsonl:3: field 's_adj' missing"):
        QuestionScore.from_json(line, "questions.jsonl", 3)


def test_a_cargo_judgment_of_a_condition_or_seed_the_run_never_asked_for_is_refused(tmp_path):
    asked = {"format_version": 2, "parameters": {"conditions": ["cargo"], "seeds": [0]}}
    (tmp_path / "run.json").write_text(json.dumps(asked))
    lines = [Judgment.answered(key, "h", JudgeResponse(PASS)) for key in (("i-1", "cargo", 0), ("i-2", "nosuch", 0))]
    (tmp_path / JUDGMENTS).write_text("".join(json.dumps(cargo_line(j)) + "\n" for j in lines))
    with pytest.raises(FormatError, match=r"judgments.jsonl:2: field 'condition' is 'nosuch', not one of the run's "
                                          r"\(run.json parameters.conditions: cargo\)"):
        load_cargo_judgments(tmp_path)
    lines[1] = Judgment.answered(("i-2", "cargo", 3), "h", JudgeResponse(PASS))
    (tmp_path / JUDGMENTS).write_text("".join(json.dumps(cargo_line(j)) + "\n" for j in lines))
    with pytest.raises(FormatError, match=r"judgments.jsonl:2: field 'seed' is 3, not one of the run's"):
        load_cargo_judgments(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({**asked, "parameters": {"conditions": ["cargo"], "seeds": [0, 3]}}))
    assert load_cargo_judgments(tmp_path) == lines


def test_a_run_recording_condition_groups_accepts_their_conditions(tmp_path):
    """``orgbench reproduce`` records the groups it asked for ("all", "rubric-swap") with one variant; each stands
    for its conditions, and a condition outside them is still refused."""
    asked = {"format_version": 2, "parameters": {"conditions": ["all", "rubric-swap", "cargo+kinds"], "seeds": [0]}}
    (tmp_path / "run.json").write_text(json.dumps(asked))
    keys = [("i-1", "cargo", 0), ("i-1", "direct", 0), ("i-1", "cargo/golden-ref", 0), ("i-1", "cargo+kinds", 0)]
    lines = [Judgment.answered(key, "h", JudgeResponse(PASS)) for key in keys]
    (tmp_path / JUDGMENTS).write_text("".join(json.dumps(cargo_line(j)) + "\n" for j in lines))
    assert load_cargo_judgments(tmp_path) == lines
    lines.append(Judgment.answered(("i-1", "all", 0), "h", JudgeResponse(PASS)))
    (tmp_path / JUDGMENTS).write_text("".join(json.dumps(cargo_line(j)) + "\n" for j in lines))
    with pytest.raises(FormatError, match=r"judgments.jsonl:5: field 'condition' is 'all'"):
        load_cargo_judgments(tmp_path)
