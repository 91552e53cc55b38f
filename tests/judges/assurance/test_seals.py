"""The dispatch journal's seals: one signature per batch of lines, and every line still checked on its own."""

from __future__ import annotations

import json

from securesystemslib.signer import CryptoSigner

from judges.assurance.intoto import ChainKey
from judges.assurance.pipeline import Controls, PipelineConfig, run_pipeline, run_step
from judges.assurance.seals import SEAL_ROWS, JournalCheck, SealingAppender, check_journal, line_digest, seals_path
from judges.backends.stub import RecordingStub
from judges.journal import Appender
from orgbench.core.storage import dumps

HEADER = {"journal": 1, "stage": "dispatch", "signer": "x"}


def _key() -> ChainKey:
    return ChainKey(CryptoSigner.generate_ed25519(), ephemeral=False, outside=True)


def _journal(tmp_path, key: ChainKey, rows: int):
    path = tmp_path / "dispatch.jsonl"
    path.write_text(dumps(HEADER) + "\n")
    appender = SealingAppender(Appender(path), key, HEADER, seals_path(path))
    for i in range(rows):
        appender.add({"job_id": f"j{i:04d}", "draw": 0, "response": "{}", "error": None}, flush=True)
    appender.close()
    return path


def test_one_seal_signs_a_batch_and_every_line_is_vouched_for(tmp_path):
    key = _key()
    path = _journal(tmp_path, key, SEAL_ROWS * 2 + 5)
    seals = [json.loads(line) for line in seals_path(path).read_text().splitlines()]
    assert len(seals) >= 3 and sum(len(s["rows"]) for s in seals) == SEAL_ROWS * 2 + 5
    assert all(len(s["rows"]) <= SEAL_ROWS for s in seals)
    assert check_journal(path, key.trust, HEADER).problem == ""
    assert check_journal(path, key.trust, HEADER).unsealed == ()
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], *sorted(lines[1:], reverse=True)]) + "\n")     # reordered: still vouched
    assert check_journal(path, key.trust, HEADER) == JournalCheck()


def test_an_edited_or_planted_line_is_unsealed_and_another_key_or_run_refused_whole(tmp_path):
    key = _key()
    path = _journal(tmp_path, key, 10)
    lines = path.read_text().splitlines()
    edited = lines[3].replace('"{}"', '"{\\"verdict\\": \\"pass\\"}"')
    planted = dumps({"job_id": "j9999", "draw": 0, "response": "{}", "error": None})
    path.write_text("\n".join([*lines[:3], edited, *lines[4:], planted]) + "\n")
    assert check_journal(path, key.trust, HEADER).unsealed == (edited, planted)
    assert line_digest(lines[3]) != line_digest(edited)
    assert "header" in check_journal(path, key.trust, {**HEADER, "judge": "other"}).problem
    assert "does not verify" in check_journal(path, _key().trust, HEADER).problem
    torn = seals_path(path).read_text()
    seals_path(path).write_text(torn + torn[:40])                  # a seal torn mid-line by a kill: no seal
    assert check_journal(path, key.trust, HEADER).problem == ""


def test_dispatch_resumes_every_sealed_line_and_redoes_an_edited_one(suite_dir, tmp_path):
    key = _key()
    cfg = PipelineConfig(suite_dir, tmp_path / "w", Controls(3), draws=1, key=key)
    first = RecordingStub()
    assert run_pipeline(cfg, first).stopped_at == ""
    journal = tmp_path / "w" / "journal" / "dispatch.jsonl"
    lines = journal.read_text().splitlines()
    row = json.loads(lines[1])
    edited = dumps({**row, "response": '{"verdict": "pass", "forged": true}'})
    journal.write_text("\n".join([lines[0], edited, *lines[2:]]) + "\n")
    again = RecordingStub()
    assert run_step(cfg, "dispatch", again).return_code == 0
    assert len(again.reads) == 1 and len(first.reads) == len(lines) - 1       # only the edited line asked again
    assert "forged" in (tmp_path / "w" / "journal" / "dispatch.refused.jsonl").read_text()
    assert "forged" not in (tmp_path / "w" / "dispatch" / "responses.jsonl").read_text()


def test_a_finished_journals_seals_do_not_depend_on_when_the_judge_answered(suite_dir, tmp_path, monkeypatch):
    """A slow judge seals each answer alone (its batch is a second old), a fast one in batches: once dispatch ends,
    both workspaces hold the same seals, one per SEAL_ROWS lines of the sorted journal, and verify."""
    from judges.assurance import seals as seals_module

    key = _key()
    made = {}
    for name, seconds in (("fast", 3600.0), ("slow", 0.0)):
        monkeypatch.setattr(seals_module, "SEAL_SECONDS", seconds)
        cfg = PipelineConfig(suite_dir, tmp_path / name, Controls(3), draws=2, key=key)
        assert run_pipeline(cfg, RecordingStub()).stopped_at == ""
        journal = tmp_path / name / "journal" / "dispatch.jsonl"
        made[name] = (journal.read_bytes(), seals_path(journal).read_bytes())
        assert check_journal(journal, key.trust, json.loads(journal.read_text().splitlines()[0])) == JournalCheck()
    assert made["fast"] == made["slow"]
    lines = made["fast"][0].decode().splitlines()[1:]
    seals = [json.loads(line) for line in made["fast"][1].decode().splitlines()]
    assert len(seals) == -(-len(lines) // SEAL_ROWS) and [d for s in seals for d in s["rows"]] == \
        [d for i in range(0, len(lines), SEAL_ROWS) for d in sorted(line_digest(x) for x in lines[i:i + SEAL_ROWS])]


def test_a_line_edited_before_the_reseal_is_not_vouched_for_anew(tmp_path):
    from judges.assurance.seals import reseal

    key = _key()
    path = _journal(tmp_path, key, 10)
    lines = path.read_text().splitlines()
    edited = lines[2].replace('"{}"', '"{\\"verdict\\": \\"pass\\"}"')
    path.write_text("\n".join([*lines[:2], edited, *lines[3:]]) + "\n")
    before = seals_path(path).read_bytes()
    reseal(path, key, HEADER)
    assert seals_path(path).read_bytes() == before
    assert check_journal(path, key.trust, HEADER).unsealed == (edited,)
