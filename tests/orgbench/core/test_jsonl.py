"""The one JSONL reader: line numbers in every error, a torn last line tolerated only in a journal."""

from __future__ import annotations

import pytest

from orgbench.core.errors import FormatError, InputError
from orgbench.core.jsonl import read_jsonl


def test_values_and_line_numbers_skip_blank_lines_and_accept_crlf(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\r\n\n   \n["\xc3\xa9t\xc3\xa9"]\n7')   # CRLF, blanks, non-ASCII, no final newline
    read = read_jsonl(path)
    assert list(read.numbered()) == [(1, {"a": 1}), (4, ["été"]), (5, 7)]
    assert [(line.number, line.text) for line in read] == [(1, '{"a": 1}'), (4, '["été"]'), (5, "7")]
    assert (read.torn, read.blank) == (False, 2)


@pytest.mark.parametrize("raw, problem", [
    (b'{"a": 1}\n{"a": \n', "rows.jsonl:2: invalid JSON (Expecting value)"),
    (b'{"a": 1}\n\n\xff\xfe\n', "rows.jsonl:3: not UTF-8 (invalid start byte)"),
    (b"[" * 100_000 + b"\n", "rows.jsonl:1: invalid JSON (nested too deeply)"),
    (b'1\n{"a": 1} {"b": 2}\n', "rows.jsonl:2: invalid JSON (Extra data)"),
    (b'1\n{"a": NaN}\n', "rows.jsonl:2: invalid JSON (NaN is not a number JSON allows)"),
])
def test_a_bad_line_is_a_format_error_naming_file_and_line(tmp_path, raw, problem):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(raw)
    with pytest.raises(FormatError) as caught:
        read_jsonl(path).values
    assert str(caught.value) == f"{tmp_path}/{problem}"
    assert caught.value.line == int(problem.split(":")[1])


def test_a_torn_last_line_is_an_error_outside_a_journal_and_left_out_inside_one(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"header": 1}\n{"q": "a"}\n{"q": "b", "ans')
    with pytest.raises(FormatError, match=r"journal\.jsonl:3: invalid JSON"):
        read_jsonl(path).values
    read = read_jsonl(path, journal=True)
    assert read.values == [{"header": 1}, {"q": "a"}] and read.torn
    # in a journal a last line without its newline is torn even when it parses (the write was cut short)
    path.write_bytes(b'{"header": 1}\n{"q": "a"}')
    assert read_jsonl(path, journal=True).values == [{"header": 1}]
    assert read_jsonl(path).values == [{"header": 1}, {"q": "a"}]
    # a bad line before the last one is an error even in a journal
    path.write_bytes(b'{"header": 1}\nnot json\n{"q": "a"}\n')
    with pytest.raises(FormatError, match=r"journal\.jsonl:2: invalid JSON"):
        read_jsonl(path, journal=True).values
    # a torn line cut inside a multi-byte character
    path.write_bytes('{"q": "a"}\n{"q": "é'.encode()[:-1])
    read = read_jsonl(path, journal=True)
    assert read.values == [{"q": "a"}] and read.torn


def test_missing_file_and_directory_are_input_errors(tmp_path):
    with pytest.raises(InputError, match=r"nope\.jsonl: file not found"):
        read_jsonl(tmp_path / "nope.jsonl").values
    with pytest.raises(InputError, match="is a directory, expected a JSONL file"):
        read_jsonl(tmp_path).values


def test_lenient_reading_hands_on_each_bad_line_and_goes_on():
    lines = [b'{"a": 1}', b"", b"{oops", b"\xff", b"[1]", b'{"k": 1, "k": 2}']
    assert [(line.number, line.value, line.problem) for line in read_jsonl("x.jsonl", lines, lenient=True)] == [
        (1, {"a": 1}, None),
        (3, None, "invalid JSON (Expecting property name enclosed in double quotes)"),
        (4, None, "not UTF-8 (invalid start byte)"),
        (5, [1], None),
        (6, {"k": 2}, None),
    ]
    assert [line.problem for line in read_jsonl("x.jsonl", lines, lenient=True, unique_keys=True)][-1] == \
        "key 'k' appears twice in one object"


def test_a_repeated_key_is_refused_when_keys_must_be_unique(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": {"b": 1, "b": 2}}\n')
    assert read_jsonl(path).values[1] == {"a": {"b": 2}}
    with pytest.raises(FormatError, match=r"^.*labels\.jsonl:2: key 'b' appears twice in one object$"):
        read_jsonl(path, unique_keys=True).values
    # a line that is not JSON is named so even when it also repeats a key (the JSON problem comes first)
    path.write_bytes(b'{"b": 1, "b": 2} x\n')
    with pytest.raises(FormatError, match=r"labels\.jsonl:1: invalid JSON \(Extra data\)"):
        read_jsonl(path, unique_keys=True).values


def test_bytes_in_memory_are_read_with_the_same_rules():
    assert read_jsonl("pack:jobs.jsonl", b'{"a": 1}\n\n[2]').values == [{"a": 1}, [2]]
    with pytest.raises(FormatError, match=r"^pack:jobs\.jsonl:2: invalid JSON \(Expecting value\)$"):
        read_jsonl("pack:jobs.jsonl", b'{"a": 1}\n{"a":\n').values


def test_each_line_knows_where_its_bytes_stand_in_the_source():
    data = b'{"a": 1}\n\n  \n{"b": "\xc3\xa9"}\r\n[2]'
    spans = [line.span for line in read_jsonl("x.jsonl", data)]
    assert [data[start:end] for start, end in spans] == [b'{"a": 1}', b'{"b": "\xc3\xa9"}\r', b"[2]"]


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "x", null, true]}', "\ufeff{}", " [1] ", "[1] x", "NaN", "[1e999]",
                                  '{"a": -Infinity}', "", "{'a': 1}", '"\\ud800"'])
def test_strict_json_reads_as_json_loads_does_then_refuses_what_json_does_not_allow(text):
    """``loads_json`` keeps one decoder: the same values as ``json.loads``, the same messages (a BOM's too)."""
    import json

    from orgbench.core.storage import loads_json

    def outcome(read):
        try:
            return "value", read(text)
        except ValueError as exc:
            return type(exc).__name__, str(exc)

    expected = outcome(json.loads)
    got = outcome(loads_json)
    if expected[0] == "value" and text.strip() in ("NaN", "[1e999]", '{"a": -Infinity}'):
        assert got[0] == "ValueError"          # what JSON does not allow, json.loads reads
    else:
        assert got == expected
