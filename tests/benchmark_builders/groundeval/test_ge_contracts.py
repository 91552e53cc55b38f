"""Contracts: ids, ratios, wording, and truth that follows from the world and the policy."""

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

from benchmark_builders.groundeval.build import (
    WORLD_CONFIG, WORLD_RULES, BuildSummary, _split, assemble_questions, build_questions, build_suite, load_build_config,
)
from benchmark_builders.groundeval.contracts import BuildConfig, Truth, question_id
from benchmark_builders.groundeval.wording import answer_leaks
from simulator.policy import SUBSYSTEM


def test_question_ids_are_unique_and_content_derived(ge_questions):
    ids = [q.contract.question_id for q in ge_questions]
    assert len(ids) == len(set(ids)) == 100
    assert question_id("perspective", {"a": 1}) == question_id("perspective", {"a": 1})
    assert question_id("perspective", {"a": 1}) != question_id("perspective", {"a": 2})
    assert all(q.contract.question_id.split("-")[0] in ("PER", "CF", "SIL") for q in ge_questions)


def test_default_ratios_per_track_and_kind(ge_questions):
    kinds = Counter((q.truth.track, q.truth.kind) for q in ge_questions)
    assert kinds == {("perspective", "positive"): 16, ("perspective", "temporal_negative"): 12,
                     ("perspective", "permission_negative"): 12, ("counterfactual", "causal"): 15,
                     ("counterfactual", "decoy"): 15, ("silence", "exists"): 15, ("silence", "absence"): 15}


def test_configured_ratios_and_hard_share(ge_world, tmp_path):
    path = tmp_path / "ge.toml"
    path.write_text("[groundeval]\nseed = 2\n[groundeval.counterfactual]\ncount = 10\ncausal = 1\ndecoy = 4\nhard = 1.0\n"
                    "[groundeval.perspective]\ncount = 0\n[groundeval.silence]\ncount = 4\n", encoding="utf-8")
    config, rules = load_build_config(path)
    assert rules is None and config.seed == 2
    questions = build_questions(ge_world, WORLD_RULES, config, "syn-3")
    kinds = Counter((q.truth.kind, q.truth.difficulty) for q in questions)
    assert kinds[("causal", "hard")] + kinds[("causal", "easy")] == 2
    assert kinds[("decoy", "hard")] == 8
    assert sum(1 for q in questions if q.truth.track == "silence") == 4


def test_wording_never_contains_the_answer(ge_questions):
    for q in ge_questions:
        subjects = tuple(str(v) for v in q.contract.subject.values() if isinstance(v, str))
        subjects += tuple(str(v["id"]) for v in q.contract.subject.values() if isinstance(v, dict))
        assert answer_leaks(q.contract.question, q.truth, subjects) == []
        shown = json.dumps(q.contract.to_json())
        assert "gold" not in shown and "kind" not in q.contract.to_json() and "why" not in shown
        assert q.truth.why not in shown


def test_perspective_truth_follows_the_policy(ge_world, ge_questions):
    versions = {v.ref: v for v in ge_world.artifacts}
    policy = ge_world.policy
    for q in ge_questions:
        if q.truth.track != "perspective":
            continue
        c, t = q.contract, q.truth
        subject = c.subject
        stating = [v for v in ge_world.artifacts if str(v.facts.get(subject["fact"])) == subject["value"]
                   and subject["entity"]["id"] in (v.entity.id, v.facts.get("case_id"), v.facts.get("incident_id"))]
        before = [v for v in stating if v.created_at <= c.as_of]
        if t.kind == "positive":
            assert t.gold["could_actor_have_known"] is True
            assert all(policy.can_see(c.actor, versions[r], c.as_of) for r in t.required_evidence)
        elif t.kind == "temporal_negative":
            assert t.gold["could_actor_have_known"] is False and not before
            assert policy.violations(c.actor, stating[0], c.as_of)[0] == "horizon"
        else:
            assert t.gold["could_actor_have_known"] is False and before
            assert not any(policy.can_see(c.actor, v, c.as_of) for v in before)
            assert t.gold["blocked_subsystems"] == sorted(
                {v.subsystem for v in before if SUBSYSTEM in policy.violations(c.actor, v, c.as_of)})


def test_counterfactual_decoys_share_no_join_key(ge_world, ge_questions):
    events = {e.event_id: e for e in ge_world.events}
    rule = WORLD_RULES.causal[0]
    for q in ge_questions:
        if q.truth.track != "counterfactual":
            continue
        cause, effect = events[q.contract.subject["cause_event_id"]], events[q.contract.subject["effect_event_id"]]
        assert cause.ts <= effect.ts and effect.ts - cause.ts <= rule.max_gap
        assert rule.joined(cause, effect) is (q.truth.kind == "causal")
        assert q.truth.gold["outcome_changed"] is (q.truth.kind == "causal")
        if q.truth.kind == "decoy":
            assert q.truth.gold["mechanism_direction"] == "no_causal_link"
        else:
            assert q.truth.gold["causal_mechanism"] in {"config_regression", "memory_leak", "schema_migration",
                                                       "dependency_upgrade"}


def test_silence_search_space_comes_from_policy_and_selectors(ge_world, ge_questions):
    events = {e.event_id: e for e in ge_world.events}
    for q in ge_questions:
        if q.truth.track != "silence":
            continue
        space = q.truth.required_search_space
        readable = ge_world.policy.subsystems_at(q.contract.actor, q.contract.as_of)
        assert space and all(item["subsystem"] in readable and item["selector"] for item in space)
        trigger = events[q.contract.subject["trigger_event_id"]]
        assert {item["selector"] for item in space} <= set(map(str, trigger.payload.values()))
        assert len({item["subsystem"] for item in space}) == len(space)      # no padding, no duplicates
        assert q.truth.gold["exists"] is (q.truth.kind == "exists") is bool(q.truth.required_evidence)


def test_build_is_byte_identical_under_any_hash_seed(tmp_path):
    script = ("import sys; from pathlib import Path; from benchmark_builders.groundeval.synthetic import synthetic_world;"
              "from benchmark_builders.groundeval.build import build_suite;"
              "build_suite(Path(sys.argv[1]), world=synthetic_world(seed=1, days=12, people=12), name='s')")
    outputs = []
    for hash_seed in ("0", "4242"):
        out = tmp_path / f"suite-{hash_seed}"
        subprocess.run([sys.executable, "-c", script, str(out)], check=True, cwd=Path(__file__).parents[3],
                       env={**os.environ, "PYTHONHASHSEED": hash_seed})
        outputs.append({p.name: p.read_bytes() for p in out.iterdir() if p.is_file()})
    assert outputs[0] == outputs[1] and set(outputs[0]) == {"suite.json", "contracts.jsonl", "truth.jsonl", "MANIFEST.json"}


def _truth(**gold):
    return Truth("PER-000000000000", "perspective", "positive", "easy", gold, ("CASE-1@2",), (), (), (), (), (), (), "")


def test_leak_check_ignores_common_words_and_catches_distinctive_labels():
    verdict = _truth(could_actor_have_known=False, evidence_artifacts=[])
    for value in ("no", "none", "yes", "true", "false"):
        assert answer_leaks(f"Could P-1 have known that the paged of case CASE-1 was {value}?", verdict, ("CASE-1",)) == []
    assert answer_leaks("Could P-1 (not employed at the time) have known it?", verdict) == ["not employed"]
    assert answer_leaks("Was CASE-1 noted?", verdict) == ["CASE-1@2"]                  # evidence id, not a subject
    assert answer_leaks("Was CASE-10 noted?", verdict) == []                           # whole ids only
    causal = Truth("CF-000000000000", "counterfactual", "causal", "easy",
                   {"outcome_changed": True, "causal_mechanism": "config_regression"}, (), (), (),
                   ("config_regression", "bad config", "none"), (), (), (), "")
    assert answer_leaks("Did the config regression cause it?", causal) == ["config_regression"]
    assert answer_leaks("Was there a bad config here, or none?", causal) == ["bad config"]
    assert answer_leaks("Was the configuration bad?", causal) == []


def test_actors_not_employed_at_as_of_are_named_plainly(ge_world, ge_questions):
    policy = ge_world.policy
    assert not any("not employed" in q.contract.question for q in ge_questions)
    gone = [q for q in ge_questions if q.contract.track == "perspective"
            and not policy.employed_at(q.contract.actor, q.contract.as_of)]
    assert len(gone) == 3                       # still asked: they test the actor gate
    for q in gone:
        c = q.contract
        history = sorted((a for a in policy.assignments if a.actor_id == c.actor), key=lambda a: a.valid_from)
        earlier = [a for a in history if a.valid_from <= c.as_of]
        assert c.role == (earlier[-1] if earlier else history[0]).role and c.role is not None
        assert c.subsystems == () and q.truth.gold["could_actor_have_known"] is False
        assert f"{c.actor} ({c.role})" in c.question or f"{c.actor}, acting as {c.role}," in c.question


def test_kind_split_sums_to_the_count():
    assert _split(40, {"positive": 0.4, "temporal_negative": 0.3, "permission_negative": 0.3},
                  ("positive", "temporal_negative", "permission_negative")) == {
        "positive": 16, "temporal_negative": 12, "permission_negative": 12}
    assert _split(5, {"positive": 0.4, "temporal_negative": 0.3, "permission_negative": 0.3},
                  ("positive", "temporal_negative", "permission_negative")) == {
        "positive": 2, "temporal_negative": 2, "permission_negative": 1}
    assert _split(7, {"exists": 0, "absence": 0}, ("exists", "absence")) == {"exists": 0, "absence": 0}


def test_shortfalls_are_recorded_and_noted_once(ge_world, tmp_path):
    config = BuildConfig(counts={"perspective": 0, "counterfactual": 4, "silence": 400})
    questions, summary = assemble_questions(ge_world, WORLD_RULES, config, "syn-3")
    assert summary.requested["silence"] == {"exists": 200, "absence": 200}
    built = Counter(q.truth.kind for q in questions if q.truth.track == "silence")
    assert summary.built["silence"] == {"exists": built["exists"], "absence": built["absence"]}
    assert 0 < built["exists"] < 200 and 0 < built["absence"] < 200
    assert summary.built["counterfactual"] == summary.requested["counterfactual"] == {"causal": 2, "decoy": 2}
    assert summary.shortfalls() == [f"silence exists {built['exists']}/200", f"silence absence {built['absence']}/200"]
    notes = []
    build_suite(tmp_path / "suite", world=ge_world, name="syn-3", note=notes.append,
                counts={"perspective": 0, "counterfactual": 4, "silence": 400})
    # a world directory builds with WORLD_CONFIG: the hard kinds too, which this small world cannot make
    summary = assemble_questions(ge_world, WORLD_RULES, replace(WORLD_CONFIG, counts=config.counts), "syn-3")[1]
    assert "counterfactual indirect 0/1" in summary.note() and "silence indirect 0/100" in summary.note()
    assert notes == [summary.note()] and "\n" not in notes[0] and "silence absence" in notes[0]
    meta = json.loads((tmp_path / "suite" / "suite.json").read_text())
    assert meta["requested"] == summary.to_json()["requested"] and meta["built"] == summary.to_json()["built"]
    assert meta["left_out"] == {"wording_reveals_answer": {"perspective": 0, "counterfactual": 0, "silence": 0}}
    full = BuildSummary({"silence": {"exists": 1}}, {"silence": {"exists": 1}}, {"silence": 0})
    assert full.note() is None
