"""A task suite written back in upstream GroundEval main's task-contract format: ``config.yaml`` and ``data/``.

``config.yaml`` holds ``artifacts_dir``, ``actors``, ``roles`` and
``task_contracts`` as upstream main's ``TaskContract.from_dict`` reads them:
each contract's ``name``, ``task_description``, ``actor``, ``role``,
``inputs``, ``decision_field``, ``valid_action``, ``expected_action`` (the
suite's decision), ``preconditions`` (``check``, ``description``,
``required_facts``, and ``ground_truth_field: "<artifact>.<field>"`` — or,
for a fixture tool's record, ``required_tool`` + ``expected_field``) and
``allowed_tools`` (each fixture tool's canned ``returns``, ``artifact_id``,
``subsystem``). A contract whose horizon applies keeps orgbench's ``as_of``
(upstream ignores the key). The model-provider keys the suite was built with
(``provider``, ``model``, ``base_url``, …; ``suite.json``, never ``api_key``)
are written back, so upstream main's ``task`` runs the model they name.
``data/artifacts.json`` is the corpus upstream's
``FileCorpusAdapter`` reads: every record that is not a fixture tool's, as
``{id, subsystem, <field>: value…, timestamp?}``.

Building a suite from this export gives the same contracts and truth; upstream
main loads it, and (a contract whose preconditions all read the corpus, or all
read fixture tools: upstream reads one or the other per contract) scores
answers against it with its own scorer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orgbench.core.errors import InputError
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import (
    MANIFEST, read_json, require_sealed, sha256_file, staged_directory, write_json, write_manifest, write_text_atomic,
)
from benchmark_builders.export.formats import ExportFormat

KIND = "groundeval-tasks"


def _precondition(shown: dict[str, Any], truth: dict[str, Any], tool_of: dict[str, str]) -> dict[str, Any]:
    out = {"check": shown["check"], "description": shown["description"], "required_facts": shown["required_facts"]}
    tool = tool_of.get(truth["artifact"])
    if tool is not None:
        return out | {"required_tool": tool, "expected_field": truth["field"]}
    return out | {"ground_truth_field": f"{truth['artifact']}.{truth['field']}"}


def _contract(contract: dict[str, Any], truth: dict[str, Any], corpus: dict[str, dict[str, Any]]) -> dict[str, Any]:
    tool_of = {artifact: tool for tool, artifact in sorted(contract["tools"].items())}
    tools = {}
    for tool, artifact in sorted(contract["tools"].items()):
        record = corpus[artifact]
        tools[tool] = {"returns": dict(record["fields"]), "artifact_id": artifact, "subsystem": record["subsystem"],
                       **({"timestamp": record["created_at"]} if record.get("created_at") else {})}
    out: dict[str, Any] = {
        "name": contract["name"], "task_description": contract["task"], "actor": contract["actor"],
        "role": contract["role"], "inputs": contract["inputs"],
        "preconditions": [_precondition(p, t, tool_of) for p, t in zip(contract["preconditions"],
                                                                       truth["preconditions"])],
        "valid_action": "all_preconditions_pass", "decision_field": contract["decision_field"],
        "expected_action": truth["decision"]}
    if tools:
        out["allowed_tools"] = tools
    if contract["horizon"] == "applies":
        out["as_of"] = contract["as_of"]
    return out


def write_upstream_tasks(source: Path, kind: str, out: Path) -> dict[str, Any]:
    """Write the task suite ``source`` in upstream main's format into ``out`` (staged); returns EXPORT.json's record."""
    import yaml

    if kind != KIND:
        raise InputError(f"{source}: --format groundeval-tasks exports a task-contract suite (this is {kind}; a "
                         "world exports as --format groundeval)")
    require_sealed(Path(source), "a sealed GroundEval suite")
    contracts = read_jsonl(Path(source) / "contracts.jsonl").values
    truth = {t["question_id"]: t for t in read_jsonl(Path(source) / "truth.jsonl").values}
    corpus = {r["id"]: r for r in read_jsonl(Path(source) / "corpus.jsonl").values}
    written = [_contract(c, truth[c["question_id"]], corpus) for c in contracts]
    from_tools = {a for c in contracts for a in c["tools"].values()}
    data = [{"id": r["id"], "subsystem": r["subsystem"], **r["fields"],
             **({"timestamp": r["created_at"]} if r.get("created_at") else {})}
            for r in sorted(corpus.values(), key=lambda r: r["id"]) if r["id"] not in from_tools]
    roles: dict[str, dict[str, Any]] = {}
    for c in contracts:
        roles.setdefault(c["role"], {"subsystems": c["subsystems"]})
    provider = read_json(Path(source) / "suite.json").get("provider") or {}
    config = {"artifacts_dir": "./data", "actors": {c["actor"]: c["role"] for c in contracts}, "roles": roles,
              "task_contracts": written, **{k: v for k, v in provider.items() if k != "api_key"}}
    record = {"format": KIND, "source_manifest_sha256": sha256_file(Path(source) / MANIFEST),
              "counts": {"task_contracts": len(written), "artifacts": len(data)}}
    with staged_directory(Path(out)) as tmp:
        header = "# An orgbench task suite in upstream GroundEval main's task-contract format (orgbench export).\n"
        write_text_atomic(tmp / "config.yaml", header + yaml.safe_dump(config, sort_keys=False, allow_unicode=True,
                                                                       width=120))
        write_json(tmp / "data" / "artifacts.json", data)
        write_json(tmp / "EXPORT.json", record)
        write_manifest(tmp, {"source_suite": read_json(Path(source) / MANIFEST).get("files", {})})
    return record


#: The format this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = ExportFormat(name="groundeval-tasks", scopes=("suite",),
                             write="benchmark_builders.export.groundeval_tasks:write_upstream_tasks",
                             summary="a task-contract suite in upstream GroundEval main's format (config.yaml, data/)")
