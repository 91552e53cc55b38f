"""The GroundEval export in upstream's own format: the keys and fields upstream's code reads (always checked), and
a round trip through upstream's own ``generate`` CLI whose links and absences agree with orgbench's golds (run when
a copy of upstream is named, see tests/upstream_groundeval.py)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tests.upstream_groundeval import PREPRINT, run_upstream, run_upstream_json, upstream_tree

#: Upstream preprint's ``config_schema.KNOWN_TOP_LEVEL_KEYS``: ``generate`` refuses any other top-level key.
PREPRINT_TOP_KEYS = {
    "output_dir", "artifacts_dir", "use_event_log_policy", "actors", "roles", "provider", "provider_path", "model",
    "api_key", "api_key_env", "base_url", "temperature", "max_tokens", "max_retries", "llm_question_prose",
    "llm_model", "perspective", "perspective_actors", "causal_links", "silence_pairs", "easy_ratio", "medium_ratio",
    "hard_ratio", "max_perspective_questions", "max_counterfactual_questions", "max_silence_questions",
    "max_questions_per_actor", "max_questions_per_event_type", "max_links_per_spec", "trivial_search_space", "seed",
}


def test_export_config_holds_only_what_upstream_generate_reads(exported):
    """Upstream's ``CausalLinkSpec`` / ``SilencePairSpec.from_dict`` index these keys; every join is read as
    ``CausalJoinSpec(cause=…, effect=…)`` — a silence pair's too."""
    config = yaml.safe_load((exported("groundeval") / "config.yaml").read_text(encoding="utf-8"))
    assert set(config) <= PREPRINT_TOP_KEYS and "events_file" not in config
    assert isinstance(config["seed"], int)
    for spec in config["causal_links"]:
        assert {"name", "cause_event_type", "effect_event_type", "premise_template", "outcome_template"} <= set(spec)
    for spec in config["silence_pairs"]:
        assert {"trigger_event_type", "response_event_type"} <= set(spec)
        for item in spec["search_space"]:
            assert item["subsystem"] and (item.get("id_template") or item.get("query_template"))
    for spec in config["causal_links"] + config["silence_pairs"]:
        assert spec["join"] and all(set(join) == {"cause", "effect"} for join in spec["join"])
    for role in config["roles"].values():
        assert set(role) <= {"subsystems", "broadcast_event_types"}
    assert set(config["actors"].values()) <= set(config["roles"])


def test_export_events_and_artifacts_have_the_fields_upstream_loaders_read(exported):
    """``LogEvent.from_dict`` (id, type, timestamp, actors, artifact_ids, facts; ``datetime.fromisoformat``),
    ``FileCorpusAdapter`` (preprint and main: a JSON object per file whose ``id`` is the file's stem, subsystem =
    its folder; ``timestamp`` compared as a string, so one zone-suffixed format throughout)."""
    out = exported("groundeval")
    for line in (out / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        assert set(event) == {"id", "type", "timestamp", "actors", "artifact_ids", "facts"}
        assert datetime.fromisoformat(event["timestamp"]).tzinfo is not None and event["timestamp"].endswith("Z")
        assert all(isinstance(ids, list) for ids in event["artifact_ids"].values())
    for path in sorted((out / "artifacts").glob("*/*.json")):
        artifact = json.loads(path.read_text(encoding="utf-8"))
        assert artifact["id"] == path.stem and artifact["subsystem"] == path.parent.name
        assert artifact["timestamp"].endswith("Z") and datetime.fromisoformat(artifact["timestamp"]).tzinfo


#: Upstream's own link indexer and absence builder over the whole log: its ``generate`` samples at most five links
#: per spec, this lifts the cap (a class attribute) so every orgbench question has an upstream verdict.
ALL_LINKS = '''
import json, sys
from pathlib import Path
import yaml
from groundeval.core import CausalLinkSpec, SilencePairSpec, load_events
from groundeval.question_gen import AbsenceCatalogBuilder, CausalLinkIndexer
root = Path(sys.argv[1])
cfg = yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8"))
events = load_events(root / "events.jsonl")
CausalLinkIndexer.MAX_LINKS_PER_SPEC = len(events) + 1
links = CausalLinkIndexer(events, [CausalLinkSpec.from_dict(d) for d in cfg["causal_links"]]).build()
absent, _ = AbsenceCatalogBuilder(events, [SilencePairSpec.from_dict(d) for d in cfg["silence_pairs"]]).build()
print(json.dumps({"links": [[k.cause_event_id, k.effect_event_id] for k in links],
                  "absent": [a.trigger_event_id for a in absent]}))
'''


def agreement(suite: Path, links: set[tuple[str, str]], absent: set[str], *, every_cause: bool) -> dict[str, list[int]]:
    """Per track, [shared items, items whose gold agrees with upstream]. A Counterfactual question is shared when
    upstream looked at its cause (every cause with ``every_cause``, else the causes it linked): causal ⇔ upstream
    linked that very effect. Every Silence question is shared (upstream scans every trigger): absence ⇔ the
    trigger is in its absence catalog."""
    contracts = {c["question_id"]: c for c in map(json.loads, (suite / "contracts.jsonl").open(encoding="utf-8"))}
    causes = {cause for cause, _ in links}
    counts = {"counterfactual": [0, 0], "silence": [0, 0]}
    for truth in map(json.loads, (suite / "truth.jsonl").open(encoding="utf-8")):
        gold = truth["gold"]
        if truth["track"] == "counterfactual" and (every_cause or gold["cause_event_id"] in causes):
            causal = gold["mechanism_direction"] == "cause_to_effect"
            counts["counterfactual"][0] += 1
            counts["counterfactual"][1] += causal == ((gold["cause_event_id"], gold["effect_event_id"]) in links)
        elif truth["track"] == "silence":
            trigger = contracts[truth["question_id"]]["subject"]["trigger_event_id"]
            counts["silence"][0] += 1
            counts["silence"][1] += (not gold["exists"]) == (trigger in absent)
    return counts


def round_trip(export: Path, tmp_path: Path) -> dict[str, dict[str, list[int]]]:
    """Upstream's ``generate`` on the export (exit 0, all three tracks), orgbench's suite built from the same
    export, and the agreement of their golds: of generate's own output, and of upstream's uncapped index."""
    from orgbench.cli import cli

    tree = upstream_tree(PREPRINT, tmp_path / "upstream")
    run = tmp_path / "run"
    run.mkdir()
    (run / "artifacts").symlink_to(export / "artifacts")        # its artifacts_dir is relative to the working dir
    done = run_upstream(tree, ["-m", "groundeval", "generate", "--config", str(export / "config.yaml"),
                               "--events", str(export / "events.jsonl")], run)
    assert done.returncode == 0, done.stderr[-3000:]
    generated = json.loads((run / "eval_output" / "eval_questions.json").read_text(encoding="utf-8"))
    assert set(generated["metadata"]["by_type"]) == {"PERSPECTIVE", "COUNTERFACTUAL", "SILENCE"}
    suite = tmp_path / "suite"
    built = CliRunner().invoke(cli, ["build", "groundeval", "--domain", str(export), "--out", str(suite)])
    assert built.exit_code == 0, built.output
    cli_links = {(k["cause_event_id"], k["effect_event_id"])
                 for k in json.loads((run / "eval_output" / "causal_links.json").read_text(encoding="utf-8"))}
    cli_absent = {a["trigger_event_id"]
                  for a in json.loads((run / "eval_output" / "absence_catalog.json").read_text(encoding="utf-8"))}
    index = run_upstream_json(tree, ALL_LINKS, str(export), cwd=run)
    assert isinstance(index, dict)
    return {"generate": agreement(suite, cli_links, cli_absent, every_cause=False),
            "index": agreement(suite, {(c, e) for c, e in index["links"]}, set(index["absent"]), every_cause=True)}


def _assert_agrees(counts: dict[str, dict[str, list[int]]], name: str) -> None:
    print(f"{name}: [shared, agreeing] per track: {counts}")
    for source in counts.values():
        for shared, agreeing in source.values():
            assert agreeing == shared
    assert counts["index"]["counterfactual"][0] > 0


def test_upstream_generate_loads_the_export_and_its_links_agree_with_the_golds(exported, tmp_path):
    """(The small world is ten days long: no incident gets a postmortem window, so only Counterfactual is shared.)"""
    _assert_agrees(round_trip(exported("groundeval"), tmp_path), "small world")


#: Upstream main keeps no event-log tracks (its config refuses causal_links); what it loads of the layout is the
#: corpus: its FileCorpusAdapter over artifacts/.
MAIN_CORPUS = '''
import json, sys
from groundeval.adapters import FileCorpusAdapter
corpus = FileCorpusAdapter(sys.argv[1])
ids = corpus.list_ids()
print(json.dumps({"ids": sorted(ids), "subsystems": sorted({corpus.subsystem_of(i) for i in ids}),
                  "titles": {i: corpus.fetch(i)["title"] for i in ids[:200]}}))
'''


def test_upstream_mains_corpus_loader_reads_every_artifact_of_the_export(exported, raw_artifacts, tmp_path):
    from tests.upstream_groundeval import MAIN

    tree = upstream_tree(MAIN, tmp_path / "upstream")
    out = exported("groundeval")
    read = run_upstream_json(tree, MAIN_CORPUS, str(out / "artifacts"), cwd=tmp_path)
    assert isinstance(read, dict)
    firsts = {r["artifact_id"]: r for r in raw_artifacts if r["version"] == 1}
    assert read["ids"] == sorted(firsts)
    assert read["subsystems"] == sorted(p.name for p in (out / "artifacts").iterdir())
    assert all(firsts[i]["title"] == title for i, title in read["titles"].items())


@pytest.mark.slow
def test_the_default_world_round_trips_through_upstream_generate(tmp_path):
    """The issue's figure: ``orgbench simulate`` (defaults) → ``export --format groundeval`` → upstream's
    ``generate``; every shared Counterfactual and Silence item agrees."""
    from orgbench.cli import cli

    upstream_tree(PREPRINT, tmp_path / "probe")                   # skip before the minute of simulating
    runner = CliRunner()
    assert runner.invoke(cli, ["simulate", "--out", str(tmp_path / "world")]).exit_code == 0
    made = runner.invoke(cli, ["export", str(tmp_path / "world"), "--format", "groundeval",
                               "--out", str(tmp_path / "export")])
    assert made.exit_code == 0, made.output
    counts = round_trip(tmp_path / "export", tmp_path)
    _assert_agrees(counts, "default world")
    assert counts["index"] == {"counterfactual": [30, 30], "silence": [24, 24]}
    assert counts["generate"] == {"counterfactual": [4, 4], "silence": [24, 24]}
    doc = " ".join((Path(__file__).resolve().parents[3] / "docs" / "exports.md").read_text(encoding="utf-8").split())
    cf, sil = counts["index"]["counterfactual"], counts["index"]["silence"]
    assert (f"Counterfactual {cf[1]} of {cf[0]} questions against upstream's uncapped link index "
            f"({counts['generate']['counterfactual'][1]} of {counts['generate']['counterfactual'][0]} whose cause"
            ) in doc and f"Silence {sil[1]} of {sil[0]} against its absence catalog" in doc
