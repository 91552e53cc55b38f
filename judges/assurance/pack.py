"""Packet packs: one stage's packets stored as the members of a single file.

A folder of 10,000 small packet files costs 10,000 file creations per stage,
which on a busy ext4 disk runs at 1,000-3,000 a second; one pack costs one.
``<stage>/packets.pack`` stands for the folder ``<stage>/packets/``: member
``NAME`` is the packet ``<stage>/packets/NAME``, and its bytes are exactly
the packet's bytes (hashes are taken of the member, never of the pack).

Format (bytes)::

    ORGBENCH-PACK 1\\n
    NAME LENGTH\\n<LENGTH bytes>\\n      one per member, sorted by name when written

Parsing is strict: a bad header, a name with a slash or whitespace, a length
that is not canonical decimal, a missing separator, a duplicate name or
trailing bytes make the whole pack unreadable (``PackError``), so a damaged
pack never yields members that look valid.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Mapping
from orgbench.core.errors import OrgbenchError

MAGIC = b"ORGBENCH-PACK 1\n"
SUFFIX = ".pack"
_NAME = re.compile(r"[^\s/]+")


class PackError(OrgbenchError):
    """A pack whose framing is damaged; names the byte offset."""


def encode(members: Mapping[str, bytes]) -> bytes:
    """The pack's bytes: members sorted by name."""
    parts = [MAGIC]
    for name in sorted(members):
        _check_name(name)
        data = members[name]
        parts += [f"{name} {len(data)}\n".encode("utf-8"), data, b"\n"]
    return b"".join(parts)


def decode(blob: bytes, where: str = "pack") -> dict[str, bytes]:
    """``{name: exact member bytes}``; raises ``PackError`` on any damaged framing."""
    if not blob.startswith(MAGIC):
        raise PackError(f"{where}: not a packet pack (bad header)")
    members: dict[str, bytes] = {}
    pos, end = len(MAGIC), len(blob)
    while pos < end:
        eol = blob.find(b"\n", pos)
        if eol < 0:
            raise PackError(f"{where}: byte {pos}: member header without end of line")
        name_b, _, length_b = blob[pos:eol].rpartition(b" ")
        if not length_b.isdigit() or (length_b != b"0" and length_b.startswith(b"0")) or \
                length_b != length_b.strip():
            raise PackError(f"{where}: byte {pos}: bad member length")
        try:
            name = name_b.decode("utf-8")
            _check_name(name)
        except (UnicodeDecodeError, PackError):
            raise PackError(f"{where}: byte {pos}: bad member name") from None
        start = eol + 1
        stop = start + int(length_b)
        if stop >= end or blob[stop:stop + 1] != b"\n":
            raise PackError(f"{where}: byte {pos}: member {name} runs past the end or lacks its separator")
        if name in members:
            raise PackError(f"{where}: byte {pos}: member {name} appears twice")
        members[name] = blob[start:stop]
        pos = stop + 1
    return members


def _check_name(name: str) -> None:
    if _NAME.fullmatch(name) is None or name in (".", ".."):
        raise PackError(f"bad member name {name!r}")



def read_pack(path: str | os.PathLike) -> dict[str, bytes]:
    """Decode the pack at ``path``."""
    with open(path, "rb") as handle:
        return decode(handle.read(), str(path))


def write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = False) -> None:
    """Write ``data`` to ``path`` with raw writes (fsync it when ``durable``)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view, done = memoryview(data), 0
        while done < len(data):
            done += os.write(fd, view[done:])
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def write_pack(path: str | os.PathLike, members: Mapping[str, bytes], *, durable: bool = False) -> None:
    """Write a pack in one write (fsync it when ``durable``)."""
    write_bytes(path, encode(members), durable=durable)


def edit_member(path: str | os.PathLike, name: str, edit: Callable[[bytes], bytes]) -> None:
    """Rewrite one member in place (fault injection and tests: a packet changed on disk)."""
    members = read_pack(path)
    members[name] = edit(members[name])
    write_pack(path, members)


def add_member(path: str | os.PathLike, name: str, data: bytes) -> None:
    """Add a member (fault injection and tests: an extra file in the packets folder)."""
    members = read_pack(path)
    members[name] = data
    write_pack(path, members)
