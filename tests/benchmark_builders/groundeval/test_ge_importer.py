"""The GroundEval-format importer: a small domain, its time zones, ids from file names, and clear errors."""

import json
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from benchmark_builders.groundeval.build import build_questions
from benchmark_builders.groundeval.contracts import BuildConfig
from benchmark_builders.groundeval.importer import load_domain
from orgbench.cli import cli
from simulator.errors import InputError

CONFIG = """
actors:
  morgan: engineer
  riley: support
  sam: support
roles:
  engineer: {subsystems: [deploys, incidents, postmortems]}
  support: {subsystems: [tickets], broadcast_event_types: [incident_opened]}
causal_links:
  - name: deploy_regression
    aliases: [bad deploy]
    cause_event_type: deploy
    effect_event_type: incident_opened
    max_gap_days: 2
    join: [{cause: change_id, effect: change_id}]
silence_pairs:
  - trigger_event_type: incident_opened
    response_event_type: postmortem_published
    max_gap_days: 5
    search_space_subsystems: [postmortems]
    join: [{trigger: incident_id, response: incident_id}]
"""


def write_domain(root, events=None, config=CONFIG, artifacts=None):
    (root / "artifacts" / "deploys").mkdir(parents=True)
    (root / "artifacts" / "incidents").mkdir(parents=True)
    (root / "artifacts" / "postmortems").mkdir(parents=True)
    (root / "artifacts" / "tickets").mkdir(parents=True)
    default_artifacts = {
        "deploys/CHG-1.json": {"timestamp": "2026-03-01T10:00:00Z", "title": "CHG-1 rollout", "body": "Change CHG-1 to api."},
        "deploys/CHG-2.json": {"id": "CHG-2", "created_at": "2026-03-01T11:30:00+01:00", "title": "CHG-2", "body": "Change CHG-2 to web."},
        "incidents/INC-1.json": {"date": "2026-03-01T12:00:00", "title": "INC-1 api down", "body": "INC-1 after CHG-1."},
        "incidents/INC-2.json": {"timestamp": "2026-03-03T09:00:00Z", "title": "INC-2 web slow", "body": "INC-2 after CHG-2."},
        "postmortems/PM-1.json": {"timestamp": "2026-03-02T09:00:00Z", "title": "Postmortem INC-1", "body": "Postmortem for INC-1."},
        "tickets/T-1.json": {"timestamp": "2026-03-01T13:00:00Z", "title": "T-1 customer", "body": "Customer reports INC-1."},
    }
    for rel, obj in (artifacts or default_artifacts).items():
        (root / "artifacts" / rel).write_text(json.dumps(obj), encoding="utf-8")
    default_events = [
        {"id": "E1", "type": "deploy", "timestamp": "2026-03-01T10:00:00Z", "actors": ["morgan"],
         "artifact_ids": {"deploys": "CHG-1"}, "facts": {"change_id": "CHG-1"}},
        {"id": "E2", "type": "deploy", "timestamp": "2026-03-01T10:30:00Z", "actors": ["morgan"],
         "artifact_ids": {"deploys": ["CHG-2"]}, "facts": {"change_id": "CHG-2"}},
        {"id": "E3", "type": "incident_opened", "timestamp": "2026-03-01T12:00:00", "actors": ["morgan"],
         "artifact_ids": {"incidents": "INC-1"}, "facts": {"incident_id": "INC-1", "change_id": "CHG-1", "severity": "SEV1"}},
        {"id": "E4", "type": "postmortem_published", "timestamp": "2026-03-02T09:00:00Z", "actors": ["morgan"],
         "artifact_ids": {"postmortems": "PM-1"}, "facts": {"incident_id": "INC-1"}},
        {"id": "E5", "type": "incident_opened", "timestamp": "2026-03-03T09:00:00+00:00", "actors": ["morgan"],
         "artifact_ids": {"incidents": "INC-2"}, "facts": {"incident_id": "INC-2", "change_id": "CHG-2", "severity": "SEV2"}},
        {"id": "E6", "type": "ticket_opened", "timestamp": "2026-03-09T13:00:00Z", "actors": ["riley"],
         "artifact_ids": {"tickets": "T-1"}, "facts": {"ticket_status": "open"}},
    ]
    (root / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in (events or default_events)), encoding="utf-8")
    (root / "config.yaml").write_text(config, encoding="utf-8")
    return root


def test_domain_becomes_a_world_with_zones_and_ids(tmp_path):
    world, rules = load_domain(write_domain(tmp_path / "d"))
    by_id = {v.artifact_id: v for v in world.artifacts}
    assert sorted(by_id) == ["CHG-1", "CHG-2", "INC-1", "INC-2", "PM-1", "T-1"]      # ids from file names
    assert by_id["CHG-2"].created_at == datetime(2026, 3, 1, 10, 30, tzinfo=timezone.utc)   # +01:00 → UTC
    assert by_id["INC-1"].created_at == datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)    # no zone = UTC
    assert by_id["INC-1"].facts["severity"] == "SEV1" and by_id["INC-1"].acl.participants == ("morgan", "riley", "sam")
    assert rules.causal[0].join == (("payload.change_id", "payload.change_id"),)
    assert world.policy.can_see("riley", by_id["INC-1"], datetime(2026, 3, 2, tzinfo=timezone.utc))   # broadcast
    assert not world.policy.can_see("riley", by_id["CHG-1"], datetime(2026, 3, 2, tzinfo=timezone.utc))


def test_domain_contracts_have_decoys_and_absences(tmp_path):
    world, rules = load_domain(write_domain(tmp_path / "d"))
    questions = build_questions(world, rules, BuildConfig(counts={"perspective": 4, "counterfactual": 4, "silence": 4}),
                                "domain:d")
    kinds = {(q.truth.track, q.truth.kind) for q in questions}
    assert ("counterfactual", "causal") in kinds and ("counterfactual", "decoy") in kinds
    assert ("silence", "exists") in kinds and ("silence", "absence") in kinds
    decoy = next(q for q in questions if q.truth.kind == "decoy")
    assert (decoy.contract.subject["cause_event_id"], decoy.contract.subject["effect_event_id"]) in (("E2", "E3"),)


@pytest.mark.parametrize("mutate, needle", [
    (lambda r: (r / "artifacts/deploys/CHG-1.json").write_text("{nope", encoding="utf-8"), "CHG-1.json:1: invalid JSON"),
    (lambda r: (r / "artifacts/deploys/CHG-1.json").write_text('{"title": "x"}', encoding="utf-8"), "CHG-1.json: missing key timestamp"),
    (lambda r: (r / "artifacts/deploys/CHG-1.json").write_text('{"timestamp": "yesterday"}', encoding="utf-8"),
     "CHG-1.json: key timestamp: not a timestamp"),
    (lambda r: (r / "events.jsonl").write_text('{"id": "E1", "type": "deploy"}\n', encoding="utf-8"), "events.jsonl:1: missing key timestamp"),
    (lambda r: (r / "events.jsonl").write_text('{"id": "E1", "type": "deploy", "timestamp": "2026-03-01T10:00:00Z", '
                                               '"artifact_ids": {"deploys": "CHG-9"}}\n', encoding="utf-8"),
     "events.jsonl:1: key artifact_ids.deploys: unknown artifact 'CHG-9'"),
    (lambda r: (r / "config.yaml").write_text(CONFIG.replace("max_gap_days: 2", "max_gap_days: soon"), encoding="utf-8"),
     "config.yaml: causal_links[0].max_gap_days: expected a positive number"),
    (lambda r: (r / "config.yaml").write_text(CONFIG.replace("riley: support", "riley: pilot"), encoding="utf-8"),
     "config.yaml: key actors.riley: unknown role 'pilot'"),
])
def test_malformed_domains_name_the_file_and_key(tmp_path, mutate, needle):
    root = write_domain(tmp_path / "d")
    mutate(root)
    with pytest.raises(InputError) as info:
        load_domain(root)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_cli_builds_from_a_domain_and_exits_2_on_bad_input(tmp_path):
    root = write_domain(tmp_path / "d")
    runner = CliRunner()
    result = runner.invoke(cli, ["build", "groundeval", "--domain", str(root), "--out", str(tmp_path / "suite")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "suite" / "contracts.jsonl").is_file() and (tmp_path / "suite" / "world" / "MANIFEST.json").is_file()
    (root / "config.yaml").write_text("actors: [", encoding="utf-8")
    result = runner.invoke(cli, ["build", "groundeval", "--domain", str(root), "--out", str(tmp_path / "bad")])
    assert result.exit_code == 2 and "config.yaml" in result.output and not (tmp_path / "bad").exists()
