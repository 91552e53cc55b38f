"""Domain packs: the default pack is today's world, another pack changes the domain, bad packs fail in one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbench.cli import cli
from simulator.config import load_config
from orgbench.core.errors import InputError
from simulator.packs import default_pack, load_pack
from simulator.simulate import simulate_to
from simulator.world import load_world

FINTECH = Path(__file__).resolve().parents[2] / "simulator" / "packs" / "fintech.toml"



def _simulated(config, out: Path):
    """Stream the world to ``out`` (as ``orgbench simulate`` does) and load it back."""
    simulate_to(config, out)
    return load_world(out)

def _digests(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def _tickets(directory: Path) -> list[dict]:
    rows = [json.loads(line) for line in (directory / "artifacts.jsonl").read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["kind"] == "ticket"]


def test_naming_the_default_pack_gives_the_default_world_byte_for_byte(tmp_path):
    implied = _simulated(load_config(days=8, people=20), tmp_path / "implied")
    named = tmp_path / "named.toml"
    named.write_text('pack = "hardware"\ndays = 8\npeople = 20\n', encoding="utf-8")
    simulate_to(load_config(named), tmp_path / "named")
    assert _digests(tmp_path / "implied") == _digests(tmp_path / "named")
    assert "pack" not in implied.meta["config"]          # world.json of a default world is as before packs


def test_the_default_pack_holds_the_runbooks_builders_read():
    from simulator.procedures import PROCEDURES

    pack = default_pack()
    assert PROCEDURES == pack.procedures and len(PROCEDURES) == 8
    assert pack.domain == "nimbusware.example" and "billing-api" in pack.services
    assert [p.procedure_id for p in pack.procedures if p.restricted] == ["RB-DATA-RECOVERY"]


def test_a_fintech_world_uses_the_packs_company_runbooks_and_services(tmp_path):
    world = _simulated(load_config(days=12, people=24, pack="fintech"), tmp_path / "w")
    pack = load_pack("fintech")
    assert world.meta["config"]["pack"] == pack.to_json()
    assert all(a.email.endswith("@ledgerline.example") for a in world.actors)
    runbooks = {t["facts"]["procedure_id"] for t in _tickets(tmp_path / "w")}
    assert runbooks and runbooks <= {p.procedure_id for p in pack.procedures}
    services = {e.payload["service"] for e in world.events if e.type == "deploy.completed"}
    assert services and services <= set(pack.services)
    chargebacks = [t["facts"]["chargeback_id"] for t in _tickets(tmp_path / "w") if "chargeback_id" in t["facts"]]
    assert all(c.startswith("CBK-") for c in chargebacks)
    titles = {a.title for a in world.actors}
    assert "Merchant Support Manager" in titles and "Support Manager" not in titles


def test_a_third_pack_written_by_a_user_simulates(tmp_path):
    text = FINTECH.read_text(encoding="utf-8")
    text = text.replace('name = "fintech"', 'name = "telecom"').replace("ledgerline.example", "wavelink.example")
    text = text.replace("payments-api", "sms-gateway").replace("ledger-core", "number-porting")
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "telecom.toml").write_text(text, encoding="utf-8")
    config_file = tmp_path / "world.toml"
    config_file.write_text('pack = "packs/telecom.toml"\ndays = 10\npeople = 20\n', encoding="utf-8")
    world = _simulated(load_config(config_file), tmp_path / "w")
    assert world.meta["config"]["pack"]["name"] == "telecom"
    assert all(a.email.endswith("@wavelink.example") for a in world.actors)
    services = {e.payload["service"] for e in world.events if e.type.startswith("deploy.")}
    assert services & {"sms-gateway", "number-porting"}


def _pack_with(tmp_path: Path, old: str, new: str) -> Path:
    text = FINTECH.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old, new, message", [
    ('reads = ["invoice_id", "account_id"]', 'reads = ["invoice_number"]',
     "runbooks[0].steps[0].reads[0]: unknown value 'invoice_number'"),
    ('escalates_to = "support_l2"', 'escalates_to = "finance"', "runbooks[1].steps[2].escalates_to: unknown team"),
    ('domain = "ledgerline.example"', 'domain = "Ledger Line"', "pack.domain: must be a lower-case domain"),
    ('mechanism = "memory_leak" }', 'mechanism = "gremlins" }', "engineering.changes[5].mechanism: unknown mechanism"),
    ('[teams.reports_to]', '[teams.reports]', "teams.reports: unknown key"),
    ('requires = ["verify_invoice"]', 'requires = ["open_dispute"]', "runbooks[0].steps[1].requires[0]: unknown value"),
    ('topics = ["standup",', 'topics = ["crypto",', "chatter.topics[0]: unknown value 'crypto'"),
    ('ledger-core = "billing"', 'ledger-core = "mortgages"',
     "engineering.service_categories.ledger-core: unknown case category 'mortgages'"),
    ('fraud-scoring = "chargeback"', 'fraud-engine = "chargeback"', "engineering.service_categories.fraud-engine: unknown key"),
    ('note = "a dispute is now approved', 'nose = "a dispute is now approved', "runbooks[0].revisions[0].nose: unknown key"),
    ('reads = ["evidence_bundle_id", "approver"]', 'reads = ["evidence_bundle_id", "refund_id"]',
     "runbooks[0].revisions[0].steps[3].reads[1]: unknown value 'refund_id'"),
    ('unit = "terminal"', 'gadget = "terminal"', "wording.words.gadget: unknown word"),
    ('asset_serial = ["terminal ID {v}", "terminal {v}", "the terminal\'s ID {v}"]',
     'asset_serial = ["terminal ID {v}", "terminal"]', "wording.facts.asset_serial: needs exactly three wordings"),
    ('support_ask = ["""', 'support_asks = ["""', "wording.pools.support_asks: not a pool of the prose grammar"),
    ('tip = ["""Tip: [check', 'tip = ["""Tip: {tipz} [check', "wording.pools.tip[0]: names unknown pool 'tipz'"),
])
def test_a_malformed_pack_fails_naming_file_and_field(tmp_path, old, new, message):
    path = _pack_with(tmp_path, old, new)
    with pytest.raises(InputError) as caught:
        load_config(pack=str(path))
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_the_cli_refuses_an_unknown_or_malformed_pack_in_one_line(tmp_path):
    config_file = tmp_path / "world.toml"
    config_file.write_text('pack = "aerospace"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["simulate", "--out", str(tmp_path / "w"), "--config", str(config_file)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: {config_file}: pack: unknown pack 'aerospace' (built-in packs are clinical, fintech, hardware, utility; "
        "or give the path of a .toml pack file)"]
    bad = _pack_with(tmp_path, 'firmware_line = "6.4"', 'firmware_line = "six"')
    result = CliRunner().invoke(cli, ["simulate", "--out", str(tmp_path / "w"), "--pack", str(bad)])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {bad}: products[0].firmware_line: must be MAJOR.MINOR such as 4.2, not 'six'"
    assert not (tmp_path / "w").exists()
    (tmp_path / "dir.toml").mkdir()                    # before: "pack file …/dir.toml not found"
    result = CliRunner().invoke(cli, ["pack", "check", str(tmp_path / "dir.toml")])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {tmp_path / 'dir.toml'}: pack file {tmp_path / 'dir.toml'}: a directory"
    result = CliRunner().invoke(cli, ["pack", "check", "aerospace"])      # the argument, not a field of it
    assert result.exit_code == 2 and result.output.startswith("error: aerospace: unknown pack 'aerospace' (built-in")


def test_the_fact_vocabulary_a_pack_is_checked_against_is_the_engines():
    from simulator import case_facts
    from simulator.procedures import CASE_FACTS, OPENING_FACTS, WRITABLE_FACTS

    assert WRITABLE_FACTS == tuple(case_facts._MAKERS)
    assert OPENING_FACTS == (*case_facts.BASE_FACTS, *case_facts.ASSET_FACTS, "license_key", "target_account_id",
                             "invoice_id", "credit_amount")
    assert set(OPENING_FACTS) | set(WRITABLE_FACTS) <= set(CASE_FACTS)
