"""Files on disk: malformed JSONL and manifests end in one line naming the file and line or field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orgbench.core.errors import InputError
from orgbench.core.storage import (
    staged_directory, verify_manifest, write_lines_atomic, write_manifest, write_text_atomic,
)
from orgbench.core.jsonl import read_jsonl


def test_jsonl_errors_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"a": \xff}\n')
    with pytest.raises(InputError, match=r"rows\.jsonl:3: not UTF-8"):
        read_jsonl(path).values
    path.write_bytes(b'{"a": 1}\n{"a": \n')
    with pytest.raises(InputError, match=r"rows\.jsonl:2: invalid JSON"):
        read_jsonl(path).values
    with pytest.raises(InputError, match="is a directory"):
        read_jsonl(tmp_path).values
    path.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert read_jsonl(path).values == [{"a": 1}, {"b": 2}]


def test_a_manifest_of_the_wrong_shape_is_named(tmp_path: Path) -> None:
    write_text_atomic(tmp_path / "x.txt", "x")
    write_manifest(tmp_path)
    assert verify_manifest(tmp_path) == []
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"files": 3}))
    with pytest.raises(InputError, match=r"MANIFEST\.json: field files"):
        verify_manifest(tmp_path)


def test_lines_are_written_as_their_joined_text_and_their_hash_is_the_files(tmp_path: Path) -> None:
    import hashlib

    lines = [f"{i} {'—' if i % 300 == 7 else 'é' if i % 5 == 0 else 'a'}\n" for i in range(1000)]
    digest = write_lines_atomic(tmp_path / "lines.txt", iter(lines))
    data = (tmp_path / "lines.txt").read_bytes()
    assert data == "".join(lines).encode("utf-8")
    assert digest == hashlib.sha256(data).hexdigest()
    write_text_atomic(tmp_path / "other.txt", "x")
    read_back = write_manifest(tmp_path)
    assert write_manifest(tmp_path, hashed={"lines.txt": digest}) == read_back
    assert verify_manifest(tmp_path) == []


def test_staged_directory_clears_what_a_killed_run_left_and_keeps_nothing_on_error(tmp_path: Path) -> None:
    final = tmp_path / "out"
    abandoned = tmp_path / ".out.999999999.abc.partial"  # no such process
    abandoned.mkdir()
    with pytest.raises(RuntimeError):
        with staged_directory(final) as tmp:
            write_text_atomic(tmp / "half.txt", "half")
            raise RuntimeError("boom")
    assert not final.exists() and not abandoned.exists()
    assert [p.name for p in tmp_path.iterdir()] == []
    with staged_directory(final) as tmp:
        write_text_atomic(tmp / "done.txt", "done")
    assert (final / "done.txt").read_text() == "done"
    assert oct(final.stat().st_mode & 0o777) != oct(0o700)  # finished folders get the usual modes
