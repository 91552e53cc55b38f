"""Malformed inputs at every command that reads a file: exit 2, one line, no traceback, no hang, nothing finished left.

The full set (tests/orgbench/edge_fuzz.py: 26 commands x 25 variant classes, in-process under an alarm, one
subprocess sample per command) is slow; a small subset and the OS-error injections at the one reader and writer
run always.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, read_text, write_text_atomic
from tests.orgbench.edge_fuzz import CLASSES, COMMANDS, Injected, attempt, build_fixtures, cases, looks_finished

ROOT = Path(__file__).resolve().parents[2]
FAST = ("FIFO", "symlink loop", "NaN", "1e999", "huge int", "deep nesting", "device", "unreadable (EACCES)",
        "read-only out (EROFS)", "full disk (ENOSPC)")


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    return build_fixtures(tmp_path_factory.mktemp("fuzz"))


def _report(made, outcomes) -> str:
    return "\n".join(f"{c.command} / {c.variant}: {o.verdict}: {o.detail}" for c, o in zip(made, outcomes)
                     if o.verdict != "refused")


def test_a_config_and_a_world_given_malformed_are_refused_in_one_line(tmp_path):
    config = tmp_path / "world.toml"
    config.write_text("seed = 3\ndays = 5\npeople = 16\n")
    made = cases({"config": config}, tmp_path / "cases", [COMMANDS[0]], FAST)
    outcomes = [attempt(case, 20) for case in made]
    assert len(made) == len(FAST)
    assert all(o.verdict == "refused" for o in outcomes), _report(made, outcomes)


@pytest.mark.slow          # 26 commands x 25 variants, each a command run in-process (15 s idle, minutes loaded)
def test_every_command_refuses_every_malformed_input_in_one_line(fixtures, tmp_path):
    made = cases(fixtures, tmp_path / "cases")
    per_command = Counter(case.command for case in made)
    assert len(made) >= 400 and min(per_command.values()) >= 20, per_command
    assert {case.variant for case in made} == set(CLASSES)
    outcomes = [attempt(case, 60) for case in made]
    assert all(o.verdict == "refused" for o in outcomes), _report(made, outcomes)


@pytest.mark.slow          # one orgbench process per command
def test_one_subprocess_per_command_exits_2_with_one_line(fixtures, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    seen = set()
    for case in cases(fixtures, tmp_path / "cases", classes=("torn line", "FIFO", "NaN")):
        if case.command in seen:
            continue
        seen.add(case.command)
        done = subprocess.run([sys.executable, "-m", "orgbench", *case.argv], capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 2, (case, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr, done.stderr
        assert not looks_finished(case.out), case
    assert len(seen) == len(COMMANDS)


@pytest.mark.parametrize("code, words", [(errno.EACCES, "permission denied"), (errno.EROFS, "read-only file system"),
                                         (errno.ENOSPC, "no space left on the device")])
def test_an_os_error_at_the_one_reader_is_one_line_naming_the_file(tmp_path, code, words):
    path = tmp_path / "a.json"
    path.write_text("{}\n")
    with Injected(code, target=path), pytest.raises(InputError) as caught:
        read_json(path)
    assert str(caught.value) == f"{path}: cannot be read: {words}"


@pytest.mark.parametrize("code, words", [(errno.EACCES, "permission denied"), (errno.EROFS, "read-only file system"),
                                         (errno.ENOSPC, "no space left on the device")])
def test_an_os_error_at_the_one_writer_is_one_line_and_leaves_no_temporary_file(tmp_path, code, words):
    path = tmp_path / "out" / "summary.json"
    path.parent.mkdir()
    with Injected(code, under=tmp_path), pytest.raises(InputError) as caught:
        write_text_atomic(path, "{}\n")
    assert str(caught.value) == f"{path}: cannot be written: {words}"
    assert list(path.parent.iterdir()) == []


def test_a_fifo_a_device_and_a_symlink_loop_are_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    with pytest.raises(InputError, match="fifo: a FIFO, not a regular file"):
        read_text(tmp_path / "fifo")
    with pytest.raises(InputError, match="a: a symbolic link loop"):
        read_text(tmp_path / "a")
    with pytest.raises(InputError, match="zero: a character device, not a regular file"):
        read_text(Path("/dev/zero"))


def test_non_finite_numbers_huge_integers_and_deep_nesting_are_refused_in_json_and_toml(tmp_path):
    from orgbench.core.storage import loads_toml

    for text, why in (('{"a": NaN}', "NaN is not a number JSON allows"), ('[-Infinity]', "-Infinity is not a number"),
                      ('{"v": 1e999}', "1e999 is out of range"), ("9" * 5000, "Exceeds the limit (4300 digits)"),
                      ("[" * 150 + "]" * 150, "nested too deeply"), ("[" * 100_000, "nested too deeply")):
        (tmp_path / "x.json").write_text(text)
        with pytest.raises(InputError, match=r"x\.json: invalid JSON \(.*" + why.replace("(", r"\(").replace(")", r"\)")):
            read_json(tmp_path / "x.json")
    for text, why in (("a = nan", "field a: nan is not a finite number"),
                      ("[t]\nb = [1, -inf]", r"field t.b\[1\]: -inf is not a finite number"),
                      ("a = 1e999", "field a: inf is not a finite number"),
                      ("a = " + "9" * 5000, r"invalid TOML \(Exceeds the limit \(4300 digits\)"),
                      ("a = " + "[" * 150 + "]" * 150, r"invalid TOML \(nested too deeply\)")):
        with pytest.raises(InputError, match="^c.toml: " + why):
            loads_toml(text, "c.toml")


def test_a_full_disk_for_real_is_one_line_and_exit_2(tmp_path):
    """``/dev/full`` as standard output: every write fails with ENOSPC."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "orgbench", "list"], stdout=full, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["error: output: cannot be written: no space left on the device"]
