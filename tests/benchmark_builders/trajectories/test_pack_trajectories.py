"""Trajectories of a domain pack's world: the agent's tools are the case's runbook steps, and every step label is
recomputed apart from the builder, from the raw world's tickets and the pack's TOML text."""

from __future__ import annotations

import json
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmark_builders.trajectories.simulate import cases_from_world, simulate_trajectories
from orgbench.cli import cli
from simulator.config import load_config
from simulator.simulate import simulate

PACKS = Path(__file__).parents[3] / "simulator" / "packs"


@lru_cache(maxsize=2)
def pack_world(pack: str):
    return simulate(load_config(seed=4, people=20, days=25, pack=pack))


def _steps(pack: str, facts: dict) -> list[dict]:
    runbook = next(rb for rb in tomllib.loads((PACKS / f"{pack}.toml").read_text(encoding="utf-8"))["runbooks"]
                   if rb["id"] == facts["procedure_id"])
    return runbook["steps"] if facts.get("procedure_revision", 1) == 1 else runbook["revisions"][0]["steps"]


def _tickets(world) -> dict[str, dict]:
    last: dict[str, tuple[int, dict]] = {}
    for version in world.artifacts:
        facts = version.facts or {}
        if "procedure_id" in facts and "case_id" in facts and version.version >= last.get(facts["case_id"], (-1,))[0]:
            last[facts["case_id"]] = (version.version, facts)
    return {k: v for k, (_, v) in last.items()}


def _text(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def recomputed_labels(pack: str, trajectory, ticket: dict) -> dict[int, int]:
    """+1 / -1 of each assistant tool call, from the runbook's TOML and the ticket alone: a call is wrong when its
    tool is no step of the runbook, its arguments are no JSON object or differ from the ticket, a step it requires
    is not done yet, or it closes the case before every step is done."""
    steps = _steps(pack, ticket)
    if set(steps[-1].get("writes", [])) <= {"case_status"}:
        steps = steps[:-1]
    by_id = {s["id"]: s for s in steps}
    done: set[str] = set()
    out = {}
    for index, message in enumerate(trajectory.messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        call = message.tool_calls[0]
        try:
            args = json.loads(call.arguments)
        except json.JSONDecodeError:
            args = None
        if call.name == "lookup_case":
            out[index] = 1
        elif call.name == "update_case":
            out[index] = -1 if isinstance(args, dict) and args.get("status") == "closed" and len(done) < len(steps) \
                else 1
        elif call.name not in by_id or not isinstance(args, dict):
            out[index] = -1
        else:
            step = by_id[call.name]
            right = args == {f: _text(ticket[f]) for f in step.get("reads", [])}
            ready = all(r in done for r in step.get("requires", []))
            out[index] = 1 if right and ready else -1
            if out[index] == 1:
                done.add(call.name)
    return out


def check_labels(pack: str, world, n: int = 60) -> tuple[list, list]:
    tickets = _tickets(world)
    trajectories, labels = simulate_trajectories(cases_from_world(world), n, 4)
    for trajectory, label in zip(trajectories, labels):
        ticket = tickets[trajectory.cluster]   # the cluster is the case id
        ours = {i: v for i, v in label.labels.items() if v != 0}
        assert recomputed_labels(pack, trajectory, ticket) == ours, trajectory.trajectory_id
        tools = {m.tool_calls[0].name for m in trajectory.messages if m.tool_calls}
        assert tools - {"lookup_case", "update_case"} <= {s["id"] for s in _steps(pack, ticket)} | \
            {s["id"] for rb in tomllib.loads((PACKS / f"{pack}.toml").read_text(encoding="utf-8"))["runbooks"]
             for s in rb["steps"]}
    return trajectories, labels


def test_fintech_trajectories_call_the_runbooks_steps_and_their_labels_hold_in_the_raw_world():
    trajectories, labels = check_labels("fintech", pack_world("fintech"))
    notes = {note for label in labels for note in label.notes.values()}
    assert {"wrong_arguments", "wrong_tool", "skipped_verification", "premature_close", "invalid_json"} <= notes
    assert sum(any(v == -1 for v in label.labels.values()) for label in labels) >= 25
    # the tools are fintech's (a payout return code is read), not the hardware flow's
    names = {c.name for t in trajectories for m in t.messages for c in m.tool_calls}
    assert "check_payout" in names and not names & {"check_entitlement", "get_asset", "search_kb"}


@pytest.mark.slow          # a world per pack
@pytest.mark.parametrize("pack", ["clinical", "utility"])
def test_every_new_packs_trajectory_labels_hold_in_the_raw_world(pack):
    _, labels = check_labels(pack, pack_world(pack))
    assert sum(any(v == -1 for v in label.labels.values()) for label in labels) >= 25


def test_build_trajectories_on_a_pack_file_world_needs_that_file(tmp_path):
    pack = tmp_path / "telecom.toml"
    pack.write_text((PACKS / "fintech.toml").read_text(encoding="utf-8").replace('name = "fintech"', 'name = "telecom"'),
                    encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["simulate", "--pack", str(pack), "--out", str(tmp_path / "w"), "--people", "16",
                               "--days", "10", "--seed", "2"]).exit_code == 0
    refused = runner.invoke(cli, ["build", "trajectories", "--world", str(tmp_path / "w"), "--out", str(tmp_path / "t")])
    assert refused.exit_code == 2 and "give that file with --pack FILE" in refused.output
    built = runner.invoke(cli, ["build", "trajectories", "--world", str(tmp_path / "w"), "--out", str(tmp_path / "t"),
                                "--pack", str(pack), "--n", "12"])
    assert built.exit_code == 0, built.output
    assert built.output.startswith("12 trajectories")


@pytest.mark.slow          # a default world: its flow is the hand-written one, unchanged
def test_a_default_world_keeps_the_default_flow():
    world = simulate(load_config(seed=4, people=20, days=25))
    trajectories, _ = simulate_trajectories(cases_from_world(world), 6, 4)
    assert {c.name for t in trajectories for m in t.messages for c in m.tool_calls} >= {"check_entitlement",
                                                                                         "create_dispatch"}
