"""A world's chat as a Slack workspace export: channels.json, groups.json, dms.json, users.json, day files.

The layout is the one Slack's export writes: a folder per public channel
(named without ``#``), per private channel and per direct-message pair (named
by its id), each holding one ``YYYY-MM-DD.json`` per UTC day with that day's
messages in time order (``type``, ``user``, ``text``, ``ts``; a reply — a message whose facts name
``in_reply_to`` — carries its question's ``thread_ts``, and the question its ``replies``). Users get
Slack-style ids (``U0000001``), channels ``C…``, private channels ``G…``
and DMs ``D…``; each message keeps its orgbench artifact id in Slack's
message ``metadata`` so a row can be joined back to the world.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmark_builders.export.world_index import WorldIndex, epoch, put, unique_sorted
from simulator.model import ArtifactVersion
from benchmark_builders.export.formats import ExportFormat

TEAM_ID = "T0000001"


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=4) + "\n"


def user_id(actor_id: str) -> str:
    """The Slack user id of an orgbench person (``P-0042`` → ``U0000042``)."""
    digits = "".join(c for c in actor_id if c.isdigit())
    return f"U{int(digits or 0):07d}"


def _users(index: WorldIndex) -> list[dict[str, Any]]:
    out = []
    for actor in sorted(index.world.actors, key=lambda a: a.actor_id):
        handle = actor.email.split("@", 1)[0]
        out.append({
            "id": user_id(actor.actor_id), "team_id": TEAM_ID, "name": handle, "deleted": actor.left_at is not None,
            "real_name": actor.name, "tz": "UTC", "tz_label": "Coordinated Universal Time", "tz_offset": 0,
            "is_bot": False, "is_admin": False,
            "profile": {"title": actor.title, "real_name": actor.name, "real_name_normalized": actor.name,
                        "display_name": actor.name, "email": actor.email, "team": TEAM_ID},
        })
    return out


def _conversations(index: WorldIndex) -> dict[str, list[list[ArtifactVersion]]]:
    """Conversation key (channel entity id, or DM pair) → its messages' histories, in time order."""
    out: dict[str, list[list[ArtifactVersion]]] = {}
    for history in index.of_kind("chat_message", "direct_message"):
        out.setdefault(history[0].entity.id, []).append(history)
    return dict(sorted(out.items()))


def _message(history: list[ArtifactVersion], ts: str) -> dict[str, Any]:
    first, last = history[0], history[-1]
    message: dict[str, Any] = {"type": "message", "user": user_id(first.author), "text": last.body, "ts": ts}
    if len(history) > 1:
        message["edited"] = {"user": user_id(last.author), "ts": f"{int(epoch(last.created_at))}.000000"}
    message["metadata"] = {"event_type": "orgbench_artifact", "event_payload": {"artifact_id": first.artifact_id}}
    return message


def _stamps(histories: list[list[ArtifactVersion]]) -> dict[str, str]:
    """Artifact id → a ts unique in its conversation (seconds since 1970, a sequence after the point)."""
    stamps: dict[str, str] = {}
    used: dict[int, int] = {}
    for history in histories:
        second = int(epoch(history[0].created_at))
        sequence = used.get(second, 0)
        used[second] = sequence + 1
        stamps[history[0].artifact_id] = f"{second}.{sequence:06d}"
    return stamps


def _thread(messages: dict[str, dict[str, Any]], parents: dict[str, str]) -> None:
    """Slack's thread shape: a reply has its parent's ``thread_ts``; the parent lists its replies."""
    for artifact_id, parent_id in parents.items():
        parent, reply = messages.get(parent_id), messages[artifact_id]
        if parent is None:
            continue                       # the question is in another conversation: no thread
        parent.setdefault("thread_ts", parent["ts"])
        reply["thread_ts"] = parent["thread_ts"]
        reply["parent_user_id"] = parent["user"]
        parent.setdefault("replies", []).append({"user": reply["user"], "ts": reply["ts"]})
        parent["reply_count"] = len(parent["replies"])


def _days(histories: list[list[ArtifactVersion]]) -> dict[str, list[dict[str, Any]]]:
    """Messages per UTC day, in time order, threaded where a message answers another (``in_reply_to``)."""
    stamps = _stamps(histories)
    messages = {h[0].artifact_id: _message(h, stamps[h[0].artifact_id]) for h in histories}
    _thread(messages, {h[0].artifact_id: str(h[0].facts["in_reply_to"]) for h in histories
                       if h[0].facts.get("in_reply_to")})
    days: dict[str, list[dict[str, Any]]] = {}
    for history in histories:
        days.setdefault(history[0].created_at.date().isoformat(), []).append(messages[history[0].artifact_id])
    return days


def write_slack(index: WorldIndex, out: Path) -> dict[str, int]:
    """Write the Slack export of ``index``'s world into ``out``; returns counts."""
    channels: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    dms: list[dict[str, Any]] = []
    messages = 0
    for number, (key, histories) in enumerate(_conversations(index).items(), start=1):
        first = histories[0][0]
        members = unique_sorted(user_id(h[0].author) for h in histories)
        created = int(epoch(first.created_at))
        if first.kind == "direct_message":
            pair = key.split("+")
            folder = f"D{number:07d}"
            dms.append({"id": folder, "created": created, "members": [user_id(p) for p in pair]})
        else:
            private = first.acl.space is not None
            name = str(first.facts.get("channel", key)).lstrip("#")
            folder = name
            entry = {"id": f"{'G' if private else 'C'}{number:07d}", "name": name, "created": created,
                     "creator": user_id(first.author), "is_archived": False, "is_general": name == "general",
                     "members": members, "topic": {"value": "", "creator": "", "last_set": 0},
                     "purpose": {"value": f"{index.company} {first.facts.get('channel', key)}",
                                 "creator": "", "last_set": 0}}
            (groups if private else channels).append(entry)
        for day, rows in _days(histories).items():
            put(out / folder / f"{day}.json", _json(rows))
            messages += len(rows)
    put(out / "users.json", _json(_users(index)))
    put(out / "channels.json", _json(channels))
    put(out / "groups.json", _json(groups))
    put(out / "dms.json", _json(dms))
    put(out / "mpims.json", _json([]))
    return {"channels": len(channels), "private_channels": len(groups), "dms": len(dms), "messages": messages,
            "users": len(index.world.actors)}


#: The format this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = ExportFormat(name="slack", scopes=("world",), write="benchmark_builders.export.slack:write_slack",
                             summary="Slack workspace export")
