"""The GroundEval-format importer: a small domain, its time zones, ids from file names, versions, and clear errors."""

import json
import os
import re
from collections import Counter
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from benchmark_builders.groundeval.build import build_questions
from benchmark_builders.groundeval.contracts import BuildConfig
from benchmark_builders.groundeval.importer import load_domain
from judges.groundeval.runtime import Corpus, GatedRuntime
from orgbench.cli import cli
from orgbench.core.errors import InputError

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
    assert rules.causal[0].join == (("facts.change_id", "facts.change_id"),)
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
    (lambda r: ((r / "artifacts/deploys/CHG-1.json").unlink(), os.mkfifo(r / "artifacts/deploys/CHG-1.json")),
     "CHG-1.json: a FIFO, not a regular file"),            # refused without blocking, not waited on
    (lambda r: (r / "artifacts/deploys/CHG-1.json").write_text('{"timestamp": NaN}', encoding="utf-8"),
     "CHG-1.json: invalid JSON (NaN"),
    (lambda r: (r / "artifacts/deploys/CHG-1.json").write_text('{"timestamp": "yesterday"}', encoding="utf-8"),
     "CHG-1.json: key timestamp: not a timestamp"),
    (lambda r: (r / "artifacts/deploys/CHG-1.json").write_text('{"timestamp": "2026-03-01T10:00:00Z", "facts": ["x"]}',
                                                               encoding="utf-8"),
     "CHG-1.json: key facts: expected an object"),
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


def test_a_domain_no_question_can_be_built_from_is_refused_not_written_empty(tmp_path):
    root = write_domain(tmp_path / "d")
    (root / "events.jsonl").write_text("", encoding="utf-8")       # before: exit 0 and a suite of 0 questions
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(root), "--out", str(tmp_path / "suite")])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"error: {root}: no question could be built (" in result.output and "nothing written" in result.output
    assert not (tmp_path / "suite").exists()


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


LATER_EVENTS = [
    # INC-2 (created 03-03 09:00) is resolved three days later; INC-1 is mentioned again with nothing new.
    {"id": "R2", "type": "incident_resolved", "timestamp": "2026-03-06T10:00:00Z", "actors": ["morgan"],
     "artifact_ids": {"incidents": "INC-2"}, "facts": {"incident_id": "INC-2", "resolution": "rolled back RB2"}},
    {"id": "N1", "type": "incident_note", "timestamp": "2026-03-04T08:00:00Z", "actors": ["morgan"],
     "artifact_ids": {"incidents": "INC-1"}, "facts": {"incident_id": "INC-1"}},
    {"id": "S2", "type": "incident_updated", "timestamp": "2026-03-07T10:00:00Z", "actors": ["morgan"],
     "artifact_ids": {"incidents": "INC-2"}, "facts": {"severity": "SEV1"}},
]


def versioned_domain(root):
    root = write_domain(root)
    with open(root / "events.jsonl", "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(e) + "\n" for e in LATER_EVENTS))
    return root


def test_later_events_add_versions_and_the_past_keeps_its_state(tmp_path):
    world, _ = load_domain(versioned_domain(tmp_path / "d"))
    history = world.versions("INC-2")
    assert [(v.ref, v.created_at) for v in history] == [
        ("INC-2@1", utc(2026, 3, 3, 9)), ("INC-2@2", utc(2026, 3, 6, 10)), ("INC-2@3", utc(2026, 3, 7, 10))]
    assert dict(history[0].facts) == {"incident_id": "INC-2", "change_id": "CHG-2", "severity": "SEV2"}
    assert dict(history[1].facts) == {**history[0].facts, "resolution": "rolled back RB2"}
    assert dict(history[2].facts) == {**history[1].facts, "severity": "SEV1"}      # a later value replaces the earlier
    assert [v.ref for v in world.versions("INC-1")] == ["INC-1@1"]               # N1 told nothing new
    refs = {e.event_id: e.artifacts for e in world.events}
    assert (refs["E5"], refs["R2"], refs["S2"], refs["N1"]) == (("INC-2@1",), ("INC-2@2",), ("INC-2@3",), ("INC-1@1",))

    before = utc(2026, 3, 4, 21, 4)            # after INC-2 was opened, before it was resolved
    assert "resolution" not in world.as_of("INC-2", before).facts
    fetched = GatedRuntime(Corpus(world), "sam", before, record_latency=False).fetch_artifact("INC-2")
    assert fetched["artifact"]["id"] == "INC-2@1" and "resolution" not in fetched["artifact"]["facts"]
    later = GatedRuntime(Corpus(world), "sam", utc(2026, 3, 6, 12), record_latency=False).fetch_artifact("INC-2")
    assert later["artifact"]["facts"]["resolution"] == "rolled back RB2"


def test_later_versions_state_what_they_add_so_search_finds_them(tmp_path):
    world, _ = load_domain(versioned_domain(tmp_path / "d"))
    first, resolved, escalated = world.versions("INC-2")
    assert first.body == "INC-2 after CHG-2."
    assert resolved.body == "INC-2 after CHG-2.\n\nUpdate 2026-03-06T10:00:00Z: resolution: rolled back RB2"
    assert escalated.body == resolved.body + "\n\nUpdate 2026-03-07T10:00:00Z: severity: SEV1"
    corpus = Corpus(world)
    hits = GatedRuntime(corpus, "sam", utc(2026, 3, 6, 12), record_latency=False).search_artifacts("RB2", None, 5)
    assert [r["id"] for r in hits["results"]] == ["INC-2@2"]
    before = GatedRuntime(corpus, "sam", utc(2026, 3, 4, 21, 4), record_latency=False).search_artifacts("RB2", None, 5)
    assert before["results"] == []            # not said yet, and the later version is past the horizon


def test_perspective_truth_follows_the_first_version_that_states_a_fact(tmp_path):
    world, rules = load_domain(versioned_domain(tmp_path / "d"))
    questions = build_questions(world, rules, BuildConfig(counts={"perspective": 200, "counterfactual": 0, "silence": 0}),
                                "domain:d")
    resolved = utc(2026, 3, 6, 10)
    about = [q for q in questions if q.contract.subject["entity"] == {"kind": "event", "id": "R2"}
             and q.contract.subject["fact"] == "resolution"]      # the subject is the event, named with its record
    kinds = Counter(q.truth.kind for q in about)
    assert kinds["positive"] >= 1 and kinds["temporal_negative"] >= 1
    for q in about:
        if q.truth.gold["could_actor_have_known"]:
            assert q.contract.as_of >= resolved and q.truth.required_evidence in (("INC-2@2",), ("INC-2@3",))
        if q.truth.kind == "temporal_negative":
            # placed before the resolution was stated, yet after INC-2 itself existed: the old leak's exact case
            assert utc(2026, 3, 3, 9) < q.contract.as_of < resolved
            assert world.as_of("INC-2", q.contract.as_of).ref == "INC-2@1"
    for q in questions:                        # no positive anywhere before its fact was first stated
        if q.truth.gold["could_actor_have_known"]:
            subject = q.contract.subject
            first = min(v.created_at for a in subject["artifacts"] for v in world.versions(a)
                        if str(v.facts.get(subject["fact"])) == subject["value"])
            assert first <= q.contract.as_of


def test_common_word_values_build_and_are_asked_about(tmp_path):
    root = write_domain(tmp_path / "d")
    lines = (root / "events.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    for event in events:
        if event["type"] == "incident_opened":
            event["facts"].update({"paged": "no", "customer_impact": "none", "acknowledged": "yes", "rollback": "true"})
    (root / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(root), "--out", str(tmp_path / "suite")])
    assert result.exit_code == 0 and result.exception is None, result.output
    contracts = [json.loads(line) for line in (tmp_path / "suite" / "contracts.jsonl").read_text().splitlines()]
    asked = {c["subject"]["value"] for c in contracts if c["track"] == "perspective"}
    assert {"no", "none", "yes", "true"} <= asked
    paged = next(c for c in contracts if c["track"] == "perspective" and c["subject"]["fact"] == "paged")
    assert re.search(r"\bpaged\b.*\bno\b", paged["question"])


def test_wording_that_would_reveal_the_answer_is_left_out_and_counted(tmp_path):
    # every wording names the cause's event type, "deploy": an alias of the mechanism, so causal questions can't be asked
    root = write_domain(tmp_path / "d", config=CONFIG.replace("aliases: [bad deploy]", "aliases: [deploy]"))
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(root), "--out",
                                                      str(tmp_path / "suite")])
    assert result.exit_code == 0, result.output
    suite = json.loads((tmp_path / "suite" / "suite.json").read_text())
    assert suite["left_out"]["wording_reveals_answer"] == {"perspective": 0, "counterfactual": 2, "silence": 0}
    assert suite["requested"]["counterfactual"] == {"causal": 15, "decoy": 15}
    assert suite["built"]["counterfactual"] == {"causal": 0, "decoy": 2}
    assert result.stderr.count("\n") == 1 and "counterfactual causal 0/15" in result.stderr
    assert "2 left out because every wording would reveal the answer" in result.stderr
