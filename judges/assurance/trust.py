"""Whose key a chain is checked against, and whether that key guards against anyone who can write the workspace.

A chain's signatures guard only against those who cannot sign. The key a
check trusts therefore comes from outside the workspace: a key file the user
names (``--key FILE``, kept elsewhere) or a fingerprint the user pins
(``--key-fingerprint HEX``, the in-toto key id ``orgbench assure keygen``
prints). A key found in the workspace (``in-toto/root.pub``, the ephemeral
key build generates) is trusted only when the user names it, and a key whose
private half lives in the workspace guards against accidents only: whoever
can write the workspace can sign with it. ``Trust.note`` says which, and every
summary prints it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from securesystemslib.signer import SSlibKey

from orgbench.core.errors import InputError, OrgbenchError

FOLDER = "in-toto"
ACCIDENTS_ONLY = ("guarantees against accidents only: the signing key is kept in the workspace, where anyone who "
                  "can write it can re-sign (give --key, see docs/assurance.md, threat model)")
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")


class ChainTampered(OrgbenchError):
    """The workspace differs from what the trusted signed chain vouches for; names the check (exit code 4)."""

    def __init__(self, check: str, reason: str) -> None:
        super().__init__(f"tampered ({check}): {reason}")
        self.check, self.reason = check, reason


def fingerprint(public: SSlibKey) -> str:
    """A key's fingerprint: its in-toto key id (SHA-256 of its canonical public form), 64 hex digits."""
    return public.keyid


def key_dict(public: SSlibKey) -> dict:
    """The key as in-toto's verification functions take it."""
    return {**public.to_dict(), "keyid": public.keyid}


def public_from_pem(data: bytes, where: str) -> SSlibKey:
    """The public key of a PEM file holding a public or an unencrypted private key."""
    try:
        if b"PRIVATE KEY" in data:
            public = serialization.load_pem_private_key(data, password=None).public_key()
        else:
            public = serialization.load_pem_public_key(data)
        return SSlibKey.from_crypto(public)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{where}: not a readable PEM public or unencrypted private key ({exc})") from None


def check_fingerprint(value: str | None) -> str | None:
    """A pinned fingerprint as given (``--key-fingerprint``): 64 lower-case hex digits, or bad input."""
    if value is None:
        return None
    value = value.strip().lower()
    if _FINGERPRINT.fullmatch(value) is None:
        raise InputError(f"--key-fingerprint: expected the 64 hex digits `orgbench assure keygen` printed, "
                         f"got {value[:80]!r}")
    return value


def inside(path: Path, work: Path) -> bool:
    """Whether ``path`` lies in the workspace ``work`` (symlinks resolved)."""
    try:
        Path(path).resolve().relative_to(Path(work).resolve())
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Trust:
    """The key a chain is checked against, where it came from, and whether it guards against workspace writers."""

    public: SSlibKey
    outside: bool            # named by the user and its private half is not in the workspace
    origin: str

    @property
    def note(self) -> str:
        """The line every summary prints about what the chain's checks guarantee."""
        if self.outside:
            return f"signed with key {fingerprint(self.public)[:16]} from outside the workspace ({self.origin})"
        return ACCIDENTS_ONLY


def private_in_workspace(work: Path, public: SSlibKey) -> bool:
    """Whether the workspace holds the private half of ``public`` (its ephemeral key)."""
    path = Path(work) / FOLDER / "ephemeral.pem"
    try:
        return path.is_file() and public_from_pem(path.read_bytes(), str(path)).keyid == public.keyid
    except InputError:
        return False


def verifying_trust(work: Path, key_file: Path | None, pinned: str | None) -> Trust:
    """The key ``assure verify`` checks a chain against: the user's file, else the workspace's root.pub (accidents
    only, unless ``pinned`` names it); a pinned fingerprint the key does not have is tampering."""
    work = Path(work)
    pinned = check_fingerprint(pinned)
    if key_file is not None:
        try:
            data = Path(key_file).read_bytes()
        except OSError as exc:
            raise InputError(f"--key {key_file}: cannot read ({exc.strerror})") from None
        public = public_from_pem(data, f"--key {key_file}")
        if pinned is not None and public.keyid != pinned:
            raise InputError(f"--key {key_file}: its fingerprint {public.keyid[:16]}... is not --key-fingerprint "
                             f"{pinned[:16]}...")
        outside = not inside(Path(key_file), work) and not private_in_workspace(work, public)
        return Trust(public, outside, f"--key {key_file}")
    path = work / FOLDER / "root.pub"
    if not path.is_file():
        raise ChainTampered("trusted-key", f"{path}: missing, and no --key given")
    public = public_from_pem(path.read_bytes(), str(path))
    if pinned is not None:
        if public.keyid != pinned:
            raise ChainTampered("trusted-key", f"{path}: key {public.keyid[:16]}... is not the pinned "
                                f"--key-fingerprint {pinned[:16]}...")
        return Trust(public, not private_in_workspace(work, public), "--key-fingerprint")
    return Trust(public, False, f"{path}, found in the workspace")


def keygen(out: Path) -> str:
    """Write a new ed25519 private key (PKCS#8 PEM, mode 0600) to ``out`` and its public key to ``out.pub``;
    return its fingerprint."""
    out = Path(out)
    if out.exists() or Path(f"{out}.pub").exists():
        raise InputError(f"--out {out}: already exists; keygen never overwrites a key")
    if not out.parent.is_dir():
        raise InputError(f"--out {out}: folder {out.parent} does not exist")
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    public = private.public_key()
    Path(f"{out}.pub").write_bytes(public.public_bytes(serialization.Encoding.PEM,
                                                       serialization.PublicFormat.SubjectPublicKeyInfo))
    return fingerprint(SSlibKey.from_crypto(public))


def recorded_signing(work: Path) -> dict:
    """``in-toto/signing.json`` of a workspace (empty when absent or unreadable)."""
    path = Path(work) / FOLDER / "signing.json"
    try:
        found = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
