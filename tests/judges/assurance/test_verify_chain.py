"""in-toto for real and ``orgbench assure verify``: a clean chain passes, each tampered one fails naming its link."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.assurance.pack import edit_member, read_pack
from orgbench.cli import cli

STEPS = ("build", "check", "stage", "emit", "dispatch")


def _run_chain(source, work, *extra):
    runner = CliRunner()
    for step in STEPS:
        result = runner.invoke(cli, ["assure", step, "--source", str(source), "--work", str(work), *extra])
        assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def clean(suite_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("chain") / "w"
    _run_chain(suite_dir, work)
    return work


def _verify(work, *extra):
    return CliRunner().invoke(cli, ["assure", "verify", str(work), *map(str, extra)])


def _in_toto_verify(work, public=None):
    """The documented third-party command, run in the workspace (its inspection reads the current folder)."""
    script = Path(sys.executable).parent / "in-toto-verify"
    key = str(public) if public is not None else "in-toto/root.pub"
    return subprocess.run([str(script), "--layout", "in-toto/root.layout", "--verification-keys", key,
                           "--link-dir", "in-toto"], capture_output=True, text=True, cwd=work)


def test_a_clean_chain_passes_verify_and_in_toto_verify(clean, suite_dir, tmp_path):
    result = _verify(clean, "--source", suite_dir, "--junit", tmp_path / "junit.xml")
    assert result.exit_code == 0, result.output
    xml = (tmp_path / "junit.xml").read_text()
    assert 'failures="0"' in xml and 'classname="records/dispatch.record.json"' in xml and "in-toto-verify" in xml
    done = _in_toto_verify(clean)
    assert done.returncode == 0, done.stdout + done.stderr
    signing = json.loads((clean / "in-toto" / "signing.json").read_text())
    assert signing["ephemeral"] is True
    link = json.loads(next((clean / "in-toto").glob("stage.*.link")).read_text())
    assert link["signed"]["command"] == ["orgbench", "assure", "stage"] and link["signatures"]
    assert all((clean / path).is_file() for path in link["signed"]["products"])      # real files, not pack members


def _copy(clean, tmp_path):
    work = tmp_path / "w"
    shutil.copytree(clean, work)
    return work


def _edit_staged(work):
    pack = work / "staged" / "packets.pack"
    edit_member(pack, sorted(read_pack(pack))[0], lambda d: d.replace(b"\n", b"\r\n"))


def _edit_record(work):
    path = work / "records" / "emit.record.json"
    record = json.loads(path.read_text())
    record["materials"] = {k: "0" * 64 for k in record["materials"]}
    path.write_text(json.dumps(record))


def _edit_in_toto_link(work):
    path = next((work / "in-toto").glob("build.*.link"))
    link = json.loads(path.read_text())
    first = sorted(link["signed"]["products"])[0]
    link["signed"]["products"][first]["sha256"] = "0" * 64
    path.write_text(json.dumps(link))


def _drop_dispatch(work):
    (work / "records" / "dispatch.record.json").unlink()


def _edit_build_output(work):
    path = work / "build" / "jobs.jsonl"
    path.write_bytes(path.read_bytes() + b"\n")


TAMPERED = {"staged packet changed": (_edit_staged, "records/stage.record.json", "files-unchanged"),
            "emit record rewritten": (_edit_record, "records/emit.record.json", "chains-to-predecessor"),
            "in-toto link edited": (_edit_in_toto_link, "in-toto/root.layout", "in-toto-verify"),
            "dispatch record missing": (_drop_dispatch, "records/dispatch.record.json", "record-present"),
            "build output changed": (_edit_build_output, "records/build.record.json", "files-unchanged")}


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_chain_fails_naming_the_link(clean, tmp_path, name):
    tamper, link, check = TAMPERED[name]
    work = _copy(clean, tmp_path)
    tamper(work)
    result = _verify(work, "--junit", tmp_path / "junit.xml")
    assert result.exit_code == 4                      # the inspection finds every change: tampering
    assert f"FAIL {link} {check}:" in result.output and "FAIL in-toto/root.layout in-toto-verify:" in result.output
    assert "accidents only" in result.output          # no key given: the workspace's own
    assert f'classname="{link}" name="{check}">' in (tmp_path / "junit.xml").read_text()


def test_a_record_with_a_non_zero_return_code_fails_finished_ok(clean, tmp_path):
    work = _copy(clean, tmp_path)
    path = work / "records" / "check.record.json"
    record = json.loads(path.read_text())
    assert record["return_code"] == 0
    record["return_code"] = 3
    path.write_text(json.dumps(record))
    result = _verify(work)
    assert result.exit_code != 0
    assert "FAIL records/check.record.json finished-ok: return_code 3" in result.output
    assert "FAIL records/build.record.json finished-ok" not in result.output      # only the edited record


def test_in_toto_verify_rejects_changed_bytes(clean, tmp_path):
    work = _copy(clean, tmp_path)
    _edit_in_toto_link(work)
    assert _in_toto_verify(work).returncode == 1


def test_a_source_changed_after_the_chain_fails_verify(clean, suite_dir, tmp_path):
    source = tmp_path / "suite"
    shutil.copytree(suite_dir, source)
    (source / "labels.jsonl").write_bytes((source / "labels.jsonl").read_bytes() + b"\n")
    result = _verify(clean, "--source", source)
    assert result.exit_code == 1 and "FAIL records/build.record.json source-unchanged" in result.output


def test_a_chain_signed_with_the_users_key(suite_dir, tmp_path):
    key = tmp_path / "key.pem"
    made = CliRunner().invoke(cli, ["assure", "keygen", "--out", str(key)])
    fingerprint = made.output.splitlines()[0]
    assert made.exit_code == 0 and len(fingerprint) == 64 and oct(key.stat().st_mode & 0o777) == "0o600"
    work = tmp_path / "w"
    _run_chain(suite_dir, work, "--key", str(key))
    assert json.loads((work / "in-toto" / "signing.json").read_text())["ephemeral"] is False
    assert not (work / "in-toto" / "ephemeral.pem").exists()
    assert _in_toto_verify(work, f"{key}.pub").returncode == 0
    for trusted in (["--key", f"{key}.pub"], ["--key", key], ["--key-fingerprint", fingerprint]):
        result = _verify(work, *trusted)
        assert result.exit_code == 0 and "from outside the workspace" in result.output, result.output
    result = CliRunner().invoke(cli, ["assure", "dispatch", "--source", str(suite_dir), "--work", str(work)])
    assert result.exit_code == 2 and "pass it with --key" in result.output
