"""The built-in agents: oracle proves a valid path; leaky, lazy and proximity fail the way they should."""

import json
from collections import defaultdict

import pytest

from judges.groundeval.run import run_agent, score_run
from orgbench.studies.groundeval import DEFAULT_SEEDS

AGENTS = ("oracle", "leaky", "lazy", "proximity", "bm25", "zero-shot")


def _rows(path):
    return [json.loads(line) for line in (path / "questions.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def scored(rt_suite, rt_world, rt_corpus, tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    rows = {}
    for agent in AGENTS:
        for mode in ("tool", "context"):
            run_agent(rt_suite, agent, mode, base / f"{agent}-{mode}", record_latency=False,
                      corpus=rt_corpus, world=rt_world)
            score_run(rt_suite, base / f"{agent}-{mode}", base / f"score-{agent}-{mode}", corpus=rt_corpus)
            rows[agent, mode] = _rows(base / f"score-{agent}-{mode}")
    return rows


def _mean(rows, key, **where):
    chosen = [r[key] for r in rows if all(r[k] == v for k, v in where.items())]
    return sum(chosen) / len(chosen)


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_oracle_scores_one_on_every_contract_in_both_modes(scored, rt_suite):
    contracts = len((rt_suite / "contracts.jsonl").read_text().splitlines())
    assert contracts >= 90
    for mode in ("tool", "context"):
        assert len(scored["oracle", mode]) == contracts
        assert {r["s_adj"] for r in scored["oracle", mode]} == {1.0}


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_leaky_answers_well_through_invalid_paths(scored):
    rows = scored["leaky", "tool"]
    s_answer, s_adj = _mean(rows, "s_answer"), _mean(rows, "s_adj")
    assert s_answer >= 0.75 and s_adj <= s_answer - 0.25
    assert sum(1 for r in rows if r["answer_correct"] and r["v"] > 0) >= 20


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_lazy_fails_silence_absence_trajectories(scored):
    absences = [r for r in scored["lazy", "tool"] if r["kind"] == "absence"]
    assert absences and all(r["s_answer"] == 1.0 and r["s_traj"] == 0.0 and r["n_calls"] == 0 for r in absences)


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_proximity_fails_decoys_that_bm25_gets_right(scored):
    assert _mean(scored["proximity", "tool"], "s_answer", kind="decoy") < _mean(scored["bm25", "tool"], "s_answer", kind="decoy") - 0.15


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_zero_shot_makes_no_calls_and_agents_stay_in_the_gates(scored):
    assert all(r["n_calls"] == 0 for r in scored["zero-shot", "tool"])
    for agent in ("bm25", "proximity", "lazy", "oracle"):
        assert all(r["v"] == 0.0 for r in scored[agent, "tool"]), agent


@pytest.mark.slow          # a default world per seed (31-36 s each, loaded machine)
@pytest.mark.parametrize("seed", [s for s in DEFAULT_SEEDS if s != 0])   # seed 0: test_ge_study
def test_oracle_is_perfect_on_the_default_worlds(seed, tmp_path):
    from benchmark_builders.groundeval.build import build_suite
    from simulator.config import load_config
    from simulator.simulate import simulate

    from judges.groundeval.runtime import Corpus
    from judges.groundeval.traces import load_corpus_world

    build_suite(tmp_path / "suite", world=simulate(load_config(seed=seed)), name=f"default-seed-{seed}")
    world = load_corpus_world(tmp_path / "suite")        # the suite's own corpus, read back once for both modes
    corpus = Corpus(world)
    for mode in ("tool", "context"):
        run_agent(tmp_path / "suite", "oracle", mode, tmp_path / mode, record_latency=False, corpus=corpus, world=world)
        score_run(tmp_path / "suite", tmp_path / mode, tmp_path / f"score-{mode}", corpus=corpus)
        s_adj = defaultdict(list)
        for row in _rows(tmp_path / f"score-{mode}"):
            s_adj[row["track"]].append(row["s_adj"])
            assert row["trace_tampered"] is False
        assert set(s_adj) == {"perspective", "counterfactual", "silence"}
        assert all(v == 1.0 for values in s_adj.values() for v in values), mode


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_run_agent_traces_re_derive_to_their_own_gate_outcomes(scored):
    for (agent, mode), rows in scored.items():
        assert not any(r["trace_tampered"] for r in rows), (agent, mode)
        for row in rows:
            for call in row["diagnostics"]["calls"]:
                assert call["mismatch"] == [] and call["claimed"] == {"outcome": call["outcome"], "gates": call["gates"]}
    leaky_gates = [c["gates"] for r in scored["leaky", "tool"] for c in r["diagnostics"]["calls"]]
    assert sum(1 for g in leaky_gates if any(g.values())) >= 20   # the leaky agent's violations survive re-derivation


@pytest.mark.slow          # shares `scored`: six agents in two modes (8-16 s, loaded machine)
def test_lazy_fails_silence_absence_trajectories_in_context_mode_too(scored):
    """The context builder's searches are not the agent's: citing nothing covers no search space."""
    for agent in ("lazy", "zero-shot"):
        silence = [r for r in scored[agent, "context"] if r["track"] == "silence"]
        assert silence and all(r["s_traj"] == 0.0 and r["n_calls"] == 0 for r in silence), agent
        assert all(r["diagnostics"]["trajectory"]["search_space_coverage"] == 0.0 for r in silence), agent
    assert all(r["diagnostics"]["trajectory"]["search_space_coverage"] == 1.0
               for r in scored["oracle", "context"] if r["track"] == "silence")


DOMAIN_CONFIG = """\
actors: {morgan: engineer, riley: support, sam: support}
roles:
  engineer: {subsystems: [deploys, incidents, postmortems]}
  support: {subsystems: [tickets], broadcast_event_types: [incident_opened]}
causal_links:
  - {name: deploy_regression, aliases: [bad deploy], cause_event_type: deploy, effect_event_type: incident_opened,
     max_gap_days: 2, join: [{cause: change_id, effect: change_id}]}
silence_pairs:
  - {trigger_event_type: incident_opened, response_event_type: postmortem_published, max_gap_days: 5,
     search_space_subsystems: [postmortems], join: [{trigger: incident_id, response: incident_id}]}
"""


def _participation_domain(root):
    """Deploys and incidents (engineering subsystems) that support people take part in, plus support tickets."""
    events = []

    def add(event_id, kind, day, hour, actors, subsystem, record, facts, title):
        ts = f"2026-03-{day:02d}T{hour:02d}:00:00Z"
        events.append({"id": event_id, "type": kind, "timestamp": ts, "actors": actors,
                       "artifact_ids": {subsystem: record}, "facts": facts})
        path = root / "artifacts" / subsystem / f"{record}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(json.dumps({"timestamp": ts, "title": title, "body": f"{title}."}))

    for i in range(1, 21):
        helper = ["riley", "sam"][i % 2]
        add(f"D{i}", "deploy", 1 + i, 10, ["morgan", helper] if i % 3 else ["morgan"], "deploys", f"CHG-{i}",
            {"change_id": f"CHG-{i}"}, f"CHG-{i} rollout")
        add(f"I{i}", "incident_opened", 1 + i, 12, ["morgan"], "incidents", f"INC-{i}",
            {"incident_id": f"INC-{i}", "change_id": f"CHG-{i if i % 4 else i - 1}", "severity": "SEV1"}, f"INC-{i} down")
        add(f"R{i}", "incident_resolved", 3 + i, 10, ["morgan", helper], "incidents", f"INC-{i}",
            {"incident_id": f"INC-{i}", "resolution": f"rolled back RB{i}"}, f"INC-{i} down")
        add(f"T{i}", "ticket_opened", 2 + i, 9, [helper], "tickets", f"T-{i}", {"ticket_status": "open"},
            f"T-{i} customer reports INC-{i}")
        if i % 2:
            add(f"P{i}", "postmortem_published", 2 + i, 10, ["morgan"], "postmortems", f"PM-{i}",
                {"incident_id": f"INC-{i}"}, f"Postmortem INC-{i}")
    events.sort(key=lambda e: e["timestamp"])
    (root / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (root / "config.yaml").write_text(DOMAIN_CONFIG)
    return root


def test_oracle_is_perfect_in_context_mode_when_participation_opens_other_subsystems(tmp_path):
    """What an actor may read because it took part reaches the context, though its role cannot search there."""
    from benchmark_builders.groundeval.build import build_suite
    from judges.groundeval.runtime import Corpus
    from judges.groundeval.traces import load_corpus_world

    build_suite(tmp_path / "suite", domain_dir=_participation_domain(tmp_path / "domain"))
    contracts = {c["question_id"]: c for c in map(json.loads, (tmp_path / "suite" / "contracts.jsonl").read_text().splitlines())}
    truths = [json.loads(line) for line in (tmp_path / "suite" / "truth.jsonl").read_text().splitlines()]
    outside = [t for t in truths if t["required_evidence"] and contracts[t["question_id"]]["role"] == "support"
               and t["track"] == "perspective"]
    assert outside, "the world must hold evidence only participation lets a support person read"
    world = load_corpus_world(tmp_path / "suite")
    corpus = Corpus(world)
    for mode in ("tool", "context"):
        run_agent(tmp_path / "suite", "oracle", mode, tmp_path / mode, record_latency=False, corpus=corpus, world=world)
        score_run(tmp_path / "suite", tmp_path / mode, tmp_path / f"score-{mode}", corpus=corpus)
        rows = _rows(tmp_path / f"score-{mode}")
        assert {r["s_adj"] for r in rows} == {1.0}, (mode, [r["question_id"] for r in rows if r["s_adj"] < 1])
        # the builder never filters a search to a subsystem the role cannot read
        assert not any(c["gates"]["subsystem"] for r in rows for c in r["diagnostics"]["calls"])
