"""The CARGO builder: exact family counts, balance, minimal pairs, decidability, no leaks, determinism."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_builders.cargo import SuiteConfig, build_suite, case_from_facts, write_suite
from benchmark_builders.cargo.wording import ANSWER_VARIANTS
from benchmark_builders.cargo.records import FAMILIES
from benchmark_builders.cargo.identity import gating_id, golden_id, item_id, suite_digest
from cargo_synthetic import synthetic_cases
from orgbench.core.errors import InputError
from orgbench.core.storage import verify_manifest

ITEM_KEYS = {"item_id", "question", "live_context", "reference", "candidate"}
VALUE = re.compile(r"[^\s()\[\],;:]*\d[^\s()\[\],;:]*|[^\s()\[\],;:]+@[^\s()\[\],;:]+")


def _derived(truth: dict, item: dict) -> set[str]:
    """The derived day spans an item's candidate states (counts are written in words)."""
    return set(re.findall(r"asset age at opening (\d+) days", item["candidate"])) if truth["derived"] else set()


def _values(text: str) -> set[str]:
    """Stated values (step numbers such as "Step 2:" and team names such as "level-2" left out)."""
    return {v.rstrip(".") for v in VALUE.findall(text) if not re.fullmatch(r"\d{1,2}\.?|level-\d", v)}


def test_default_family_counts_and_styles(synthetic_suite):
    counts = {f: sum(1 for t in synthetic_suite.truth if t["family"] == f) for f in FAMILIES}
    assert counts == {"P1": 50, "P3": 96, "P2": 50, "P4": 50}
    assert len(synthetic_suite.items) == 246
    assert synthetic_suite.meta["styles"] == {
        "P1": {"plain": 50, "extra": 0}, "P3": {"plain": 0, "extra": 96},
        "P2": {"plain": 17, "extra": 33}, "P4": {"plain": 17, "extra": 33},
    }
    # the synthetic cases follow revision 1 only: no skip or swap is another revision's step list; the revised
    # billing runbook's approver makes a wrong escalation of every billing-credit P4
    assert synthetic_suite.meta["p4_kinds"] == {"wrong_action": 42, "wrong_escalation": 8}
    # wording variants and runbooks dealt evenly within each family (to one per style, and to one per runbook)
    for family in FAMILIES:
        for key, spread in (("variant", 1), ("procedure_id", 2)):
            seen: dict[str, int] = {}
            for t in synthetic_suite.truth:
                if t["family"] == family:
                    seen[t[key]] = seen.get(t[key], 0) + 1
            assert max(seen.values()) - min(seen.values()) <= spread + (family in ("P2", "P4")), (family, key, seen)
    assert set(synthetic_suite.meta["p2_kinds"]) == {"identifier", "date", "count", "days"}
    assert sum(synthetic_suite.meta["p2_kinds"].values()) == 50
    assert len({t["world_seed"] for t in synthetic_suite.truth}) == 10
    assert len(synthetic_suite.gating) == 50
    states = synthetic_suite.meta["case_states"]
    assert {f: states[f]["open_at_end"] + states[f]["mid_case"] for f in FAMILIES} == {"P1": 10, "P3": 19, "P2": 10,
                                                                                          "P4": 10}


def test_items_show_only_judge_inputs_and_ids_hide_family(synthetic_suite):
    for item in synthetic_suite.items:
        assert set(item) == ITEM_KEYS
        assert re.fullmatch(r"cb-[0-9a-f]{16}", item["item_id"])
    ids = [i["item_id"] for i in synthetic_suite.items]
    assert ids == sorted(ids)
    families_in_order = [t["family"] for t in synthetic_suite.truth]
    assert families_in_order[:20] != sorted(families_in_order[:20])


def test_should_not_items_state_only_live_values(synthetic_suite):
    items = {i["item_id"]: i for i in synthetic_suite.items}
    for truth in synthetic_suite.truth:
        item = items[truth["item_id"]]
        live = _values(item["live_context"]) | _values(item["question"])
        if truth["family"] in ("P1", "P3", "P4"):  # derived values are computed from the context, not stated in it
            assert _values(item["candidate"]) - _derived(truth, item) <= live, truth
        if truth["family"] == "P1":
            assert _values(item["candidate"]) - _values(item["reference"]), "a transplant differs from its reference"


def test_contradictions_are_visible_and_minimal(synthetic_suite):
    items = {i["item_id"]: i for i in synthetic_suite.items}
    for truth in synthetic_suite.truth:
        if truth["family"] != "P2":
            continue
        item = items[truth["item_id"]]
        changes = truth["perturbation"]["changes"]
        assert 1 <= len(changes) <= 2
        restored = item["candidate"]
        if "derived" in changes[0]:  # a wrong computation: rechecked from the worlds by test_open_and_derived
            continue
        for change in changes:
            shown_original = change["original"].replace("_", " ")
            assert shown_original in item["live_context"]
            assert change["new"] not in item["live_context"]
            restored = restored.replace(change["new"].replace("_", " "), shown_original)
        live = _values(item["live_context"]) | _values(item["question"])
        assert _values(restored) - _derived(truth, item) <= live


def test_procedural_corruptions_are_visible_against_the_reference(synthetic_suite):
    items = {i["item_id"]: i for i in synthetic_suite.items}
    for truth in synthetic_suite.truth:
        if truth["family"] != "P4":
            continue
        item, kind = items[truth["item_id"]], truth["perturbation"]["kind"]
        if kind in ("wrong_action", "wrong_escalation"):
            assert truth["perturbation"]["new"].lower() in item["candidate"].lower()
            if truth["retrieval_top1_correct"]:  # a reference of another runbook may show that action itself
                assert truth["perturbation"]["new"].lower() not in item["reference"].lower()
        if kind == "wrong_escalation":
            assert truth["perturbation"]["original"].lower() in item["reference"].lower()


def test_p2_p4_share_surface_with_should_not_families(synthetic_suite):
    lengths = synthetic_suite.meta["mean_candidate_chars"]
    assert min(lengths.values()) > 0.8 * max(lengths.values())
    surface = synthetic_suite.meta["surface_baseline"]
    assert surface["majority"] == round(146 / 246, 4)
    assert surface["sentences"] <= surface["majority"] + 0.03
    assert surface["length"] <= surface["majority"] + 0.08
    variants = {f: {t["variant"] for t in synthetic_suite.truth if t["family"] == f} for f in FAMILIES}
    assert all(len(v) == len(ANSWER_VARIANTS) == 7 for v in variants.values())


def test_gating_questions_have_no_golden_reference_of_their_runbook(synthetic_suite):
    golden_runbooks = {g["procedure_id"] for g in synthetic_suite.golden}
    for truth in synthetic_suite.gating_truth:
        assert truth["should_abstain"] is True
        assert truth["procedure_id"] not in golden_runbooks
        assert truth["retrieved_procedure_id"] in golden_runbooks
    margins = {r["item_id"]: r["margin"] for r in synthetic_suite.retrieval}
    assert set(margins) == {i["item_id"] for i in synthetic_suite.items} | {g["item_id"] for g in synthetic_suite.gating}
    judged = sorted(margins[i["item_id"]] for i in synthetic_suite.items)
    gated = sorted(margins[g["item_id"]] for g in synthetic_suite.gating)
    assert sum(gated) / len(gated) < sum(judged) / len(judged)


def test_sizes_are_configurable():
    config = SuiteConfig(sizes={"P1": 4, "P3": 8, "P2": 6, "P4": 6}, gating_per_world=1)
    suite = build_suite([(s, synthetic_cases(s, per_procedure=4)) for s in range(2)], config)
    assert suite.meta["counts"] == {"P1": 4, "P3": 8, "P2": 6, "P4": 6}
    assert suite.meta["styles"]["P2"] == {"plain": 2, "extra": 4}


def _one_account(cases):
    """The cases as if one account had opened them all: every reference of theirs would name it."""
    return [dataclasses.replace(c, facts={**c.facts, "account_id": "ACC-2999", "account_name": "Acme Corp"})
            for c in cases]


def test_an_item_with_no_clean_reference_is_dropped_and_counted():
    """A reference is of another case and shares no entity value with the live case; with none left, the item
    is dropped and counted per family (rechecked here from the cases' own facts)."""
    config = SuiteConfig(sizes={"P1": 4, "P3": 4, "P2": 2, "P4": 2}, gating_per_world=1)
    worlds = [(0, synthetic_cases(0, per_procedure=4)), (1, _one_account(synthetic_cases(1, per_procedure=4)))]
    suite = build_suite(worlds, config)
    kept, dropped = suite.meta["counts"], suite.meta["dropped_items"]
    assert sum(dropped.values()) > 0
    assert {f: kept[f] + dropped.get(f, 0) for f in kept} == config.sizes
    facts = {(seed, c.case_id): c.facts for seed, cases in worlds for c in cases}
    entity = ("case_id", "account_id", "account_name", "contact_name", "contact_email", "asset_serial")
    for t in suite.truth:
        assert t["world_seed"] == 0       # every item of the one-account world shares its account with its reference
        live, ref = facts[(0, t["case_id"])], facts[(0, t["reference_case_id"])]
        assert t["case_id"] != t["reference_case_id"]
        assert not {live[k] for k in entity if k in live} & {ref[k] for k in entity if k in ref}


def test_bad_config_and_incomplete_cases_are_refused():
    with pytest.raises(InputError, match="sizes"):
        build_suite([(0, synthetic_cases(0))], SuiteConfig(sizes={"P1": 1}))
    with pytest.raises(InputError, match="out_of_scope"):
        build_suite([(0, synthetic_cases(0))], SuiteConfig(out_of_scope=("RB-NOPE",)))
    with pytest.raises(InputError, match="world seed 3"):
        build_suite([(3, [])])
    assert case_from_facts(0, {"procedure_id": "RB-BATTERY", "case_id": "CASE-1"}) is None


def _digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.slow          # builds in subprocesses (7-9 s, loaded machine)
def test_suite_is_byte_identical_across_runs_and_hash_seeds(tmp_path, synthetic_suite):
    write_suite(synthetic_suite, tmp_path / "a")
    assert verify_manifest(tmp_path / "a") == []
    script = (
        "import sys; sys.path.insert(0, sys.argv[2]);"
        "from pathlib import Path; from cargo_synthetic import synthetic_cases;"
        "from benchmark_builders.cargo import build_suite, write_suite;"
        "write_suite(build_suite([(s, synthetic_cases(s)) for s in range(10)]), Path(sys.argv[1]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "b"), str(Path(__file__).parent)],
                   check=True, env=env)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    suite_json = json.loads((tmp_path / "a" / "suite.json").read_text())
    assert suite_json["counts"] == {"P1": 50, "P3": 96, "P2": 50, "P4": 50}


def _content(item: dict, truth: dict) -> str:
    """An item as what defines it: the texts a judge sees and its truth, without the id and suite-level fields."""
    kept = {k: v for k, v in truth.items() if k not in ("item_id", "reference_golden_id", "retrieval_top1_correct")}
    return json.dumps({**{k: v for k, v in item.items() if k != "item_id"}, **kept}, sort_keys=True)


def test_ids_are_content_hashes(synthetic_suite):
    truth = {t["item_id"]: t for t in synthetic_suite.truth}
    for item in synthetic_suite.items:
        assert item["item_id"] == item_id(item, truth[item["item_id"]])
    gating_truth = {t["item_id"]: t for t in synthetic_suite.gating_truth}
    for item in synthetic_suite.gating:
        assert re.fullmatch(r"cg-[0-9a-f]{16}", item["item_id"])
        assert item["item_id"] == gating_id(item, gating_truth[item["item_id"]])
    for golden in synthetic_suite.golden:
        assert golden["golden_id"] == golden_id(golden["world_seed"], golden["case_id"], golden["procedure_id"],
                                                golden["question"], golden["reference"])
    item, row = synthetic_suite.items[0], truth[synthetic_suite.items[0]["item_id"]]
    changed = [item_id({**item, "candidate": item["candidate"] + " "}, row),
               item_id({**item, "reference": item["reference"] + " "}, row),
               item_id(item, {**row, "family": "P1" if row["family"] != "P1" else "P3"}),
               item_id(item, {**row, "world_seed": row["world_seed"] + 1}),
               item_id(item, {**row, "case_id": row["case_id"] + "0"})]
    assert len(set(changed)) == 5 and item["item_id"] not in changed


def test_the_same_item_has_the_same_id_in_suites_of_other_sizes(synthetic_suite):
    """Ids name items, not positions in a suite's random draws: shared items agree, different items never collide."""
    other = build_suite([(s, synthetic_cases(s)) for s in range(10)],
                        SuiteConfig(sizes={"P1": 4, "P3": 8, "P2": 6, "P4": 6}))
    ids: dict[str, str] = {}
    contents: dict[str, str] = {}
    for suite in (synthetic_suite, other):
        truth = {t["item_id"]: t for t in suite.truth}
        for item in suite.items:
            content = _content(item, truth[item["item_id"]])
            assert ids.setdefault(content, item["item_id"]) == item["item_id"]
            assert contents.setdefault(item["item_id"], content) == content
    shared = set(i["item_id"] for i in synthetic_suite.items) & set(i["item_id"] for i in other.items)
    assert len(contents) == 246 + 24 - len(shared)  # shared: the items both suites happen to draw (none now)
    assert {g["golden_id"] for g in other.golden} == {g["golden_id"] for g in synthetic_suite.golden}


def test_the_suite_digest_names_its_files(tmp_path, synthetic_suite):
    write_suite(synthetic_suite, tmp_path / "a")
    write_suite(synthetic_suite, tmp_path / "b")
    assert suite_digest(tmp_path / "a") == suite_digest(tmp_path / "b")
    assert re.fullmatch(r"[0-9a-f]{64}", suite_digest(tmp_path / "a"))
    with open(tmp_path / "b" / "items.jsonl", "a") as handle:
        handle.write("\n")
    with pytest.raises(InputError, match=r"items.jsonl: content differs from MANIFEST.json .*rebuild it"):
        suite_digest(tmp_path / "b")
