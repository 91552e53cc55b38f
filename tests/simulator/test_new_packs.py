"""The packs written from docs/packs.md alone (clinical, utility): new step structures and fact kinds, and
``orgbench pack check`` naming what a study needs that a pack lacks."""

from __future__ import annotations

import tomllib
from pathlib import Path

from click.testing import CliRunner

from orgbench.cli import cli

PACKS = Path(__file__).parents[2] / "simulator" / "packs"
NEW = ("clinical", "utility")
EXISTING = ("hardware", "fintech")


def _raw(pack: str) -> dict:
    return tomllib.loads((PACKS / f"{pack}.toml").read_text(encoding="utf-8"))


def _structures(pack: str) -> set[tuple[str, ...]]:
    """Each runbook's (and revision's) step ids in order."""
    out = set()
    for runbook in _raw(pack)["runbooks"]:
        for steps in (runbook["steps"], *(r["steps"] for r in runbook.get("revisions", []))):
            out.add(tuple(s["id"] for s in steps))
    return out


def _id_facts(pack: str) -> set[str]:
    return {fact for runbook in _raw(pack)["runbooks"] for fact in runbook.get("ids", {})}


def test_the_new_packs_step_structures_and_fact_kinds_appear_in_no_other_pack():
    for pack in NEW:
        others = [p for p in (*EXISTING, *NEW) if p != pack]
        assert not _structures(pack) & set().union(*map(_structures, others)), pack
        assert len(_id_facts(pack)) >= 6
        assert not _id_facts(pack) & set().union(*map(_id_facts, others)), pack
        # and their industries are far from IT support and payments
        assert not {"RB-BATTERY", "RB-CHARGEBACK"} & {r["id"] for r in _raw(pack)["runbooks"]}


def test_pack_check_lists_every_gap_of_a_built_in_pack(tmp_path):
    result = CliRunner().invoke(cli, ["pack", "check", "clinical"])
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "clinical: pack 'clinical' (Halden Clinical Engineering): 6 runbooks, 2 revised, 2 out of scope",
        "lacks cargo: runbooks[].revisions: no swap steps (add a revision with two steps in another order)",
        "trajectories: has every field it needs",
        "groundeval: has every field it needs",
    ]
    for pack in ("hardware", "fintech"):
        assert CliRunner().invoke(cli, ["pack", "check", pack]).output.splitlines()[1:] == [
            "cargo: has every field it needs", "trajectories: has every field it needs",
            "groundeval: has every field it needs"]
    # fintech with its payout revision escalating to the same team as before: no wrong escalation left
    escalation = 'action = "escalate to the support manager to correct the bank details"\n' \
                 'reads = ["log_bundle_id", "diagnostic_code"]\nrequires = ["check_payout", "collect_logs"]\n' \
                 'escalates_to = "support_manager"'
    text = (PACKS / "fintech.toml").read_text(encoding="utf-8")
    assert text.count(escalation) == 1
    same_team = tmp_path / "same-team.toml"
    same_team.write_text(text.replace(escalation, escalation.replace("support_manager", "support_l2")), encoding="utf-8")
    assert CliRunner().invoke(cli, ["pack", "check", str(same_team)]).output.splitlines()[1] == \
        "lacks cargo: runbooks[].revisions: no wrong escalation (add a revision escalating a step to another team)"


def test_pack_check_exits_2_naming_the_fields_a_study_requires(tmp_path):
    text = (PACKS / "utility.toml").read_text(encoding="utf-8")
    for category in ("meter", "billing", "vegetation", "voltage"):   # every runbook but one out of scope
        if category != "meter":
            text = text.replace(f'category = "{category}"\n', f'category = "{category}"\nout_of_scope = true\n', 1)
    text = text.replace(" outage-management = \"billing\",", "").replace(" billing-engine = \"billing\",", "")
    text = text.replace(" crew-dispatch = \"vegetation\",", "").replace(" claims-service = \"billing\"", "")
    text = text.replace('customer-portal = "portal",', 'customer-portal = "portal"')
    pack = tmp_path / "narrow.toml"
    pack.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["pack", "check", str(pack)])
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert "lacks cargo: runbooks: 1 runbook(s) in scope; a suite needs two (leave more runbooks without " \
           "out_of_scope = true) (required)" in lines
    assert lines[-1] == f"error: {pack}: 1 field(s) a study requires are missing (listed above)"
    malformed = tmp_path / "bad.toml"
    malformed.write_text(text.replace('firmware_line = "3.4"', 'firmware_line = "three"'), encoding="utf-8")
    result = CliRunner().invoke(cli, ["pack", "check", str(malformed)])
    assert result.exit_code == 2
    assert result.output.strip() == (f"error: {malformed}: products[0].firmware_line: must be MAJOR.MINOR such as "
                                     "4.2, not 'three'")
