"""Same config and seed → byte-identical world under any PYTHONHASHSEED; another seed → another world."""

from __future__ import annotations

import os
import subprocess
import sys

from orgbench.core.storage import read_json


def _simulate(out, seed, hashseed, **extra_env):
    env = {**os.environ, "PYTHONHASHSEED": str(hashseed), **extra_env}
    subprocess.run([sys.executable, "-m", "orgbench", "simulate", "--out", str(out), "--seed", str(seed),
                    "--days", "14", "--people", "20"], check=True, env=env, capture_output=True)
    return (out / "MANIFEST.json").read_bytes()


def test_byte_identical_across_hash_seeds_and_different_across_seeds(tmp_path):
    first = _simulate(tmp_path / "a", 5, 0)
    second = _simulate(tmp_path / "b", 5, 1)
    other = _simulate(tmp_path / "c", 6, 0)
    uncached = _simulate(tmp_path / "d", 5, 0, ORGBENCH_NO_TEMPLATE_CACHE="1")  # templates compiled afresh
    assert first == second == uncached
    assert first != other
    files = read_json(tmp_path / "a" / "MANIFEST.json")["files"]
    assert sorted(files) == ["actors.jsonl", "artifacts.jsonl", "claims.jsonl", "events.jsonl", "graph.json", "policy.json",
                            "world.json"]
    assert read_json(tmp_path / "c" / "MANIFEST.json")["files"]["events.jsonl"] != files["events.jsonl"]


def test_repeated_runs_in_one_process_are_identical():
    from simulator.config import load_config
    from simulator.simulate import simulate

    config = load_config(seed=9, days=10, people=18)
    first, second = simulate(config), simulate(config)
    assert [e.to_json() for e in first.events] == [e.to_json() for e in second.events]
    assert [v.to_json() for v in first.artifacts] == [v.to_json() for v in second.artifacts]
    assert first.graph == second.graph and first.policy.to_json() == second.policy.to_json()
