"""in-toto for real: each stage's link signed with the ``in-toto`` library, under a layout orgbench writes.

Beside its own step record (``records/<step>.link.json``, pack members named
one by one) every stage writes ``in-toto/<step>.<keyid8>.link``: an in-toto
link whose materials and products are files that exist (a pack stands for its
members, hashed as the file on disk; the suite's files are ``source/NAME``,
relative to ``--source``), signed with the chain's key. Build also writes
``in-toto/root.layout`` -- the five steps, who may sign them, and artifact
rules chaining each step's materials to the products of the steps before --
signed with the same key, and ``in-toto/root.pub`` to verify it. The key is
the user's (``--key PEM``, a PKCS#8 private key) or, when none is given, an
ephemeral ed25519 key generated at build and kept in the workspace
(``in-toto/ephemeral.pem``): ``in-toto/signing.json`` records which, since an
ephemeral signature only says the chain is unchanged since it was signed by
whoever held the workspace. ``in-toto-verify --layout W/in-toto/root.layout
--verification-keys W/in-toto/root.pub --link-dir W/in-toto`` checks it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from cryptography.hazmat.primitives import serialization
from in_toto.models.layout import Layout, Step
from in_toto.models.link import Link
from in_toto.models.metadata import Metablock
from securesystemslib.signer import CryptoSigner, SSlibKey

from orgbench.core.errors import InputError
from orgbench.core.storage import write_bytes_atomic, write_json

FOLDER = "in-toto"
STEP_NAMES = ("build", "check", "stage", "emit", "dispatch")
OUTPUTS = {"build": "build", "check": "check", "stage": "staged", "emit": "emit", "dispatch": "dispatch"}
LAYOUT_EXPIRES = "2100-01-01T00:00:00Z"


@dataclass(frozen=True)
class ChainKey:
    """The key a chain is signed with, and whether it is an ephemeral one orgbench generated."""

    signer: CryptoSigner
    ephemeral: bool

    @property
    def keyid(self) -> str:
        """The key's id (in-toto's: SHA-256 of its canonical public form)."""
        return self.signer.public_key.keyid


def _load_private(path: Path) -> CryptoSigner:
    try:
        private = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise InputError(f"--key {path}: not a readable unencrypted PEM private key ({exc})") from None
    return CryptoSigner(private)


def chain_key(work: Path, step: str, key_file: Path | None) -> ChainKey:
    """The chain's key: the user's ``key_file``, the workspace's ephemeral one, or (at build) a new ephemeral one."""
    folder = Path(work) / FOLDER
    recorded = json.loads((folder / "signing.json").read_text("utf-8")) if (folder / "signing.json").is_file() else None
    if key_file is not None:
        key = ChainKey(_load_private(key_file), False)
    elif step != "build" and recorded and not recorded.get("ephemeral"):
        raise InputError(f"{folder / 'signing.json'}: this chain is signed with key {recorded['keyid'][:8]}; "
                         f"pass it with --key")
    elif step != "build" and (folder / "ephemeral.pem").is_file():
        key = ChainKey(_load_private(folder / "ephemeral.pem"), True)
    else:
        key = ChainKey(CryptoSigner.generate_ed25519(), True)
    if step != "build" and recorded and recorded.get("keyid") != key.keyid:
        raise InputError(f"--key: key {key.keyid[:8]} is not the chain's key {recorded['keyid'][:8]} "
                         f"({folder / 'signing.json'})")
    return key


def _public_pem(key: ChainKey) -> bytes:
    private = serialization.load_pem_private_key(key.signer.private_bytes, password=None)
    return private.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)


def _rules(step: str) -> tuple[list[list[str]], list[list[str]]]:
    """(expected materials, expected products) of a step: each input matched to the step that made it."""
    made_by = {"build/*": "build", "check/*": "check", "staged/*": "stage", "emit/*": "emit"}
    inputs = {"build": [], "check": ["build/*"], "stage": ["build/*", "check/*"], "emit": ["staged/*"],
              "dispatch": ["staged/*", "emit/*"]}[step]
    materials = [["MATCH", pattern, "WITH", "PRODUCTS", "FROM", made_by[pattern]] for pattern in inputs]
    materials += [["ALLOW", "source/*"] if step == "build" else ["MATCH", "source/*", "WITH", "MATERIALS", "FROM",
                                                                 "build"], ["DISALLOW", "*"]]
    return materials, [["ALLOW", f"{OUTPUTS[step]}/*"], ["DISALLOW", "*"]]


def write_layout(work: Path, key: ChainKey) -> None:
    """Write and sign ``in-toto/root.layout`` (and root.pub, signing.json; the ephemeral key if there is one)."""
    folder = Path(work) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for old in sorted(folder.glob("*.link")):          # a new build starts a new chain: no stale links
        old.unlink()
    steps = []
    for name in STEP_NAMES:
        materials, products = _rules(name)
        steps.append(Step(name=name, expected_materials=materials, expected_products=products,
                          pubkeys=[key.keyid], expected_command=["orgbench", "assure", name], threshold=1))
    layout = Layout(steps=steps, keys={key.keyid: {**key.signer.public_key.to_dict(), "keyid": key.keyid}}, expires=LAYOUT_EXPIRES,
                    readme="orgbench judge-input assurance: build -> check -> stage -> emit -> dispatch")
    block = Metablock(signed=layout)
    block.create_signature(key.signer)
    write_bytes_atomic(folder / "root.layout", json.dumps(block.to_dict(), indent=1, sort_keys=True).encode())
    write_bytes_atomic(folder / "root.pub", _public_pem(key))
    if key.ephemeral:
        path = folder / "ephemeral.pem"
        write_bytes_atomic(path, key.signer.private_bytes)
        os.chmod(path, 0o600)
    write_json(folder / "signing.json", {"keyid": key.keyid, "ephemeral": key.ephemeral, "note": (
        "an ephemeral key generated at build and kept in this workspace: its signatures show the chain is "
        "unchanged since signing, not who signed it" if key.ephemeral else "the user's key (--key)")})


def _artifacts(work: Path, names: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """In-toto artifacts for a record's paths: pack members folded into their pack file, hashed from disk."""
    out: dict[str, dict[str, str]] = {}
    for name, digest in names.items():
        if name.startswith("source:"):
            out[f"source/{name[len('source:'):]}"] = {"sha256": digest}
            continue
        folder = name.rpartition("/")[0]
        pack = Path(work) / f"{folder}.pack"
        rel = f"{folder}.pack" if pack.is_file() and not (Path(work) / name).is_file() else name
        path = Path(work) / rel
        if rel not in out and path.is_file():
            out[rel] = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return {k: out[k] for k in sorted(out)}


def write_link(work: Path, key: ChainKey, step: str, materials: Mapping[str, str], products: Mapping[str, str],
               return_code: int) -> Path:
    """Sign and write the step's in-toto link; its path."""
    link = Link(name=step, materials=_artifacts(work, materials), products=_artifacts(work, products),
                command=["orgbench", "assure", step], byproducts={"return-value": return_code}, environment={})
    block = Metablock(signed=link)
    block.create_signature(key.signer)
    path = Path(work) / FOLDER / f"{step}.{key.keyid[:8]}.link"
    write_bytes_atomic(path, json.dumps(block.to_dict(), indent=1, sort_keys=True).encode())
    return path


def verify_chain(work: Path) -> str:
    """Run in-toto's own verification of the workspace's chain; '' when it passes, else why it fails."""
    from in_toto.verifylib import in_toto_verify

    folder = Path(work) / FOLDER
    if not (folder / "root.layout").is_file() or not (folder / "root.pub").is_file():
        return f"{folder}: no root.layout or root.pub (the chain was run without in-toto)"
    try:
        layout = Metablock.load(str(folder / "root.layout"))
        public = serialization.load_pem_public_key((folder / "root.pub").read_bytes())
        key = SSlibKey.from_crypto(public)
        in_toto_verify(layout, {key.keyid: {**key.to_dict(), "keyid": key.keyid}}, link_dir_path=str(folder))
    except Exception as exc:                 # in-toto raises many kinds; each is a failed verification
        return f"{type(exc).__name__}: {exc}"
    return ""
