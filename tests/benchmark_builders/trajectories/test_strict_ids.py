"""Strict labels and ids (issue 34): ambiguous or lookalike input is refused with one line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_builders.trajectories.identifiers import id_problem, index_key
from orgbench.core.jsonl import repeated_key
from benchmark_builders.trajectories.importers import import_file
from benchmark_builders.trajectories.records import write_suite

ROOT = Path(__file__).resolve().parents[3]


def _record(trajectory_id="t1", labels=None):
    return {"trajectory_id": trajectory_id, "messages": [
        {"role": "user", "content": "please"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "assistant", "content": "ok"}], "labels": labels if labels is not None else {"1": 1}}


@pytest.mark.parametrize("value, why", [
    ("../evil", "path character"), ("a b", "U+0020"), ("a\nb", "U+000A"), ("\u0422raj-1", "mixes scripts"),
    ("traj\u200d", "U+200D"), ("cafe\u0301", "NFC"), ("..", "path component"), ("", "empty"),
    ("x\u2800", "U+2800"), ("x\u3164", "U+3164"), ("x\u034f", "U+034F")])
def test_ids_outside_the_charset_are_named(value, why):
    assert why in id_problem(value)


@pytest.mark.parametrize("value", ["t1", "hotpotqa:12:3", "550e8400-e29b-41d4-a716-446655440000", "Т-1", "日本ご-1",
                                   "café", "142"])
def test_ids_of_the_charset_pass(value):
    assert id_problem(value) == ""


def test_index_keys_are_canonical_and_json_keys_single():
    assert [index_key(k) for k in (4, "4", "04", " 4", "+4", "٤", -1, True)] == [4, 4, None, None, None, None, None,
                                                                               None]
    assert repeated_key('{"a": {"b": 1, "b": 2}}') == "b" and repeated_key('{"a": 1}') is None


def test_an_import_refuses_ambiguous_labels_keys_and_ids(tmp_path):
    rows = [json.dumps(_record("t1", {"01": 1})), json.dumps(_record("t2", {"1": 1})).replace(
        '"labels": {"1": 1}', '"labels": {"1": 1, "1": -1}'), json.dumps(_record("../evil")),
        json.dumps(_record("t\u200d1")), json.dumps(_record("ok"))]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(rows) + "\n")
    result = import_file(path, "openai")
    assert [t.trajectory_id for t in result.trajectories] == ["ok"]
    problems = result.problems
    assert "labels: key '01' is not a canonical message index (write 1)" in problems[0]
    assert "key '1' appears twice in one object" in problems[1]
    assert "'../evil' holds a path character" in problems[2] and "U+200D" in problems[3]


def _orgbench(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "orgbench", *map(str, args)], capture_output=True, text=True,
                          env=env)


def test_the_cli_import_stops_with_exit_2(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(_record("a b")) + "\n")
    done = _orgbench("build", "trajectories", "--import", path, "--format", "openai", "--out", tmp_path / "s")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "trajectory id 'a b' holds U+0020" in done.stderr and not (tmp_path / "s" / "trajectories.jsonl").exists()


def _suite(tmp_path, trajectory_id="t1", extra_labels_line=None, own_labels=True):
    from benchmark_builders.trajectories.records import labels_from_json, trajectory_from_json

    directory = tmp_path / "suite"
    trajectory = trajectory_from_json({**_record("t1"), "trajectory_id": "t1"}, "test")
    labels = labels_from_json({"trajectory_id": "t1", "labels": {"1": 1}}, "test")
    write_suite(directory, [trajectory], [labels], {})
    if trajectory_id != "t1" or extra_labels_line:
        for name in ("trajectories.jsonl", "labels.jsonl"):
            path = directory / name
            text = path.read_text().replace('"t1"', json.dumps(trajectory_id))
            if name == "labels.jsonl" and extra_labels_line:     # after the suite's own line, or in its place
                text = (text if own_labels else "") + extra_labels_line + "\n"
            path.write_text(text)
        manifest = json.loads((directory / "MANIFEST.json").read_text())
        import hashlib
        for name in ("trajectories.jsonl", "labels.jsonl"):
            data = (directory / name).read_bytes()
            manifest["files"][name].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
        (directory / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return directory


#: A labels line each hand-made suite appends, and the one line that refuses it. The last two once passed silently:
#: a trajectory the suite does not hold, or a message it does not have, lost that truth without a word.
_BAD_LABELS = {
    "second labels line": ({"trajectory_id": "t1", "labels": {"3": -1}},
                           "labels.jsonl:2: a second labels line for trajectory t1"),
    "unknown trajectory": ({"trajectory_id": "t9", "labels": {"1": 1}},
                           "labels.jsonl:2: field trajectory_id 't9' is not a trajectory of the suite's "
                           "trajectories.jsonl"),
    "message past the last": ({"trajectory_id": "t1", "labels": {"1": 1}, "notes": {"4": "gone"}},
                              "labels.jsonl:1: field notes[4]: trajectory t1 has 4 messages (indices 0-3)"),
}


@pytest.mark.parametrize("kind", ["id with a space", *_BAD_LABELS])
def test_assure_build_refuses_a_hand_made_suite_with_one_line(tmp_path, kind):
    if kind == "id with a space":
        suite, expected = _suite(tmp_path, "t 1"), "field trajectory_id 't 1' holds U+0020"
    else:
        line, expected = _BAD_LABELS[kind]
        suite = _suite(tmp_path, extra_labels_line=json.dumps(line), own_labels=kind != "message past the last")
    done = _orgbench("assure", "build", "--source", suite, "--work", tmp_path / "w")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1
    record = json.loads((tmp_path / "w" / "records" / "build.record.json").read_text())
    assert (record["return_code"], record["requirement"]) == (2, "bad-input")      # finished, never left half-done


@pytest.mark.parametrize("token", ["call\u3164", "call\u2800", "call\u115f", "x\uff3b1", "x\u30141"])
def test_call_ids_and_tool_names_cannot_hide_in_blank_or_bracket_lookalikes(token):
    from benchmark_builders.trajectories.records import token_problem

    assert "render blank or look like brackets" in token_problem(token)
    assert token_problem("caf\u00e9_1") == ""


@pytest.mark.slow
@pytest.mark.parametrize("case, line, expected", [
    ("path characters", json.dumps(_record("../evil")), "holds a path character '/'"),
    ("a newline", json.dumps(_record("t\n1")), "U+000A"),
    ("mixed script", json.dumps(_record("\u0422raj-1")), "mixes scripts"),
    ("a zero-width joiner", json.dumps(_record("traj\u200d")), "U+200D"),
    ("NFD", json.dumps(_record("cafe\u0301")), "NFC"),
    ("a repeated label key", json.dumps(_record("t1")).replace('"labels": {"1": 1}', '"labels": {"1": 1, "1": -1}'),
     "appears twice in one object"),
    ("keys 04 and 4", json.dumps(_record("t1", {"04": 1, "4": -1})), "not a canonical message index"),
    ("a repeated id key", json.dumps(_record("t1")).replace('"trajectory_id": "t1"',
                                                            '"trajectory_id": "t1", "trajectory_id": "t2"'),
     "appears twice in one object")])
def test_each_ambiguous_import_is_refused_by_the_cli_with_exit_2(tmp_path, case, line, expected):
    path = tmp_path / "runs.jsonl"
    path.write_text(line + "\n")
    done = _orgbench("build", "trajectories", "--import", path, "--format", "openai", "--out", tmp_path / "s")
    assert done.returncode == 2 and "Traceback" not in done.stderr, (case, done.stderr)
    assert expected in done.stderr, (case, done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: {path}: ") and "problem(s) in 1 of 1 record(s)" in last
    assert not (tmp_path / "s").exists()


@pytest.mark.slow
def test_a_labels_file_naming_one_record_twice_is_refused_by_the_cli(tmp_path):
    record = {**_record("t1"), "record_id": "src:0:0"}
    del record["labels"]
    runs, labels = tmp_path / "runs.jsonl", tmp_path / "labels.jsonl"
    runs.write_text(json.dumps(record) + "\n")
    labels.write_text("".join(json.dumps({"record_id": "src:0:0", "step_labels": {"1": v}}) + "\n" for v in (1, -1)))
    done = _orgbench("build", "trajectories", "--import", runs, "--labels", labels, "--format", "openai",
                     "--out", tmp_path / "s")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [f"error: {labels}:2: record_id src:0:0 given twice (first at line 1)"]
    assert not (tmp_path / "s").exists()
