"""CARGO suites from worlds of any domain pack and any size, checked against the raw world apart from the builder.

The checks read the world's ticket versions and the pack's TOML text directly (``tomllib``), never the
builder's cases or ``simulator.procedures``: the runbook a truth names, the values a candidate states and the
values a contradiction replaces are recomputed from what the world recorded.
"""

from __future__ import annotations

import re
import sys
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from benchmark_builders.cargo import SuiteConfig, suite_from_world_objects  # noqa: E402
from orgbench.cli import cli  # noqa: E402
from simulator.config import load_config  # noqa: E402
from simulator.simulate import simulate  # noqa: E402

PACKS = Path(__file__).parents[3] / "simulator" / "packs"
SMALL = {"P1": 12, "P3": 12, "P2": 12, "P4": 12}


def raw_runbooks(pack: str) -> dict[str, dict]:
    """Runbook id -> its TOML table, read from the pack file itself."""
    return {rb["id"]: rb for rb in tomllib.loads((PACKS / f"{pack}.toml").read_text(encoding="utf-8"))["runbooks"]}


def raw_tickets(world) -> dict[str, dict]:
    """Case id -> the facts of its ticket's last version, read from the world's artifacts."""
    last: dict[str, tuple[int, dict]] = {}
    for version in world.artifacts:
        facts = version.facts or {}
        if "procedure_id" in facts and "case_id" in facts:
            if facts["case_id"] not in last or version.version >= last[facts["case_id"]][0]:
                last[facts["case_id"]] = (version.version, facts)
    return {case_id: facts for case_id, (_, facts) in last.items()}


@lru_cache(maxsize=4)
def pack_suite(pack: str, seeds: tuple[int, ...] = (0,), sizes: tuple = tuple(SMALL.items()), people: int = 20,
               days: int = 25):
    worlds = [simulate(load_config(seed=seed, people=people, days=days, pack=pack)) for seed in seeds]
    return worlds, suite_from_world_objects(worlds, SuiteConfig(sizes=dict(sizes)))


def _text(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def check_against_world(pack: str, worlds, suite) -> None:
    """Every truth recomputed from the raw world and the pack's TOML (see the module docstring)."""
    runbooks = raw_runbooks(pack)
    tickets = {w.seed: raw_tickets(w) for w in worlds}
    items = {i["item_id"]: i for i in suite.items}
    for truth in suite.truth:
        item, ticket = items[truth["item_id"]], tickets[truth["world_seed"]][truth["case_id"]]
        assert ticket["procedure_id"] == truth["procedure_id"] in runbooks
        assert not runbooks[truth["procedure_id"]].get("out_of_scope")
        assert truth["case_id"] in item["question"] and truth["case_id"] in item["live_context"]
        # the live context states the world's own values of the case
        assert str(ticket["account_id"]) in item["live_context"]
        changes = (truth["perturbation"] or {}).get("changes", []) if truth["family"] == "P2" else []
        changed = {c["field"] for c in changes}
        for change in changes:
            if "derived" not in change:
                assert change["original"] == _text(ticket[change["field"]])    # the world's value was replaced
                # no value the case's own record holds, nor one its context shows (an earlier case's opening day)
                assert change["new"] not in {_text(v) for v in ticket.values()}
                assert change["new"] not in item["live_context"], (truth["item_id"], change)
            assert change["new"] in item["candidate"].replace("_", " ") or change["new"] in item["candidate"]
        if truth["family"] in ("P1", "P3", "P2") and truth["case_state"] == "closed":
            # every id fact the runbook's steps write (the pack's own ids included) is stated with the world's value
            revision = ticket.get("procedure_revision", 1)
            table = runbooks[truth["procedure_id"]]
            steps = table["steps"] if revision == 1 else table["revisions"][0]["steps"]
            for step in steps:
                for fact in step.get("writes", []):
                    value = _text(ticket[fact])
                    if fact not in changed and re.search(r"\d", value):
                        assert value in item["candidate"], (truth["item_id"], fact, value)
    out_of_scope = {rid for rid, rb in runbooks.items() if rb.get("out_of_scope")}
    for truth in suite.gating_truth:
        assert truth["procedure_id"] in out_of_scope
        assert tickets[truth["world_seed"]][truth["case_id"]]["procedure_id"] == truth["procedure_id"]


def test_a_fintech_suite_follows_the_packs_runbooks_and_its_truth_holds_in_the_raw_world():
    worlds, suite = pack_suite("fintech")
    assert suite.meta["pack"] == "fintech"
    assert suite.meta["counts"] == SMALL
    assert suite.meta["config"]["out_of_scope"] == ("RB-API-KEY-RESET", "RB-KYC-REVIEW")
    assert suite.gating and {t["procedure_id"] for t in suite.truth} <= set(raw_runbooks("fintech"))
    # the pack's own id facts reach the items: a chargeback or evidence bundle id is stated as the world wrote it
    assert any("CBK-" in i["candidate"] for i in suite.items)
    check_against_world("fintech", worlds, suite)


@pytest.mark.slow          # a default world and its suite (4 s)
def test_the_default_pack_is_one_pack_among_others():
    worlds, suite = pack_suite("hardware")
    assert "pack" not in suite.meta
    assert suite.meta["config"]["out_of_scope"] == ("RB-LICENSE-TRANSFER", "RB-PASSWORD-RESET")
    check_against_world("hardware", worlds, suite)


def test_build_cargo_on_a_users_pack_file_needs_that_file(tmp_path):
    pack = tmp_path / "telecom.toml"
    pack.write_text((PACKS / "fintech.toml").read_text(encoding="utf-8").replace('name = "fintech"', 'name = "telecom"'),
                    encoding="utf-8")
    runner = CliRunner()
    made = runner.invoke(cli, ["simulate", "--pack", str(pack), "--out", str(tmp_path / "w"), "--people", "20",
                               "--days", "20", "--seed", "2"])
    assert made.exit_code == 0, made.output
    refused = runner.invoke(cli, ["build", "cargo", "--world", str(tmp_path / "w"), "--out", str(tmp_path / "s")])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines()[-1] == ("error: world.json: config.pack: the world is made from pack "
                                                       "file 'telecom'; give that file with --pack FILE")
    wrong = runner.invoke(cli, ["build", "cargo", "--world", str(tmp_path / "w"), "--out", str(tmp_path / "s"),
                                "--pack", "fintech"])
    assert wrong.exit_code == 2 and "is not the pack the world was made from (pack 'telecom'" in wrong.output
    assert not (tmp_path / "s" / "items.jsonl").exists()
    built = runner.invoke(cli, ["build", "cargo", "--world", str(tmp_path / "w"), "--out", str(tmp_path / "s"),
                                "--pack", str(pack), "--sizes", "P1=6,P3=6,P2=6,P4=6"])
    assert built.exit_code == 0, built.output
    assert (tmp_path / "s" / "items.jsonl").read_text(encoding="utf-8").count("\n") == 24


def test_a_world_too_small_exits_2_in_one_line(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["simulate", "--people", "16", "--days", "5", "--seed", "3",
                               "--out", str(tmp_path / "tiny")]).exit_code == 0
    refused = runner.invoke(cli, ["build", "cargo", "--world", str(tmp_path / "tiny"), "--out", str(tmp_path / "a")])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines()[-1] == ("error: world seed 3: fewer than two runbooks with completed "
                                                       "cases; simulate more days or people")


@pytest.mark.slow          # simulates and builds (8 s)
def test_the_issues_small_world_builds(tmp_path):
    runner = CliRunner()
    # the issue's example: 16 people over 12 days crashed with an IndexError (no world value to contradict with)
    assert runner.invoke(cli, ["simulate", "--people", "16", "--days", "12", "--seed", "3",
                               "--out", str(tmp_path / "small")]).exit_code == 0
    built = runner.invoke(cli, ["build", "cargo", "--world", str(tmp_path / "small"), "--out", str(tmp_path / "b")])
    assert built.exit_code == 0, built.output
    assert "wrote" in built.output


@pytest.mark.slow          # simulates and builds (5 s a pack)
@pytest.mark.parametrize("pack", ["clinical", "utility"])
def test_every_new_pack_builds_a_suite_whose_truth_holds_in_the_raw_world(pack):
    worlds, suite = pack_suite(pack)
    assert suite.meta["pack"] == pack and suite.meta["counts"] == SMALL and suite.gating
    check_against_world(pack, worlds, suite)


#: Reader leaks found on a pack's suite and left open: (family pair, reader). None is left: fintech once revised
#: one runbook only, so P4 leaned on the runbooks its corruptions apply to and a bag of words told P4 from P1+P3
#: (0.806 against a majority of 0.745); its payout and terminal runbooks now have revisions too.
KNOWN_LEAKS: dict[str, list[tuple[str, str]]] = {"fintech": [], "clinical": [], "utility": []}


@pytest.mark.slow          # three worlds at CARGO's size and 31 cross-validations, per pack (about a minute each)
@pytest.mark.parametrize("pack", ["fintech", "clinical", "utility"])
def test_no_independent_reader_beats_the_majority_on_a_pack_suite(pack):
    from independent_readers import score_suite

    worlds, suite = pack_suite(pack, (0, 1, 2), (("P1", 50), ("P3", 96), ("P2", 50), ("P4", 50)), 30, 45)
    check_against_world(pack, worlds, suite)
    # retrieval hands most items their own runbook's reference (clinical's first symptoms shared no word within a
    # runbook: about one in six got another runbook's, and a grounded judge penalised correct answers against it)
    top1 = [t["retrieval_top1_correct"] for t in suite.truth]
    assert sum(top1) >= 0.88 * len(top1), (sum(top1), len(top1))
    scores = score_suite(suite.items, suite.truth)
    leaks = [(pair, name) for pair, by_reader in scores.items() for name, s in by_reader.items() if s.leaks]
    assert leaks == KNOWN_LEAKS[pack], [(p, n, str(scores[p][n])) for p, n in leaks]
    for name, score in suite.meta["shortcut_readers"].items():
        assert score["accuracy"] <= score["majority"] + 0.05, (name, score)
