"""GroundEval in inspect_ai: inspect's mock model calls the gated runtime's tools; the scores are `orgbench score`'s."""

from __future__ import annotations

import json

import pytest

from tests.orgbench.clitools import ok

inspect_ai = pytest.importorskip("inspect_ai", reason="needs the inspect extra (pip install 'orgbench[inspect]')")


def scripted(input, tools, tool_choice, config):
    """A mock agent: search (on every third contract in a subsystem that may be closed to it), fetch the first hit
    (or an id from the question), then submit an answer citing what it fetched (token counts given, so the mock
    model counts none with a tokenizer it would download)."""
    from inspect_ai.model import ModelUsage

    output = _turn(input)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def _turn(input):
    from inspect_ai.model import ModelOutput

    contract = json.loads(next(m.text for m in input if m.role == "user"))
    turns = sum(1 for m in input if m.role == "assistant")
    results = [json.loads(m.text) for m in input if m.role == "tool"]
    if turns == 0:
        args = {"query": contract["question"][:80]}
        if int(contract["question_id"][-1], 16) % 3 == 0:
            args["subsystem"] = "hr"
        return ModelOutput.for_tool_call("mockllm", "search_artifacts", args, tool_call_id="c1")
    if turns == 1:
        hits = results[0].get("results") or []
        wanted = hits[0]["id"] if hits else contract["question"].split()[-1].strip("?.")
        return ModelOutput.for_tool_call("mockllm", "fetch_artifact", {"artifact_id": wanted}, tool_call_id="c2")
    fetched = results[-1].get("id")
    answer = {name: [] for name, kind in contract["answer_schema"].items() if kind.startswith("[")}
    answer.update(evidence_artifacts=[fetched] if fetched else [], reasoning="scripted")
    if "could_actor_have_known" in contract["answer_schema"]:
        answer["could_actor_have_known"] = bool(fetched)
    for name, choices in (contract.get("options") or {}).items():
        answer[name] = choices[0] if isinstance(choices, list) and choices else None
    return ModelOutput.for_tool_call("mockllm", "submit_answer", {"answer": answer}, tool_call_id="c3")


@pytest.mark.slow       # a world, a suite and scripted conversations over 5 contracts of each track
def test_groundeval_task_scores_what_orgbench_score_gives(tmp_path):
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import get_model

    from orgbench.harness.inspect_tasks import groundeval

    ok("simulate", "--out", tmp_path / "world", "--days", 20, "--people", 25)
    ok("build", "groundeval", "--world", tmp_path / "world", "--out", tmp_path / "suite")
    contracts = [json.loads(line) for line in (tmp_path / "suite" / "contracts.jsonl").read_text().splitlines()]
    chosen = [c for track in ("perspective", "counterfactual", "silence")
              for c in [c for c in contracts if c["track"] == track][:5]]
    limit = max(contracts.index(c) for c in chosen) + 1
    logs = inspect_ai.eval(groundeval(suite=str(tmp_path / "suite"), limit=limit),
                           model=get_model("mockllm/model", custom_outputs=scripted), log_dir=str(tmp_path / "logs"),
                           display="none")
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    scores = {s.id: s.scores["groundeval_rules"] for s in log.samples}
    assert len(scores) == limit
    calls = [call for score in scores.values() for call in score.metadata["calls"]]
    assert {c["tool"] for c in calls} == {"search_artifacts", "fetch_artifact"}
    broke = [any(c["gates"].values()) for c in calls]
    assert any(broke) and not all(broke)                    # some calls broke a gate, others did not

    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"question_id": qid, "agent": "mock", "mode": "tool",
                                           "answer": score.metadata["answer"], "calls": score.metadata["calls"]})
                               + "\n" for qid, score in sorted(scores.items())), encoding="utf-8")
    ok("score", "groundeval", "--suite", tmp_path / "suite", "--answers", answers, "--out", tmp_path / "scores",
       "--answered-only")
    rows = {r["question_id"]: r for r in map(json.loads, (tmp_path / "scores" / "questions.jsonl").read_text()
                                            .splitlines())}
    assert sorted(rows) == sorted(scores)
    for qid, score in scores.items():
        assert score.value == {name: rows[qid][name] for name in ("s_answer", "s_traj", "v", "s_adj")}, qid
    assert len({r["s_adj"] for r in rows.values()}) > 1

    summary = json.loads((tmp_path / "scores" / "summary.json").read_text())["agents"]["mock"]["tool"]
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    for track in ("perspective", "counterfactual", "silence", "all"):
        if summary[track]["n"]:
            for name in ("s_answer", "s_traj", "s_adj", "violation_rate"):
                assert metrics[f"{track}/{name}"] == pytest.approx(summary[track][name]), (track, name)
