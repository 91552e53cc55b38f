"""Hard kinds on simulated worlds: gold rechecked from the world's events, and the agents each kind separates.

The recheck reads only the world's event payloads (an incident's ``change_id``,
deploys' ``service``, the ``incident_id`` of escalations, posts and
postmortems), not the builder. Bounds are asserted per seed (0, 1, 2: the
worlds ``orgbench reproduce groundeval`` uses); ``pytest -s`` prints the
per-seed table.
"""

import json
import random
import re
from collections import defaultdict
from pathlib import Path

import pytest

from benchmark_builders.groundeval.build import build_suite
from benchmark_builders.groundeval.contracts import NO_LINK_MECHANISM
from judges.groundeval.run import run_agent, score_run, score_submissions
from judges.groundeval.traces import Submission, load_suite
from orgbench.core.clock import parse_ts
from simulator.config import load_config
from simulator.simulate import simulate

pytestmark = pytest.mark.slow      # simulates three worlds and runs four agents in two modes (a few minutes)

HARD = (("counterfactual", "indirect"), ("counterfactual", "named_decoy"), ("silence", "indirect"))
SEEDS = (0, 1, 2)
AGENTS = ("oracle", "bm25", "proximity", "follow")


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _by_kind(score_rows):
    per = defaultdict(list)
    for r in score_rows:
        per[(r["track"], r["kind"])].append(r)
    return per


def _run(tmp, seed):
    world = simulate(load_config(seed=seed))
    suite = tmp / "suite"
    build_suite(suite, world=world, name=f"default-seed-{seed}", note=None)
    scores = {}
    for agent in AGENTS:
        for mode in ("tool", "context"):
            run = tmp / f"{agent}-{mode}"
            run_agent(suite, agent, mode, run, record_latency=False)
            score_run(suite, run, tmp / f"score-{agent}-{mode}")
            scores[(agent, mode)] = _by_kind(rows(tmp / f"score-{agent}-{mode}" / "questions.jsonl"))
    return world, suite, scores


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    return {seed: _run(tmp_path_factory.mktemp(f"hard-{seed}"), seed) for seed in SEEDS}


def test_hard_gold_agrees_with_the_world_events(worlds):
    for world, suite, _ in worlds.values():
        _recheck(world, suite)



def _template(question):
    """A question's wording with its ids and moments blanked: what its template variant says."""
    return re.sub(r"\b[A-Z][A-Z0-9]*-[0-9]+\b|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "_", question)


def test_named_decoy_questions_come_in_whole_pairs_worded_alike(worlds):
    """Each post asked about gives one causal and one no-link question (its suspect and the real cause), worded by
    the same template, so neither the post nor the wording tells them apart."""
    for seed, (_, suite, _) in worlds.items():
        contracts = {c["question_id"]: c for c in rows(suite / "contracts.jsonl")}
        posts = defaultdict(list)
        for t in rows(suite / "truth.jsonl"):
            if (t["track"], t["kind"]) == ("counterfactual", "named_decoy"):
                posts[t["gold"]["effect_event_id"]].append((t["gold"]["outcome_changed"], contracts[t["question_id"]]))
        assert len(posts) >= 4, seed
        for effect, pair in posts.items():
            assert sorted(verdict for verdict, _ in pair) == [False, True], (seed, effect)
            assert len({_template(c["question"]) for _, c in pair}) == 1, (seed, effect)


def _deployed(world):
    """change id -> (deploy time, service), from the deploy events' payloads."""
    return {e.payload["change_id"]: (e.ts, e.payload["service"]) for e in world.events if e.type == "deploy.completed"}


def _recheck_counterfactual(t, c, events, cause_of, deployed):
    cause, effect = events[t["gold"]["cause_event_id"]], events[t["gold"]["effect_event_id"]]
    incident = effect.payload["incident_id"]
    asked, true_cause = cause.payload["change_id"], cause_of[incident]
    assert (asked == true_cause) is t["gold"]["outcome_changed"]
    assert t["gold"]["mechanism_direction"] == ("cause_to_effect" if asked == true_cause else "no_causal_link")
    assert c["subject"]["effect_entity"]["kind"] != "incident"   # the effect's record is not the incident
    if asked == true_cause:
        return
    # a no-link question: the asked change was deployed on the true cause's service after it, before the effect
    cause_at, service = deployed[true_cause]
    asked_at, asked_service = deployed[asked]
    assert asked_service == service and cause_at < asked_at < effect.ts, t["question_id"]
    assert t["gold"]["causal_mechanism"] == NO_LINK_MECHANISM


def _recheck(world, suite):
    cause_of = {e.payload["incident_id"]: e.payload["change_id"] for e in world.events if e.type == "incident.opened"}
    deployed = _deployed(world)
    events = {e.event_id: e for e in world.events}
    contracts = {c["question_id"]: c for c in rows(suite / "contracts.jsonl")}
    seen = defaultdict(list)
    for t in rows(suite / "truth.jsonl"):
        if (t["track"], t["kind"]) not in HARD:
            continue
        seen[(t["track"], t["kind"])].append(t["gold"].get("outcome_changed", t["gold"].get("exists")))
        c = contracts[t["question_id"]]
        if t["track"] == "counterfactual":
            _recheck_counterfactual(t, c, events, cause_of, deployed)
        else:
            trigger = events[c["subject"]["trigger_event_id"]]
            incident = trigger.payload["incident_id"]
            as_of = parse_ts(c["as_of"])
            published = [e for e in world.events if e.type == "postmortem.published"
                         and e.payload.get("incident_id") == incident and trigger.ts < e.ts <= as_of]
            assert bool(published) is t["gold"]["exists"]
            assert c["subject"]["selectors"] != [incident]          # the response is recorded under another id
    for kind in HARD:                     # every hard kind is built, and its golds take turns
        assert seen[kind] and abs(seen[kind].count(True) - seen[kind].count(False)) <= 1, (kind, seen[kind])


def _mean(score_rows, key="s_answer"):
    return sum(float(r[key]) for r in score_rows) / len(score_rows)


def _table(worlds):
    lines = ["seed mode  kind                        " + " ".join(f"{a:>15}" for a in AGENTS)]
    for seed, (_, _, scores) in worlds.items():
        for mode in ("tool", "context"):
            for kind in HARD:
                cells = [f"{_mean(scores[(a, mode)][kind]):.3f}/{_mean(scores[(a, mode)][kind], 'answer_correct'):.3f}"
                         for a in AGENTS]
                lines.append(f"{seed:>4} {mode:<7} {'/'.join(kind):<26} n={len(scores[('oracle', mode)][kind]):<2} "
                             + " ".join(f"{c:>15}" for c in cells))
    return "\n".join(lines)


# Counterfactual S_answer gives nothing for echoing the two event ids the contract names (scoring profile orgbench-2)
# and .50/.60 for the verdict with its direction and mechanism, the rest for evidence and people, so a reader that cites
# its records earns some credit even when wrong. bm25 on counterfactual/indirect says "no link" on every question
# (no email names a change), so it is exactly at chance there (verdict .500) and is held to the verdict bound only; proximity is held to .60 per seed on silence and pooled over the seeds on the
# counterfactual kinds (its context-mode verdicts reach .500 on seed 2, S_answer .617).
def test_each_hard_kind_separates_retrieval_from_following_joins_per_seed(worlds):
    print("\nS_answer/verdict-correct per seed, mode and hard kind\n" + _table(worlds))
    for mode in ("tool", "context"):
        for seed, (_, suite, scores) in worlds.items():
            for kind in HARD:
                where = (seed, mode, kind)
                assert _mean(scores[("follow", mode)][kind]) >= 0.95, where
                for agent in ("bm25", "proximity"):       # never better than a coin on the verdict
                    assert _mean(scores[(agent, mode)][kind], "answer_correct") <= 0.5, (agent, *where)
            for agent, kind in (("bm25", ("silence", "indirect")), ("proximity", ("silence", "indirect")),
                                ("bm25", ("counterfactual", "named_decoy"))):
                assert _mean(scores[(agent, mode)][kind]) <= 0.60, (agent, seed, mode, kind)
            no_link = {t["question_id"]: not t["gold"]["outcome_changed"] for t in rows(suite / "truth.jsonl")
                       if t["kind"] == "indirect" and t["track"] == "counterfactual"}
            assert {r["question_id"]: r["answer_correct"]            # bm25 answers "no link" on every indirect one
                    for r in scores[("bm25", mode)][("counterfactual", "indirect")]} == no_link, (seed, mode)
            oracle = [r for per in scores[("oracle", mode)].values() for r in per]
            assert oracle and all(r["s_adj"] == 1.0 for r in oracle), (seed, mode)
        for kind in HARD:
            pooled = [r for _, _, scores in worlds.values() for r in scores[("proximity", mode)][kind]]
            assert _mean(pooled) <= 0.60, (mode, kind)


def _reader(verdict_of):
    """A reader that sees only the contract: echoes the two event ids and names the first mechanism option."""

    def answer(contract):
        verdict = verdict_of(contract)
        if contract.track == "silence":
            return {"exists": verdict, "evidence_artifacts": [], "reasoning": ""}
        mechanisms = [m for m in contract.options.get("mechanisms", []) if m != NO_LINK_MECHANISM]
        return {"outcome_changed": verdict, "causal_mechanism": mechanisms[0] if verdict else NO_LINK_MECHANISM,
                "cause_event_id": contract.subject["cause_event_id"],
                "effect_event_id": contract.subject["effect_event_id"],
                "mechanism_direction": "cause_to_effect" if verdict else "no_causal_link",
                "evidence_artifacts": [], "actors": [], "reasoning": ""}

    return answer


READERS = {
    "always-yes": _reader(lambda c: True),      # causal / exists
    "always-no": _reader(lambda c: False),      # no link / absence
    "coin": _reader(lambda c: random.Random(c.question_id).random() < 0.5),
}


def test_constant_and_random_verdicts_stay_at_chance_on_every_hard_kind(worlds):
    """Verdict accuracy of a constant answer is exactly the balance (0.5 ± one question); S_answer is not."""
    report = []
    for seed, (_, suite, _) in worlds.items():
        contracts = [c for c in load_suite(suite)[1] if c.track != "perspective"]
        subs = [Submission(c.question_id, name, "tool", read(c), []) for name, read in READERS.items() for c in contracts]
        scored, _ = score_submissions(suite, subs)
        per = defaultdict(lambda: defaultdict(list))
        for r in scored:
            per[r.agent][(r.track, r.kind)].append(r.to_json())
        for kind in HARD:
            n = len(per["coin"][kind])
            for name in READERS:
                verdict = _mean(per[name][kind], "answer_correct")
                report.append(f"{seed} {'/'.join(kind):<26} n={n:<2} {name:<10} verdict {verdict:.3f} "
                              f"S_answer {_mean(per[name][kind]):.3f}")
                if name != "coin":
                    assert abs(verdict - 0.5) <= 0.5 / n + 1e-9, (seed, kind, name)
            yes, no = (_mean(per[name][kind], "answer_correct") for name in ("always-yes", "always-no"))
            assert yes + no == pytest.approx(1.0)
            # the partial-credit floor: the two ids the question states earn nothing (scoring profile orgbench-2), so
            # a "no link" that cites nothing earns 0 when wrong and .50/.60 when right; on silence it is the verdict
            floor = 0.5 / 0.6 * no if kind[0] == "counterfactual" else no
            assert _mean(per["always-no"][kind]) == pytest.approx(floor), (seed, kind)
    print("\nconstant and coin-flip readers (tool mode; they cite nothing)\n" + "\n".join(report))


def test_under_the_preprint_profile_the_stated_ids_lift_the_same_readers(worlds, tmp_path):
    """docs/groundeval.md: under the ``preprint`` profile the two event ids a Counterfactual question states earned .40,
    and the same readers on counterfactual/indirect, "no link" citing nothing and bm25, scored .650 and .733. Rescored
    here under that profile: the constant reader's answers and bm25's runs, on every seed (bm25 in both modes)."""
    from judges.groundeval.scoring_profile import PROFILES

    parts = PROFILES["preprint"].counterfactual
    kind = ("counterfactual", "indirect")
    reader, bm25 = set(), set()
    for seed, (_, suite, _) in worlds.items():
        subs = [Submission(c.question_id, "always-no", "tool", READERS["always-no"](c), [])
                for c in load_suite(suite)[1] if c.track == "counterfactual"]
        scored, _ = score_submissions(suite, subs, profile="preprint")
        reader.add(round(_mean([r.to_json() for r in scored if (r.track, r.kind) == kind]), 3))
        for mode in ("tool", "context"):
            score_run(suite, suite.parent / f"bm25-{mode}", tmp_path / f"{seed}-{mode}", profile="preprint")
            bm25.add(round(_mean(_by_kind(rows(tmp_path / f"{seed}-{mode}" / "questions.jsonl"))[kind]), 3))
    assert len(reader) == len(bm25) == 1, (reader, bm25)         # the same on every seed and mode
    docs = " ".join((Path(__file__).parents[3] / "docs" / "groundeval.md").read_text(encoding="utf-8").split())
    said = re.search(r"\(Under the `preprint` profile the ids earned (\.\d\d), and the same readers scored (\.\d{3}) and "
                     r"(\.\d{3})\.\)", docs)
    assert said is not None
    assert said.groups() == tuple(f"{x:.{places}f}"[1:] for x, places in (
        (parts["cause_id"] + parts["effect_id"], 2), (reader.pop(), 3), (bm25.pop(), 3)))
