"""Packet packs: members keep their exact bytes; damaged framing is refused, never half-read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judges.assurance.manifest import exact_sha256
from judges.assurance.pack import MAGIC, PackError, add_member, decode, edit_member, encode, read_pack, write_pack
from judges.assurance.workspace import Workspace

NAMES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda n: "/" not in n and not any(c.isspace() for c in n) and n not in (".", ".."))


@given(st.dictionaries(NAMES, st.binary(max_size=64), max_size=6))
def test_members_round_trip_byte_for_byte(members):
    assert decode(encode(members)) == members


def test_member_bytes_are_exact_crlf_and_all():
    members = {"a.txt": b"line\r\nnext\n", "b.txt": b"", "c.txt": b"no newline"}
    blob = encode(members)
    assert blob.startswith(MAGIC) and decode(blob) == members
    assert exact_sha256(decode(blob)["a.txt"]) == exact_sha256(b"line\r\nnext\n")


@pytest.mark.parametrize("damage", [
    lambda b: b + b"x",                                   # trailing bytes
    lambda b: b[:-1],                                     # last separator cut
    lambda b: b.replace(b"a.txt 3\n", b"a.txt 4\n"),      # length overstated
    lambda b: b.replace(b"a.txt 3\n", b"a.txt 03\n"),     # non-canonical length
    lambda b: b.replace(b"a.txt 3\n", b"a.txt 2\n"),      # length understated
    lambda b: b"X" + b[1:],                               # header
    lambda b: b + b"a.txt 0\n\n",                         # duplicate member
    lambda b: b.replace(b"a.txt", b"a/tx"),               # a slash in a name
])
def test_damaged_framing_is_refused(damage):
    blob = encode({"a.txt": b"abc", "b.txt": b"de"})
    with pytest.raises(PackError):
        decode(damage(blob))


@pytest.mark.parametrize("name", ["", "a b", "a/b", ".", "..", "tab\there"])
def test_bad_member_names_are_refused(name):
    with pytest.raises(PackError):
        encode({name: b"x"})


def test_edit_and_add_member_rewrite_the_pack(tmp_path):
    path = tmp_path / "packets.pack"
    write_pack(path, {"a.txt": b"one\n"}, durable=True)
    edit_member(path, "a.txt", lambda data: data.replace(b"\n", b"\r\n"))
    add_member(path, "b.txt", b"two")
    assert read_pack(path) == {"a.txt": b"one\r\n", "b.txt": b"two"}


def test_workspace_reads_members_as_packet_paths_and_lists_stray_files(tmp_path):
    (tmp_path / "build").mkdir()
    write_pack(tmp_path / "build" / "packets.pack", {"a.txt": b"A", "b.txt": b"B"})
    (tmp_path / "build" / "manifest.json").write_bytes(b"{}\n")
    ws = Workspace(tmp_path, exact_sha256)
    assert ws.listing("build") == ["build/manifest.json", "build/packets/a.txt", "build/packets/b.txt"]
    assert ws.read("build/packets/a.txt") == b"A" and ws.digest("build/packets/b.txt") == exact_sha256(b"B")
    (tmp_path / "build" / "packets").mkdir()
    (tmp_path / "build" / "packets" / "a.txt").write_bytes(b"A")     # shadows a member: ambiguous, never read
    (tmp_path / "build" / "packets" / "c.txt").write_bytes(b"C")     # a stray plain file: listed
    fresh = Workspace(tmp_path, exact_sha256)
    assert fresh.listing("build/packets") == ["build/packets/a.txt", "build/packets/b.txt", "build/packets/c.txt"]
    assert fresh.read("build/packets/a.txt") is None and fresh.read("build/packets/c.txt") == b"C"


def test_workspace_lists_a_damaged_pack_as_itself_and_reads_no_member(tmp_path):
    (tmp_path / "staged").mkdir()
    (tmp_path / "staged" / "packets.pack").write_bytes(encode({"a.txt": b"A"}) + b"junk")
    ws = Workspace(tmp_path, exact_sha256)
    assert ws.listing("staged/packets") == ["staged/packets.pack"]
    assert ws.listing("staged") == ["staged/packets.pack"]
    assert ws.read("staged/packets/a.txt") is None
