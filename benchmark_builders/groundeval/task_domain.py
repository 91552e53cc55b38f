"""Task contracts — upstream GroundEval's current format — read as a fourth track: verify, then decide.

A domain in that format has ``config.yaml`` (``actors``, ``roles``,
``task_contracts``, optional ``artifacts_dir``, default ``data``) and corpus
files ``<artifacts_dir>/*.json`` (an array of artifacts, or one artifact:
``{id, subsystem, <field>: value, …}``, optionally ``timestamp``); a
contract's ``allowed_tools`` are fixture tools whose canned ``returns`` are
records too (``artifact_id``, default the tool's name, in ``subsystem``).

Truth of a contract: for each precondition the artifact field it names
(``ground_truth_field: artifact.field``, or ``required_tool`` +
``expected_field``) and that field's value; the decision is
``expected_action``, or else whether all preconditions pass, one without
``expected`` (the value the field must hold to pass) counting as passing —
a warning says so. A contract naming an artifact or field that does not
exist is an error naming the file and the key. Gates come from the roles (actor and
subsystem); the horizon gate applies only when the contract sets ``as_of``
and the artifacts carry a time — each contract says which.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from benchmark_builders.groundeval.domain_config import KeyCheck, Warn
from orgbench.core.clock import format_ts, parse_ts
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps, read_json, staged_directory, write_json, write_jsonl, write_manifest

TASK = "task"
#: Upstream main's model-provider keys: read, and recorded in suite.json without the secret (``api_key``); the agent
#: that runs is ``run-agent --agent``'s (e.g. ``openai:MODEL --base-url URL``), never one a suite names.
PROVIDER_KEYS = frozenset({"provider", "provider_path", "model", "api_key", "api_key_env", "base_url", "temperature",
                           "max_tokens", "max_retries"})
TOP_KEYS = frozenset({"actors", "roles", "task_contracts", "artifacts_dir", "output_dir", "seed", "groundeval",
                      *PROVIDER_KEYS})
#: Upstream main's review block (``groundeval validate --mark-reviewed`` writes it on a drafted config).
REVIEW_KEYS = frozenset({"generated_from_observation", "reviewed", "config_status"})
#: The answer a task agent submits, in upstream main's keys (``facts_found``, ``evidence_artifacts``; its docs'
#: ``facts`` / ``evidence`` read the same); the decision under the contract's ``decision_field``.
ANSWER_SCHEMA = {"preconditions_verified": "[{check, passed: bool, facts_found: {fact: value}, "
                                           "evidence_artifacts: [id]}]",
                 "all_preconditions_pass": "bool", "reasoning": "str"}
CONTRACT_KEYS = frozenset({"name", "task_description", "preconditions", "valid_action", "decision_field", "actor",
                           "role", "inputs", "allowed_tools", "expected_action", "as_of", "artifacts_dir",
                           "reviewed"})
PRECONDITION_KEYS = frozenset({"check", "description", "required_facts", "ground_truth_field", "required_tool",
                               "expected_field", "expected"})
TOOL_KEYS = frozenset({"entity_arg", "returns", "action", "artifact_id", "subsystem", "timestamp"})


@dataclass(frozen=True)
class TaskArtifact:
    """One record the task runtime serves."""

    artifact_id: str
    subsystem: str
    fields: Mapping[str, Any]
    created_at: str | None
    source: str


@dataclass(frozen=True)
class TaskContract:
    """What the agent sees, and apart from it the truth: the fields to verify and the decision."""

    name: str
    contract: Mapping[str, Any]
    truth: Mapping[str, Any]


def is_task_domain(directory: Path) -> bool:
    """True if the domain's config.yaml declares ``task_contracts``."""
    from benchmark_builders.groundeval.importer import _load_yaml

    path = Path(directory) / "config.yaml"
    return path.is_file() and "task_contracts" in _load_yaml(path)


def _corpus(directory: Path) -> dict[str, TaskArtifact]:
    if not directory.is_dir():
        raise InputError(f"{directory}: missing artifacts directory")
    out: dict[str, TaskArtifact] = {}
    for path in sorted(directory.glob("*.json")):
        data = read_json(path)          # strict; a problem names the file and line
        for i, obj in enumerate(data if isinstance(data, list) else [data]):
            where = f"{path}: [{i}]"
            if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or not isinstance(obj.get("subsystem"), str):
                raise InputError(f"{where}: expected an object with string id and subsystem")
            stamp = obj.get("timestamp", obj.get("created_at"))
            if stamp is not None:
                try:
                    stamp = format_ts(parse_ts(stamp))
                except ValueError:
                    raise InputError(f"{where}.timestamp: not a timestamp: {stamp!r}") from None
            if obj["id"] in out:
                raise InputError(f"{where}.id: duplicate artifact id {obj['id']!r}")
            fields = {k: v for k, v in obj.items() if k not in ("id", "subsystem", "timestamp", "created_at")}
            out[obj["id"]] = TaskArtifact(obj["id"], obj["subsystem"], fields, stamp, str(path))
    return out


def _tools(contract: Mapping[str, Any], where: str, keys: KeyCheck, corpus: dict[str, TaskArtifact]) -> dict[str, str]:
    """Each fixture tool's record id (its canned ``returns`` join the corpus)."""
    tools = contract.get("allowed_tools") or {}
    if not isinstance(tools, dict):
        raise InputError(f"{where}.allowed_tools: expected a mapping {{tool: {{returns, …}}}}")
    out = {}
    for name, spec in sorted(tools.items()):
        if not isinstance(spec, dict):
            raise InputError(f"{where}.allowed_tools.{name}: expected a mapping")
        keys.check(spec, TOOL_KEYS, f"{where.split(': ', 1)[-1]}.allowed_tools.{name}.", "allowed_tools.")
        if spec.get("action"):
            continue
        returns = spec.get("returns") or {}
        if not isinstance(returns, dict):
            raise InputError(f"{where}.allowed_tools.{name}.returns: expected a mapping")
        artifact_id = str(spec.get("artifact_id") or name)
        corpus.setdefault(artifact_id, TaskArtifact(artifact_id, str(spec.get("subsystem") or "tools"), dict(returns),
                                                    spec.get("timestamp"), where))
        out[str(name)] = artifact_id
    return out


def _precondition(pc: Any, where: str, keys: KeyCheck, corpus: dict[str, TaskArtifact],
                  tools: dict[str, str]) -> dict[str, Any]:
    if not isinstance(pc, dict) or not isinstance(pc.get("check"), str):
        raise InputError(f"{where}: expected a mapping with a check name")
    keys.check(pc, PRECONDITION_KEYS, f"{where.split(': ', 1)[-1]}.", "preconditions[].")
    if pc.get("ground_truth_field"):
        artifact_id, _, name = str(pc["ground_truth_field"]).partition(".")
        key = "ground_truth_field"
    elif pc.get("required_tool"):
        if pc["required_tool"] not in tools:
            raise InputError(f"{where}.required_tool: no fixture tool {pc['required_tool']!r} with returns")
        artifact_id, name, key = tools[pc["required_tool"]], str(pc.get("expected_field") or ""), "expected_field"
    else:
        raise InputError(f"{where}: give ground_truth_field (artifact.field) or required_tool and expected_field")
    if artifact_id not in corpus:
        raise InputError(f"{where}.{key}: no artifact {artifact_id!r}")
    if name not in corpus[artifact_id].fields:
        raise InputError(f"{where}.{key}: artifact {artifact_id!r} has no field {name!r}")
    facts = pc.get("required_facts") or [name]
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise InputError(f"{where}.required_facts: expected a list of fact names")
    value = corpus[artifact_id].fields[name]
    truth = {"check": pc["check"], "artifact": artifact_id, "field": name, "value": value,
             "required_facts": list(facts)}
    if "expected" in pc:
        truth["passes"] = value == pc["expected"]
    return truth


def _contract(raw: Mapping[str, Any], where: str, keys: KeyCheck, corpus: dict[str, TaskArtifact],
              actors: Mapping[str, str], roles: Mapping[str, Any], note: Warn = None) -> TaskContract:
    keys.check(raw, CONTRACT_KEYS, f"{where.split(': ', 1)[-1]}.", "task_contracts[].")
    if not isinstance(raw.get("name"), str) or not raw["name"]:
        raise InputError(f"{where}.name: missing or not a string")
    if raw.get("reviewed", True) is not True:     # a draft (orgbench draft-contract) is scored only once reviewed
        raise InputError(f"{where}.reviewed: {raw.get('reviewed')!r}: a drafted contract is used only after review "
                         f"(go through REVIEW.md, then set reviewed: true)")
    tools = _tools(raw, where, keys, corpus)
    pcs = raw.get("preconditions")
    if not isinstance(pcs, list) or not pcs:
        raise InputError(f"{where}.preconditions: expected a non-empty list")
    truths = [_precondition(pc, f"{where}.preconditions[{i}]", keys, corpus, tools) for i, pc in enumerate(pcs)]
    if raw.get("valid_action", "all_preconditions_pass") != "all_preconditions_pass":
        raise InputError(f"{where}.valid_action: only all_preconditions_pass is supported")
    expected = raw.get("expected_action")
    if expected is not None and not isinstance(expected, bool):
        raise InputError(f"{where}.expected_action: expected true or false")
    if expected is None:
        expected = all(t.get("passes", True) for t in truths)
        if not all("passes" in t for t in truths) and note is not None:
            note(f"{where}: note: expected_action not given: the decision is "
                 f"{str(expected).lower()} (every precondition without `expected` counts as passing)")
    actor = raw.get("actor") or (next(iter(actors)) if len(actors) == 1 else None)
    if not isinstance(actor, str) or actor not in actors:
        raise InputError(f"{where}.actor: name one of the config's actors")
    role = str(raw.get("role") or actors[actor])
    if role not in roles:
        raise InputError(f"{where}.role: unknown role {role!r}")
    as_of = raw.get("as_of")
    timed = as_of is not None and all(corpus[t["artifact"]].created_at for t in truths)
    if as_of is not None:
        try:
            as_of = format_ts(parse_ts(str(as_of)))
        except ValueError:
            raise InputError(f"{where}.as_of: not a timestamp: {as_of!r}") from None
    decision = str(raw.get("decision_field") or "should_act")
    body = {"track": TASK, "name": raw["name"], "task": str(raw.get("task_description") or raw["name"]),
            "actor": actor, "role": role, "subsystems": sorted(str(s) for s in roles[role].get("subsystems", [])),
            "as_of": as_of if timed else None,
            "horizon": "applies" if timed else "not applicable: the artifacts carry no time or no as_of is set",
            "preconditions": [{"check": p["check"], "description": str(p.get("description") or p["check"]),
                               "required_facts": t["required_facts"]} for p, t in zip(pcs, truths)],
            "decision_field": decision, "tools": dict(sorted(tools.items())), "inputs": dict(raw.get("inputs") or {}),
            "answer_schema": {**ANSWER_SCHEMA, decision: "bool"}}
    qid = "TASK-" + hashlib.sha256(dumps(body).encode("utf-8")).hexdigest()[:12]
    truth = {"question_id": qid, "track": TASK, "decision": expected, "preconditions": truths,
             "why": f"{decision} = {str(expected).lower()}"}
    return TaskContract(raw["name"], {"question_id": qid, **body}, truth)


def load_task_domain(directory: Path, warn: Warn = None,
                     note: Warn = None) -> tuple[list[TaskContract], dict[str, TaskArtifact]]:
    """A task-contract domain's contracts (with their truth) and the corpus they read; ``warn`` takes unknown keys
    as warnings (else errors), ``note`` the decision a contract without ``expected_action`` defaults to."""
    from benchmark_builders.groundeval.importer import _load_yaml

    root = Path(directory)
    path = root / "config.yaml"
    config = _load_yaml(path)
    keys = KeyCheck(path, warn)
    keys.check(config, TOP_KEYS, "", "")
    review = config.get("groundeval") or {}
    if not isinstance(review, dict):
        raise InputError(f"{path}: key groundeval: expected a mapping")
    keys.check(review, REVIEW_KEYS, "groundeval.", "groundeval.")
    if review.get("generated_from_observation") and review.get("reviewed") is not True:
        raise InputError(f"{path}: key groundeval.reviewed: a config drafted from an observed run is used only after "
                         "review (set reviewed: true)")
    actors, roles = config.get("actors"), config.get("roles")
    if not isinstance(actors, dict) or not actors or not isinstance(roles, dict) or not roles:
        raise InputError(f"{path}: key actors / roles: expected mappings")
    corpus = _corpus(root / str(config.get("artifacts_dir") or "data"))
    raw = config.get("task_contracts")
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{path}: key task_contracts: expected a non-empty list")
    contracts = [_contract(c if isinstance(c, dict) else {}, f"{path}: task_contracts[{i}]", keys, corpus,
                           {str(k): str(v) for k, v in actors.items()}, roles, note) for i, c in enumerate(raw)]
    return contracts, corpus


def provider_of(directory: Path) -> dict[str, Any]:
    """The model-provider keys a task domain's config names (upstream main's runner), without ``api_key``."""
    from benchmark_builders.groundeval.importer import _load_yaml

    config = _load_yaml(Path(directory) / "config.yaml")
    return {k: config[k] for k in sorted(PROVIDER_KEYS - {"api_key"}) if k in config}


def build_task_suite(out: Path, domain_dir: Path, warn: Warn = None, note: Warn = None) -> int:
    """Write a task suite (contracts, truth, corpus, manifest) staged, from a task-contract domain."""
    contracts, corpus = load_task_domain(domain_dir, warn, note)
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "suite.json", {"format": "groundeval-tasks", "format_version": 1,
                                        "source": {"domain": str(domain_dir)}, "questions": len(contracts),
                                        "provider": provider_of(domain_dir)})
        write_jsonl(tmp / "contracts.jsonl", (c.contract for c in contracts))
        write_jsonl(tmp / "truth.jsonl", (c.truth for c in contracts))
        write_jsonl(tmp / "corpus.jsonl", ({"id": a.artifact_id, "subsystem": a.subsystem, "created_at": a.created_at,
                                            "fields": dict(a.fields)} for a in sorted(corpus.values(),
                                                                                      key=lambda a: a.artifact_id)))
        write_manifest(tmp)
    return len(contracts)
