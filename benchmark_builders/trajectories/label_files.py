"""Labels stored apart from the messages, and tau2 ``results.json`` files, as the importer's input.

AgentProcessBench publishes step labels in ``data/AnswerOnly/*_final.jsonl``,
one line per record keyed by ``record_id`` = ``data_source:query_index:
sample_index``; ``LabelFile`` joins them onto message records with the same
key. A record carrying labels of its own that differ from the file's is a
problem; a label line that no record uses is bad input (never dropped
silently). tau2-bench writes one ``results.json`` object whose
``simulations`` each hold a conversation; ``tau2_results_records`` turns it
into one record per simulation (``id`` -> trajectory id, ``task_id`` ->
cluster), numbered by position.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl, repeated_key
from orgbench.core.storage import read_bytes


@dataclass
class LabelFile:
    """Step labels by record key, read from a JSONL label file, and which keys were used."""

    path: Path
    labels: dict[str, tuple[int, Any]]               # key -> (line, step_labels)
    used: set[str] = field(default_factory=set)

    @staticmethod
    def read(path: Path) -> "LabelFile":
        """Read ``path``; a line without a key or labels, or a key given twice, is bad input (file and line)."""
        out: dict[str, tuple[int, Any]] = {}
        data = read_bytes(path, "label file (--labels)")
        for number, obj in read_jsonl(path, data, unique_keys=True).numbered():
            key = obj.get("record_id") if isinstance(obj, dict) else None
            if key is None and isinstance(obj, dict) and all(
                    obj.get(k) is not None for k in ("data_source", "query_index", "sample_index")):
                key = f"{obj['data_source']}:{obj['query_index']}:{obj['sample_index']}"
            if not isinstance(key, str) or not isinstance(obj.get("step_labels"), dict):
                raise InputError(f"{path}:{number}: field record_id (or data_source, query_index, sample_index) "
                                 f"and field step_labels {{message index: label}} are required")
            if key in out:
                raise InputError(f"{path}:{number}: record_id {key} given twice (first at line {out[key][0]})")
            out[key] = (number, obj["step_labels"])
        if not out:
            raise InputError(f"{path}: no label lines")
        return LabelFile(Path(path), out)

    def attach(self, obj: dict[str, Any], key: str | None, where: str, problems: list[str]) -> dict[str, Any]:
        """The record with the file's labels for ``key`` (its own must agree); a record with no entry as is."""
        if key is None or key not in self.labels:
            return obj
        self.used.add(key)
        line, labels = self.labels[key]
        own = obj.get("step_labels")
        if own is not None and own != labels:
            problems.append(f"{where}: step_labels differ from {self.path.name}:{line} for record {key}")
            return obj
        return {**obj, "step_labels": labels}

    def require_all_used(self) -> None:
        """Raise naming the first label line that matched no record."""
        unused = sorted((line, key) for key, (line, _) in self.labels.items() if key not in self.used)
        if unused:
            line, key = unused[0]
            raise InputError(f"{self.path}:{line}: labels for record {key} match no record of the import "
                             f"({len(unused)} such line(s))")


def tau2_results_records(data: bytes, path: Path) -> list[bytes] | None:
    """One JSON line per simulation of a tau2 ``results.json``, or None when ``data`` is not such a file."""
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("simulations"), list):
        return None
    repeated = repeated_key(data)
    if repeated is not None:
        raise InputError(f"{path}: key {repeated!r} appears twice in one object (never 'the last one wins')")
    rows = []
    for k, sim in enumerate(obj["simulations"]):
        if not isinstance(sim, dict):
            rows.append(json.dumps(sim).encode("utf-8"))           # rejected by the importer as not a record
            continue
        record = {"trajectory_id": sim.get("id"), "task_id": sim.get("task_id"), "trial": sim.get("trial"),
                  "messages": sim.get("messages")}
        if isinstance(sim.get("reward_info"), dict):
            record["reward"] = sim["reward_info"].get("reward")
        rows.append(json.dumps(record, ensure_ascii=False).encode("utf-8"))
    if not rows:
        raise InputError(f"{path}: field simulations is empty")
    return rows
