"""Cascades and runbook revisions follow the world's pack: a pack's services open its own runbooks' cases.

The service → case-category table is the pack's ``engineering.service_categories``;
revisions mid-run are the pack's ``[[runbooks.revisions]]``, so another pack's
world revises only its own runbooks, and a pack without revisions has no drift.
"""

from __future__ import annotations

from pathlib import Path

from simulator.config import load_config
from simulator.packs import default_pack, load_pack
from simulator.simulate import simulate_to
from simulator.world import load_world

HARDWARE = Path(__file__).resolve().parents[2] / "simulator" / "packs" / "hardware.toml"



def _simulated(config, out: Path):
    """Stream the world to ``out`` (as ``orgbench simulate`` does) and load it back."""
    simulate_to(config, out)
    return load_world(out)

def _runbook_of_case(world) -> dict[str, str]:
    return {e.payload["case_id"]: world.version(e.artifacts[0]).facts["procedure_id"]
            for e in world.events if e.type == "case.opened"}


def test_the_hardware_pack_carries_the_service_categories_the_cascades_used():
    assert dict(default_pack().service_categories) == {
        "billing-api": "billing", "device-telemetry": "hardware_failure", "license-service": "licensing",
        "auth-gateway": "account_access", "firmware-updates": "firmware", "support-portal": "account_access",
        "dispatch-scheduler": "onsite", "crm-sync": "billing",
    }


def test_a_fintech_world_opens_incident_cases_of_the_packs_runbooks_and_revises_only_its_own_runbook(tmp_path):
    world = _simulated(load_config(days=30, people=30, pack="fintech"), tmp_path / "w")
    pack = load_pack("fintech")
    categories = dict(pack.service_categories)
    by_category = {p.category: p.procedure_id for p in pack.procedures}
    events = {e.event_id: e for e in world.events}
    runbook = _runbook_of_case(world)
    service_of = {e.payload["incident_id"]: e.payload["service"] for e in world.events if e.type == "incident.opened"}
    cited = [e for e in world.events if e.type == "case.opened" and "incident_id" in e.payload]
    assert cited
    for event in cited:
        parent = events[event.parents[0].event_id]
        if parent.type == "incident.opened":  # a customer report: the runbook of the failing service's category
            assert runbook[event.payload["case_id"]] == by_category[categories[service_of[event.payload["incident_id"]]]]
        else:  # a credit for a breached service level follows the pack's billing runbook
            assert parent.type == "billing.sla_breached" and runbook[event.payload["case_id"]] == "RB-FEE-REFUND"
    revised = {e.payload["procedure_id"]: e for e in world.events if e.type == "wiki.runbook_revised"}
    assert {(p, e.payload["revision"]) for p, e in revised.items()} == {
        ("RB-CHARGEBACK", 2), ("RB-PAYOUT-FAILURE", 2), ("RB-TERMINAL-SWAP", 2)}
    tickets = [v for v in world.artifacts if v.kind == "ticket" and v.version == 1]
    later = [v for v in tickets if v.facts["procedure_revision"] == 2]
    assert later and {v.facts["procedure_id"] for v in later} <= set(revised)
    assert all(v.created_at >= revised[v.facts["procedure_id"]].ts for v in later)
    pages = [v for v in world.artifacts if v.kind == "runbook"]
    assert {v.facts["procedure_id"] for v in pages} == {p.procedure_id for p in pack.procedures}
    restricted = {v.facts["procedure_id"] for v in pages if v.acl.space == "SP-WIKI-RESTRICTED"}
    assert restricted == {p.procedure_id for p in pack.procedures if p.restricted} == {"RB-KYC-REVIEW"}


def test_a_pack_without_revisions_has_no_procedure_drift(tmp_path):
    text = HARDWARE.read_text(encoding="utf-8").replace('name = "hardware"', 'name = "hardware-steady"', 1)
    kept = []
    for block in text.split("\n[[runbooks"):  # drop every [[runbooks.revisions]] table and its steps
        if not block.startswith(".revisions"):
            kept.append(block)
    path = tmp_path / "steady.toml"
    path.write_text("\n[[runbooks".join(kept), encoding="utf-8")
    pack = load_pack(str(path))
    assert pack.revisions == () and len(default_pack().revisions) == 4
    assert pack.procedures == default_pack().procedures
    world = _simulated(load_config(days=30, people=30, pack=str(path)), tmp_path / "w")
    assert not [e for e in world.events if e.type == "wiki.runbook_revised"]
    tickets = [v for v in world.artifacts if v.kind == "ticket"]
    assert tickets and {v.facts["procedure_revision"] for v in tickets} == {1}
    copies = [v for v in world.artifacts if v.kind == "runbook" and v.title.startswith("Copy of")]
    assert not copies
