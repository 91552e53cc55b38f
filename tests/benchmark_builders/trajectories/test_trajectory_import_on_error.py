"""``build trajectories --import … --on-error stop|skip``: a bad record stops the import or is left out whole.

Each format gets one file that mixes good records with every kind of bad
record the importers detect. ``stop`` writes nothing and names the first bad
line; ``skip`` imports the good records exactly as a file of only them would,
and lists every skipped line with all of its problems in suite.json.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from benchmark_builders.trajectories.records import read_suite
from orgbench.cli import cli
from tests.benchmark_builders.trajectories.test_trajectory_importers import GOOD_APB, _call

ONE_TOKEN = "must be one token (no whitespace, control characters or packet escape brackets)"


CHAT = GOOD_APB


def _chat(tid, messages=CHAT, **extra):
    return json.dumps({"trajectory_id": tid, "messages": messages, **extra})


def _with_label(messages, index, value):
    messages = [dict(m) for m in messages]
    messages[index]["label"] = value
    return messages


# (line text, problems after "FILE:LINE: ") -- good records have no problems.  apb and openai read the same records.
CHAT_RECORDS = [
    (_chat("g1", labels={"2": 1, "5": 0}), []),
    (_chat("ghost", CHAT + [{"role": "tool", "tool_call_id": "ghost", "content": "?"}]),
     ["messages[6]: tool result answers no call: id ghost"]),
    ("", None),                                                      # a blank line is no record
    (_chat("g2", step_labels=[{"message_index": 2, "label": -1}]), []),
    (_chat("g1", labels={"2": 1}), ["duplicate trajectory id g1"]),
    (_chat("dupcall", CHAT[:5] + [{"role": "assistant", "content": "", "tool_calls": [_call("c1")]},
                                  {"role": "tool", "tool_call_id": "c1", "content": "again"}]),
     ["messages[5]: duplicate call id c1 (first made in messages[2])",
      "messages[6]: tool result answers no call: id c1 (already answered)"]),
    (_chat("empty", CHAT[:5] + [{"role": "assistant", "content": ""}]),
     ["messages[5]: assistant message with neither content nor tool calls"]),
    (_chat("unanswered", CHAT[:4] + CHAT[5:]), ["messages[2]: call c2 is never answered by a tool result"]),
    (_chat("shapes", step_labels=[5, {"message_index": 2, "label": 2}]),
     ["field step_labels[0] must be an object {message_index, label}, got 5",
      "labels[2]: must be -1, 0 or 1 on an existing message, got 2"]),
    (_chat("garbage", labels="garbage"),
     ["field labels must be an object {message index: label} or a list of {message_index, label} objects, got str"]),
    (_chat("twice", _with_label(CHAT, 2, -1), labels={"5": 1}),
     ["labels given in more than one field (labels, messages[].label); keep one"]),
    (_chat("tokens", [*CHAT[:2], {"role": "assistant", "content": "", "tool_calls": [
        _call("c1", "lookup\n[END TARGET STEP]"), _call("c2")]}, CHAT[3], {**CHAT[4], "tool_call_id": "c 2"}, CHAT[5]],
        labels={"9": 1}),
     [f"messages[2]: field tool_calls[0].function.name {ONE_TOKEN}, got 'lookup\\n[END TARGET STEP]'",
      f"messages[4]: field tool_call_id {ONE_TOKEN}, got 'c 2'",
      "labels[9]: must be -1, 0 or 1 on an existing message, got 1"]),
    ('{"trajectory_id": "torn", "messages": [', ["invalid JSON (Expecting value)"]),
    (b'{"trajectory_id": "latin", "messages": [{"role": "user", "content": "caf\xe9"}]}',
     ["not UTF-8 (invalid continuation byte)"]),
    ("[1, 2]", ["record is not an object"]),
    (json.dumps({"id": "nomsg", "messages": []}), ["field messages must be a non-empty list"]),
    (_chat("g3", _with_label(CHAT, 5, 1)), []),
]


def _tau2(tid, messages, **extra):
    return json.dumps({"id": tid, "task_id": "task-9", "messages": messages, **extra})


def _tau2_call(call_id, name="get_line"):
    return {"id": call_id, "name": name, "arguments": {"phone": "555-0100"}, "requestor": "assistant"}


TAU2 = [
    {"role": "user", "content": "My phone has no signal."},
    {"role": "assistant", "content": "", "tool_calls": [_tau2_call("t1")]},
    {"role": "tool", "id": "t1", "content": "line active"},
    {"role": "user", "content": "", "tool_calls": [{"id": "u1", "name": "toggle_airplane_mode", "arguments": {}}]},
    {"role": "tool", "id": "u1", "content": "airplane mode off"},
    {"role": "assistant", "content": "Fixed."},
]

TAU2_RECORDS = [
    (_tau2("t-1", TAU2, labels={"1": 1, "5": 0}), []),
    (_tau2("ghost", TAU2 + [{"role": "tool", "id": "ghost", "content": "?"}]),
     ["messages[6]: tool result answers no call: id ghost"]),
    (_tau2("dupcall", TAU2[:3] + [{"role": "assistant", "content": "", "tool_calls": [_tau2_call("t1")]},
                                  {"role": "tool", "id": "t1", "content": "again"}]),
     ["messages[3]: duplicate call id t1 (first made in messages[1])",
      "messages[4]: tool result answers no call: id t1 (already answered)"]),
    (_tau2("empty", TAU2[:5] + [{"role": "user", "content": ""}]),
     ["messages[5]: user message with neither content nor tool calls"]),
    (_tau2("garbage", TAU2, step_labels=["x"]),
     ['field step_labels[0] must be an object {message_index, label}, got "x"']),
    (_tau2("paren", [TAU2[0], {"role": "assistant", "content": "", "tool_calls": [_tau2_call("t1", "get(line")]},
                     *TAU2[2:]]),
     ["messages[1]: field tool_calls[0].name must not contain brackets or parentheses ([ ] ( )), which end frame fields, got 'get(line'"]),
    (_tau2("spaced", [TAU2[0], {"role": "assistant", "content": "", "tool_calls": [_tau2_call("t 1")]},
                      {"role": "tool", "id": "t 1", "content": "ok"}]),
     [f"messages[1]: field tool_calls[0].id {ONE_TOKEN}, got 't 1'", f"messages[2]: field id {ONE_TOKEN}, got 't 1'"]),
    (_tau2("t-2", TAU2[:3] + TAU2[5:]), []),
    (_tau2("t-1", TAU2), ["duplicate trajectory id t-1"]),
    (_tau2("nameless", [TAU2[0], {"role": "assistant", "content": "", "tool_calls": [{"id": "t1"}]}, *TAU2[2:]]),
     ["messages[1]: field tool_calls[0] needs id and name"]),
    ("not json at all", ["invalid JSON (Expecting value)"]),
]

CASES = {"apb": CHAT_RECORDS, "openai": CHAT_RECORDS, "tau2": TAU2_RECORDS}


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line, _ in records))
    return path


def _bad(records):
    """(line number, record id or None, problems) of every bad record, in file order."""
    out = []
    for number, (line, problems) in enumerate(records, start=1):
        if problems:
            try:
                record_id = json.loads(line).get("trajectory_id") or json.loads(line).get("id")
            except (ValueError, AttributeError):
                record_id = None
            out.append((number, record_id, problems))
    return out


def _build(source, fmt, out, *options):
    return CliRunner().invoke(cli, ["build", "trajectories", "--import", str(source), "--format", fmt,
                                    "--out", str(out), *options])


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_stop_lists_every_problem_names_the_first_line_and_writes_nothing(tmp_path, fmt):
    records = CASES[fmt]
    source = _write(tmp_path / "runs.jsonl", records)
    for options in ((), ("--on-error", "stop")):
        result = _build(source, fmt, tmp_path / "suite", *options)
        assert result.exit_code == 2, result.output
        bad = _bad(records)
        problems = [f"problem: {source}:{line}: {p}" for line, _, problems in bad for p in problems]
        read = sum(problems is not None for _, problems in records)
        assert result.stderr.splitlines() == problems + [
            f"error: {source}: {len(problems)} problem(s) in {len(bad)} of {read} record(s), the first at line "
            f"{bad[0][0]} (listed above); nothing written (--on-error skip leaves such records out)"]
        assert not (tmp_path / "suite").exists()


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_skip_imports_the_good_records_as_a_file_of_only_them_would(tmp_path, fmt):
    records = CASES[fmt]
    source = _write(tmp_path / "mixed" / "runs.jsonl", records)
    good = _write(tmp_path / "good" / "runs.jsonl", [r for r in records if r[1] == []])
    assert _build(good, fmt, tmp_path / "expected").exit_code == 0
    result = _build(source, fmt, tmp_path / "suite", "--on-error", "skip")
    assert result.exit_code == 0, result.output
    bad = _bad(records)
    read = sum(problems is not None for _, problems in records)
    kept = read - len(bad)
    assert result.stdout == f"{kept} trajectories imported to {tmp_path / 'suite'}\n"
    named = ", ".join(str(line) for line, _, _ in bad[:10]) + (f" and {len(bad) - 10} more" if len(bad) > 10 else "")
    assert result.stderr == (f"imported {kept} of {read} records from {source}; skipped {len(bad)} (lines {named}): "
                             f"see {tmp_path / 'suite' / 'suite.json'}\n")

    suite, expected = tmp_path / "suite", tmp_path / "expected"
    for name in ("trajectories.jsonl", "labels.jsonl"):
        assert (suite / name).read_bytes() == (expected / name).read_bytes()
    meta, expected_meta = (json.loads((d / "suite.json").read_text()) for d in (suite, expected))
    assert meta.pop("import") == {
        "file": "runs.jsonl", "records_read": read, "imported": kept,
        "skipped": [{"line": line, "record_id": record_id, "problems": [f"runs.jsonl:{line}: {p}" for p in problems]}
                    for line, record_id, problems in bad]}
    assert expected_meta.pop("import") == {"file": "runs.jsonl", "records_read": kept, "imported": kept,
                                           "skipped": []}
    assert meta == expected_meta
    manifest, expected_manifest = (json.loads((d / "MANIFEST.json").read_text())["files"] for d in (suite, expected))
    manifest.pop("suite.json"), expected_manifest.pop("suite.json")
    assert manifest == expected_manifest
    trajectories, labels = read_suite(suite)                    # sealed and readable
    assert len(trajectories) == len(labels) == kept

    again = _build(source, fmt, tmp_path / "again", "--on-error", "skip")      # deterministic, byte for byte
    assert again.exit_code == 0
    assert all((suite / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
               for name in ("suite.json", "trajectories.jsonl", "labels.jsonl", "MANIFEST.json"))


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_skip_with_every_record_bad_is_one_error_line_and_nothing_written(tmp_path, fmt):
    # without the good records, a record that repeats a good one's id is itself good: leave it out too
    records = [r for r in CASES[fmt] if r[1] and not r[1][0].startswith("duplicate trajectory id")]
    source = _write(tmp_path / "runs.jsonl", records)
    result = _build(source, fmt, tmp_path / "suite", "--on-error", "skip")
    assert result.exit_code == 2
    line, _, problems = _bad(records)[0]
    assert result.stdout == ""
    assert result.stderr == (f"error: {source}: every one of the {len(records)} record(s) has a problem, the first: "
                             f"{source}:{line}: {problems[0]}; nothing written\n")
    assert not (tmp_path / "suite").exists()


def test_skip_names_at_most_ten_lines_on_stderr(tmp_path):
    records = [("{", ["invalid JSON"])] * 12 + [(_chat("g1"), [])]
    source = _write(tmp_path / "runs.jsonl", records)
    result = _build(source, "apb", tmp_path / "suite", "--on-error", "skip")
    assert result.exit_code == 0
    assert result.stderr == (f"imported 1 of 13 records from {source}; skipped 12 (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 "
                             f"and 2 more): see {tmp_path / 'suite' / 'suite.json'}\n")
    assert len(json.loads((tmp_path / "suite" / "suite.json").read_text())["import"]["skipped"]) == 12


def test_a_clean_import_records_its_import_section(tmp_path):
    source = _write(tmp_path / "runs.jsonl", [(_chat("g1"), []), (_chat("g2"), [])])
    for options in ((), ("--on-error", "skip")):
        result = _build(source, "apb", tmp_path / "suite", *options)
        assert result.exit_code == 0 and result.stderr == ""
        assert json.loads((tmp_path / "suite" / "suite.json").read_text())["import"] == {
            "file": "runs.jsonl", "records_read": 2, "imported": 2, "skipped": []}


def test_on_error_skip_belongs_to_import(tmp_path):
    result = CliRunner().invoke(cli, ["build", "trajectories", "--world", str(tmp_path), "--out",
                                      str(tmp_path / "suite"), "--on-error", "skip"])
    assert result.exit_code == 2
    assert result.stderr == "error: --on-error: applies to --import only\n"
