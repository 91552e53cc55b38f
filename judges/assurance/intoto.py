"""in-toto for real: each stage's link signed with the ``in-toto`` library, under a layout orgbench writes.

Beside its own step record (``records/<step>.record.json``, pack members named
one by one) every stage writes ``in-toto/<step>.<keyid8>.link``: an in-toto
link whose materials and products are files that exist (a pack stands for its
members, hashed as the file on disk; the suite's files are ``source/NAME``,
relative to ``--source``; the step's own record is a product), signed with the
chain's key. Build also writes ``in-toto/root.layout`` -- the five steps, who
may sign them, artifact rules chaining each step's materials to the products
of the steps before, and an inspection that compares every file on disk with
the links -- signed with the same key, and ``in-toto/root.pub``. The key is
the user's (``--key PEM``, a PKCS#8 private key) or, when none is given, an
ephemeral ed25519 key generated at build and kept in the workspace
(``in-toto/ephemeral.pem``): ``in-toto/signing.json`` records which, since an
ephemeral signature only says the chain is unchanged since it was signed by
whoever held the workspace. A third party checks it from inside the workspace
(the inspection reads the current folder)::

    cd W && in-toto-verify --layout in-toto/root.layout --verification-keys KEY.pub --link-dir in-toto
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

from cryptography.hazmat.primitives import serialization
from in_toto.models.layout import Inspection, Layout, Step
from in_toto.models.link import Link
from in_toto.models.metadata import Metablock
from securesystemslib.signer import CryptoSigner

from judges.assurance.trust import (FOLDER, ChainTampered, Trust, check_fingerprint, inside, key_dict,
                                    private_in_workspace, recorded_signing)
from orgbench.core.errors import InputError
from orgbench.core.storage import write_bytes_atomic, write_json

STEP_NAMES = ("build", "check", "stage", "emit", "dispatch")
OUTPUTS = {"build": "build", "check": "check", "stage": "staged", "emit": "emit", "dispatch": "dispatch"}
LAYOUT_EXPIRES = "2100-01-01T00:00:00Z"
INSPECTION = "disk-matches-chain"
JOURNAL = "journal/dispatch.jsonl"
#: Files build writes into in-toto/ and signs as its products (the links and the layout carry signatures).
SIGNED_SETUP = ("in-toto/root.pub", "in-toto/signing.json")


@dataclass(frozen=True)
class ChainKey:
    """The key a chain is signed with: generated ephemeral (kept in the workspace) or the user's, and from where."""

    signer: CryptoSigner
    ephemeral: bool
    outside: bool = False        # the user's key file, kept outside the workspace

    @property
    def keyid(self) -> str:
        """The key's id (in-toto's: SHA-256 of its canonical public form), also its fingerprint."""
        return self.signer.public_key.keyid

    @property
    def trust(self) -> Trust:
        """What checks against this key guarantee (``Trust.note``)."""
        return Trust(self.signer.public_key, self.outside, "--key" if not self.ephemeral else "ephemeral")


def _load_private(path: Path) -> CryptoSigner:
    try:
        private = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise InputError(f"--key {path}: not a readable unencrypted PEM private key ({exc})") from None
    return CryptoSigner(private)


def chain_key(work: Path, step: str, key_file: Path | None, pinned: str | None = None) -> ChainKey:
    """The chain's key: the user's ``key_file``, the workspace's ephemeral one, or (at build) a new ephemeral one.

    ``pinned`` (``--key-fingerprint``) is the fingerprint the key must have: a key file that lacks it is bad
    input; a workspace key that lacks it is tampering (``ChainTampered``).
    """
    folder = Path(work) / FOLDER
    pinned = check_fingerprint(pinned)
    recorded = recorded_signing(work) or None
    if key_file is not None:
        signer = _load_private(key_file)
        if pinned is not None and signer.public_key.keyid != pinned:
            raise InputError(f"--key {key_file}: its fingerprint {signer.public_key.keyid[:16]}... is not "
                             f"--key-fingerprint {pinned[:16]}...")
        key = ChainKey(signer, False, not inside(Path(key_file), work)
                       and not private_in_workspace(work, signer.public_key))
    elif step != "build" and recorded and not recorded.get("ephemeral"):
        raise InputError(f"{folder / 'signing.json'}: this chain is signed with key {str(recorded.get('keyid'))[:8]}; "
                         f"pass it with --key")
    elif step != "build" and (folder / "ephemeral.pem").is_file():
        key = ChainKey(_load_private(folder / "ephemeral.pem"), True)
    elif step == "build" and pinned is not None:
        raise InputError("--key-fingerprint: build starts a new chain and would sign it with a new ephemeral key; "
                         "give --key FILE (the key with that fingerprint)")
    elif pinned is not None:
        raise ChainTampered("trusted-key", f"{folder / 'ephemeral.pem'}: missing; the pinned key signs no chain here")
    else:
        key = ChainKey(CryptoSigner.generate_ed25519(), True)
    if pinned is not None and key.keyid != pinned:
        raise ChainTampered("trusted-key", f"the workspace's key {key.keyid[:16]}... is not the pinned "
                            f"--key-fingerprint {pinned[:16]}...")
    if step != "build" and recorded and recorded.get("keyid") != key.keyid:
        raise ChainTampered("trusted-key", f"{folder / 'signing.json'} names key {str(recorded.get('keyid'))[:16]}..., "
                            f"not {key.keyid[:16]}... (--key): a wrong --key, or the chain was re-signed")
    return key


def _public_pem(key: ChainKey) -> bytes:
    private = serialization.load_pem_private_key(key.signer.private_bytes, password=None)
    return private.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)


def record_name(step: str) -> str:
    """A stage's record, relative to the workspace (each link signs its own record as a product)."""
    return f"records/{step}.record.json"


def _rules(step: str) -> tuple[list[list[str]], list[list[str]]]:
    """(expected materials, expected products) of a step: each input matched to the step that made it."""
    made_by = {"build/*": "build", "check/*": "check", "staged/*": "stage", "emit/*": "emit"}
    inputs = {"build": [], "check": ["build/*"], "stage": ["build/*", "check/*"], "emit": ["staged/*"],
              "dispatch": ["staged/*", "emit/*"]}[step]
    materials = [["MATCH", pattern, "WITH", "PRODUCTS", "FROM", made_by[pattern]] for pattern in inputs]
    materials += [["ALLOW", "source/*"] if step == "build" else ["MATCH", "source/*", "WITH", "MATERIALS", "FROM",
                                                                 "build"]]
    if step == "dispatch":
        materials.append(["ALLOW", "journal/*"])
    products = [["ALLOW", f"{OUTPUTS[step]}/*"], ["ALLOW", record_name(step)]]
    products += [["ALLOW", name] for name in SIGNED_SETUP] if step == "build" else []
    return materials + [["DISALLOW", "*"]], products + [["DISALLOW", "*"]]


def _inspection(required: tuple[str, ...]) -> Inspection:
    """The inspection ``in-toto-verify`` runs in the workspace: every file on disk is a product of the step that
    wrote it (the journal: a material of dispatch), each expected file is present, and nothing else is there."""
    rules: list[list[str]] = [["REQUIRE", name] for name in (*required, *SIGNED_SETUP)]
    rules += [["MATCH", f"{OUTPUTS[step]}/*", "WITH", "PRODUCTS", "FROM", step] for step in STEP_NAMES]
    rules += [["MATCH", record_name(step), "WITH", "PRODUCTS", "FROM", step] for step in STEP_NAMES]
    rules += [["MATCH", name, "WITH", "PRODUCTS", "FROM", "build"] for name in SIGNED_SETUP]
    rules += [["MATCH", "journal/*", "WITH", "MATERIALS", "FROM", "dispatch"],
              ["ALLOW", "in-toto/root.layout"], ["ALLOW", "in-toto/ephemeral.pem"], ["DISALLOW", "*"]]
    return Inspection(name=INSPECTION, run=["true"], expected_materials=rules, expected_products=[["ALLOW", "*"]])


def start_chain(work: Path) -> None:
    """A new build starts a new chain: remove the links of an earlier one."""
    for old in sorted((Path(work) / FOLDER).glob("*.link")):
        old.unlink()


def write_layout(work: Path, key: ChainKey, required: tuple[str, ...] = ()) -> None:
    """Write and sign ``in-toto/root.layout`` (and root.pub, signing.json; the ephemeral key if there is one);
    ``required`` are the files the inspection requires on disk."""
    folder = Path(work) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    steps = []
    for name in STEP_NAMES:
        materials, products = _rules(name)
        steps.append(Step(name=name, expected_materials=materials, expected_products=products,
                          pubkeys=[key.keyid], expected_command=["orgbench", "assure", name], threshold=1))
    layout = Layout(steps=steps, inspect=[_inspection(required)],
                    keys={key.keyid: key_dict(key.signer.public_key)}, expires=LAYOUT_EXPIRES,
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
    """In-toto artifacts for a record's paths: pack members folded into their pack file, hashed from disk.

    Each folder is looked at once (is there a pack beside it, which files lie loose in it) and each file
    hashed once, however many members name it.
    """
    work = Path(work)
    out: dict[str, dict[str, str]] = {}
    folders: dict[str, tuple[bool, frozenset[str]]] = {}
    for name, digest in names.items():
        if name.startswith("source:"):
            out[f"source/{name[len('source:'):]}"] = {"sha256": digest}
            continue
        folder, _, base = name.rpartition("/")
        if folder not in folders:
            folders[folder] = ((work / f"{folder}.pack").is_file(), _loose_files(work / folder))
        packed, loose = folders[folder]
        rel = f"{folder}.pack" if packed and base not in loose else name
        if rel not in out and (rel != name or base in loose):
            out[rel] = {"sha256": hashlib.sha256((work / rel).read_bytes()).hexdigest()}
    return {k: out[k] for k in sorted(out)}


def _loose_files(folder: Path) -> frozenset[str]:
    """The names of the regular files (symlinks followed) directly in ``folder``; none if it is not a folder."""
    try:
        with os.scandir(folder) as entries:
            return frozenset(entry.name for entry in entries if entry.is_file())
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()


def write_link(work: Path, key: ChainKey, step: str, materials: Mapping[str, str], products: Mapping[str, str],
               return_code: int) -> Path:
    """Sign and write the step's in-toto link (its record and, at build, root.pub and signing.json among its
    products; the journal among dispatch's materials); its path."""
    own = [record_name(step)] + (list(SIGNED_SETUP) if step == "build" else [])
    extra_materials = [f"journal/{p.name}" for p in sorted((Path(work) / "journal").glob("*"))] \
        if step == "dispatch" else []
    link = Link(name=step, materials=_artifacts(work, {**materials, **dict.fromkeys(extra_materials, "")}),
                products=_artifacts(work, {**products, **dict.fromkeys(own, "")}),
                command=["orgbench", "assure", step], byproducts={"return-value": return_code}, environment={})
    block = Metablock(signed=link)
    block.create_signature(key.signer)
    path = Path(work) / FOLDER / f"{step}.{key.keyid[:8]}.link"
    write_bytes_atomic(path, json.dumps(block.to_dict(), indent=1, sort_keys=True).encode())
    return path


@contextmanager
def _inside(work: Path) -> Iterator[None]:
    """Run in the workspace folder (in-toto's inspection records the current folder)."""
    here = os.getcwd()
    os.chdir(work)
    try:
        yield
    finally:
        os.chdir(here)


def verify_chain(work: Path, trust: Trust) -> str:
    """Run in-toto's own verification of the workspace's chain against the trusted key, its inspection over the
    files on disk included; '' when it passes, else why it fails."""
    from in_toto.verifylib import in_toto_verify

    folder = Path(work) / FOLDER
    if not (folder / "root.layout").is_file():
        return f"{folder}: no root.layout (the chain was run without in-toto)"
    try:
        layout = Metablock.load(str(folder / "root.layout"))
        with _inside(work):
            in_toto_verify(layout, {trust.public.keyid: key_dict(trust.public)}, link_dir_path=FOLDER,
                           persist_inspection_links=False)
    except Exception as exc:                 # in-toto raises many kinds; each is a failed verification
        return f"{type(exc).__name__}: {exc}"
    return ""
