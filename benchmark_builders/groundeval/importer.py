"""Read a domain in the public GroundEval format and turn it into a World and its Rules.

Layout: ``events.jsonl`` (``{id, type, timestamp, actors, artifact_ids:
{subsystem: id | [id]}, facts}``), ``artifacts/<subsystem>/<ID>.json``
(``{id, timestamp | created_at | date, title, body, …}``; the id defaults to
the file name; other keys are facts of the first version) and ``config.yaml``
(``actors``, ``roles``, ``causal_links``, ``silence_pairs``, … — read and
checked key by key in ``domain_config``; ``events_file`` / ``artifacts_dir``
rename the other two). Timestamps may carry a zone, a ``Z`` suffix or none
(then UTC). Anything malformed raises InputError naming the file and the key.

Mapping onto the world's records: every actor holds its role from the first
to past the last timestamp of the domain. An artifact is versioned, so that
no future state leaks into the past: version 1, at the artifact's own
timestamp, holds its own ``facts`` and those of the events that listed it by
then; each later event that changes what is known (a fact, or who took part)
adds a version at that event's time with everything known so far (a later
value of a fact replaces an earlier one). The actors of those events are its
participants from then on (they may see it whatever their role); a role's
``broadcast_event_types`` make the artifacts of those events visible to
everyone in the role.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmark_builders.groundeval.contracts import BuildConfig, Rules
from benchmark_builders.groundeval.domain_config import (
    ROLE_KEYS, TOP_KEYS, KeyCheck, Warn, check_rules, read_rules, read_settings,
)
from orgbench.core.clock import UTC, format_ts, parse_ts
from orgbench.core.errors import FormatError, InputError
from simulator.model import Acl, Actor, ArtifactVersion, EntityRef, Event
from simulator.policy import AccessPolicy, RoleAssignment
from orgbench.core.jsonl import read_jsonl
from orgbench.core.storage import read_json, read_text
from simulator.world import World, build_world

_TIME_KEYS = ("timestamp", "created_at", "date")
#: Keys of an artifact file with a meaning of their own; every other key is a fact of its first version.
_ARTIFACT_KEYS = frozenset({"id", "subsystem", "title", "body", "facts", "author", *_TIME_KEYS})
EVENT_KEYS = frozenset({"id", "type", "timestamp", "actors", "artifact_ids", "facts"})


def _ts(value: Any, where: str) -> datetime:
    try:
        return parse_ts(value if isinstance(value, str) else "")
    except ValueError:
        raise InputError(f"{where}: not a timestamp: {value!r}") from None


def _load_yaml(path: Path) -> dict[str, Any]:
    import yaml

    class Unique(yaml.SafeLoader):
        """``safe_load``, refusing a key given twice in one mapping (PyYAML keeps the last without a word)."""

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        first: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key, line = (key_node.tag, key_node.value), key_node.start_mark.line + 1
            if key in first:
                raise FormatError(path, f"key {key[1]!r} given twice (first at line {first[key]}); YAML would keep "
                                        "only the last", line=line)
            first[key] = line
        return loader.construct_mapping(node)

    Unique.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    text = read_text(path, "YAML file")
    try:
        data = yaml.load(text, Loader=Unique)      # a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"{path}{line}: invalid YAML") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a mapping at the top level")
    return data


def _read_artifacts(directory: Path) -> dict[str, dict[str, Any]]:
    if not directory.is_dir():
        raise InputError(f"{directory}: missing artifacts directory")
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.glob("*/*.json")):
        subsystem = path.parent.name
        obj = read_json(path)        # a FIFO or a device refused without blocking, strict JSON
        if not isinstance(obj, dict):
            raise InputError(f"{path}: expected a JSON object")
        artifact_id = obj.get("id", path.stem)
        if not isinstance(artifact_id, str) or not artifact_id:
            raise InputError(f"{path}: key id: expected a non-empty string")
        stamp_key = next((k for k in _TIME_KEYS if k in obj), None)
        if stamp_key is None:
            raise InputError(f"{path}: missing key timestamp (or created_at / date)")
        created = _ts(obj[stamp_key], f"{path}: key {stamp_key}")
        for key in ("title", "body"):
            if key in obj and not isinstance(obj[key], str):
                raise InputError(f"{path}: key {key}: expected a string")
        if "facts" in obj and not isinstance(obj["facts"], dict):
            raise InputError(f"{path}: key facts: expected an object")
        if "subsystem" in obj and obj["subsystem"] != subsystem:
            raise InputError(f"{path}: key subsystem: {obj['subsystem']!r} differs from its directory {subsystem!r}")
        fields = {k: v for k, v in obj.items() if k not in _ARTIFACT_KEYS}
        obj = {**obj, "facts": {**fields, **(obj.get("facts") or {})}}
        if artifact_id in found:
            raise InputError(f"{path}: duplicate artifact id {artifact_id!r} (also in {found[artifact_id]['_path']})")
        found[artifact_id] = {"_path": str(path), "subsystem": subsystem, "created": created, **obj}
    return found


def _read_events(path: Path, artifacts: dict[str, dict[str, Any]], keys: KeyCheck) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    events = []
    seen: set[str] = set()
    for number, obj in read_jsonl(path).numbered():
        where = f"{path}:{number}"
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object")
        keys.check(obj, EVENT_KEYS, "", "event.", line=number)
        for key in ("id", "type"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                raise InputError(f"{where}: key {key}: missing or not a string")
        if obj["id"] in seen:
            raise InputError(f"{where}: key id: duplicate event id {obj['id']!r}")
        seen.add(obj["id"])
        if "timestamp" not in obj:
            raise InputError(f"{where}: missing key timestamp")
        ts = _ts(obj["timestamp"], f"{where}: key timestamp")
        actors = obj.get("actors", [])
        if not isinstance(actors, list) or not all(isinstance(a, str) for a in actors):
            raise InputError(f"{where}: key actors: expected a list of names")
        facts = obj.get("facts", {})
        if not isinstance(facts, dict):
            raise InputError(f"{where}: key facts: expected an object")
        links = obj.get("artifact_ids", {})
        if not isinstance(links, dict):
            raise InputError(f"{where}: key artifact_ids: expected an object {{subsystem: id | [id]}}")
        ids: list[tuple[str, str]] = []
        for subsystem, value in sorted(links.items()):
            values = value if isinstance(value, list) else [value]
            for artifact_id in values:
                if not isinstance(artifact_id, str):
                    raise InputError(f"{where}: key artifact_ids.{subsystem}: expected an id or a list of ids")
                if artifact_id not in artifacts:
                    raise InputError(f"{where}: key artifact_ids.{subsystem}: unknown artifact {artifact_id!r}")
                ids.append((subsystem, artifact_id))
        events.append({"id": obj["id"], "type": obj["type"], "ts": ts, "actors": tuple(actors),
                       "facts": facts, "ids": ids, "line": number})
    events.sort(key=lambda e: (e["ts"], e["line"]))
    return events


def _artifact_versions(artifacts: dict[str, dict[str, Any]], events: list[dict[str, Any]],
                       broadcast_to: dict[str, frozenset[str]], participation: bool = True) -> list[ArtifactVersion]:
    """Every artifact's versions: one at its creation, then one per later moment at which events change it.

    ``broadcast_to`` maps an event type to the actors whose role sees that event's artifacts; without
    ``participation`` (``use_event_log_policy: false``) an event's actors gain nothing by taking part.
    """

    def learn(event: dict[str, Any], facts: dict[str, Any], people: set[str]) -> None:
        facts.update(event["facts"])
        if participation:
            people.update(event["actors"])
        people.update(broadcast_to.get(event["type"], ()))

    listed: dict[str, list[dict[str, Any]]] = {}
    for event in events:                     # already in (time, line) order
        for _, artifact_id in event["ids"]:
            if not listed.get(artifact_id) or listed[artifact_id][-1] is not event:
                listed.setdefault(artifact_id, []).append(event)
    versions: list[ArtifactVersion] = []
    for artifact_id in sorted(artifacts):
        obj = artifacts[artifact_id]
        created: datetime = obj["created"]
        mentions = listed.get(artifact_id, [])
        entity = EntityRef(mentions[0]["type"], mentions[0]["id"]) if mentions else EntityRef(obj["subsystem"], artifact_id)

        facts: dict[str, Any] = {}
        people: set[str] = set()
        for event in mentions:
            if event["ts"] <= created:
                learn(event, facts, people)
        facts.update(obj.get("facts") or {})   # the file's own facts are stated at its timestamp
        states = [(created, dict(facts), tuple(sorted(people)))]
        for event in mentions:
            if event["ts"] <= created:
                continue
            learn(event, facts, people)
            state = (event["ts"], dict(facts), tuple(sorted(people)))
            if state[1:] == states[-1][1:]:
                continue                       # the event told nothing new about this artifact
            if state[0] == states[-1][0]:
                states[-1] = state             # events at the same moment make one version
            else:
                states.append(state)
        body = obj.get("body", "")
        for number, (at, known, participants) in enumerate(states, start=1):
            if number > 1:
                body += _update_line(at, states[number - 2][1], known)
            versions.append(ArtifactVersion(
                artifact_id=artifact_id, version=number, subsystem=obj["subsystem"], kind=obj["subsystem"],
                created_at=at, author=str(obj.get("author", "")), entity=entity,
                title=obj.get("title", artifact_id), body=body, facts=known,
                acl=Acl(participants=participants),
            ))
    return versions


def _update_line(at: datetime, before: dict[str, Any], after: dict[str, Any]) -> str:
    """The line a later version adds to the body: the facts that changed at ``at`` (none: no line).

    The file's body was written at the artifact's creation; what events add later is stated in the text
    too, so that search finds a later version by what it newly says.
    """
    changed = [key for key in sorted(after) if key not in before or before[key] != after[key]]
    if not changed:
        return ""
    told = "; ".join(f"{key.replace('_', ' ')}: {_text(after[key])}" for key in changed)
    return f"\n\nUpdate {format_ts(at)}: {told}"


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v)}" for k, v in sorted(value.items()))
    return str(value)


def _inside(root: Path, config: dict[str, Any], key: str, default: str, where: Path) -> Path:
    value = config.get(key, default)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: key {key}: expected a path")
    return root / value


def _roles(roles_cfg: dict[str, Any], config_path: Path,
           keys: KeyCheck) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Each role's subsystems and broadcast event types."""
    roles: dict[str, tuple[str, ...]] = {}
    broadcast: dict[str, tuple[str, ...]] = {}
    for role, spec in roles_cfg.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("subsystems", []), list):
            raise InputError(f"{config_path}: key roles.{role}.subsystems: expected a list")
        keys.check(spec, ROLE_KEYS, f"roles.{role}.", "roles.")
        roles[str(role)] = tuple(str(s) for s in spec.get("subsystems", []))
        types = spec.get("broadcast_event_types", []) or []
        if not isinstance(types, list):
            raise InputError(f"{config_path}: key roles.{role}.broadcast_event_types: expected a list")
        broadcast[str(role)] = tuple(str(t) for t in types)
    return roles, broadcast


def load_domain(directory: Path, warn: Warn = None) -> tuple[World, Rules]:
    """Read a GroundEval-format domain directory as a World and its Rules."""
    world, rules, _ = import_domain(directory, warn)
    return world, rules


def import_domain(directory: Path, warn: Warn = None, drop: Warn = None) -> tuple[World, Rules, BuildConfig]:
    """A GroundEval-format domain as a World, its Rules and the build settings its config sets.

    Unknown keys are errors; with ``warn`` (``--allow-unknown-keys``) each is one warning line instead. A rule
    whose path resolves for no event of its type is an error; with ``drop`` it is left out with a warning line.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{root}: not a domain directory")
    config_path = root / "config.yaml"
    config = _load_yaml(config_path)
    keys = KeyCheck(config_path, warn)
    keys.check(config, TOP_KEYS, "", "")
    actors_cfg = config.get("actors")
    roles_cfg = config.get("roles")
    if not isinstance(actors_cfg, dict) or not actors_cfg:
        raise InputError(f"{config_path}: key actors: expected a mapping {{name: role}}")
    if not isinstance(roles_cfg, dict) or not roles_cfg:
        raise InputError(f"{config_path}: key roles: expected a mapping {{role: {{subsystems: [...]}}}}")
    roles, broadcast = _roles(roles_cfg, config_path, keys)
    for name, role in actors_cfg.items():
        if str(role) not in roles:
            raise InputError(f"{config_path}: key actors.{name}: unknown role {role!r}")
    event_log_policy = config.get("use_event_log_policy", True)
    if not isinstance(event_log_policy, bool):
        raise InputError(f"{config_path}: key use_event_log_policy: expected true or false")
    rules = read_rules(config, config_path, warn)
    settings = read_settings(config, config_path, actors_cfg, keys)

    artifacts = _read_artifacts(_inside(root, config, "artifacts_dir", "artifacts", config_path))
    events_path = _inside(root, config, "events_file", "events.jsonl", config_path)
    events = _read_events(events_path, artifacts, KeyCheck(events_path, warn))
    for event in events:
        for name in event["actors"]:
            if name not in actors_cfg:
                raise InputError(f"{events_path}:{event['line']}: key actors: unknown actor {name!r}")
    times = [a["created"] for a in artifacts.values()] + [e["ts"] for e in events]
    start = min(times) if times else datetime(2026, 1, 1, tzinfo=UTC)
    end = max(times) if times else start
    origin = start - timedelta(days=365)

    broadcast_to: dict[str, frozenset[str]] = {}
    for role, types in (broadcast.items() if event_log_policy else ()):
        members = frozenset(str(n) for n, r in actors_cfg.items() if str(r) == role)
        for event_type in types:
            broadcast_to[event_type] = broadcast_to.get(event_type, frozenset()) | members
    versions = _artifact_versions(artifacts, events, broadcast_to, event_log_policy)
    history: dict[str, list[ArtifactVersion]] = {}
    for version in versions:
        history.setdefault(version.artifact_id, []).append(version)
    world_events = []
    for event in events:
        subsystem = event["ids"][0][0] if event["ids"] else "events"
        refs = []
        for _, artifact_id in event["ids"]:
            made = [v for v in history[artifact_id] if v.created_at <= event["ts"]]
            refs.append((made[-1] if made else history[artifact_id][0]).ref)
        world_events.append(Event(
            event_id=event["id"], ts=event["ts"], type=event["type"], actors=event["actors"],
            subsystem=subsystem, entity=EntityRef(event["type"], event["id"]), payload=dict(event["facts"]),
            artifacts=tuple(refs),
        ))
    people = [Actor(actor_id=str(name), name=str(name), email=f"{name}@domain.invalid", title=str(role),
                    team=str(role), role=str(role), manager=None, joined_at=origin)
              for name, role in sorted(actors_cfg.items())]
    policy = AccessPolicy(roles=roles, assignments=[RoleAssignment(p.actor_id, p.role, valid_from=origin) for p in people])
    meta = {"format_version": 1, "source": "groundeval-domain", "domain": root.name, "seed": 0,
            "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "end": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "counts": {"actors": len(people), "events": len(world_events), "artifacts": len(versions)}}
    subsystem_of = {v.artifact_id: v.subsystem for v in versions}
    by_type: dict[str, list[Event]] = {}
    for world_event in world_events:
        by_type.setdefault(world_event.type, []).append(world_event)
    rules = check_rules(rules, by_type, subsystem_of, drop)
    return build_world(meta, people, world_events, versions, policy, {"nodes": [], "links": []}), rules, settings
