"""Importers for the real releases: AgentProcessBench as published (+ its label files) and tau2 results.json.

Fixtures are our own, written in the releases' shapes. Tests that read the real files use
ORGBENCH_APB_DATA (a folder holding AgentProcessBench's data/ tree) and skip when it is absent.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmark_builders.trajectories.importers import import_file
from benchmark_builders.trajectories.records import read_suite
from orgbench.cli import cli
from orgbench.core.errors import InputError

TOOLS = [{"type": "function", "function": {"name": "search", "description": "Search the web.",
                                           "parameters": {"type": "object", "properties": {}}}}]


def _apb_record(total, query, sample, labels=None, source="searchR1_demo"):
    record = {"total_index": total, "query_index": query, "sample_index": sample, "data_source": source,
              "question": f"question {query}", "tools": TOOLS, "messages": [
                  {"role": "system", "content": "You are helpful."},
                  {"role": "user", "content": f"Question {query}?"},
                  {"role": "assistant", "content": "", "tool_calls": [
                      {"id": f"chatcmpl-tool-{total}a", "type": "function",
                       "function": {"name": "search", "arguments": '{"query_list": ["x"]}'}}]},
                  {"role": "tool", "name": "search", "content": '{"result": []}', "tool_call_id": f"chatcmpl-tool-{total}a"},
                  {"role": "assistant", "content": "", "tool_calls": [
                      {"id": f"chatcmpl-tool-{total}b", "type": "function",
                       "function": {"name": "search", "arguments": '{"query_list": ["y"]}'}}]},
                  {"role": "tool", "name": "search", "content": '{"result": []}', "tool_call_id": f"chatcmpl-tool-{total}b"},
                  {"role": "assistant", "content": "<answer> Paris </answer>"}],
              "final_label": -1}
    if labels is not None:
        record["step_labels"] = labels
    return record


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_apb_as_published_keeps_clusters_ids_and_tools(tmp_path):
    rows = [_apb_record(k, k // 3, k % 3, {"2": 1, "4": -1}) for k in range(7)]
    result = import_file(_write(tmp_path / "demo.jsonl", rows), "apb")
    assert result.rejected == ()
    assert [t.trajectory_id for t in result.trajectories] == [str(k) for k in range(7)]
    assert Counter(t.cluster for t in result.trajectories) == {"searchR1_demo:0": 3, "searchR1_demo:1": 3,
                                                               "searchR1_demo:2": 1}
    assert json.loads(result.trajectories[0].tools) == TOOLS
    assert result.labels[0].labels == {2: 1, 4: -1}


def test_a_record_present_twice_is_detected(tmp_path):
    rows = [_apb_record(0, 0, 0, {"2": 1}), _apb_record(1, 0, 1, {"2": 1}), _apb_record(0, 0, 0, {"2": 1}),
            _apb_record(9, 0, 1, {"2": 1})]
    result = import_file(_write(tmp_path / "dup.jsonl", rows), "apb")
    assert [r.line for r in result.rejected] == [3, 4]
    assert "duplicate trajectory id 0" in result.rejected[0].problems[0]
    assert "record searchR1_demo:0:1 present twice (first at line 2)" in result.rejected[1].problems[0]


def test_labels_stored_apart_join_on_the_record_key(tmp_path):
    messages = _write(tmp_path / "demo.jsonl", [_apb_record(k, k // 2, k % 2) for k in range(4)])
    labels = _write(tmp_path / "demo_final.jsonl", [
        {"total_index": k, "record_id": f"searchR1_demo:{k // 2}:{k % 2}", "data_source": "searchR1_demo",
         "query_index": k // 2, "sample_index": k % 2, "step_labels": {"2": 1, "4": -1 if k % 2 else 1},
         "final_label": -1} for k in range(4)])
    result = import_file(messages, "apb", labels)
    assert result.rejected == ()
    assert [dict(l.labels) for l in result.labels] == [{2: 1, 4: 1}, {2: 1, 4: -1}] * 2


def test_a_label_line_that_matches_no_record_or_disagrees_is_reported(tmp_path):
    messages = _write(tmp_path / "demo.jsonl", [_apb_record(0, 0, 0, {"2": 1})])
    stray = _write(tmp_path / "stray.jsonl", [{"record_id": "searchR1_demo:0:0", "step_labels": {"2": 1}},
                                               {"record_id": "searchR1_demo:5:0", "step_labels": {"2": 1}}])
    with pytest.raises(InputError, match=r"stray.jsonl:2: labels for record searchR1_demo:5:0 match no record"):
        import_file(messages, "apb", stray)
    other = _write(tmp_path / "other.jsonl", [{"record_id": "searchR1_demo:0:0", "step_labels": {"2": -1}}])
    result = import_file(messages, "apb", other)
    assert "step_labels differ from other.jsonl:1" in result.rejected[0].problems[0]


def _tau2_results():
    def sim(k, task):
        return {"id": f"sim-{k}", "task_id": task, "trial": k % 2, "reward_info": {"reward": 1.0},
                "messages": [
                    {"role": "assistant", "content": "Hi! How can I help?", "turn_idx": 0},
                    {"role": "user", "content": "Cancel my booking ABC123.", "turn_idx": 1},
                    {"role": "assistant", "content": None, "turn_idx": 2, "tool_calls": [
                        {"id": f"call_{k}", "name": "get_reservation_details",
                         "arguments": {"reservation_id": "ABC123"}, "requestor": "assistant"}]},
                    {"role": "tool", "id": f"call_{k}", "content": '{"status": "ok"}', "requestor": "assistant",
                     "error": False, "turn_idx": 3},
                    {"role": "user", "content": None, "turn_idx": 4, "tool_calls": [
                        {"id": f"ucall_{k}", "name": "toggle_airplane_mode", "arguments": {}, "requestor": "user"}]},
                    {"role": "tool", "id": f"ucall_{k}", "content": "done", "requestor": "user", "turn_idx": 5},
                    {"role": "assistant", "content": "Your booking is cancelled.", "turn_idx": 6}]}
    return {"timestamp": "2025-06-01", "info": {"num_trials": 2}, "tasks": [{"id": "0"}, {"id": "1"}],
            "simulations": [sim(0, "0"), sim(1, "0"), sim(2, "1")]}


def test_tau2_results_json_imports_one_trajectory_per_simulation(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_tau2_results(), indent=2))
    result = import_file(path, "tau2")
    assert result.rejected == () and result.records_read == 3
    assert [(t.trajectory_id, t.cluster) for t in result.trajectories] == [("sim-0", "0"), ("sim-1", "0"),
                                                                          ("sim-2", "1")]
    messages = result.trajectories[0].messages
    assert messages[2].tool_calls[0].arguments == '{"reservation_id": "ABC123"}'
    assert messages[4].role == "user" and messages[5].tool_call_id == "ucall_0"


def test_the_cli_imports_apb_with_a_label_file(tmp_path):
    messages = _write(tmp_path / "demo.jsonl", [_apb_record(k, k // 2, k % 2) for k in range(4)])
    labels = _write(tmp_path / "demo_final.jsonl", [
        {"record_id": f"searchR1_demo:{k // 2}:{k % 2}", "step_labels": {"2": 1, "4": -1}} for k in range(4)])
    result = CliRunner().invoke(cli, ["build", "trajectories", "--import", str(messages), "--labels", str(labels),
                                      "--out", str(tmp_path / "suite")])
    assert result.exit_code == 0, result.output
    trajectories, suite_labels = read_suite(tmp_path / "suite")
    assert len({t.cluster for t in trajectories}) == 2 and suite_labels["3"].labels == {2: 1, 4: -1}


APB = os.environ.get("ORGBENCH_APB_DATA")


@pytest.mark.skipif(not APB or not (Path(APB or ".") / "data/AgentProcessBench/hotpotqa.jsonl").is_file(),
                    reason="set ORGBENCH_APB_DATA to a folder holding AgentProcessBench's data/ tree")
def test_the_real_hotpotqa_release_imports_with_its_50_clusters():
    root = Path(APB)
    result = import_file(root / "data/AgentProcessBench/hotpotqa.jsonl", "apb")
    assert result.rejected == () and len(result.trajectories) == 250
    ids = [t.trajectory_id for t in result.trajectories]
    assert len(set(ids)) == 250
    assert len({t.cluster for t in result.trajectories}) == 50
    assert all(t.tools for t in result.trajectories)
    joined = import_file(root / "data/AgentProcessBench/hotpotqa.jsonl", "apb",
                         root / "data/AnswerOnly/hotpotqa_final.jsonl")
    assert [l.labels for l in joined.labels] == [l.labels for l in result.labels]
