"""Slack, mbox and .eml exports read back by readers orgbench did not write, against the world's raw rows."""

from __future__ import annotations

import email
import json
import mailbox
from datetime import datetime, timezone
from email.policy import default
from email.utils import parsedate_to_datetime

import pytest


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_slack_export_reads_back_with_slack_export_viewer(exported, raw_artifacts, latest_versions):
    reader_module = pytest.importorskip("slackviewer.reader")
    from slackviewer.config import Config

    out = exported("slack")
    reader = reader_module.Reader(Config({"archive": str(out), "since": None, "hide_channels": None,
                                          "filter_user": None, "skip_channel_member_change": False}))
    chats = {**reader.compile_channels(), **reader.compile_groups(), **reader.compile_dm_messages()}
    messages = [m for rows in chats.values() for m in rows]
    chat = [r for r in raw_artifacts if r["kind"] in ("chat_message", "direct_message") and r["version"] == 1]
    assert len(messages) == len(chat) > 100
    by_id = {m._message["metadata"]["event_payload"]["artifact_id"]: m for m in messages}
    assert sorted(by_id) == sorted(r["artifact_id"] for r in chat)
    users = {u["id"]: u["real_name"] for u in json.loads((out / "users.json").read_text(encoding="utf-8"))}
    for row in chat[:400]:
        message = by_id[row["artifact_id"]]
        assert message._message["text"] == latest_versions[row["artifact_id"]]["body"]
        assert message.username == users[message.user_id]
        assert float(message._message["ts"]) // 1 == _ts(row["created_at"]).timestamp()


def test_slack_export_has_the_documented_layout(exported, raw_artifacts):
    out = exported("slack")
    channels = json.loads((out / "channels.json").read_text(encoding="utf-8"))
    groups = json.loads((out / "groups.json").read_text(encoding="utf-8"))
    dms = json.loads((out / "dms.json").read_text(encoding="utf-8"))
    assert "general" in [c["name"] for c in channels] and "sre-oncall" in [g["name"] for g in groups]
    assert all(c["id"].startswith("C") for c in channels) and all(g["id"].startswith("G") for g in groups)
    assert all(d["id"].startswith("D") and len(d["members"]) == 2 for d in dms)
    for folder in [c["name"] for c in channels + groups] + [d["id"] for d in dms]:
        days = sorted((out / folder).glob("*.json"))
        assert days, folder
        for day in days:
            rows = json.loads(day.read_text(encoding="utf-8"))
            assert [float(r["ts"]) for r in rows] == sorted(float(r["ts"]) for r in rows)
            assert {datetime.fromtimestamp(float(r["ts"]), timezone.utc).date().isoformat() for r in rows} == {day.stem}
    private = {r["facts"]["channel"].lstrip("#") for r in raw_artifacts
               if r["kind"] == "chat_message" and r["acl"]["space"] is not None}
    assert private == {g["name"] for g in groups}


def _emails(raw_artifacts, latest_versions) -> dict[str, dict]:
    ids = {r["artifact_id"] for r in raw_artifacts if r["subsystem"] == "email"}
    return {a: latest_versions[a] for a in sorted(ids)}


def _check_message(message, row, first_created: str) -> None:
    assert message["Subject"] == row["title"]
    assert parsedate_to_datetime(message["Date"]) == _ts(first_created)
    body = message.get_payload(decode=True).decode(message.get_content_charset())
    assert body.replace("\r\n", "\n") == row["body"] + "\n"   # .eml files are in SMTP's CRLF form
    if "from_external" in row["facts"]:
        assert row["facts"]["from_external"] in message["From"]
    if "to_external" in row["facts"]:
        assert row["facts"]["to_external"] in message["To"]


def test_mbox_parses_with_stdlib_mailbox(exported, raw_artifacts, latest_versions):
    emails = _emails(raw_artifacts, latest_versions)
    first = {r["artifact_id"]: r["created_at"] for r in raw_artifacts if r["version"] == 1}
    box = mailbox.mbox(str(exported("mbox") / "mail.mbox"), create=False)
    messages = list(box)
    assert len(messages) == len(emails) > 50
    ids = {m["Message-ID"] for m in messages}
    replies = 0
    for message in messages:
        artifact_id = message["X-Orgbench-Artifact"]
        _check_message(message, emails[artifact_id], first[artifact_id])
        if message["In-Reply-To"]:
            replies += 1
            assert message["In-Reply-To"] in ids
    assert replies > 0
    box.close()


def test_eml_files_parse_with_stdlib_email(exported, raw_artifacts, latest_versions):
    emails = _emails(raw_artifacts, latest_versions)
    first = {r["artifact_id"]: r["created_at"] for r in raw_artifacts if r["version"] == 1}
    files = sorted((exported("eml") / "eml").glob("*.eml"))
    assert sorted(f.stem for f in files) == sorted(emails)
    for path in files:
        data = path.read_bytes()
        assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
        message = email.message_from_bytes(data, policy=default)
        _check_message(message, emails[path.stem], first[path.stem])


def _hand_made_thread_world():
    """Three #support messages written by hand: a question and two answers naming it (``in_reply_to``)."""
    from simulator.model import Acl, Actor, ArtifactVersion, EntityRef
    from simulator.policy import AccessPolicy
    from simulator.world import build_world

    at = lambda minute: datetime(2026, 2, 3, 10, minute, tzinfo=timezone.utc)  # noqa: E731
    people = [Actor(f"P-000{i}", name, f"{name.split()[0].lower()}@acme.example", "Engineer", "support_l1",
                    "support_l1", None, at(0)) for i, name in ((1, "Ada Byron"), (2, "Grace Hopper"), (3, "Alan Kay"))]
    channel = EntityRef("channel", "CH-SUPPORT")
    texts = (("P-0001", "who owns the staging box?", {}), ("P-0002", "that's infra, ask Alan", {"in_reply_to": "MSG-1"}),
             ("P-0003", "me, what do you need?", {"in_reply_to": "MSG-1"}))
    versions = [ArtifactVersion(f"MSG-{n}", 1, "chat", "chat_message", at(n), author, channel, "#support message", text,
                                {"message_id": f"MSG-{n}", "channel": "#support", **extra}, Acl(participants=(author,)))
                for n, (author, text, extra) in enumerate(texts, start=1)]
    return build_world({"seed": 0}, people, [], versions, AccessPolicy({"support_l1": ("chat",)}, []), {})


def test_a_slack_thread_has_slacks_shape_and_reads_back_threaded(tmp_path):
    reader_module = pytest.importorskip("slackviewer.reader")
    from slackviewer.config import Config

    from benchmark_builders.export.slack import write_slack
    from benchmark_builders.export.world_index import WorldIndex

    write_slack(WorldIndex.of(_hand_made_thread_world()), tmp_path)
    question, first, second = json.loads((tmp_path / "support" / "2026-02-03.json").read_text(encoding="utf-8"))
    assert question["reply_count"] == 2 and question["thread_ts"] == question["ts"]
    assert question["replies"] == [{"user": "U0000002", "ts": first["ts"]}, {"user": "U0000003", "ts": second["ts"]}]
    assert first["thread_ts"] == second["thread_ts"] == question["ts"] and first["parent_user_id"] == "U0000001"
    reader = reader_module.Reader(Config({"archive": str(tmp_path), "since": None, "hide_channels": None,
                                          "filter_user": None, "skip_channel_member_change": False}))
    read = reader.compile_channels()["support"]
    assert [m._message["text"] for m in read] == ["who owns the staging box?", "that's infra, ask Alan",
                                                  "me, what do you need?"]
    assert [m.username for m in read] == ["Ada Byron", "Grace Hopper", "Alan Kay"]
