"""Identity of CARGO items and suites: ids derived from content, and the digest that names a suite.

An item id is a SHA-256 of everything that makes the item itself: its world
seed, case and runbook, its family and perturbation, and the four texts a
judge may be shown (question, live context, reference, candidate). The same
item therefore gets the same id in any suite, whatever its sizes or seed, and
two different items never share one. The id is a hash, so it says nothing
about the family. Golden references and gating questions are named the same
way.

A suite is named by ``suite_digest``: the SHA-256 of its ``MANIFEST.json``
file list (every file's SHA-256), after checking the files still match it.
Runs record it, and tables refuse a suite whose digest differs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from orgbench.core.errors import InputError
from orgbench.core.storage import MANIFEST, read_json, verify_manifest

ID_HEX_DIGITS = 16


def content_id(prefix: str, fields: Mapping[str, Any]) -> str:
    """``prefix-`` + the first 16 hex digits of the SHA-256 of ``fields`` as canonical JSON."""
    data = json.dumps({"kind": prefix, **fields}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{prefix}-{hashlib.sha256(data.encode('utf-8')).hexdigest()[:ID_HEX_DIGITS]}"


def item_id(item: Mapping[str, str], truth: Mapping[str, Any]) -> str:
    """The id of a judged item: its texts, world seed, case, runbook, family and perturbation."""
    return content_id("cb", {
        "texts": {name: item[name] for name in ("question", "live_context", "reference", "candidate")},
        "world_seed": truth["world_seed"], "case_id": truth["case_id"], "procedure_id": truth["procedure_id"],
        "family": truth["family"], "perturbation": truth["perturbation"],
    })


def gating_id(item: Mapping[str, str], truth: Mapping[str, Any]) -> str:
    """The id of an out-of-scope gating question: its texts, world seed, case and runbook."""
    return content_id("cg", {
        "texts": {name: item[name] for name in ("question", "live_context", "reference", "candidate")},
        "world_seed": truth["world_seed"], "case_id": truth["case_id"], "procedure_id": truth["procedure_id"],
    })


def golden_id(world_seed: int, case_id: str, procedure_id: str, question: str, reference: str) -> str:
    """The id of a golden reference: its world seed, case, runbook, question and reference text."""
    return content_id("G", {"world_seed": world_seed, "case_id": case_id, "procedure_id": procedure_id,
                            "question": question, "reference": reference})


def suite_digest(suite_dir: Path) -> str:
    """SHA-256 of a suite's MANIFEST.json file list; InputError if the manifest is missing or the files differ."""
    suite_dir = Path(suite_dir)
    manifest = read_json(suite_dir / MANIFEST)
    problems = verify_manifest(suite_dir)
    if problems:
        raise InputError(f"{problems[0]} (the suite changed after it was built; rebuild it)")
    files = manifest["files"]
    data = json.dumps(files, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def refuse_repeats(truth: Sequence[Mapping[str, Any]]) -> None:
    """InputError if one item was drawn twice (same content, so the same id): the suite would count it twice."""
    seen: set[str] = set()
    for row in truth:
        if row["item_id"] in seen:
            raise InputError(f"item {row['item_id']} (world seed {row['world_seed']}, {row['case_id']}) was drawn "
                             "twice; simulate more cases per world or change the suite seed")
        seen.add(row["item_id"])
