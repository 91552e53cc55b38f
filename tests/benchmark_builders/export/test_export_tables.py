"""Jira JSON, Parquet and GroundEval exports checked against the world's raw rows and readers orgbench did not write."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from datetime import timezone
from pathlib import Path

import pytest



def test_jira_issues_match_the_tickets_comments_and_statuses(exported, raw_artifacts, latest_versions):
    document = json.loads((exported("jira") / "issues.json").read_text(encoding="utf-8"))
    issues = {i["key"]: i for i in document["issues"]}
    tickets = {r["artifact_id"] for r in raw_artifacts if r["kind"] in ("ticket", "incident")}
    assert sorted(issues) == sorted(tickets) and document["total"] == len(tickets)
    comments: dict[str, list[str]] = {}
    for row in raw_artifacts:
        if row["kind"] == "ticket_comment" and row["version"] == 1:
            comments.setdefault(row["entity"]["id"], []).append(row["artifact_id"])
    names = {"open": "Open", "in_progress": "In Progress", "pending_customer": "Waiting for customer",
             "resolved": "Resolved", "closed": "Closed", "investigating": "Investigating", "mitigated": "Mitigated"}
    for key, issue in issues.items():
        fields, last = issue["fields"], latest_versions[key]
        assert fields["status"]["name"] == names[last["facts"].get("case_status", last["facts"].get("status"))]
        assert sorted(c["id"] for c in fields["comment"]["comments"]) == sorted(comments.get(key, []))
        assert fields["comment"]["total"] == len(comments.get(key, []))
        assert fields["summary"] == last["title"]
        assert fields["issuetype"]["name"] == ("Support case" if key.startswith("CASE-") else "Incident")
    moved = [i for i in issues.values() if i["changelog"]["histories"]]
    assert moved and all(h["items"][0]["fromString"] != h["items"][0]["toString"]
                         for i in moved for h in i["changelog"]["histories"])


def _rfc3339(value) -> str | None:
    return None if value is None else value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_parquet_tables_equal_the_world_jsonl_row_for_row(exported, raw_rows, world_dir):
    pq = pytest.importorskip("pyarrow.parquet")
    out = exported("parquet")
    manifest = json.loads((world_dir / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    nested = {"payload", "parents", "facts", "acl"}
    for table in ("actors", "events", "artifacts"):
        read = pq.read_table(out / f"{table}.parquet")
        meta = {k.decode(): v.decode() for k, v in read.schema.metadata.items()}
        assert meta["orgbench.source_sha256"] == manifest[f"{table}.jsonl"]["sha256"]
        rows = read.to_pylist()
        expected = raw_rows(f"{table}.jsonl")
        assert len(rows) == len(expected) > 0
        for got, want in zip(rows, expected):
            for key, value in list(got.items()):
                if key in nested:
                    got[key] = json.loads(value)
                elif hasattr(value, "tzinfo"):
                    got[key] = _rfc3339(value)
            if "entity_kind" in got:
                got["entity"] = {"kind": got.pop("entity_kind"), "id": got.pop("entity_id")}
            assert got == want
    claims = pq.read_table(out / "claims.parquet").to_pylist()
    expected_claims = raw_rows("claims.jsonl")
    assert len(claims) == len(expected_claims) > 0
    for got, want in zip(claims, expected_claims):
        assert f"{got.pop('artifact_id')}@{got.pop('version')}" == want["ref"]
        got["value"], got["true_value"] = json.loads(got["value"]), json.loads(got["true_value"])
        assert got == want
    export_manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    for name, entry in export_manifest["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == entry["sha256"]
    assert export_manifest["source_world"]["files"]["events.jsonl"] == manifest["events.jsonl"]["sha256"]


def test_groundeval_export_imports_with_orgbenchs_importer(exported, raw_artifacts, raw_rows):
    from benchmark_builders.groundeval.importer import import_domain

    out = exported("groundeval")
    world, rules, _ = import_domain(out)
    assert len(world.events) == len(raw_rows("events.jsonl"))
    firsts = {r["artifact_id"]: r for r in raw_artifacts if r["version"] == 1}
    assert sorted(world.artifact_ids()) == sorted(firsts)
    for artifact_id in list(firsts)[:500]:
        assert world.versions(artifact_id)[0].body == firsts[artifact_id]["body"]
    assert [r.name for r in rules.causal] == ["deploy_caused_incident"]
    assert [r.name for r in rules.silence] == ["incident_postmortem"]
    dm = next(r for r in raw_artifacts if r["kind"] == "direct_message")
    assert world.versions(dm["artifact_id"])[0].subsystem == "chat-private"


def test_groundeval_export_keeps_the_claims_on_its_truth_side_only(exported, raw_rows):
    """The labelled-claims sidecar travels as truth/claims.jsonl, equal to the world's; no label reaches the
    layout's corpus or event log (artifact files and events.jsonl carry no true value or claim kind)."""
    out = exported("groundeval")
    claims = [json.loads(line) for line in (out / "truth" / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    assert claims == raw_rows("claims.jsonl") and claims
    for path in (out / "artifacts").rglob("*.json"):
        assert "true_value" not in path.read_text(encoding="utf-8"), path
    assert "true_value" not in (out / "events.jsonl").read_text(encoding="utf-8")


def _upstream(tmp_path: Path):
    """GroundEval's own event and corpus code from the copy GROUNDEVAL_UPSTREAM names (never copied into the repo)."""
    from tests.upstream_groundeval import PREPRINT, upstream_tree

    tree = upstream_tree(PREPRINT, tmp_path / "upstream")
    package = tmp_path / "shim" / "groundeval_upstream"
    shutil.copytree(tree / "src" / "groundeval", package)
    sys.path.insert(0, str(tmp_path / "shim"))
    try:
        import groundeval_upstream.adapters as adapters
        import groundeval_upstream.core as core
    finally:
        sys.path.remove(str(tmp_path / "shim"))
    return core, adapters


def test_groundeval_export_reads_with_upstream_groundeval(exported, raw_artifacts, tmp_path):
    core, adapters = _upstream(tmp_path)
    out = exported("groundeval")
    events = core.load_events(out / "events.jsonl")
    corpus = adapters.FileCorpusAdapter(out / "artifacts")
    policy = adapters.EventLogPolicy.from_file(out / "config.yaml", events)
    ids = corpus.list_ids()
    firsts = {r["artifact_id"]: r for r in raw_artifacts if r["version"] == 1}
    assert sorted(ids) == sorted(firsts)
    assert all(e.ts().tzinfo is not None for e in events[:50])
    dm = next(r for r in raw_artifacts if r["kind"] == "direct_message")
    sender, recipient = dm["acl"]["audience"]
    assert corpus.fetch(dm["artifact_id"])["body"] == dm["body"]
    assert dm["artifact_id"] in policy.visible_artifacts(sender, ids, corpus=corpus)
    outsider = next(a for a in policy._base._actors if a not in (sender, recipient)
                    and dm["artifact_id"] not in policy.visible_artifacts(a, [dm["artifact_id"]], corpus=corpus))
    assert outsider
    ticket = next(r for r in raw_artifacts if r["kind"] == "ticket" and r["acl"]["space"] is None)
    support = next(a for a, role in policy._base._actors.items() if role == "support_l1")
    assert ticket["artifact_id"] in policy.visible_artifacts(support, [ticket["artifact_id"]], corpus=corpus)
