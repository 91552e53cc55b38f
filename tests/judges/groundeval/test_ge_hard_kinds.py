"""Hard kinds on a simulated world: gold rechecked from the world's events, and the agents each kind separates.

The recheck reads only the world's event payloads (an incident's ``change_id``,
the ``incident_id`` of escalations, posts and postmortems), not the builder.
"""

import json
from collections import defaultdict

import pytest

from benchmark_builders.groundeval.build import build_suite
from judges.groundeval.run import run_agent, score_run
from orgbench.core.clock import parse_ts
from simulator.config import load_config
from simulator.simulate import simulate

pytestmark = pytest.mark.slow      # simulates a world and runs four agents in two modes (about a minute)

HARD = (("counterfactual", "indirect"), ("counterfactual", "named_decoy"), ("silence", "indirect"))


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def hard(tmp_path_factory):
    world = simulate(load_config(seed=1))
    suite = tmp_path_factory.mktemp("hard") / "suite"
    build_suite(suite, world=world, name="default-seed-1", note=None)
    scores = {}
    for agent in ("oracle", "bm25", "proximity", "follow"):
        for mode in ("tool", "context"):
            run = suite.parent / f"{agent}-{mode}"
            run_agent(suite, agent, mode, run, record_latency=False)
            score_run(suite, run, suite.parent / f"score-{agent}-{mode}")
            per = defaultdict(list)
            for r in rows(suite.parent / f"score-{agent}-{mode}" / "questions.jsonl"):
                per[(r["track"], r["kind"])].append(r)
            scores[(agent, mode)] = per
    return world, suite, scores


def test_hard_gold_agrees_with_the_world_events(hard):
    world, suite, _ = hard
    cause_of = {e.payload["incident_id"]: e.payload["change_id"] for e in world.events if e.type == "incident.opened"}
    events = {e.event_id: e for e in world.events}
    contracts = {c["question_id"]: c for c in rows(suite / "contracts.jsonl")}
    seen = defaultdict(int)
    for t in rows(suite / "truth.jsonl"):
        if (t["track"], t["kind"]) not in HARD:
            continue
        seen[(t["track"], t["kind"])] += 1
        c = contracts[t["question_id"]]
        if t["track"] == "counterfactual":
            cause, effect = events[t["gold"]["cause_event_id"]], events[t["gold"]["effect_event_id"]]
            incident = effect.payload["incident_id"]
            linked = cause.payload["change_id"] == cause_of[incident]
            assert linked is (t["kind"] == "indirect") is t["gold"]["outcome_changed"]
            assert c["subject"]["effect_entity"]["kind"] != "incident"   # the effect's record is not the incident
        else:
            trigger = events[c["subject"]["trigger_event_id"]]
            incident = trigger.payload["incident_id"]
            as_of = parse_ts(c["as_of"])
            published = [e for e in world.events if e.type == "postmortem.published"
                         and e.payload.get("incident_id") == incident and trigger.ts < e.ts <= as_of]
            assert bool(published) is t["gold"]["exists"]
            assert c["subject"]["selectors"] != [incident]          # the response is recorded under another id
    assert all(seen[k] > 0 for k in HARD)


def _mean(per, kinds):
    picked = [r for k in kinds for r in per[k]]
    return sum(r["s_answer"] for r in picked) / len(picked)


def test_each_hard_kind_separates_retrieval_from_following_joins(hard):
    _, _, scores = hard
    for mode in ("tool", "context"):
        for kind in HARD:
            assert _mean(scores[("bm25", mode)], [kind]) <= 0.60, (mode, kind)
            assert _mean(scores[("follow", mode)], [kind]) >= 0.95, (mode, kind)
        # proximity is beaten on indirect links and hidden silences; on named decoys it is often right, because
        # some other change is touched between the suspect's deploy and the post (see the report)
        for kind in (("counterfactual", "indirect"), ("silence", "indirect")):
            assert _mean(scores[("proximity", mode)], [kind]) <= 0.60, (mode, kind)
        assert _mean(scores[("proximity", mode)], HARD) <= 0.60, mode
        oracle = [r for per in scores[("oracle", mode)].values() for r in per]
        assert oracle and all(r["s_adj"] == 1.0 for r in oracle)
