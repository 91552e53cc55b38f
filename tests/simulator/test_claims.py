"""The truth sidecar, checked against the engine's own records by code that shares nothing with the labeller.

Every labelled statement must say what its artifact says and differ from what
the world's records (incident versions and events, runbook pages) show at the
moment it was made; and every such statement an independent reader can find
(a status repeated in chat, a guessed mechanism, a runbook copy whose steps
differ from the page in force) must be labelled.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from simulator.claims import CLAIM_KINDS
from orgbench.core.errors import InputError
from simulator.world import load_world


def _mechanisms(world) -> dict[str, str]:
    """Incident id → mechanism, from the mitigation events (not from any artifact)."""
    return {e.payload["incident_id"]: e.payload["mechanism"] for e in world.events if e.type == "incident.mitigated"}


def _main_runbook_pages(world) -> dict[str, str]:
    """Runbook id → the id of its own page (the first page created for it)."""
    pages: dict[str, str] = {}
    for event in sorted(world.events, key=lambda e: e.event_id):
        if event.type == "wiki.page_created" and "procedure_id" in event.payload:
            pages.setdefault(event.payload["procedure_id"], event.payload["wiki_id"])
    return pages


def test_every_labelled_statement_says_its_value_and_differs_from_the_record(default_world, small_world):
    for world in (default_world, small_world):
        mechanisms = _mechanisms(world)
        pages = _main_runbook_pages(world)
        assert world.claims
        for claim in world.claims:
            version = world.version(claim.ref)
            assert claim.kind in CLAIM_KINDS
            assert version.facts[claim.field] == claim.value        # the statement says it…
            assert claim.value != claim.true_value                   # …and it is not so
            if claim.field == "status":                              # a stale incident status
                record = world.as_of(version.facts["incident_id"], version.created_at)
                history = [v.facts["status"] for v in world.versions(record.artifact_id) if v.created_at <= version.created_at]
                assert claim.kind == "stale" and claim.value in history[:-1]   # it was true once
                assert record.facts["status"] == claim.true_value != claim.value
            elif claim.field == "mechanism":                         # a wrong guess at the cause
                assert claim.kind == "wrong"
                assert mechanisms[version.facts["incident_id"]] == claim.true_value != claim.value
            elif claim.field == "category":                          # a misfiled runbook copy
                page = world.as_of(pages[version.facts["procedure_id"]], version.created_at)
                assert claim.kind == "wrong" and page.facts["category"] == claim.true_value != claim.value
            else:                                                    # a copy left on old steps
                assert claim.field == "step_details" and claim.kind == "conflict"
                page = world.as_of(pages[version.facts["procedure_id"]], version.created_at)
                assert page.artifact_id != version.artifact_id
                assert page.facts["step_details"] == claim.true_value != claim.value
        assert set(Counter(c.kind for c in world.claims)) == set(CLAIM_KINDS) or world is small_world


def test_every_untrue_statement_a_reader_can_find_is_labelled(default_world):
    world = default_world
    labelled = {(c.ref, c.field) for c in world.claims}
    mechanisms = _mechanisms(world)
    pages = _main_runbook_pages(world)
    found = 0
    for version in world.artifacts:
        facts = version.facts
        if version.kind == "chat_message" and "incident_id" in facts:
            if "status" in facts:
                record = world.as_of(facts["incident_id"], version.created_at)
                if record.facts["status"] != facts["status"]:
                    found += 1
                    assert (version.ref, "status") in labelled, version.ref
            if "mechanism" in facts and facts["mechanism"] != mechanisms.get(facts["incident_id"]):
                found += 1
                assert (version.ref, "mechanism") in labelled, version.ref
        if version.kind == "runbook" and version.artifact_id != pages[facts["procedure_id"]]:
            page = world.as_of(pages[facts["procedure_id"]], version.created_at)
            if page.facts["step_details"] != facts["step_details"]:
                found += 1
                assert (version.ref, "step_details") in labelled, version.ref
            if page.facts["category"] != facts["category"]:
                found += 1
                assert (version.ref, "category") in labelled, version.ref
    assert found == len(world.claims)


def test_labels_live_only_in_the_sidecar(small_world, small_world_dir):
    """No artifact carries a label: the truth (or the kind) of a statement is nowhere in its facts."""
    for claim in small_world.claims:
        version = small_world.version(claim.ref)
        text = json.dumps(version.to_json(), sort_keys=True)
        assert "true_value" not in text and json.dumps(claim.true_value) not in json.dumps(version.facts[claim.field])
    lines = (small_world_dir / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(small_world.claims) and load_world(small_world_dir).claims == small_world.claims


def test_a_bad_claims_line_is_refused_with_its_file_and_line(small_world_dir, tmp_path):
    import shutil

    broken = tmp_path / "world"
    shutil.copytree(small_world_dir, broken)
    path = broken / "claims.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps({**json.loads(lines[0]), "kind": "rumour"})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"claims\.jsonl:1"):
        load_world(broken, verify=False)
