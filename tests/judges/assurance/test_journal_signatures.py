"""A sealed dispatch journal is read line by line at "\n" only: an answer holding U+2028 stays one sealed line, a
torn last line is no answer, and a header that is not strict JSON is not this run's."""

from __future__ import annotations

from securesystemslib.signer import CryptoSigner

from judges.assurance.intoto import ChainKey
from judges.assurance.seals import SealingAppender, check_journal, seals_path
from judges.journal import Appender
from orgbench.core.storage import dumps

HEADER = {"journal": 1, "stage": "dispatch"}


def _journal(tmp_path, key, rows, tail=b""):
    path = tmp_path / "dispatch.jsonl"
    path.write_text(dumps(HEADER) + "\n")
    appender = SealingAppender(Appender(path), key, HEADER, seals_path(path))
    for row in rows:
        appender.add(row, flush=True)
    appender.close()
    path.write_bytes(path.read_bytes() + tail)
    return path


def test_a_sealed_line_with_u2028_stays_one_line_and_a_torn_tail_is_no_answer(tmp_path):
    key = ChainKey(CryptoSigner.generate_ed25519(), True)
    path = _journal(tmp_path, key, [{"job_id": "a", "draw": 0, "response": "one\u2028two"}],
                    tail=b'{"job_id": "b", "dr')
    assert check_journal(path, key.trust, HEADER).problem == ""
    assert check_journal(path, key.trust, HEADER).unsealed == ()


def test_a_header_that_is_not_strict_json_is_not_this_runs(tmp_path):
    key = ChainKey(CryptoSigner.generate_ed25519(), True)
    path = _journal(tmp_path, key, [{"job_id": "a", "draw": 0}])
    lines = path.read_text().split("\n")
    path.write_text("\n".join(['{"journal": NaN, "stage": "dispatch"}', *lines[1:]]))
    assert "unreadable" in check_journal(path, key.trust, HEADER).problem
