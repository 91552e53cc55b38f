"""Domains in the public GroundEval format: joins as the format means them, every key honoured or refused,
truth checked by hand and by a second, separately written recomputation (also on the public examples)."""

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from judges.groundeval.question_score import load_scores
from orgbench.cli import cli
from tests.benchmark_builders.groundeval.shapes_domain import (
    CONFIG, COUNTERFACTUAL_TRUTH, SILENCE_TRUTH, could_know_by_hand, write_shapes_domain,
)
from tests.benchmark_builders.groundeval.truth_recheck import disagreements

BIG = """
[groundeval.perspective]
count = 200
[groundeval.counterfactual]
count = 50
[groundeval.silence]
count = 20
"""


def build(tmp_path, domain, *extra, name="suite"):
    (tmp_path / "big.toml").write_text(BIG, encoding="utf-8")
    out = tmp_path / name
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(out),
                                      "--config", str(tmp_path / "big.toml"), *extra])
    return result, out


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def shapes_suite(tmp_path):
    domain = write_shapes_domain(tmp_path / "shapes")
    result, out = build(tmp_path, domain)
    assert result.exit_code == 0, result.output
    return domain, out


def test_counterfactual_gold_is_the_hand_worked_truth(shapes_suite):
    _, out = shapes_suite
    contracts = {c["question_id"]: c for c in rows(out / "contracts.jsonl")}
    built = {}
    for t in rows(out / "truth.jsonl"):
        if t["track"] == "counterfactual":
            built[(t["gold"]["cause_event_id"], t["gold"]["effect_event_id"])] = t["kind"]
            assert t["gold"]["outcome_changed"] is (t["kind"] == "causal")
            assert t["gold"]["mechanism_direction"] == ("cause_to_effect" if t["kind"] == "causal" else "no_causal_link")
    assert built == COUNTERFACTUAL_TRUTH
    worded = [c["question"] for c in contracts.values() if c["track"] == "counterfactual"
              and c["subject"]["cause_event_id"] == "c1" and c["subject"]["effect_event_id"] == "o1"]
    assert "suppose change CH-1 had not been applied; then outage o1 would not have been declared?" in worded[0]


def test_silence_both_ways_with_the_search_space_from_templates(shapes_suite):
    _, out = shapes_suite
    contracts = {c["question_id"]: c for c in rows(out / "contracts.jsonl")}
    silence = {contracts[t["question_id"]]["subject"]["trigger_event_id"]: (t, contracts[t["question_id"]])
               for t in rows(out / "truth.jsonl") if t["track"] == "silence"}
    assert {k: t["gold"]["exists"] for k, (t, _) in silence.items()} == SILENCE_TRUTH
    truth, contract = silence["o1"]
    assert truth["kind"] == "exists" and truth["required_evidence"] == ["T-2@3", "W-1@1"]
    # the trigger lists tickets [T-9, T-2]: one id item per ticket, one query item with both
    assert truth["required_search_space"] == [
        {"mode": "id", "selector": "T-2", "subsystem": "tickets", "value": "T-2"},
        {"mode": "id", "selector": "T-9", "subsystem": "tickets", "value": "T-9"},
        {"mode": "query", "selector": "T-9", "subsystem": "wiki", "value": "review T-9, T-2"}]
    assert "W-1" not in contract["question"] and "r1" not in contract["question"]   # the response is not given away
    assert silence["o2"][0]["difficulty"] == "hard"      # its review came, but after the window


def test_perspective_subjects_are_events_and_gold_matches_the_hand_rule(shapes_suite):
    _, out = shapes_suite
    contracts = {c["question_id"]: c for c in rows(out / "contracts.jsonl")}
    checked = set()
    for t in rows(out / "truth.jsonl"):
        if t["track"] != "perspective":
            continue
        c = contracts[t["question_id"]]
        event = c["subject"]["entity"]["id"]
        assert c["subject"]["entity"]["kind"] == "event" and f"event {event} (" in c["question"]
        assert all(a in c["question"] for a in c["subject"]["artifacts"])      # named by id and its records
        assert t["gold"]["could_actor_have_known"] is could_know_by_hand(c["actor"], event, c["as_of"])
        checked.add((t["kind"], event))
    assert {k for k, _ in checked} == {"positive", "temporal_negative", "permission_negative"}
    assert {e for _, e in checked} >= {"c0", "c1", "c2", "o1", "o2", "l1"}
    moments = [(c["actor"], c["as_of"]) for c in contracts.values() if c["track"] == "perspective"]
    assert len(moments) == len(set(moments))         # one actor's questions use different as_of moments


def test_the_second_truth_check_agrees_and_catches_a_wrong_gold(shapes_suite, tmp_path):
    domain, out = shapes_suite
    wrong, checked = disagreements(domain, out)
    assert wrong == [] and sum(checked.values()) == len(rows(out / "truth.jsonl"))
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    truths = rows(bad / "truth.jsonl")
    flipped = []
    for track, key in (("perspective", "could_actor_have_known"), ("silence", "exists")):
        t = next(t for t in truths if t["track"] == track)
        t["gold"][key] = not t["gold"][key]
        flipped.append(t["question_id"])
    t = next(t for t in truths if t["kind"] == "causal")
    t["gold"].update(mechanism_direction="no_causal_link", outcome_changed=False)
    flipped.append(t["question_id"])
    (bad / "truth.jsonl").write_text("".join(json.dumps(t) + "\n" for t in truths), encoding="utf-8")
    assert sorted(disagreements(domain, bad)[0]) == sorted(flipped)


EXAMPLES = ("tiny", "cybersecurity", "enterprise-support", "finance", "healthcare", "legal")


@pytest.fixture(scope="module")
def public_examples(tmp_path_factory) -> Path:
    """The preprint's examples/: GROUNDEVAL_EXAMPLES, else extracted from the copy GROUNDEVAL_UPSTREAM names."""
    from tests.upstream_groundeval import PREPRINT, upstream_tree

    given = os.environ.get("GROUNDEVAL_EXAMPLES")
    return Path(given) if given else upstream_tree(PREPRINT, tmp_path_factory.mktemp("upstream")) / "examples"


@pytest.mark.parametrize("name", EXAMPLES)
def test_public_examples_build_every_track_with_gold_that_agrees_with_their_data(tmp_path, name, public_examples):
    result, out = build(tmp_path, public_examples / name, "--drop-unresolved-rules")
    assert result.exit_code == 0, result.output
    wrong, checked = disagreements(public_examples / name, out)
    print(f"{name}: {dict(sorted(checked.items()))}; golds disagreeing with the data: {len(wrong)}")
    assert wrong == []
    tracks = {k.split()[0] for k in checked}
    assert tracks == {"perspective", "counterfactual", "silence"}
    if name != "tiny":                                  # tiny has no response event: no Silence exists
        assert "silence exists" in checked and "silence absence" in checked


@pytest.mark.parametrize("old, new, needle", [
    ("output_dir: ./ignored", "output_dir: ./ignored\nprovider: openai",
     "config.yaml: provider: not supported by orgbench (--allow-unknown-keys ignores it)"),
    ("    outcome_changed: true", "    outcome_changed: true\n    cause_window: 3",
     "config.yaml: causal_links[0].cause_window: unknown key"),
    ("[{cause: artifact_ids.tickets, effect: artifact_ids.tickets}]\n  - name: outage_reviewed",
     "[{cause: artifact_ids.ticket, effect: artifact_ids.tickets}]\n  - name: outage_reviewed",
     "causal_links[0] (change_broke_service).join[0].cause: path 'artifact_ids.ticket' resolves for no event"),
    ("query_template: \"review {artifact_ids.tickets}\"", "query_template: \"review {facts.nothing}\"",
     "search_space[0].query_template: path 'facts.nothing' resolves for no event of type 'outage_declared'"),
    ("events_file: log.jsonl", "events_file: missing.jsonl", "missing.jsonl: file not found"),
    ("max_gap_hours: 48", "max_gap_hours: 48\n    max_gap_days: 2", "give max_gap_days or max_gap_hours, not both"),
])
def test_malformed_domains_stop_with_one_line_and_write_nothing(tmp_path, old, new, needle):
    assert old in CONFIG
    domain = write_shapes_domain(tmp_path / "d", CONFIG.replace(old, new, 1))
    result, out = build(tmp_path, domain)
    assert result.exit_code == 2 and needle in result.output, result.output
    assert result.output.count("\n") == 1 and not out.exists()
    if "resolves for no event" in needle:               # the error names its remedy
        assert "or build with --drop-unresolved-rules to leave the rule out" in result.output


def test_a_bad_time_names_the_file_line_and_key(tmp_path):
    domain = write_shapes_domain(tmp_path / "d")
    text = (domain / "log.jsonl").read_text(encoding="utf-8").replace("2026-04-05T12:00:00Z", "5 April, noon")
    (domain / "log.jsonl").write_text(text, encoding="utf-8")
    result, out = build(tmp_path, domain)
    assert result.exit_code == 2 and "log.jsonl:7: key timestamp: not a timestamp" in result.output
    assert not out.exists()


def test_an_unknown_event_key_names_the_file_and_line_as_path_colon_line(tmp_path):
    domain = write_shapes_domain(tmp_path / "d")
    lines = (domain / "log.jsonl").read_text(encoding="utf-8").splitlines()
    lines[3] = json.dumps({**json.loads(lines[3]), "colour": "red"})
    (domain / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result, out = build(tmp_path, domain)
    assert result.exit_code == 2 and not out.exists()
    assert result.output == f"error: {domain / 'log.jsonl'}:4: colour: unknown key (--allow-unknown-keys ignores it)\n"


def test_allow_unknown_keys_warns_once_per_key(tmp_path):
    config = CONFIG.replace("output_dir: ./ignored", "output_dir: ./ignored\nmodel: gpt\nnotes: x").replace(
        "    outcome_changed: true", "    outcome_changed: true\n    colour: red").replace(
        "    match_value: high", "    match_value: high\n    colour: blue")
    domain = write_shapes_domain(tmp_path / "d", config)
    result, out = build(tmp_path, domain, "--allow-unknown-keys")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert [w.split(": warning: ")[1] for w in warnings] == [
        "model: not supported by orgbench, ignored", "notes: unknown key, ignored",
        "causal_links[].colour: unknown key, ignored"]
    assert rows(out / "truth.jsonl")


def test_drop_unresolved_rules_leaves_the_rule_out_with_a_warning(tmp_path):
    config = CONFIG.replace("{cause: artifact_ids.tickets, effect: artifact_ids.tickets}]\nsilence_pairs",
                            "{cause: artifact_ids.ledger, effect: artifact_ids.tickets}]\nsilence_pairs")
    domain = write_shapes_domain(tmp_path / "d", config)
    result, out = build(tmp_path, domain, "--drop-unresolved-rules")
    assert result.exit_code == 0, result.output
    assert "causal_links[1] (outage_reviewed).join[0].cause: path 'artifact_ids.ledger'" in result.stderr
    assert "rule left out" in result.stderr
    rules = {r["name"] for r in json.loads((out / "suite.json").read_text())["rules"]["causal_links"]}
    assert rules == {"change_broke_service"}


def test_domain_caps_ratios_and_actors_are_honoured(tmp_path):
    config = CONFIG.replace("output_dir: ./ignored", "output_dir: ./ignored\nperspective_actors: [cleo]\n"
                            "max_counterfactual_questions: 3\nmax_links_per_spec: 1\nseed: 4\n"
                            "perspective: {positive_ratio: 1.0, negative_permission_ratio: 0, negative_temporal_ratio: 0}")
    domain = write_shapes_domain(tmp_path / "d", config)
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    suite = json.loads((tmp_path / "s" / "suite.json").read_text())
    assert suite["config"]["seed"] == 4 and suite["config"]["perspective_actors"] == ["cleo"]
    assert suite["requested"]["counterfactual"] == {"causal": 2, "decoy": 1}
    assert suite["requested"]["perspective"] == {"positive": 40, "temporal_negative": 0, "permission_negative": 0}
    contracts = rows(tmp_path / "s" / "contracts.jsonl")
    assert {c["actor"] for c in contracts if c["track"] == "perspective"} == {"cleo"}
    truths = rows(tmp_path / "s" / "truth.jsonl")
    causal = [t for t in truths if t["kind"] == "causal"]
    assert len(causal) == 2 and len({t["why"].split(":")[0] for t in causal}) == 2   # one link per rule


TASK_CONFIG = """
actors: {clerk: billing}
roles:
  billing: {subsystems: [ledger, crm]}
task_contracts:
  - name: refund_only_paid_invoices
    task_description: Refund invoice INV-7 if it is paid and the customer is active.
    preconditions:
      - {check: invoice_paid, required_facts: [state], ground_truth_field: INV-7.state, expected: paid}
      - {check: customer_active, required_facts: [status], ground_truth_field: C-3.status, expected: active}
    decision_field: should_refund
  - name: no_refund_for_disputed
    task_description: Refund invoice INV-8 unless it is disputed.
    preconditions:
      - {check: not_disputed, required_facts: [state], ground_truth_field: INV-8.state}
      - {check: fraud_score_low, required_facts: [score], required_tool: risk_lookup, expected_field: score}
    expected_action: false
    allowed_tools:
      risk_lookup: {returns: {score: 91, band: high}, artifact_id: RISK-8, subsystem: crm}
"""


def write_task_domain(root, config=TASK_CONFIG):
    (root / "data").mkdir(parents=True)
    (root / "data" / "ledger.json").write_text(json.dumps([
        {"id": "INV-7", "subsystem": "ledger", "state": "paid", "amount": 120},
        {"id": "INV-8", "subsystem": "ledger", "state": "disputed", "amount": 80}]), encoding="utf-8")
    (root / "data" / "crm.json").write_text(json.dumps({"id": "C-3", "subsystem": "crm", "status": "active"}),
                                            encoding="utf-8")
    (root / "config.yaml").write_text(config, encoding="utf-8")
    return root


def test_task_contracts_build_with_hand_truth_and_score_each_agent(tmp_path):
    domain = write_task_domain(tmp_path / "tasks")
    runner = CliRunner()
    result = runner.invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "suite")])
    assert result.exit_code == 0, result.output
    truth = {t["question_id"]: t for t in rows(tmp_path / "suite" / "truth.jsonl")}
    contracts = rows(tmp_path / "suite" / "contracts.jsonl")
    by_name = {c["name"]: truth[c["question_id"]] for c in contracts}
    assert by_name["refund_only_paid_invoices"]["decision"] is True        # paid and active: both pass
    assert by_name["no_refund_for_disputed"]["decision"] is False          # expected_action
    assert [(p["artifact"], p["field"], p["value"]) for p in by_name["no_refund_for_disputed"]["preconditions"]] == [
        ("INV-8", "state", "disputed"), ("RISK-8", "score", 91)]
    assert all(c["horizon"].startswith("not applicable") for c in contracts)  # the corpus carries no time
    assert all("value" not in json.dumps(c["preconditions"]) for c in contracts)   # the truth stays apart
    scores = {}
    for agent in ("oracle", "skip-precondition", "wrong-field"):
        run, out = tmp_path / f"run-{agent}", tmp_path / f"score-{agent}"
        assert runner.invoke(cli, ["run-agent", "--suite", str(tmp_path / "suite"), "--agent", agent, "--out",
                                   str(run)]).exit_code == 0
        result = runner.invoke(cli, ["score", "groundeval", "--suite", str(tmp_path / "suite"), "--answers", str(run),
                                     "--out", str(out)])
        assert result.exit_code == 0, result.output
        scores[agent] = {r.question_id: r for r in load_scores(out / "questions.jsonl")}
    # a task line is a QuestionScore: S_answer is S_decision, S_traj is S_verify
    assert all(r.s_adj == 1.0 for r in scores["oracle"].values())
    for qid, r in scores["skip-precondition"].items():      # right decision, one of two checks never read
        assert r.s_answer == 1.0 and r.s_traj == 0.5 and r.s_adj == 0.75
    paid = next(c["question_id"] for c in contracts if c["name"] == "refund_only_paid_invoices")
    # it read INV-7's amount for "state" (C-3 has no other field, so that check holds): wrong decision, half verified
    wrong = scores["wrong-field"][paid]
    assert (wrong.s_answer, wrong.s_traj, wrong.s_adj) == (0.0, 0.5, 0.25)
    assert wrong.s_adj < min(r.s_adj for r in scores["skip-precondition"].values())
    for folder in (tmp_path / "run-wrong-field", tmp_path / "score-wrong-field"):    # a task run and its scores
        shown = runner.invoke(cli, ["view", str(folder), "--out", str(tmp_path / f"{folder.name}.html")])
        assert shown.exit_code == 0, shown.output
        assert f'"id":"{paid}:wrong-field:tool"' in (tmp_path / f"{folder.name}.html").read_text()


def test_task_contracts_in_context_mode_score_each_agent_as_in_tool_mode(tmp_path):
    from judges.groundeval.task_track import score_task

    config = TASK_CONFIG.replace("roles:\n", "roles:\n  hr: {subsystems: [people]}\n")
    domain = write_task_domain(tmp_path / "tasks", config)
    (domain / "data" / "people.json").write_text(json.dumps({"id": "EMP-1", "subsystem": "people", "salary": 9}),
                                                 encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "suite")]
                         ).exit_code == 0
    contracts = {c["name"]: c for c in rows(tmp_path / "suite" / "contracts.jsonl")}
    scores = {}
    for agent in ("oracle", "skip-precondition", "wrong-field"):
        run, out = tmp_path / f"run-{agent}", tmp_path / f"score-{agent}"
        result = runner.invoke(cli, ["run-agent", "--suite", str(tmp_path / "suite"), "--agent", agent, "--mode",
                                     "context", "--out", str(run)])
        assert result.exit_code == 0 and "context mode" in result.output, result.output
        contexts = {c["question_id"]: c["ids"] for c in rows(run / "contexts.jsonl")}
        # every record the actor may read: the fixture tool's, the task's named one, the rest by id; never EMP-1
        assert contexts[contracts["refund_only_paid_invoices"]["question_id"]] == ["INV-7", "C-3", "INV-8", "RISK-8"]
        assert contexts[contracts["no_refund_for_disputed"]["question_id"]] == ["RISK-8", "INV-8", "C-3", "INV-7"]
        answers = rows(run / "answers.jsonl")
        assert all(a["mode"] == "context" for a in answers)
        assert all(not any(call["gates"].values()) for a in answers for call in a["calls"])
        result = runner.invoke(cli, ["score", "groundeval", "--suite", str(tmp_path / "suite"), "--answers", str(run),
                                     "--out", str(out)])
        assert result.exit_code == 0, result.output
        scores[agent] = {r.question_id: r for r in load_scores(out / "questions.jsonl")}
    assert all(r.s_adj == 1.0 and r.mode == "context" for r in scores["oracle"].values())
    for r in scores["skip-precondition"].values():          # in its context, but never cited: not verified
        assert (r.s_answer, r.s_traj, r.s_adj) == (1.0, 0.5, 0.75)      # S_decision, S_verify, S_adj
    paid = contracts["refund_only_paid_invoices"]
    wrong = scores["wrong-field"][paid["question_id"]]
    assert (wrong.s_answer, wrong.s_traj, wrong.s_adj) == (0.0, 0.5, 0.25)
    # the scorer rebuilds the context: citing a record the actor may not read is a violation, whatever the calls say
    truth = next(t for t in rows(tmp_path / "suite" / "truth.jsonl") if t["question_id"] == paid["question_id"])
    corpus = {r["id"]: r for r in rows(tmp_path / "suite" / "corpus.jsonl")}
    answer = {"should_refund": True, "preconditions_verified": [
        {"check": "invoice_paid", "facts": {"state": "paid"}, "evidence": ["INV-7", "EMP-1"]},
        {"check": "customer_active", "facts": {"status": "active"}, "evidence": ["C-3"]}]}
    forged = score_task(paid, truth, answer, [], corpus, budget=24_000)
    assert forged.v == round(1 / 7, 6) and forged.s_verify == 1.0   # 4 context reads + 3 citations, one forbidden
    tight = score_task(paid, truth, {**answer, "preconditions_verified": answer["preconditions_verified"][:1] + [
        {"check": "customer_active", "facts": {"status": "active"}, "evidence": ["C-3"]}]}, [], corpus, budget=20)
    assert tight.s_verify == 0.0          # a budget too small for any record: nothing was in the context


def test_a_task_domain_record_file_that_is_not_json_names_its_line(tmp_path):
    domain = write_task_domain(tmp_path / "tasks")
    (domain / "data" / "crm.json").write_text('[\n{"id": "C-3", "subsystem": "crm"},\n{"id": ]\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 2 and not (tmp_path / "s").exists()
    assert result.output == f"error: {domain / 'data' / 'crm.json'}:3: invalid JSON (Expecting value)\n"


@pytest.mark.parametrize("old, new, needle", [
    ("ground_truth_field: INV-7.state", "ground_truth_field: INV-7.status",
     "task_contracts[0].preconditions[0].ground_truth_field: artifact 'INV-7' has no field 'status'"),
    ("decision_field: should_refund", "decision_field: should_refund\n    budget: 3",
     "task_contracts[0].budget: unknown key"),
])
def test_malformed_task_contracts_stop_with_one_line(tmp_path, old, new, needle):
    assert old in TASK_CONFIG
    domain = write_task_domain(tmp_path / "tasks", TASK_CONFIG.replace(old, new, 1))
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 2 and needle in result.output, result.output
    assert not (tmp_path / "s").exists()


def test_upstream_main_config_keys_read_provider_recorded_without_secret_and_decision_defaulted(tmp_path):
    """Upstream main's provider keys and review block are read (not refused); a contract without expected_action
    and without `expected` values gets the documented default, all preconditions passing (true), with a note."""
    config = TASK_CONFIG.replace("    expected_action: false\n", "") + (
        "provider: openai\nmodel: gpt-x\nbase_url: http://127.0.0.1:9/v1\napi_key: sk-secret\ntemperature: 0.0\n"
        "max_tokens: 1024\ngroundeval: {generated_from_observation: true, reviewed: true}\n")
    domain = write_task_domain(tmp_path / "tasks", config)
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert "task_contracts[1]: note: expected_action not given: the decision is true" in result.stderr
    suite = json.loads((tmp_path / "s" / "suite.json").read_text())
    assert suite["provider"] == {"base_url": "http://127.0.0.1:9/v1", "max_tokens": 1024, "model": "gpt-x",
                                 "provider": "openai", "temperature": 0.0}
    assert "sk-secret" not in "".join(p.read_text() for p in (tmp_path / "s").glob("*.json*"))
    assert [t["decision"] for t in rows(tmp_path / "s" / "truth.jsonl")] == [True, True]
    draft = write_task_domain(tmp_path / "draft", config.replace("reviewed: true", "reviewed: false"))
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(draft), "--out", str(tmp_path / "d")])
    assert result.exit_code == 2 and "groundeval.reviewed: a config drafted from an observed run" in result.output


def test_task_answers_in_upstream_keys_score_as_orgbench_keys_and_unknown_keys_are_refused(tmp_path):
    """Upstream main's scorer reads facts_found / evidence_artifacts (its docs show facts / evidence): both score
    alike; a key neither knows scores 0 unread, named in questions.jsonl and on stderr — never a silent 0."""
    from judges.groundeval.task_track import score_task

    domain = write_task_domain(tmp_path / "tasks")
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")]
                         ).exit_code == 0
    paid = next(c for c in rows(tmp_path / "s" / "contracts.jsonl") if c["name"] == "refund_only_paid_invoices")
    assert "facts_found" in paid["answer_schema"]["preconditions_verified"]
    truth = next(t for t in rows(tmp_path / "s" / "truth.jsonl") if t["question_id"] == paid["question_id"])
    corpus = {r["id"]: r for r in rows(tmp_path / "s" / "corpus.jsonl")}
    fetch = [{"tool": "fetch_artifact", "args": {"artifact_id": a}} for a in ("INV-7", "C-3")]
    ours = {"should_refund": True, "preconditions_verified": [
        {"check": "invoice_paid", "passed": True, "facts": {"state": "paid"}, "evidence": ["INV-7"]},
        {"check": "customer_active", "passed": True, "facts": {"status": "active"}, "evidence": ["C-3"]}]}
    upstream = {"should_refund": True, "all_preconditions_pass": True, "should_act": True, "reasoning": "both hold",
                "evidence_artifacts": ["INV-7", "C-3"], "preconditions_verified": [
                    {"check": "invoice_paid", "passed": True, "facts_found": {"state": "paid"},
                     "evidence_artifacts": ["INV-7"]},
                    {"check": "customer_active", "passed": True, "facts_found": {"status": "active"},
                     "evidence_artifacts": ["C-3"]}]}
    assert score_task(paid, truth, ours, fetch, corpus).s_adj == 1.0
    assert score_task(paid, truth, upstream, fetch, corpus).s_adj == 1.0
    typo = json.loads(json.dumps(upstream).replace('"facts_found"', '"facts_seen"', 1))
    refused = score_task(paid, truth, typo, fetch, corpus)
    assert refused.s_adj == 0.0 and refused.malformed == (
        "answer malformed: preconditions_verified[0]: unknown key 'facts_seen' (known: check, passed, facts_found "
        "or facts, evidence_artifacts or evidence)")
    both = json.loads(json.dumps(ours).replace('"evidence"', '"evidence_artifacts": ["INV-7"], "evidence"', 1))
    assert "repeats 'evidence'" in score_task(paid, truth, both, fetch, corpus).malformed
    extra = score_task(paid, truth, {**ours, "confidence": 0.9}, fetch, corpus)
    assert extra.malformed.startswith("answer malformed: unknown answer key(s) confidence")
    run = tmp_path / "answers.jsonl"
    run.write_text(json.dumps({"question_id": paid["question_id"], "agent": "typo", "answer": typo, "calls": fetch})
                   + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["score", "groundeval", "--suite", str(tmp_path / "s"), "--answers", str(run),
                                 "--out", str(tmp_path / "scores")])
    assert result.exit_code == 0, result.output
    assert f"typo: 2 answer(s) scored 0 unread, e.g. {paid['question_id']}: answer malformed: " \
           "preconditions_verified[0]: unknown key 'facts_seen'" in result.stderr


def test_per_actor_and_per_event_type_caps_difficulty_ratios_and_the_event_log_policy(tmp_path):
    from collections import Counter

    from benchmark_builders.groundeval.importer import import_domain

    config = CONFIG.replace("output_dir: ./ignored", "output_dir: ./ignored\nmax_questions_per_actor: 5\n"
                            "max_questions_per_event_type: 3\neasy_ratio: 0.25\nmedium_ratio: 0.5\nhard_ratio: 0.75\n"
                            "use_event_log_policy: false")
    domain = write_shapes_domain(tmp_path / "d", config)
    world, _, settings = import_domain(domain)
    assert settings.hard_share == {"perspective": 0.75, "counterfactual": 0.75, "silence": 0.75}  # .75 / (.25 + .75)
    assert all(v.acl.participants == () for v in world.artifacts)      # roles alone decide
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    contracts = rows(tmp_path / "s" / "contracts.jsonl")
    assert max(Counter(c["actor"] for c in contracts).values()) <= 5
    events = {e["id"]: e["type"] for e in map(json.loads, (domain / "log.jsonl").read_text().splitlines())}
    subject_type = [events[c["subject"]["entity"]["id"]] if c["track"] == "perspective" else
                    events[c["subject"]["effect_event_id"]] if c["track"] == "counterfactual" else
                    events[c["subject"]["trigger_event_id"]] for c in contracts]
    assert max(Counter(subject_type).values()) <= 3


def test_task_gates_come_from_roles_and_the_horizon_only_where_artifacts_carry_time(tmp_path):
    from judges.groundeval.task_track import score_task

    config = TASK_CONFIG.replace("    decision_field: should_refund", "    decision_field: should_refund\n"
                                 "    as_of: 2026-05-01T00:00:00+02:00")
    domain = write_task_domain(tmp_path / "tasks", config)
    (domain / "data" / "ledger.json").write_text(json.dumps([
        {"id": "INV-7", "subsystem": "ledger", "state": "paid", "timestamp": "2026-04-30T23:30:00Z"},
        {"id": "INV-8", "subsystem": "ledger", "state": "disputed", "timestamp": "2026-04-01T00:00:00Z"}]),
        encoding="utf-8")
    (domain / "data" / "crm.json").write_text(json.dumps(
        {"id": "C-3", "subsystem": "crm", "status": "active", "timestamp": "2026-04-01T00:00:00Z"}), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    contracts = rows(tmp_path / "s" / "contracts.jsonl")
    timed = next(c for c in contracts if c["name"] == "refund_only_paid_invoices")
    assert timed["horizon"] == "applies" and timed["as_of"] == "2026-04-30T22:00:00Z"
    assert next(c for c in contracts if c["name"] == "no_refund_for_disputed")["horizon"].startswith("not applicable")
    truth = next(t for t in rows(tmp_path / "s" / "truth.jsonl") if t["question_id"] == timed["question_id"])
    corpus = {r["id"]: r for r in rows(tmp_path / "s" / "corpus.jsonl")}
    answer = {"should_refund": True, "preconditions_verified": [
        {"check": "invoice_paid", "facts": {"state": "paid"}, "evidence": ["INV-7"]},
        {"check": "customer_active", "facts": {"status": "active"}, "evidence": ["C-3"]}]}
    fetch = [{"tool": "fetch_artifact", "args": {"artifact_id": a}} for a in ("INV-7", "C-3")]
    late = score_task(timed, truth, answer, fetch, corpus)          # INV-7 was written 30 min after as_of
    assert late.v == 0.5 and late.verified == {"invoice_paid": False, "customer_active": True}
    acted_first = score_task(timed, truth, answer, [{"tool": "issue_refund", "args": {}}] + fetch, corpus)
    assert acted_first.s_verify == 0.0            # nothing read before the decision was acted on
