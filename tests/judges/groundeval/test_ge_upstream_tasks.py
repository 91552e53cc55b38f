"""Task contracts in upstream GroundEval main's schema: exported, loaded and scored by upstream's own code.

The first test always runs (it checks the export against the keys upstream main's ``TaskContract.from_dict``,
``TaskPrecondition.from_dict``, ``AllowedTool.from_dict`` and ``config_schema`` read, written here from reading
them). The others run upstream's code on a copy named by GROUNDEVAL_UPSTREAM (tests/upstream_groundeval.py) and
skip without it — in CI too, which reaches only package registries.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from orgbench.cli import cli
from tests.benchmark_builders.groundeval.test_ge_domains import TASK_CONFIG, write_task_domain
from tests.upstream_groundeval import MAIN, require_modules, run_upstream, run_upstream_json, upstream_tree

#: upstream main's config_schema.KNOWN_TOP_LEVEL_KEYS
MAIN_TOP_KEYS = {"agent", "output_dir", "artifacts_dir", "actors", "roles", "provider", "provider_path", "model",
                 "api_key", "api_key_env", "base_url", "temperature", "max_tokens", "max_retries", "task_contracts",
                 "seed", "groundeval"}
#: what TaskContract.from_dict reads (``as_of`` is orgbench's, ignored there)
MAIN_CONTRACT_KEYS = {"name", "task_description", "preconditions", "valid_action", "decision_field", "artifacts_dir",
                      "actor", "role", "actors", "roles", "inputs", "allowed_tools", "tool_expectations",
                      "expected_action", "action_tool", "required_agents", "required_handoffs",
                      "required_agent_tool_expectations"}
MAIN_PRECONDITION_KEYS = {"check", "description", "required_facts", "ground_truth_field", "required_tool",
                          "expected_field"}
MAIN_TOOL_KEYS = {"entity_arg", "returns", "action", "artifact_id", "subsystem", "timestamp"}
AGENTS = ("oracle", "skip-precondition", "wrong-field")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _suite_and_export(tmp_path: Path, domain: Path) -> tuple[Path, Path]:
    runner = CliRunner()
    built = runner.invoke(cli, ["build", "groundeval", "--domain", str(domain), "--out", str(tmp_path / "suite")])
    assert built.exit_code == 0, built.output
    made = runner.invoke(cli, ["export", str(tmp_path / "suite"), "--format", "groundeval-tasks",
                               "--out", str(tmp_path / "upstream-format")])
    assert made.exit_code == 0, made.output
    return tmp_path / "suite", tmp_path / "upstream-format"


def _runs(tmp_path: Path, suite: Path) -> dict[str, tuple[Path, dict]]:
    """Each built-in task agent's run and orgbench's summary of it."""
    runner, out = CliRunner(), {}
    for agent in AGENTS:
        run, scores = tmp_path / f"run-{agent}", tmp_path / f"scores-{agent}"
        assert runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", agent, "--out", str(run)]
                             ).exit_code == 0
        result = runner.invoke(cli, ["score", "groundeval", "--suite", str(suite), "--answers", str(run),
                                     "--out", str(scores)])
        assert result.exit_code == 0, result.output
        out[agent] = (run, json.loads((scores / "summary.json").read_text())["agents"][agent])
    return out


def test_a_task_suite_exports_in_upstream_mains_schema_and_builds_back_the_same(tmp_path):
    suite, export = _suite_and_export(tmp_path, write_task_domain(tmp_path / "tasks"))
    config = yaml.safe_load((export / "config.yaml").read_text(encoding="utf-8"))
    assert set(config) <= MAIN_TOP_KEYS
    for contract in config["task_contracts"]:
        assert set(contract) <= MAIN_CONTRACT_KEYS | {"as_of"} and isinstance(contract["expected_action"], bool)
        for pc in contract["preconditions"]:
            assert set(pc) <= MAIN_PRECONDITION_KEYS
            assert "." in pc.get("ground_truth_field", "") or (pc["required_tool"] in contract["allowed_tools"]
                                                                 and pc["expected_field"])
        for tool in contract.get("allowed_tools", {}).values():
            assert set(tool) <= MAIN_TOOL_KEYS and isinstance(tool["returns"], dict)
    data = json.loads((export / "data" / "artifacts.json").read_text(encoding="utf-8"))
    assert [a["id"] for a in data] == ["C-3", "INV-7", "INV-8"] and all(isinstance(a["subsystem"], str) for a in data)
    again = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(export), "--out", str(tmp_path / "again")])
    assert again.exit_code == 0, again.output
    assert _rows(tmp_path / "again" / "contracts.jsonl") == _rows(suite / "contracts.jsonl")
    strip = [{**t, "preconditions": [{k: v for k, v in p.items() if k != "passes"} for p in t["preconditions"]]}
             for t in _rows(suite / "truth.jsonl")]
    assert _rows(tmp_path / "again" / "truth.jsonl") == strip       # `expected` is not upstream's; the decision is



def test_the_provider_keys_a_suite_was_built_with_are_written_back_without_the_key(tmp_path):
    """Upstream main's ``task`` runs the model its config's provider keys name; the export writes back those the
    domain gave (suite.json records them), never ``api_key``."""
    keys = "provider: openai\nmodel: gpt-4o-mini\nbase_url: http://127.0.0.1:9/v1\napi_key: sk-secret\ntemperature: 0.0\n"
    _, export = _suite_and_export(tmp_path, write_task_domain(tmp_path / "tasks", TASK_CONFIG + keys))
    text = (export / "config.yaml").read_text(encoding="utf-8")
    config = yaml.safe_load(text)
    assert {k: config[k] for k in set(config) - {"artifacts_dir", "actors", "roles", "task_contracts"}} == {
        "provider": "openai", "model": "gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1", "temperature": 0.0}
    assert "sk-secret" not in text and set(config) <= MAIN_TOP_KEYS

#: Upstream main's own loader and scorer on a task-contract config and one agent's answers.jsonl: the config is
#: validated (its config_schema), each contract read by TaskContract.from_dict and scored by score_task_run over
#: upstream's own corpus (FixtureBackend for a fixture contract, else FileCorpusAdapter) with the recorded calls.
SCORE_WITH_MAIN = '''
import json, sys
from pathlib import Path
import yaml
from groundeval.adapters import FileCorpusAdapter, YamlAccessPolicy
from groundeval.config_schema import validate_config
from groundeval.core import AgentTrajectory, FixtureBackend, TaskContract, ToolCall
from groundeval.scorers import score_task_run
domain, answers = Path(sys.argv[1]), Path(sys.argv[2])
cfg = yaml.safe_load((domain / "config.yaml").read_text(encoding="utf-8"))
validate_config(cfg, command="task")
policy = YamlAccessPolicy({"actors": cfg["actors"], "roles": cfg["roles"]})
files = FileCorpusAdapter(domain / cfg.get("artifacts_dir", "data"))
rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines() if line.strip()]
out = []
for raw, row in zip(cfg["task_contracts"], rows):
    contract = TaskContract.from_dict(raw)
    corpus = FixtureBackend(contract.allowed_tools) if contract.is_fixture_mode else files
    actor = contract.actor or next(iter(cfg["actors"]))
    calls = [ToolCall(c["tool"], c["args"], c["returned_ids"], None, c["gates"]["horizon"], False,
                      c["gates"]["subsystem"], not c["returned_ids"], 0.0) for c in row["calls"]]
    trajectory = AgentTrajectory(task_id=contract.name, tool_calls=calls, final_answer=row["answer"])
    result = score_task_run(trajectory, row["answer"], contract, corpus, policy, actor, cfg["actors"][actor])
    out.append({"name": contract.name, "overall": result.overall_score, "cf_answer": result.meta["cf_answer"],
                "supported": [p.get("evidence_supported") for p in result.precondition_results]})
print(json.dumps(out))
'''


def _upstream_scores(tree: Path, domain: Path, runs: dict[str, tuple[Path, dict]], cwd: Path) -> dict[str, list]:
    return {agent: run_upstream_json(tree, SCORE_WITH_MAIN, str(domain), str(run / "answers.jsonl"), cwd=cwd)
            for agent, (run, _) in runs.items()}


def test_upstream_main_loads_our_task_suite_and_its_scorer_supports_our_oracle(tmp_path):
    """The export of a suite whose contracts each read one kind of record (the corpus, or fixture tools: upstream
    reads one or the other per contract); upstream's Counterfactual answer score — the share of preconditions
    its scorer finds supported by the cited evidence — is 1.0 for orgbench's oracle on every contract."""
    tree = upstream_tree(MAIN, tmp_path / "upstream")
    config = TASK_CONFIG.replace("      - {check: not_disputed, required_facts: [state], ground_truth_field: INV-8.state}\n",
                                 "      - {check: band_high, required_facts: [band], required_tool: risk_lookup, "
                                 "expected_field: band}\n")
    suite, export = _suite_and_export(tmp_path, write_task_domain(tmp_path / "tasks", config))
    runs = _runs(tmp_path, suite)
    upstream = _upstream_scores(tree, export, runs, tmp_path)
    assert [(r["name"], r["cf_answer"], r["supported"]) for r in upstream["oracle"]] == [
        ("refund_only_paid_invoices", 1.0, [True, True]), ("no_refund_for_disputed", 1.0, [True, True])]
    assert runs["oracle"][1]["s_adj"] == 1.0


def test_upstream_mains_validate_cli_accepts_the_export(tmp_path):
    tree = upstream_tree(MAIN, tmp_path / "upstream")
    require_modules("dotenv")
    _, export = _suite_and_export(tmp_path, write_task_domain(tmp_path / "tasks"))
    checked = run_upstream(tree, ["-m", "groundeval", "validate", "--config", "config.yaml"], export)
    assert checked.returncode == 0 and "Validation complete. No errors." in checked.stderr, checked.stderr[-2000:]


def _ranking(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda agent: -scores[agent])


def test_the_two_scorers_rankings_on_our_fixture_and_on_upstreams_demo(tmp_path):
    """Upstream main never scores the decision, credits its Silence answer for any facts listed and its
    Perspective answer for any evidence inside the role. On orgbench's fixture ``wrong-field`` lists every check
    (one value right) and decides wrong; ``skip-precondition`` leaves a check out and decides right: upstream ranks
    wrong-field first, orgbench skip-precondition. On upstream's own demo every value wrong-field reports is
    wrong (the record's other fields differ), so both rank oracle > skip-precondition > wrong-field. An openai:
    agent runs the demo too (search, fetch, submit) and both scorers give it full marks."""
    tree = upstream_tree(MAIN, tmp_path / "upstream")
    suite, export = _suite_and_export(tmp_path / "fixture", write_task_domain(tmp_path / "fixture" / "tasks"))
    runs = _runs(tmp_path / "fixture", suite)
    upstream = _upstream_scores(tree, export, runs, tmp_path)
    theirs = {a: round(sum(r["overall"] for r in rows) / len(rows), 4) for a, rows in upstream.items()}
    ours = {a: summary["s_adj"] for a, (_, summary) in runs.items()}
    print(f"fixture: orgbench S_adj {ours}; upstream overall {theirs}")
    assert _ranking(ours) == ["oracle", "skip-precondition", "wrong-field"]
    assert _ranking(theirs) == ["oracle", "wrong-field", "skip-precondition"]

    demo = tmp_path / "demo"
    demo.mkdir()
    shutil.copy(tree / "config.yaml", demo / "config.yaml")           # upstream's demo, unchanged
    shutil.copytree(tree / "data", demo / "data")
    built = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(demo), "--out", str(tmp_path / "ds")])
    assert built.exit_code == 0, built.output
    assert "expected_action not given: the decision is true" in built.stderr
    demo_runs = _runs(tmp_path / "demo-runs", tmp_path / "ds")
    demo_theirs = {a: rows[0]["overall"] for a, rows in _upstream_scores(tree, demo, demo_runs, tmp_path).items()}
    demo_ours = {a: summary["s_adj"] for a, (_, summary) in demo_runs.items()}
    print(f"upstream demo: orgbench S_adj {demo_ours}; upstream overall {demo_theirs}")
    assert _ranking(demo_ours) == _ranking(demo_theirs) == ["oracle", "skip-precondition", "wrong-field"]
    model = _model_on_demo(tmp_path, tree, demo, tmp_path / "ds")
    assert model == {"orgbench S_adj": 1.0, "upstream cf_answer": 1.0}
    doc = " ".join((Path(__file__).resolve().parents[3] / "docs" / "groundeval.md").read_text(encoding="utf-8").split())
    for name, scores in (("fixture", ours), ("fixture", theirs), ("demo", demo_ours), ("demo", demo_theirs)):
        assert " / ".join(f"{scores[a]:.3f}" for a in AGENTS) in doc, (name, scores)


def _demo_model(body: dict) -> dict:
    """A scripted model on upstream's demo: searches the customer id its task names, reads the top hit, and reports
    each precondition's required facts from it (upstream main's answer keys)."""
    import re

    contract = json.loads(body["messages"][1]["content"])
    done = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]

    def call(name: str, arguments: dict) -> dict:
        return {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{len(done)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}]}

    if not done:
        return call("search_artifacts", {"query": re.search(r"CUST-[0-9]+", contract["task"]).group(0)})
    if len(done) == 1:
        return call("fetch_artifact", {"artifact_id": done[0]["results"][0]["id"]})
    record = done[1]["artifact"]
    checks = [{"check": p["check"], "passed": True, "facts_found": {f: record["fields"][f] for f in p["required_facts"]},
               "evidence_artifacts": [record["id"]]} for p in contract["preconditions"]]
    return call("submit_answer", {"answer": {"preconditions_verified": checks, "all_preconditions_pass": True,
                                             "should_act": True, "reasoning": "the CRM record holds each fact"}})


def _model_on_demo(tmp_path: Path, tree: Path, demo: Path, suite: Path) -> dict[str, float]:
    """An ``openai:`` agent (against the in-repo OpenAI-compatible test server) on upstream's demo: run-agent, then
    orgbench's score and upstream's Counterfactual answer score of the same answers."""
    from tests.judges.chat_server import ChatServer

    runner = CliRunner()
    with ChatServer(answer=_demo_model) as server:
        ran = runner.invoke(cli, ["run-agent", "--suite", str(suite), "--agent", "openai:scripted", "--base-url",
                                  server.base_url, "--out", str(tmp_path / "model-run")])
    assert ran.exit_code == 0, ran.output
    [row] = _rows(tmp_path / "model-run" / "answers.jsonl")
    assert [c["tool"] for c in row["calls"]] == ["search_artifacts", "fetch_artifact"]
    assert row["calls"][0]["returned_ids"][0] == "crm_account"
    scored = runner.invoke(cli, ["score", "groundeval", "--suite", str(suite), "--answers", str(tmp_path / "model-run"),
                                 "--out", str(tmp_path / "model-scores")])
    assert scored.exit_code == 0, scored.output
    ours = json.loads((tmp_path / "model-scores" / "summary.json").read_text())["agents"]["openai:scripted"]["s_adj"]
    [theirs] = run_upstream_json(tree, SCORE_WITH_MAIN, str(demo), str(tmp_path / "model-run" / "answers.jsonl"),
                                 cwd=tmp_path)
    return {"orgbench S_adj": ours, "upstream cf_answer": theirs["cf_answer"]}


def _upstream_prompt_model(body: dict) -> dict:
    """A scripted model answering upstream main's own prompt (its ``task`` CLI's OpenAIProvider): searches the crm
    subsystem for the customer id the task names, fetches the top hit, and reports each check its question lists
    with the record's facts (upstream's answer keys), deciding to act."""
    import re

    question = body["messages"][1]["content"]
    done = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]

    def call(name: str, arguments: dict) -> dict:
        return {"role": "assistant", "content": None, "tool_calls": [{"id": f"u{len(done)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}]}

    if not done:
        return call("search_artifacts", {"query": re.search(r"CUST-[0-9]+", question).group(0), "artifact_type": "crm"})
    if len(done) == 1:
        return call("fetch_artifact", {"artifact_id": done[0][0]["id"]})
    record = done[1]
    facts = {k: v for k, v in record.items() if k not in ("id", "subsystem")}
    checks = [{"check": name, "passed": True, "facts_found": facts, "evidence_artifacts": [record["id"]]}
              for name in re.findall(r"^  - ([a-z_]+): ", question, flags=re.M)]
    return call("submit_answer", {"answer": {"preconditions_verified": checks, "should_act": True,
                                             "reasoning": "the CRM record holds each fact"}})


@pytest.mark.slow
def test_upstream_mains_task_cli_runs_a_model_on_our_export_of_its_demo(tmp_path):
    """Upstream's demo, its provider keys filled in as its README asks (provider openai, a model, base_url: the
    in-repo OpenAI-compatible server), built into an orgbench suite and exported back; upstream main's own
    ``groundeval task --config config.yaml`` runs its OpenAIProvider on the export — the provider keys are the ones
    orgbench wrote back — against the server and scores with its own scorer: every precondition supported."""
    from tests.judges.chat_server import ChatServer

    tree = upstream_tree(MAIN, tmp_path / "upstream")
    require_modules("dotenv", "openai", "json_repair", "jsonschema")
    with ChatServer(answer=_upstream_prompt_model) as server:
        demo = tmp_path / "demo"
        demo.mkdir()
        config = (tree / "config.yaml").read_text(encoding="utf-8")
        for placeholder, value in (("PROVIDER", "openai"), ("MODEL", "scripted"), ("BASE_URL", server.base_url)):
            config = config.replace(f": {placeholder}\n", f": {value}\n")
        (demo / "config.yaml").write_text(config, encoding="utf-8")
        shutil.copytree(tree / "data", demo / "data")
        suite, export = _suite_and_export(tmp_path, demo)
        written = yaml.safe_load((export / "config.yaml").read_text(encoding="utf-8"))
        assert {k: written[k] for k in ("provider", "model", "base_url")} == {
            "provider": "openai", "model": "scripted", "base_url": server.base_url}
        ran = run_upstream(tree, ["-m", "groundeval", "task", "--config", "config.yaml", "--model", "scripted"],
                           export, {"OPENAI_API_KEY": "not-needed"})         # --model names its output file only
    assert ran.returncode == 0, ran.stderr[-3000:]
    result = json.loads((export / "eval_output" / "task_results_scripted.json").read_text(encoding="utf-8"))
    summary = result["summary"]
    [task] = summary["per_task"]
    overall = next(line for line in ran.stderr.splitlines() if "Overall - " in line)
    print(f"upstream main's task CLI on the export: {overall.split(' - ', 1)[1]}")
    assert result["meta"] == {"model": "scripted", "n_tasks": 1, "evaluation_mode": "task_contract"}
    assert summary["counterfactual_score"] == 1.0 and summary["total_violations"] == 0
    assert [p["evidence_supported"] for p in task["precondition_results"]] == [True, True, True]
    doc = " ".join((Path(__file__).resolve().parents[3] / "docs" / "groundeval.md").read_text(encoding="utf-8").split())
    assert (f"counterfactual {summary['counterfactual_score']:.3f} (all three preconditions supported), "
            f"{summary['total_violations']} violations") in doc
