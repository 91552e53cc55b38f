"""Hugging Face exports of a world and of CARGO, GroundEval (questions and task contracts) and trajectory suites,
read back with the real ``datasets`` package (offline, its cache in a temporary folder)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import yaml

from tests.orgbench.clitools import fails, ok

pytest.importorskip("pyarrow", reason="needs the export extra (pip install 'orgbench[export]')")
datasets = pytest.importorskip("datasets", reason="needs the hf extra (pip install 'orgbench[hf]')")

ROOT = Path(__file__).resolve().parents[3]
#: Fields that are truth or say how an item was made: never a column of an input config.
TRUTH_FIELDS = {"family", "family_name", "should_penalize", "perturbation", "variety", "case_state", "next_steps",
                "derived", "reference_case_id", "reference_golden_id", "retrieval_top1_correct", "should_abstain",
                "near_vocabulary", "gold", "required_evidence", "permitted_evidence", "required_search_space",
                "cause_evidence", "effect_evidence", "correct_actors", "mechanism_aliases", "why", "kind",
                "difficulty", "decision", "labels", "notes", "true_value", "margin", "top1", "top2"}
#: The suite file whose keys are exactly what the model under test may see, per input config.
VISIBLE = {"items": "items.jsonl", "gating": "gating.jsonl", "contracts": "contracts.jsonl",
           "trajectories": "trajectories.jsonl"}


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def sources(world_dir, tmp_path_factory) -> dict[str, Path]:
    """The world and a suite of each kind built from it (and a task-contract suite from a small domain)."""
    from tests.benchmark_builders.groundeval.test_ge_domains import write_task_domain

    base = tmp_path_factory.mktemp("hf-sources")
    ok("build", "cargo", "--world", world_dir, "--out", base / "cargo", "--sizes", "P1=3,P3=3,P2=3,P4=3")
    ok("build", "groundeval", "--world", world_dir, "--out", base / "ge")
    ok("build", "groundeval", "--domain", write_task_domain(base / "domain"), "--out", base / "tasks")
    ok("build", "trajectories", "--world", world_dir, "--out", base / "tr", "--n", 4)
    return {"world": world_dir, "cargo": base / "cargo", "ge": base / "ge", "tasks": base / "tasks",
            "tr": base / "tr"}


@pytest.fixture(scope="module")
def exports(sources, tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("hf-exports")
    for name, source in sources.items():
        ok("export", source, "--format", "hf", "--out", base / name)
    return {name: base / name for name in sources}


@pytest.fixture
def hf_offline(tmp_path, monkeypatch) -> Path:
    """Hugging Face's caches in a temporary folder, and no network."""
    cache = tmp_path / "hf"
    for name, value in (("HF_HOME", cache), ("HF_DATASETS_CACHE", cache / "datasets"), ("HF_DATASETS_OFFLINE", "1"),
                        ("HF_HUB_OFFLINE", "1")):
        monkeypatch.setenv(name, str(value))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache / "datasets", raising=False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    return cache / "datasets"


def card(folder: Path) -> tuple[dict, str]:
    _, head, prose = folder.joinpath("README.md").read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(head), prose


class _Caught(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def load_all(folder: Path, cache: Path) -> tuple[dict, dict, list[str]]:
    """The default config and every config of a folder as ``datasets`` loads them, and every warning raised."""
    caught = _Caught()
    logging.getLogger().addHandler(caught)
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            default = datasets.load_dataset(str(folder), cache_dir=str(cache))
            loaded = {c["config_name"]: datasets.load_dataset(str(folder), c["config_name"], split="test",
                                                               cache_dir=str(cache))
                      for c in card(folder)[0]["configs"]}
    finally:
        logging.getLogger().removeHandler(caught)
    said = [f"{w.category.__name__}: {w.message}" for w in raised] + [r.getMessage() for r in caught.records]
    return default, loaded, said


#: source -> (config, suite file, id column) whose rows must be the file's rows in order.
FILES = {
    "cargo": [("items", "items.jsonl", "item_id"), ("truth", "truth.jsonl", "item_id"),
              ("gating", "gating.jsonl", "item_id"), ("gating_truth", "gating_truth.jsonl", "item_id"),
              ("golden", "golden.jsonl", "golden_id"), ("retrieval", "retrieval.jsonl", "item_id")],
    "ge": [("contracts", "contracts.jsonl", "question_id"), ("truth", "truth.jsonl", "question_id"),
           ("world_artifacts", "world/artifacts.jsonl", "artifact_id"), ("world_events", "world/events.jsonl",
                                                                          "event_id")],
    "tasks": [("contracts", "contracts.jsonl", "question_id"), ("truth", "truth.jsonl", "question_id"),
              ("corpus", "corpus.jsonl", "id")],
    "tr": [("trajectories", "trajectories.jsonl", "trajectory_id"), ("labels", "labels.jsonl", "trajectory_id")],
    "world": [("artifacts", "artifacts.jsonl", "artifact_id"), ("events", "events.jsonl", "event_id"),
              ("actors", "actors.jsonl", "actor_id"), ("claims", "claims.jsonl", "ref")],
}
DEFAULT = {"cargo": "items", "ge": "contracts", "tasks": "contracts", "tr": "trajectories", "world": "artifacts"}


@pytest.mark.slow       # builds four suites and loads 26 configs with datasets (about 10 s)
@pytest.mark.parametrize("name", list(FILES))
def test_every_config_loads_with_datasets_without_a_warning_and_holds_the_suites_rows(name, sources, exports,
                                                                                        hf_offline):
    default, loaded, said = load_all(exports[name], hf_offline)
    assert said == []
    head, _ = card(exports[name])
    assert sorted(loaded) == sorted(p.name for p in (exports[name] / "data").iterdir())
    assert list(default) == ["test"] and default["test"].num_rows == loaded[DEFAULT[name]].num_rows
    for config, file, key in FILES[name]:
        expected = rows(sources[name] / file)
        got = loaded[config]
        assert got.num_rows == len(expected) > (0 if config != "claims" else -1), config
        assert got[key] == [r[key] if key != "ref" else r["ref"] for r in expected], config
    info = {i["config_name"]: i for i in head["dataset_info"]}
    for config, got in loaded.items():       # the card's features are the files' features, its counts their rows
        assert datasets.Features._from_yaml_list(info[config]["features"]) == got.features, config
        assert info[config]["splits"][0]["num_examples"] == got.num_rows


@pytest.mark.slow
def test_truth_round_trips_and_no_input_config_holds_a_truth_column(sources, exports, hf_offline):
    import pyarrow.parquet as pq

    for name, folder in exports.items():
        head, prose = card(folder)
        configs = [c["config_name"] for c in head["configs"]]
        assert [c["config_name"] for c in head["configs"] if c.get("default")] == [DEFAULT[name]]
        for config in configs:
            assert f"`{config}`" in prose
            columns = pq.read_schema(folder / "data" / config / "test-00000-of-00001.parquet").names
            if config in VISIBLE:          # an input config is exactly the model-visible file's fields
                assert set(columns) == set(rows(sources[name] / VISIBLE[config])[0]), (name, config)
                assert not TRUTH_FIELDS & set(columns), (name, config)
        for section in ("## How it was built", "## Columns", "## How to score",
                        "## What is withheld from the model under test", "## Known limits"):
            assert section in prose
        assert head["license"] == "mit" and head["task_categories"] and head["size_categories"]
    truth = pq.read_table(exports["cargo"] / "data/truth/test-00000-of-00001.parquet").to_pylist()
    expected = rows(sources["cargo"] / "truth.jsonl")
    nested = {"perturbation", "next_steps", "derived"}
    assert [{k: json.loads(v) if k in nested else v for k, v in r.items()} for r in truth] == expected
    labels = pq.read_table(exports["tr"] / "data/labels/test-00000-of-00001.parquet").to_pylist()
    assert [{k: json.loads(v) if k != "trajectory_id" else v for k, v in r.items()} for r in labels] == \
        rows(sources["tr"] / "labels.jsonl")
    assert "arxiv:2606.22737" in card(exports["ge"])[0]["tags"]
    cited = {name: card(folder)[0].get("citation", "") for name, folder in exports.items()}   # the papers to cite
    assert "@misc{chhabra2026cargo," in cited["cargo"] and "eprint = {2606.22737}" in cited["ge"]
    assert "eprint = {2611.02676}" in cited["tr"] and cited["world"] == ""


@pytest.mark.slow
def test_prompts_config_is_what_judge_dry_run_renders(sources, exports, tmp_path):
    import pyarrow.parquet as pq

    ok("judge", "--suite", sources["cargo"], "--judge", "openai:m", "--conditions", "all", "--rubric-swap",
       "--out", tmp_path / "dry", "--dry-run")
    sent = {(r["item_id"], r["condition"]): [m["content"] for m in r["messages"]]
            for r in rows(tmp_path / "dry" / "requests.jsonl")}
    table = pq.read_table(exports["cargo"] / "data/prompts/test-00000-of-00001.parquet").to_pylist()
    exported = {(r["item_id"], r["condition"]): [r["system"], r["user"]] for r in table}
    assert len(exported) == len(table)
    assert {k: v for k, v in exported.items() if k in sent} == sent and len(sent) == 12 * 12
    systems: dict[str, set[str]] = {}        # docs/harnesses.md: one system message per condition (lm-eval's
    for row in table:                        # --system_instruction)
        systems.setdefault(row["condition"], set()).add(row["system"])
    assert len(systems) == 13 and all(len(texts) == 1 for texts in systems.values())


@pytest.mark.slow
def test_a_suite_exports_only_as_hf(sources, tmp_path):
    fails("export", sources["cargo"], "--format", "slack", "--out", tmp_path / "x",
          says=("holds a CARGO suite", "a suite exports as --format groundeval-tasks or hf"))
    assert not (tmp_path / "x").exists()


@pytest.mark.slow       # two exports in subprocesses
def test_the_same_suite_gives_byte_identical_exports_under_any_hash_seed(sources, tmp_path):
    digests = []
    for seed in ("0", "4242"):
        out = tmp_path / f"out-{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "orgbench", "export", str(sources["cargo"]), "--format", "hf",
                        "--out", str(out)], check=True, env=env, cwd=tmp_path, capture_output=True)
        digests.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
                        and not p.name.startswith(".")})
    assert digests[0] == digests[1] and "README.md" in digests[0]
