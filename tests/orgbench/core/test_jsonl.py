"""The one JSONL reader: line numbers in every error, a torn last line tolerated only in a journal."""

from __future__ import annotations

import pytest

from orgbench.core.errors import FormatError, InputError
from orgbench.core.jsonl import iter_jsonl, read_jsonl, read_jsonl_file, scan_jsonl


def test_values_and_line_numbers_skip_blank_lines_and_accept_crlf(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\r\n\n   \n["\xc3\xa9t\xc3\xa9"]\n7')   # CRLF, blanks, non-ASCII, no final newline
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (4, ["été"]), (5, 7)]
    read = read_jsonl_file(path)
    assert [(line.number, line.text) for line in read.lines] == [(1, '{"a": 1}'), (4, '["été"]'), (5, "7")]
    assert (read.torn, read.blank) == (False, 2)


@pytest.mark.parametrize("raw, problem", [
    (b'{"a": 1}\n{"a": \n', "rows.jsonl:2: invalid JSON (Expecting value)"),
    (b'{"a": 1}\n\n\xff\xfe\n', "rows.jsonl:3: not UTF-8 (invalid start byte)"),
    (b"[" * 100_000 + b"\n", "rows.jsonl:1: invalid JSON (nested too deeply)"),
    (b'1\n{"a": 1} {"b": 2}\n', "rows.jsonl:2: invalid JSON (Extra data)"),
])
def test_a_bad_line_is_a_format_error_naming_file_and_line(tmp_path, raw, problem):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(raw)
    with pytest.raises(FormatError) as caught:
        read_jsonl(path)
    assert str(caught.value) == f"{tmp_path}/{problem}"
    assert caught.value.line == int(problem.split(":")[1])


def test_a_torn_last_line_is_an_error_outside_a_journal_and_left_out_inside_one(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"header": 1}\n{"q": "a"}\n{"q": "b", "ans')
    with pytest.raises(FormatError, match=r"journal\.jsonl:3: invalid JSON"):
        read_jsonl(path)
    read = read_jsonl_file(path, journal=True)
    assert read.values == [{"header": 1}, {"q": "a"}] and read.torn
    # in a journal a last line without its newline is torn even when it parses (the write was cut short)
    path.write_bytes(b'{"header": 1}\n{"q": "a"}')
    assert read_jsonl(path, journal=True) == [{"header": 1}]
    assert read_jsonl(path) == [{"header": 1}, {"q": "a"}]
    # a bad line before the last one is an error even in a journal
    path.write_bytes(b'{"header": 1}\nnot json\n{"q": "a"}\n')
    with pytest.raises(FormatError, match=r"journal\.jsonl:2: invalid JSON"):
        read_jsonl(path, journal=True)
    # a torn line cut inside a multi-byte character
    path.write_bytes('{"q": "a"}\n{"q": "é'.encode()[:-1])
    read = read_jsonl_file(path, journal=True)
    assert read.values == [{"q": "a"}] and read.torn


def test_missing_file_and_directory_are_input_errors(tmp_path):
    with pytest.raises(InputError, match=r"nope\.jsonl: file not found"):
        read_jsonl(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="is a directory, expected a JSONL file"):
        read_jsonl(tmp_path)


def test_scan_reports_each_bad_line_and_goes_on():
    lines = [b'{"a": 1}', b"", b"{oops", b"\xff", b"[1]"]
    assert list(scan_jsonl(lines)) == [
        (1, {"a": 1}, None),
        (3, None, "invalid JSON (Expecting property name enclosed in double quotes)"),
        (4, None, "not UTF-8 (invalid start byte)"),
        (5, [1], None),
    ]


def test_bytes_in_memory_are_read_with_the_same_rules():
    from orgbench.core.jsonl import loads_jsonl

    assert loads_jsonl(b'{"a": 1}\n\n[2]', "pack:jobs.jsonl") == [{"a": 1}, [2]]
    with pytest.raises(FormatError, match=r"^pack:jobs\.jsonl:2: invalid JSON \(Expecting value\)$"):
        loads_jsonl(b'{"a": 1}\n{"a":\n', "pack:jobs.jsonl")
