"""What a Hugging Face export holds: for each kind of source, its configs, each config's role and columns.

A config is one table of one suite (or world) file, in one split (``test``).
Its role says who may read it: ``input`` (what the model under test is
shown), ``corpus`` (what a GroundEval agent reaches only through the gated
runtime's tools), or ``withheld`` (truth and diagnostics: never shown). Truth
lives only in withheld configs, never as a column beside the inputs.

Columns are declared with a kind and a sentence the dataset card prints:
``text``, ``int``, ``float``, ``bool``, ``texts`` (a list of strings) or
``json`` (any nested value as canonical JSON text, so nothing is lost). A
field a suite holds that is not declared here (a newer builder's) is kept as
a ``json`` column after the declared ones, described as undeclared.
"""

from __future__ import annotations

from dataclasses import dataclass

INPUT, CORPUS, WITHHELD = "input", "corpus", "withheld"
SPLIT = "test"


@dataclass(frozen=True, slots=True)
class Column:
    """One declared column: name, kind (text, int, float, bool, texts, json) and what it means."""

    name: str
    kind: str
    about: str


@dataclass(frozen=True, slots=True)
class ConfigSpec:
    """One config: its name, the suite file its rows come from, its role and its declared columns."""

    name: str
    source: str
    role: str
    about: str
    columns: tuple[Column, ...]


def _c(name: str, kind: str, about: str) -> Column:
    return Column(name, kind, about)


_ITEM = (
    _c("item_id", "text", "content-hash id of the item (`cb-`; `cg-` for a gating question)"),
    _c("question", "text", "the customer's question about the live case"),
    _c("live_context", "text", "the live case's record as observed at the moment the question is asked"),
    _c("reference", "text", "the resolved answer of another case that retrieval ranked first (the reference answer)"),
    _c("candidate", "text", "the answer under evaluation"),
)

CARGO: tuple[ConfigSpec, ...] = (
    ConfigSpec("items", "items.jsonl", INPUT, "the judged items: what a condition may show a judge", _ITEM),
    ConfigSpec("prompts", "items.jsonl", INPUT,
               "the exact chat messages `orgbench judge` sends for each item and condition (the judge seed goes "
               "as the request's `seed` parameter, temperature 0)", (
                   _c("item_id", "text", "the item"),
                   _c("condition", "text", "the prompt condition (judges/conditions.py)"),
                   _c("system", "text", "the system message: framing, rubric and output instructions"),
                   _c("user", "text", "the user message: the inputs the condition shows"))),
    ConfigSpec("gating", "gating.jsonl", INPUT,
               "out-of-scope questions (their runbook has no golden reference), for retrieval gating", _ITEM),
    ConfigSpec("truth", "truth.jsonl", WITHHELD, "each item's label and how it was made", (
        _c("item_id", "text", "the item"),
        _c("family", "text", "P1 entity transplant, P3 benign divergence (pass); P2 contradiction, "
                             "P4 procedural corruption (fail)"),
        _c("family_name", "text", "the family's name"),
        _c("should_penalize", "bool", "the label: true when a correct judge fails the candidate (P2, P4)"),
        _c("case_id", "text", "the live case"),
        _c("case_state", "text", "closed, open_at_end or mid_case"),
        _c("procedure_id", "text", "the live case's runbook"),
        _c("reference_case_id", "text", "the case the reference is about"),
        _c("reference_golden_id", "text", "the golden reference shown"),
        _c("retrieval_top1_correct", "bool", "whether retrieval's top-1 reference has the live case's runbook"),
        _c("style", "text", "plain, or extra (P3's extra sentences, and P2/P4 in the same proportion)"),
        _c("variant", "text", "the answer's wording style"),
        _c("variety", "text", "the P2 value kind or P4 kind (null for P1, P3)"),
        _c("perturbation", "json", "what the perturbation changed (null for P1, P3)"),
        _c("next_steps", "json", "the runbook steps a correct answer gives as still to do"),
        _c("derived", "json", "the derived facts a correct answer states, with their kind"),
        _c("world_seed", "int", "the seed of the world the item comes from"))),
    ConfigSpec("gating_truth", "gating_truth.jsonl", WITHHELD, "the gating questions' truth", (
        _c("item_id", "text", "the gating question"),
        _c("should_abstain", "bool", "always true: no golden reference serves this runbook"),
        _c("near_vocabulary", "bool", "whether its symptom was written to share vocabulary with in-scope runbooks"),
        _c("case_id", "text", "the live case"),
        _c("procedure_id", "text", "its runbook"),
        _c("retrieved_procedure_id", "text", "the runbook of the reference retrieval ranked first"),
        _c("world_seed", "int", "the world's seed"))),
    ConfigSpec("golden", "golden.jsonl", WITHHELD,
               "the retrieval golden set (a reference reaches the judge only as item text)", (
                   _c("golden_id", "text", "content-hash id (`G-`)"),
                   _c("case_id", "text", "the resolved case"),
                   _c("procedure_id", "text", "its runbook"),
                   _c("revision", "int", "the runbook revision"),
                   _c("question", "text", "the question it answers"),
                   _c("reference", "text", "the resolved answer"),
                   _c("world_seed", "int", "the world's seed"))),
    ConfigSpec("retrieval", "retrieval.jsonl", WITHHELD, "retrieval per item and gating question", (
        _c("item_id", "text", "the item or gating question"),
        _c("set", "text", "judged or gating"),
        _c("top1", "text", "golden id ranked first"),
        _c("top1_similarity", "float", "its similarity"),
        _c("top2", "text", "golden id ranked second"),
        _c("top2_similarity", "float", "its similarity"),
        _c("margin", "float", "top-1 minus top-2 similarity (the gating score)"))),
)

_WORLD_NOTE = "of the world under `world/` (the corpus the gated runtime serves)"

GROUNDEVAL: tuple[ConfigSpec, ...] = (
    ConfigSpec("contracts", "contracts.jsonl", INPUT, "what an agent may see of each question", (
        _c("question_id", "text", "content-hash id (`PER-`, `CF-`, `SIL-`)"),
        _c("track", "text", "perspective, counterfactual or silence"),
        _c("question", "text", "the question"),
        _c("actor", "text", "whose view the question takes"),
        _c("role", "text", "the actor's role"),
        _c("as_of", "text", "the moment the question is asked at (UTC)"),
        _c("subsystems", "texts", "the subsystems of the world"),
        _c("answer_schema", "json", "the fields the answer must have, with their types"),
        _c("options", "json", "choices the answer picks from (counterfactual and silence)"),
        _c("subject", "json", "the entity and fact asked about"),
        _c("world", "text", "the world the question is about"))),
    ConfigSpec("truth", "truth.jsonl", WITHHELD, "gold answers and the evidence rules", (
        _c("question_id", "text", "the question"),
        _c("track", "text", "its track"),
        _c("kind", "text", "its kind within the track"),
        _c("difficulty", "text", "easy or hard"),
        _c("gold", "json", "the gold answer"),
        _c("required_evidence", "texts", "artifact versions a correct answer must cite (`ID@version`)"),
        _c("permitted_evidence", "texts", "artifact versions the actor could see"),
        _c("required_search_space", "json", "the searches (subsystem, mode, selector, value) that must be made before claiming silence"),
        _c("cause_evidence", "texts", "counterfactual: the cause's evidence"),
        _c("effect_evidence", "texts", "counterfactual: the effect's evidence"),
        _c("correct_actors", "texts", "actors a correct answer names"),
        _c("mechanism_aliases", "texts", "accepted names of the causal mechanism"),
        _c("why", "text", "the gold answer's justification"))),
    ConfigSpec("world_actors", "world/actors.jsonl", CORPUS, f"people {_WORLD_NOTE}", ()),
    ConfigSpec("world_events", "world/events.jsonl", CORPUS, f"events {_WORLD_NOTE}", ()),
    ConfigSpec("world_artifacts", "world/artifacts.jsonl", CORPUS, f"every artifact version {_WORLD_NOTE}", ()),
    ConfigSpec("world_claims", "world/claims.jsonl", WITHHELD, f"the labelled untrue statements {_WORLD_NOTE}", ()),
)

GROUNDEVAL_TASKS: tuple[ConfigSpec, ...] = (
    ConfigSpec("contracts", "contracts.jsonl", INPUT, "what an agent may see of each task contract", (
        _c("question_id", "text", "content-hash id (`TASK-`)"),
        _c("track", "text", "task"),
        _c("name", "text", "the contract's name"),
        _c("task", "text", "the task description"),
        _c("actor", "text", "who acts"),
        _c("role", "text", "the actor's role"),
        _c("subsystems", "texts", "the subsystems the role reads"),
        _c("as_of", "text", "the moment the task is done at, when the horizon applies"),
        _c("horizon", "text", "whether the time gate applies"),
        _c("preconditions", "json", "the checks to verify, each with the facts it needs"),
        _c("decision_field", "text", "the answer's decision field"),
        _c("tools", "json", "the fixture tools on offer"),
        _c("inputs", "json", "the task's inputs"),
        _c("answer_schema", "json", "the fields the answer must have"))),
    ConfigSpec("truth", "truth.jsonl", WITHHELD, "each contract's decision and the facts behind it", (
        _c("question_id", "text", "the contract"),
        _c("track", "text", "task"),
        _c("decision", "bool", "the correct decision"),
        _c("preconditions", "json", "per precondition: artifact, field, value and whether it passes"),
        _c("why", "text", "the decision as a sentence"))),
    ConfigSpec("corpus", "corpus.jsonl", CORPUS, "the records the task runtime serves", (
        _c("id", "text", "the record's id"),
        _c("subsystem", "text", "the subsystem it lives in"),
        _c("created_at", "text", "its time, when the domain gives one"),
        _c("fields", "json", "its fields"))),
)

TRAJECTORIES: tuple[ConfigSpec, ...] = (
    ConfigSpec("trajectories", "trajectories.jsonl", INPUT, "the trajectories a judge may read", (
        _c("trajectory_id", "text", "the trajectory"),
        _c("cluster", "text", "the case it works (trajectories of one case share it)"),
        _c("source", "text", "where it came from (simulated, or the imported file)"),
        _c("messages", "json", "the conversation in OpenAI chat format (tool calls included)"))),
    ConfigSpec("labels", "labels.jsonl", WITHHELD, "per-step labels, kept apart from the messages", (
        _c("trajectory_id", "text", "the trajectory"),
        _c("labels", "json", "message index -> +1 (right), 0 (neutral), -1 (wrong)"),
        _c("notes", "json", "message index -> how a constructed error or its correction was made"))),
)

#: World tables: the columns come from the world's Parquet writer (benchmark_builders.export.parquet).
WORLD: tuple[ConfigSpec, ...] = (
    ConfigSpec("artifacts", "artifacts.jsonl", INPUT, "every version of every artifact, with its text", ()),
    ConfigSpec("events", "events.jsonl", INPUT, "the event log", ()),
    ConfigSpec("actors", "actors.jsonl", INPUT, "the people", ()),
    ConfigSpec("claims", "claims.jsonl", WITHHELD, "labelled untrue statements (the world's truth sidecar)", ()),
)

#: What ``orgbench.outdir.holds`` calls a source -> the short kind an export records.
KINDS = {"a world": "world", "a CARGO suite": "cargo", "a GroundEval suite": "groundeval",
         "a trajectory suite": "trajectories"}


def specs(kind: str) -> tuple[ConfigSpec, ...]:
    """The configs of a source of this kind (world, cargo, groundeval, groundeval-tasks, trajectories)."""
    return {"world": WORLD, "cargo": CARGO, "groundeval": GROUNDEVAL, "groundeval-tasks": GROUNDEVAL_TASKS,
            "trajectories": TRAJECTORIES}[kind]
