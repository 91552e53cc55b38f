"""A signed dispatch journal is read by the one JSONL reader: real line numbers, strict JSON, a torn tail left out."""

from __future__ import annotations

import json

from securesystemslib.signer import CryptoSigner

from judges.assurance.intoto import ChainKey
from judges.assurance.vouch import journal_problem, sign_row
from orgbench.core.storage import dumps

HEADER = {"journal": 1, "stage": "dispatch"}


def _journal(tmp_path, key, rows, tail=b""):
    path = tmp_path / "dispatch.jsonl"
    lines = [dumps(HEADER), *(dumps(sign_row(key, HEADER, row)) for row in rows)]
    path.write_bytes("\n".join(lines).encode() + b"\n" + tail)
    return path


def test_a_signed_journal_verifies_and_a_torn_last_line_is_left_out(tmp_path):
    key = ChainKey(CryptoSigner.generate_ed25519(), True)
    path = _journal(tmp_path, key, [{"job_id": "a", "draw": 0}], tail=b'{"job_id": "b", "dr')
    assert journal_problem(path, key.trust, HEADER) == ""


def test_problems_name_the_real_line_and_strict_json(tmp_path):
    key = ChainKey(CryptoSigner.generate_ed25519(), True)
    path = _journal(tmp_path, key, [{"job_id": "a", "draw": 0}])
    # a blank line before an unsigned row: the row's own line number (was its count among non-blank lines)
    path.write_bytes(path.read_bytes() + b"\n" + json.dumps({"job_id": "b", "draw": 0}).encode() + b"\n")
    assert journal_problem(path, key.trust, HEADER) == f"{path}:4: unsigned"
    # NaN is not JSON (json.loads took it)
    path.write_bytes(path.read_bytes() + b'{"job_id": NaN}\n')
    assert journal_problem(path, key.trust, HEADER) == f"{path}:5: invalid JSON (NaN is not a number JSON allows)"
