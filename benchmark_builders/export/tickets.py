"""A world's support cases and incidents as one Jira-style JSON file (``issues.json``), shaped like Jira's search API.

Each case or incident is an issue: ``key`` is its readable id, ``fields``
holds summary, description (the first version's text), issue type, status,
priority, created / updated / resolution dates, assignee, reporter (the
customer contact), labels (runbook and category), the ticket comments under
``comment.comments`` and every status change under ``changelog.histories``.
``fields.orgbench_facts`` is the latest version's stated facts, the same
facts a reader of the ticket sees.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmark_builders.export.world_index import WorldIndex, put
from simulator.model import ArtifactVersion
from benchmark_builders.export.formats import ExportFormat

STATUS_NAMES = {"open": "Open", "in_progress": "In Progress", "pending_customer": "Waiting for customer",
                "resolved": "Resolved", "closed": "Closed", "investigating": "Investigating",
                "mitigated": "Mitigated"}


def jira_time(moment: datetime) -> str:
    """A time as Jira writes it: ``2026-01-05T09:22:17.000+0000``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def _user(index: WorldIndex, actor_id: str) -> dict[str, str]:
    return {"accountId": actor_id, "displayName": index.name(actor_id), "emailAddress": index.email(actor_id)}


def _status(version: ArtifactVersion) -> str:
    raw = str(version.facts.get("case_status", version.facts.get("status", "")))
    return STATUS_NAMES.get(raw, raw.replace("_", " ").capitalize())


def _changelog(index: WorldIndex, history: list[ArtifactVersion]) -> list[dict[str, Any]]:
    changes = []
    for before, after in zip(history, history[1:]):
        if _status(before) != _status(after):
            changes.append({"id": f"{after.artifact_id}-{after.version}", "author": _user(index, after.author),
                            "created": jira_time(after.created_at),
                            "items": [{"field": "status", "fromString": _status(before), "toString": _status(after)}]})
    return changes


def _comments(index: WorldIndex, key: str, comments: dict[str, list[list[ArtifactVersion]]]) -> list[dict[str, Any]]:
    return [{"id": h[-1].artifact_id, "author": _user(index, h[-1].author), "body": h[-1].body,
             "created": jira_time(h[0].created_at), "updated": jira_time(h[-1].created_at)}
            for h in comments.get(key, [])]


def _issue(index: WorldIndex, number: int, history: list[ArtifactVersion], issue_type: str,
           comments: dict[str, list[list[ArtifactVersion]]]) -> dict[str, Any]:
    first, last = history[0], history[-1]
    facts = last.facts
    resolved = next((v.created_at for v in history if _status(v) in ("Resolved", "Closed")), None)
    fields: dict[str, Any] = {
        "summary": last.title, "description": first.body, "issuetype": {"name": issue_type},
        "status": {"name": _status(last)},
        "priority": {"name": str(facts.get("priority", facts.get("severity", "")))},
        "created": jira_time(first.created_at), "updated": jira_time(last.created_at),
        "resolutiondate": jira_time(resolved) if resolved else None,
        "assignee": _user(index, str(facts.get("on_call", last.author))),
        "labels": [str(facts[k]) for k in ("procedure_id", "category", "service") if facts.get(k)],
        "comment": {"comments": _comments(index, first.artifact_id, comments)},
        "orgbench_facts": dict(facts),
    }
    fields["comment"]["total"] = len(fields["comment"]["comments"])
    if facts.get("contact_email"):
        fields["reporter"] = {"accountId": str(facts.get("contact_email")), "displayName": str(facts.get("contact_name", "")),
                              "emailAddress": str(facts["contact_email"])}
    if facts.get("account_name"):
        fields["organization"] = {"id": str(facts.get("account_id", "")), "name": str(facts["account_name"])}
    return {"id": str(number), "key": first.artifact_id, "fields": fields,
            "changelog": {"histories": _changelog(index, history)}}


def write_jira(index: WorldIndex, out: Path) -> dict[str, int]:
    """Write ``out/issues.json``: every case and incident as a Jira-style issue; returns counts."""
    comments: dict[str, list[list[ArtifactVersion]]] = {}
    for history in index.of_kind("ticket_comment"):
        comments.setdefault(history[0].entity.id, []).append(history)
    issues: list[dict[str, Any]] = []
    for issue_type, kind in (("Support case", "ticket"), ("Incident", "incident")):
        for history in index.of_kind(kind):
            issues.append(_issue(index, 10001 + len(issues), history, issue_type, comments))
    document = {"startAt": 0, "maxResults": len(issues), "total": len(issues), "issues": issues}
    put(out / "issues.json", json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    return {"issues": len(issues), "comments": sum(i["fields"]["comment"]["total"] for i in issues)}


#: The format this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = ExportFormat(name="jira", scopes=("world",), write="benchmark_builders.export.tickets:write_jira",
                             summary="Jira-style issues.json")
