"""A world in the public GroundEval domain layout: ``events.jsonl``, ``artifacts/<subsystem>/<ID>.json``, ``config.yaml``.

The layout of GroundEval's event-log format (the preprint's ``examples/``):
each event is ``{id, type, timestamp, actors, artifact_ids: {subsystem:
[id…]}, facts}`` with the world's payload as facts; each artifact file is the
artifact's **first** version (``id``, ``timestamp``, ``subsystem``, ``title``,
``body``, ``author``, ``facts``), and what later versions state arrives the
GroundEval way, through the facts of later events. ``config.yaml`` lists
every person's role (the role they hold at the end of the run) and each
role's subsystems, and one causal link (a deploy → the incident it caused,
joined on the change id) and one silence pair (an incident → its published postmortem).

The config holds only keys upstream's preprint ``generate`` knows (it refuses
any other, so the event log is the conventional ``events.jsonl`` its
``--events`` names, not a config key), the world's seed (its link sampling
then repeats), and joins written as upstream writes them, ``{cause, effect}``
for a silence pair too (trigger on the cause side).

Access: the layout grants by role and by taking part in an event. orgbench's
private spaces and audiences (DMs, email, private channels, the restricted
wiki and queue) have no equivalent, so artifacts behind them go under
``<subsystem>-private``, a subsystem no role reads: only people who took part
see them — stricter than the world, never looser.

Truth side: ``truth/claims.jsonl`` is the world's labelled-claims sidecar
(``simulator.claims``: which versions state a stale, wrong or conflicting
value, and the true one), outside ``artifacts_dir`` and ``events.jsonl`` so a
GroundEval reader's corpus and event log never contain a label; a claim's
``ref`` is ``ID@version`` (the layout's artifact file is version 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmark_builders.export.world_index import WorldIndex, put
from orgbench.core.clock import format_ts
from simulator.model import ArtifactVersion
from benchmark_builders.export.formats import ExportFormat

CAUSAL_LINKS = [{
    "name": "deploy_caused_incident", "cause_event_type": "deploy.completed", "effect_event_type": "incident.opened",
    "premise_template": "change {cause.facts.change_id} had not been deployed",
    "outcome_template": "incident {effect.facts.incident_id} would not have opened", "outcome_changed": True,
    "join": [{"cause": "facts.change_id", "effect": "facts.change_id"}], "max_gap_days": 7,
}]
#: The truth side of the layout: beside ``artifacts_dir`` and ``events.jsonl``, never read as corpus or events.
TRUTH_DIR = "truth"
SILENCE_PAIRS = [{
    "name": "incident_postmortem", "trigger_event_type": "incident.opened",
    "response_event_type": "postmortem.published", "max_gap_days": 14,
    "join": [{"cause": "facts.incident_id", "effect": "facts.incident_id"}],
    "search_space": [{"subsystem": "postmortems", "query_template": "{facts.incident_id}"}],
}]


def _subsystem(version: ArtifactVersion) -> str:
    private = version.acl.space is not None or version.acl.audience is not None
    return f"{version.subsystem}-private" if private else version.subsystem


def _artifact(version: ArtifactVersion, subsystem: str) -> dict[str, Any]:
    return {"id": version.artifact_id, "timestamp": format_ts(version.created_at), "subsystem": subsystem,
            "title": version.title, "body": version.body, "author": version.author, "kind": version.kind,
            "facts": dict(version.facts)}


def _config(index: WorldIndex, subsystems: list[str]) -> str:
    import yaml

    roles = {role: {"subsystems": [s for s in subsystems if s in allowed]}
             for role, allowed in sorted(index.world.policy.roles.items())}
    actors = {a.actor_id: a.role for a in sorted(index.world.actors, key=lambda a: a.actor_id)}
    config = {"artifacts_dir": "./artifacts", "seed": index.world.seed, "actors": actors, "roles": roles,
              "causal_links": CAUSAL_LINKS, "silence_pairs": SILENCE_PAIRS}
    header = f"# {index.company}: an orgbench world in the GroundEval domain layout (orgbench export).\n"
    return header + yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=120)


def write_groundeval(index: WorldIndex, out: Path) -> dict[str, int]:
    """Write the GroundEval domain of ``index``'s world into ``out``; returns counts."""
    where: dict[str, str] = {}
    for artifact_id, history in sorted(index.histories.items()):
        subsystem = where[artifact_id] = _subsystem(history[0])
        put(out / "artifacts" / subsystem / f"{artifact_id}.json",
            json.dumps(_artifact(history[0], subsystem), ensure_ascii=False, indent=2) + "\n")
    lines = []
    for event in index.world.events:
        cited: dict[str, list[str]] = {}
        for ref in event.artifacts:
            artifact_id = ref.rpartition("@")[0]
            ids = cited.setdefault(where[artifact_id], [])
            if artifact_id not in ids:
                ids.append(artifact_id)
        lines.append(json.dumps({"id": event.event_id, "type": event.type, "timestamp": format_ts(event.ts),
                                 "actors": list(event.actors), "artifact_ids": dict(sorted(cited.items())),
                                 "facts": dict(event.payload)}, ensure_ascii=False, sort_keys=False) + "\n")
    put(out / "events.jsonl", "".join(lines))
    put(out / "config.yaml", _config(index, sorted(set(where.values()))))
    claims = [c.to_json() for c in index.world.claims]
    put(out / TRUTH_DIR / "claims.jsonl", "".join(json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n"
                                                  for c in claims))
    return {"events": len(lines), "artifacts": len(where), "claims": len(claims)}


#: The format this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = ExportFormat(name="groundeval", scopes=("world",), write="benchmark_builders.export.groundeval:write_groundeval",
                             summary="GroundEval domain layout")
