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


def test_oracle_scores_one_on_every_contract_in_both_modes(scored, rt_suite):
    contracts = len((rt_suite / "contracts.jsonl").read_text().splitlines())
    assert contracts >= 90
    for mode in ("tool", "context"):
        assert len(scored["oracle", mode]) == contracts
        assert {r["s_adj"] for r in scored["oracle", mode]} == {1.0}


def test_leaky_answers_well_through_invalid_paths(scored):
    rows = scored["leaky", "tool"]
    s_answer, s_adj = _mean(rows, "s_answer"), _mean(rows, "s_adj")
    assert s_answer >= 0.75 and s_adj <= s_answer - 0.25
    assert sum(1 for r in rows if r["answer_correct"] and r["v"] > 0) >= 20


def test_lazy_fails_silence_absence_trajectories(scored):
    absences = [r for r in scored["lazy", "tool"] if r["kind"] == "absence"]
    assert absences and all(r["s_answer"] == 1.0 and r["s_traj"] == 0.2 and r["n_calls"] == 0 for r in absences)


def test_proximity_fails_decoys_that_bm25_gets_right(scored):
    assert _mean(scored["proximity", "tool"], "s_answer", kind="decoy") < _mean(scored["bm25", "tool"], "s_answer", kind="decoy") - 0.15


def test_zero_shot_makes_no_calls_and_agents_stay_in_the_gates(scored):
    assert all(r["n_calls"] == 0 for r in scored["zero-shot", "tool"])
    for agent in ("bm25", "proximity", "lazy", "oracle"):
        assert all(r["v"] == 0.0 for r in scored[agent, "tool"]), agent


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


def test_run_agent_traces_re_derive_to_their_own_gate_outcomes(scored):
    for (agent, mode), rows in scored.items():
        assert not any(r["trace_tampered"] for r in rows), (agent, mode)
        for row in rows:
            for call in row["diagnostics"]["calls"]:
                assert call["mismatch"] == [] and call["claimed"] == {"outcome": call["outcome"], "gates": call["gates"]}
    leaky_gates = [c["gates"] for r in scored["leaky", "tool"] for c in r["diagnostics"]["calls"]]
    assert sum(1 for g in leaky_gates if any(g.values())) >= 20   # the leaky agent's violations survive re-derivation
