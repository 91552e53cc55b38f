"""The dataset card (README.md) of a Hugging Face export: a YAML header ``datasets`` reads, then prose.

The header declares every config (its one split's Parquet file, its features
as ``datasets`` names arrow types, its row count), the default config (the
inputs), licence, task categories, size category, pretty name and the papers
to cite (arXiv tags where a paper has an arXiv id, and every paper's BibTeX
as ``citation``). The prose says how the source was built, what each column
means, how to score, what is withheld from the model under test, and the known
limits. Everything comes from the configs written, so the card cannot name a
column the files lack.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import yaml

from benchmark_builders.export.hf_configs import CORPUS, INPUT, SPLIT, WITHHELD, Column
from orgbench.core.tables import Table

#: World table columns (benchmark_builders.export.parquet) and what they mean.
_WORLD_COLUMNS: dict[str, dict[str, str]] = {
    "actors": {"actor_id": "person id (`P-0017`)", "name": "name", "email": "work email", "title": "job title",
               "team": "team", "role": "access role", "manager": "their manager's id",
               "joined_at": "when they joined (UTC)", "left_at": "when they left (UTC), null if they stayed",
               "office": "office", "utc_offset": "office hours' offset from UTC, in hours"},
    "events": {"event_id": "event id", "ts": "when it happened (UTC)", "type": "event type",
               "actors": "people who took part", "subsystem": "the subsystem it happened in",
               "entity_kind": "the entity's kind (case, incident, …)", "entity_id": "the entity's id",
               "payload": "what the event records (canonical JSON)",
               "parents": "the events it follows from (canonical JSON)", "artifacts": "artifact versions it wrote"},
    "artifacts": {"artifact_id": "artifact id", "version": "version number (1 first)", "subsystem": "subsystem",
                  "kind": "kind (ticket, email, chat message, wiki page, …)", "created_at": "when this version was "
                  "written (UTC)", "author": "who wrote it", "entity_kind": "the entity's kind",
                  "entity_id": "the entity's id", "title": "title", "body": "the rendered text",
                  "facts": "the structured facts the text states (canonical JSON)",
                  "acl": "who may read it (canonical JSON)"},
    "claims": {"ref": "the labelled version (`ID@version`)", "artifact_id": "its artifact", "version": "its version",
               "field": "the fact", "value": "what the text states (canonical JSON)",
               "true_value": "what the simulation decided (canonical JSON)", "kind": "stale, wrong or conflict",
               "source": "how the untrue statement arose"},
}


def world_column(table: str, name: str) -> Column:
    """A world table's column with its meaning (the kind is the arrow type the world writer gives it)."""
    return Column(name, "world", _WORLD_COLUMNS.get(table, {}).get(name, "not described"))


_CARGO_PAPER = ("@misc{chhabra2026cargo,\n  title = {CARGO: Context-Aware Retrieval-Gated Evaluation of Agentic AI in "
                "Production},\n  author = {Chhabra, Mukul and Patel, Shail and Medrano, Luigi},\n  year = {2026},\n"
                "  note = {Dell Technologies}\n}")
_GROUNDEVAL_PAPER = ("@misc{flynt2026groundeval,\n  title = {GroundEval: A Deterministic Replacement for LLM-as-Judge "
                     "in Stateful Agent Evaluation},\n  author = {Flynt, Jeffrey},\n  year = {2026},\n"
                     "  eprint = {2606.22737},\n  archivePrefix = {arXiv}\n}")
_ASSURANCE_PAPER = ("@misc{xia2026assurance,\n  title = {Does the Judge See What the Evaluation Requires? Input "
                    "Assurance for LLM Agent Evaluation},\n  author = {Xia, Boming and Lu, Qinghua and Li, Runze and "
                    "Sejdinovic, Dino and Zhu, Liming},\n  year = {2026},\n  eprint = {2611.02676},\n"
                    "  archivePrefix = {arXiv}\n}")

#: Per kind: pretty name, task categories, arXiv ids, papers (BibTeX), and the prose sections.
_ABOUT: dict[str, dict[str, Any]] = {
    "cargo": {
        "name": "CARGO-Bench (orgbench)", "tasks": ["text-classification"], "arxiv": [], "papers": [_CARGO_PAPER],
        "built": "orgbench simulated each world (a support organisation working cases through runbooks) from a "
                 "seed; every fact is decided by the simulation. Each item pairs a live case with the resolved "
                 "reference of another case that retrieval ranked first, and a candidate answer: the correct "
                 "answer about the live case (P1, P3 with extra sentences the context neither supports nor "
                 "contradicts) or the correct answer with one value contradicted (P2) or one procedural step "
                 "corrupted (P4). Labels are known by construction. docs/cargo.md in orgbench describes it fully.",
        "score": "Show a judge an item under a condition (the `prompts` config holds the exact messages `orgbench "
                 "judge` sends; temperature 0, the judge seed as `seed`). Read its verdict (pass / fail). Join the "
                 "verdicts with `truth` on `item_id`. Penalty rate of a family = share of its judged items "
                 "failed; TP = rate over P2 and P4 pooled, FP = rate over P1 and P3 pooled, discrimination index "
                 "DI = TP - FP, with an item-level bootstrap CI (judges/metrics.py). Items a judge did not decide "
                 "are counted apart, never as 0. `orgbench tables cargo` computes all of it from a judge run or an "
                 "inspect_ai log.",
        "withheld": "`truth` (family, label, perturbation), `gating_truth`, `golden` and `retrieval`. A judge "
                    "sees only what its condition shows of `items` (question, live context, reference, "
                    "candidate): the family, the label and the ids of the reference's case are never in it.",
        "limits": "The worlds are synthetic: one domain pack's runbooks, wording from templates and grammars. "
                  "P3 is this project's reconstruction (the paper does not define it). Candidates differ from "
                  "the correct answer only in what the perturbation changed, so a judge that compares texts "
                  "across items of one case could learn the perturbations; items are written in id order so "
                  "position says nothing about the family.",
    },
    "groundeval": {
        "name": "GroundEval (orgbench)", "tasks": ["question-answering"], "arxiv": ["2606.22737"],
        "papers": [_GROUNDEVAL_PAPER],
        "built": "Questions about one simulated world (perspective: could this person have known this fact at "
                 "that moment; counterfactual: did this event cause that one; silence: is there a record of it), "
                 "each with a gold answer and the evidence rules derived from the world and its access policy. "
                 "docs/groundeval.md in orgbench describes it fully.",
        "score": "An agent answers each contract through orgbench's gated runtime (search, fetch, list tools that "
                 "enforce who could see what, when), or from a context. `orgbench score groundeval` scores the "
                 "answer and the calls by rules, no judge model: S_answer (the answer against `truth.gold`), "
                 "S_traj (the required evidence cited and searched) and S_adj = (w_a S_answer + w_t S_traj)"
                 "(1 - v)^2, v the share of calls that broke an access gate; reported per track. The inspect_ai "
                 "task `orgbench/groundeval` does the same inside inspect.",
        "withheld": "`truth` (gold answers, required and permitted evidence) and `world_claims` (which statements "
                    "are untrue). The `world_*` configs are the corpus: a fair agent reaches them only through the "
                    "gated tools as the contract's actor at the contract's moment; the access policy that gates "
                    "them (the world's policy.json) is not a config, so scoring needs orgbench.",
        "limits": "One synthetic organisation per world; questions of one world share its people and events. "
                  "Handing the `world_*` rows to a model directly skips the access gates the benchmark "
                  "measures. Fewer questions than requested are built when a world has too few candidates "
                  "(the suite's suite.json says how many).",
    },
    "groundeval-tasks": {
        "name": "GroundEval task contracts (orgbench)", "tasks": ["question-answering"], "arxiv": ["2606.22737"],
        "papers": [_GROUNDEVAL_PAPER],
        "built": "Task contracts read from a domain in upstream GroundEval's format: verify each precondition "
                 "from the records, then decide. The truth of each precondition is the record field it names.",
        "score": "An agent calls the task runtime's tools as the contract's actor and answers with the "
                 "preconditions it verified and its decision; `orgbench score groundeval` gives S_decision, "
                 "S_verify and S_adj.",
        "withheld": "`truth` (the decision and each precondition's value). `corpus` is served only through the "
                    "runtime's tools.",
        "limits": "As good as the domain's hand-written truth; the horizon gate applies only when the contract "
                  "and the records carry times.",
    },
    "trajectories": {
        "name": "Judge-input assurance trajectories (orgbench)", "tasks": ["text-classification"],
        "arxiv": ["2611.02676"], "papers": [_ASSURANCE_PAPER],
        "built": "Support-agent trajectories (OpenAI chat format with tool calls) simulated from a world's cases, "
                 "some with a constructed error (e.g. closing a case before the fix) and its correction, or "
                 "imported from AgentProcessBench-style files. Each step's label is known by construction.",
        "score": "A step judge reads the trajectory (orgbench builds the exact packet a judge must read and "
                 "checks it: `orgbench assure`) and labels steps; compare with `labels` per message index. "
                 "`orgbench tables assurance` runs the fault study and the later-context contrast.",
        "withheld": "`labels` (per-step +1 / 0 / -1 and how each error was made): never beside the messages.",
        "limits": "Simulated agents on one domain's tools; imported trajectories keep their source's labels.",
    },
    "world": {
        "name": "orgbench simulated organisation", "tasks": ["text-retrieval"], "arxiv": [], "papers": [],
        "built": "A seeded discrete-event simulation of an organisation: people and teams, support cases worked "
                 "through runbooks, changes and incidents, chat, email, wiki, and the access policy in force at "
                 "every moment. Every artifact version is a row of `artifacts`, with the facts its text states. "
                 "docs/world.md in orgbench describes it fully.",
        "score": "A world is not scored itself: orgbench builds suites from it (CARGO, GroundEval, trajectories), "
                 "each exported on its own.",
        "withheld": "`claims`: which statements in the artifacts are untrue and what is true instead. A tool that "
                    "reads `artifacts` sees what people wrote, not which of it is untrue.",
        "limits": "Synthetic: one domain pack, templated and grammar-composed prose. The access policy "
                  "(policy.json) and the entity graph (graph.json) are not configs.",
    },
}


def _size_category(rows: int) -> str:
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if rows < bound:
            return name
    return "1M<n<10M"


def hf_feature(arrow_type: Any) -> dict[str, str]:
    """The ``datasets`` YAML feature of an arrow type (string, int64, bool, timestamp, list of strings)."""
    import pyarrow as pa

    if pa.types.is_list(arrow_type):
        return {"list": str(arrow_type.value_type).replace("large_", "")}
    text = str(arrow_type)
    return {"dtype": {"double": "float64", "timestamp[us, tz=UTC]": "timestamp[us, tz=UTC]"}.get(text, text)}


def header(kind: str, configs: Sequence[Any]) -> dict[str, Any]:
    """The YAML header: licence, tasks, size, name, the papers to cite (arXiv tags, and their BibTeX as
    ``citation``), configs (default: the first input) and their features."""
    about = _ABOUT[kind]
    default = next(c.spec.name for c in configs if c.spec.role == INPUT)
    largest = max(c.rows for c in configs if c.spec.role == INPUT)
    return {
        "license": "mit",
        "pretty_name": about["name"],
        "task_categories": list(about["tasks"]),
        "size_categories": [_size_category(largest)],
        "tags": ["orgbench", "synthetic", "llm-as-judge", *(f"arxiv:{a}" for a in about["arxiv"])],
        **({"citation": "\n\n".join(about["papers"])} if about["papers"] else {}),
        "configs": [{"config_name": c.spec.name, "data_files": [{"split": SPLIT, "path": c.path}],
                     **({"default": True} if c.spec.name == default else {})} for c in configs],
        "dataset_info": [{"config_name": c.spec.name,
                          "features": [{"name": col.name, **hf_feature(t)} for col, t in c.columns],
                          "splits": [{"name": SPLIT, "num_bytes": c.nbytes, "num_examples": c.rows}]} for c in configs],
    }


def render_card(kind: str, configs: Sequence[Any], record: Mapping[str, Any]) -> str:
    """The whole README.md: ``---`` YAML header ``---`` then the prose."""
    about = _ABOUT[kind]
    lines = ["---", yaml.safe_dump(header(kind, configs), sort_keys=False, allow_unicode=True, width=1000).rstrip(),
             "---", "", f"# {about['name']}", "",
             f"Exported by `orgbench export --format hf` from {kind_phrase(kind)} (source manifest SHA-256 "
             f"`{record['source_manifest_sha256']}`). Every config has one split, `{SPLIT}`:", "",
             "```python", "from datasets import load_dataset",
             f"rows = load_dataset(\"DIR\", \"{configs[0].spec.name}\", split=\"{SPLIT}\")", "```", ""]
    roles = {INPUT: "input (shown to the model under test)", CORPUS: "corpus (reached only through tools)",
             WITHHELD: "withheld (truth; never shown)"}
    rows = [(f"`{c.spec.name}`", f"{c.rows:,}", roles[c.spec.role], c.spec.about) for c in configs]
    lines += Table.from_lists(("config", "rows", "role", "what it holds"), rows).to_markdown().splitlines()
    lines += ["", "## How it was built", "", about["built"], "", "## Columns", ""]
    for c in configs:
        lines.append(f"`{c.spec.name}`:")
        lines.append("")
        lines += [f"- `{col.name}` ({hf_type_name(t)}): {col.about}" for col, t in c.columns]
        lines.append("")
    lines += ["Nested values are canonical JSON text (sorted keys, no spaces): `json.loads` gives them back.", "",
              "## How to score", "", about["score"], "",
              "## What is withheld from the model under test", "", about["withheld"], "",
              "## Known limits", "", about["limits"], "",
              "The Parquet files are byte-identical for the same source under one pyarrow version, not across "
              "versions: another pyarrow version writes other footer metadata (its own version, statistics "
              "fields), so other bytes holding the same rows and schema. This card is the same.", ""]
    if about["papers"]:
        lines += ["## Citation", "", "```bibtex", *"\n\n".join(about["papers"]).splitlines(), "```", ""]
    return "\n".join(lines)


def kind_phrase(kind: str) -> str:
    """The source in words."""
    return {"cargo": "a CARGO suite", "groundeval": "a GroundEval suite", "groundeval-tasks":
            "a GroundEval task-contract suite", "trajectories": "a trajectory suite", "world": "a world"}[kind]


def hf_type_name(arrow_type: Any) -> str:
    """An arrow type in the card's words."""
    feature = hf_feature(arrow_type)
    return f"list of {feature['list']}" if "list" in feature else feature["dtype"]
