"""Simulated trajectories: shape of real data, labels by construction, determinism, cases from worlds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_builders.trajectories.records import read_suite, write_suite
from benchmark_builders.trajectories.simulate import (cases_from_world, simulate_trajectories, simulate_trajectory,
                                                      synthetic_cases)
from judges.assurance.checks import check_source, failures
from judges.assurance.targets import select_targets


@pytest.fixture(scope="module")
def simulated():
    trajectories, labels = simulate_trajectories(synthetic_cases(6, 11), 60, 11)
    return trajectories, {l.trajectory_id: l for l in labels}


def test_real_data_shape(simulated):
    trajectories, _ = simulated
    messages = [m for t in trajectories for m in t.messages]
    calls_only = [m for m in messages if m.role == "assistant" and m.tool_calls and m.content == ""]
    parallel = [m for m in messages if len(m.tool_calls) > 1]
    user_calls = [m for m in messages if m.role == "user" and m.tool_calls]
    invalid = []
    for m in messages:
        for call in m.tool_calls:
            try:
                value = json.loads(call.arguments)
                if not isinstance(value, dict):
                    invalid.append(call)        # double encoded
            except ValueError:
                invalid.append(call)            # truncated
    assert len(calls_only) > len(messages) // 5
    assert parallel and user_calls and invalid
    assert len(invalid) < len([c for m in messages for c in m.tool_calls]) // 10


def test_every_simulated_trajectory_links_in_both_directions(simulated):
    trajectories, _ = simulated
    for trajectory in trajectories:
        assert failures(check_source(trajectory, reverse=True)) == []


def test_labels_by_construction(simulated):
    trajectories, labels = simulated
    kinds = set()
    for trajectory in trajectories:
        step = labels[trajectory.trajectory_id]
        for index, note in step.notes.items():
            if note == "correction":
                assert step.labels[index] == 1
            else:
                assert step.labels[index] == -1
                kinds.add(note)
        for index, value in step.labels.items():
            message = trajectory.messages[index]
            assert message.role == "assistant"
            assert (value == 0) == (not message.tool_calls)
        errors = [i for i, n in step.notes.items() if n not in ("correction", "dependent")]
        assert len(errors) <= 1
        if errors:  # the error and its dependent steps stay -1 until the correction
            run = [i for i in sorted(step.labels) if i >= errors[0]]
            corrected = next(i for i in run if step.notes.get(i) == "correction")
            assert all(step.labels[i] == -1 for i in run if i < corrected)
    assert kinds == {"wrong_arguments", "wrong_tool", "skipped_verification", "premature_close", "invalid_json",
                     "dependent"}


def test_targets_are_the_first_minus_one_tool_step_and_the_closest_earlier_plus_one(simulated):
    trajectories, labels = simulated
    chosen = 0
    for trajectory in trajectories:
        step = labels[trajectory.trajectory_id]
        targets = select_targets(trajectory, step)
        errors = [i for i, n in step.notes.items() if n not in ("correction", "dependent")]
        if not errors:
            assert targets is None
            continue
        chosen += 1
        assert targets.error == errors[0]
        assert step.labels[targets.comparison] == 1 and trajectory.messages[targets.comparison].tool_calls
        between = [i for i in range(targets.comparison + 1, targets.error) if trajectory.messages[i].tool_calls
                   and trajectory.messages[i].role == "assistant"]
        assert between == []
    assert chosen >= 30


def test_same_seed_same_bytes_under_any_hash_seed(tmp_path):
    code = ("import sys; from pathlib import Path;"
            "from benchmark_builders.trajectories.simulate import simulate_trajectories, synthetic_cases;"
            "from benchmark_builders.trajectories.records import write_suite;"
            "t, l = simulate_trajectories(synthetic_cases(4, 3), 12, 3);"
            "write_suite(Path(sys.argv[1]), t, l, {'seed': 3})")
    outputs = []
    for hash_seed in ("0", "12345"):
        out = tmp_path / f"suite{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-c", code, str(out)], check=True, env=env, cwd=Path(__file__).parents[3])
        outputs.append((out / "trajectories.jsonl").read_bytes() + (out / "labels.jsonl").read_bytes())
    assert outputs[0] == outputs[1]


def test_suite_round_trip_and_tamper_refusal(tmp_path, simulated):
    from orgbench.core.errors import InputError

    trajectories, labels = simulated
    write_suite(tmp_path / "s", trajectories[:5], [labels[t.trajectory_id] for t in trajectories[:5]], {"seed": 11})
    back, back_labels = read_suite(tmp_path / "s")
    assert back == trajectories[:5]
    assert back_labels[back[0].trajectory_id] == labels[back[0].trajectory_id]
    path = tmp_path / "s" / "labels.jsonl"
    path.write_bytes(path.read_bytes().replace(b':1,', b':0,', 1))
    with pytest.raises(InputError, match="labels.jsonl"):
        read_suite(tmp_path / "s")


def test_cases_from_a_simulated_world():
    from simulator.config import load_config
    from simulator.simulate import simulate

    world = simulate(load_config(seed=2, days=20))
    cases = cases_from_world(world)
    assert cases
    tickets = {a.facts.get("case_id") for a in world.artifacts if a.kind == "ticket"}
    for case in cases:
        assert case.case_id in tickets
        assert case.facts["entitlement"] == "active" and case.facts["asset_serial"].startswith("SN-")
    trajectory, _ = simulate_trajectory(cases[0], 0, 2)
    assert cases[0].facts["asset_serial"] in trajectory.messages[1].content
    assert trajectory.cluster == cases[0].case_id


def test_sixty_trajectories_vary_share_requests_and_give_no_label_oracle(simulated):
    from judges.assurance.contrast import cohort

    trajectories, labels = simulated
    sequences = {tuple(c.name for m in t.messages for c in m.tool_calls) for t in trajectories}
    assert len(sequences) >= 20
    assert len({t.cluster for t in trajectories}) <= 33                  # requests recur: clusters are shared
    with_targets = cohort(trajectories, labels)
    assert 25 <= len(with_targets) <= 45 and len({t.cluster for t, _ in with_targets}) < len(with_targets)
    odd_steps = {"error": 0, "correct": 0}
    for t in trajectories:
        for k, m in enumerate(t.messages):
            for call in m.tool_calls:
                try:
                    ok = isinstance(json.loads(call.arguments), dict)
                except ValueError:
                    ok = False
                if not ok and m.role == "assistant":
                    odd_steps["error" if labels[t.trajectory_id].labels.get(k) == -1 else "correct"] += 1
    assert odd_steps["correct"] >= 5 and odd_steps["error"] >= 1      # odd arguments on correct steps too
    kinds = {n for l in labels.values() for n in l.notes.values()} - {"correction", "dependent"}
    assert len(kinds) == 5
