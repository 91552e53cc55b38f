"""Build a CARGO-Bench suite from worlds: items, truth, golden set, gating set, manifest.

The plan (which family and style each item has) is drawn once for the whole
suite so the family counts are exact; items are then spread over the world
seeds. Each item pairs a live case with the golden reference of the same
runbook that best matches its question. Item ids are hashes of the item's
content (``identity``), so the same item has the same id in every suite and
the id says nothing about the family; items are written in id order.

Files (ARCHITECTURE.md "Suites and runs"):
``items.jsonl`` what a judge may see; ``truth.jsonl`` family, label and the
perturbation; ``golden.jsonl`` the retrieval golden set; ``retrieval.jsonl``
the retrieval ranking and margin of every item and gating item;
``gating.jsonl`` / ``gating_truth.jsonl`` out-of-scope questions whose
runbook has no golden reference; ``suite.json``; ``MANIFEST.json``.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from benchmark_builders.cargo.answers import Answer, correct_answer
from benchmark_builders.cargo.cases import SupportCase, cases_by_procedure, cases_from_world
from benchmark_builders.cargo.identity import gating_id, golden_id, item_id, refuse_repeats
from benchmark_builders.cargo.perturb import (
    CONTRADICTIONS, CORRUPTIONS, available_corruptions, contradict, corrupt, has_near_miss, value_kind,
)
from benchmark_builders.cargo.readers import reader_scores, surface_baselines
from benchmark_builders.cargo.records import (
    DEFAULT_SIZES, FAMILIES, FAMILY_NAMES, SHOULD_PENALIZE, CargoItem, CargoTruth,
)
from benchmark_builders.cargo.retrieval import GoldenIndex, best_allowed, best_of_revision, best_per_group, margin
from benchmark_builders.cargo.wording import (
    ANSWER_VARIANTS, extra_sentences, render_answer, render_context, render_question, render_reference,
)
from orgbench.core.errors import InputError
from simulator.procedures import PROCEDURES
from orgbench.core.storage import staged_directory, write_json, write_jsonl, write_manifest

FORMAT_VERSION = 1
#: Facts that name the case's own entities and events: a reference of another case states none of them.
#: (An approver, a diagnostic code, an amount or a firmware version may recur: few managers, codes, lines.)
ENTITY_FACTS: frozenset[str] = frozenset({
    "case_id", "account_id", "account_name", "contact_name", "contact_email", "asset_serial", "purchase_date",
    "warranty_end", "opened_at", "backup_id", "dispatch_id", "visit_date", "rma_number", "license_key",
    "target_account_id", "reset_token_id", "invoice_id", "credit_id", "log_bundle_id", "recovery_job_id",
})


def _entities(case: SupportCase) -> frozenset[str]:
    return frozenset(v for k, v in case.facts.items() if k in ENTITY_FACTS)


@dataclass(frozen=True)
class SuiteConfig:
    """What a suite is made of: family sizes, golden set, gating set and the builder's seed."""

    sizes: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_SIZES))
    golden_per_procedure: int = 2
    out_of_scope: tuple[str, ...] = ("RB-LICENSE-TRANSFER", "RB-PASSWORD-RESET")
    gating_per_world: int = 5
    two_value_share: float = 0.2     # share of P2 items with two contradicted values
    max_extras: int = 2              # benign extra sentences per "extra"-style candidate: 1..max_extras
    #: P4 kinds, cycled. A skipped or swapped step makes a step sequence no correct answer has, so a reader
    #: that learns the runbooks from the other items decides it without the reference: off by default.
    p4_kinds: tuple[str, ...] = ("wrong_action", "wrong_escalation")
    seed: int = 0

    def validate(self) -> None:
        """Raise InputError naming the bad field."""
        if set(self.sizes) != set(FAMILIES) or any(not isinstance(v, int) or v < 0 for v in self.sizes.values()):
            raise InputError(f"sizes: expected non-negative counts for {', '.join(FAMILIES)}, got {self.sizes}")
        if self.sizes["P1"] + self.sizes["P3"] == 0:
            raise InputError("sizes: P1 and P3 cannot both be 0 (the styles of P2/P4 follow them)")
        known = {p.procedure_id for p in PROCEDURES}
        for pid in self.out_of_scope:
            if pid not in known:
                raise InputError(f"out_of_scope: unknown runbook {pid}")
        if self.golden_per_procedure < 1:
            raise InputError("golden_per_procedure: must be at least 1")
        if not self.p4_kinds or any(k not in CORRUPTIONS for k in self.p4_kinds):
            raise InputError(f"p4_kinds: expected some of {', '.join(CORRUPTIONS)}, got {list(self.p4_kinds)}")


@dataclass(frozen=True)
class Suite:
    """A built suite, as the rows of its files."""

    meta: dict[str, Any]
    items: list[dict]
    truth: list[dict]
    golden: list[dict]
    retrieval: list[dict]
    gating: list[dict]
    gating_truth: list[dict]


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def plan_items(config: SuiteConfig, n_worlds: int, rng: random.Random) -> list[list[tuple[str, str]]]:
    """(family, style) of every item, per world; P2/P4 styles follow the should-not families' mix."""
    sizes = config.sizes
    plain_share = sizes["P1"] / (sizes["P1"] + sizes["P3"])
    specs: list[tuple[str, str]] = [("P1", "plain")] * sizes["P1"] + [("P3", "extra")] * sizes["P3"]
    for family in ("P2", "P4"):
        plain = round(sizes[family] * plain_share)
        specs += [(family, "plain")] * plain + [(family, "extra")] * (sizes[family] - plain)
    rng.shuffle(specs)
    per_world: list[list[tuple[str, str]]] = [[] for _ in range(n_worlds)]
    for index, spec in enumerate(specs):
        per_world[index % n_worlds].append(spec)
    return per_world


class _WorldBuilder:
    """Items of one world: its golden set, its live cases, its gating questions."""

    def __init__(self, world_seed: int, cases: Sequence[SupportCase], config: SuiteConfig, rng: random.Random):
        self.seed, self.config, self.rng = world_seed, config, rng
        groups = cases_by_procedure(cases)  # each revision its own group: a reference follows the case's steps
        self.pool: dict[str, list[str]] = {}
        for case in cases:
            for name, value in case.facts.items():
                self.pool.setdefault(name, []).append(value)
        self.golden: list[dict] = []
        self.golden_values: dict[str, frozenset[str]] = {}
        self.golden_entities: dict[str, frozenset[str]] = {}
        self.live: dict[str, list[SupportCase]] = {}
        self.oos: list[SupportCase] = []
        for runbook in sorted(groups, key=lambda k: ([p.procedure_id for p in PROCEDURES].index(k.split("@")[0]), k)):
            group = groups[runbook]
            if group[0].procedure_id in config.out_of_scope:
                self.oos += group
                continue
            k = min(config.golden_per_procedure, max(1, len(group) - 1))
            chosen = sorted(rng.sample(range(len(group)), k))
            for index in chosen:
                self._add_golden(group[index])
            self.live[runbook] = [c for i, c in enumerate(group) if i not in chosen]
        if len({g["procedure_id"] for g in self.golden}) < 2:
            raise InputError(f"world seed {world_seed}: fewer than two runbooks with completed cases; "
                             "simulate more days or people")
        self.index = GoldenIndex.build([g["golden_id"] for g in self.golden],
                                        [g["question"] for g in self.golden])
        self.procedure_of = {g["golden_id"]: g["procedure_id"] for g in self.golden}
        self.revision_of = {g["golden_id"]: g.get("revision", 1) for g in self.golden}
        self.by_id = {g["golden_id"]: g for g in self.golden}
        self.queue = [c for pid in sorted(self.live) for c in self.live[pid]]
        self.used: set[str] = set()
        self.oos_left: list[SupportCase] = []
        rng.shuffle(self.queue)
        self.cursor = 0

    def _add_golden(self, case: SupportCase) -> None:
        self.rng.getrandbits(40)  # the draw that was the id before ids were content hashes: keeps the suite's content
        question, reference = render_question(case, self.rng), render_reference(correct_answer(case))
        gid = golden_id(self.seed, case.case_id, case.procedure_id, question, reference)
        self.golden_values[gid] = frozenset(correct_answer(case).values().values())
        self.golden_entities[gid] = _entities(case)
        self.golden.append({
            "golden_id": gid,
            "world_seed": self.seed, "case_id": case.case_id, "procedure_id": case.procedure_id,
            "question": question, "reference": reference,
            **({"revision": case.revision} if case.revision != 1 else {}),
        })

    def _next_case(self, accept=lambda case: True) -> SupportCase | None:
        if not self.queue:
            raise InputError(f"world seed {self.seed}: no live cases left after the golden set; "
                             "simulate more days or people")
        for offset in range(len(self.queue)):
            case = self.queue[(self.cursor + offset) % len(self.queue)]
            if accept(case):
                self.cursor = (self.cursor + offset + 1) % len(self.queue)
                return case
        return None

    def _retrieve(self, question: str, revision: int = 1) -> tuple[dict, dict]:
        """The top-1 golden reference for a question (as production retrieves it: ``best_of_revision``)."""
        ranking = self.index.rank(question)
        per_runbook = best_per_group(ranking, self.procedure_of)
        top1, top1_sim = best_of_revision(ranking, per_runbook[0], self.procedure_of, self.revision_of, revision)
        record = {"top1": top1, "top1_similarity": top1_sim,
                  "top2": per_runbook[1][0] if len(per_runbook) > 1 else None,
                  "top2_similarity": per_runbook[1][1] if len(per_runbook) > 1 else 0.0,
                  "margin": margin(per_runbook)}
        return self.by_id[top1], record

    def _clean(self, case: SupportCase, golden_id: str) -> bool:
        """Whether the reference is of another case and states none of ``case``'s entity values."""
        return self.by_id[golden_id]["case_id"] != case.case_id and not _entities(case) & self.golden_entities[golden_id]

    def _clean_reference(self, case: SupportCase, question: str, record: dict) -> tuple[dict, dict] | None:
        """The best-ranked clean reference of the retrieved runbook and revision, with its retrieval record."""
        found = best_allowed(self.index.rank(question), record["top1"], self.procedure_of, self.revision_of,
                             lambda gid: self._clean(case, gid))
        return None if found is None else (self.by_id[found[0]], {**record, "top1": found[0], "top1_similarity": found[1]})

    def _live_case(self, accept) -> tuple[SupportCase, str, dict, dict] | None:
        """A live case, its question and a reference of another case sharing no entity value (ENTITY_FACTS).

        Unused cases first, a used one again only when no unused one has a clean reference; None when no accepted
        case has one (the item is dropped)."""
        fresh = lambda c: accept(c) and c.case_id not in self.used  # noqa: E731
        for allowed in (fresh, accept):
            found = self._clean_pair(allowed) if any(allowed(c) for c in self.queue) else None
            if found is not None:
                self.used.add(found[0].case_id)
                return found
        return None

    def _clean_pair(self, allowed) -> tuple[SupportCase, str, dict, dict] | None:
        """Up to one pass over the queue: the first allowed case whose retrieved reference is clean; else the first
        for which another reference of the retrieved runbook and revision is; else None."""
        fallback = None
        for _ in range(len(self.queue)):
            case = self._next_case(allowed)
            if case is None:
                break
            question = render_question(case, self.rng)
            golden, retrieval = self._retrieve(question, case.revision)
            if self._clean(case, golden["golden_id"]):
                return case, question, golden, retrieval
            if fallback is None:
                other = self._clean_reference(case, question, retrieval)
                fallback = (case, question, *other) if other is not None else None
        return fallback

    def item(self, family: str, style: str, variety: str | None) -> tuple[dict, dict, dict] | None:
        """One judged item, its truth and its retrieval record (``variety``: the P2 value kind or P4 corruption);
        None when no live case is left with a clean reference (``_live_case``)."""
        rng = self.rng
        corruption = variety
        if family == "P4":
            # a skipped step shortens the answer, so skip only in the longest runbooks: the corrupted
            # answer then has as many steps as a correct answer of a shorter runbook
            longest = max(len(c.procedure.steps) for c in self.queue) if self.queue else 0
            in_scope = [p for p in PROCEDURES if p.procedure_id not in self.config.out_of_scope]
            accept = lambda c: corruption in available_corruptions(c.procedure) and (  # noqa: E731
                corruption != "skip_step" or len(c.procedure.steps) == longest) and (
                corruption != "wrong_action" or has_near_miss(c.procedure, c.facts, in_scope))
            if not any(accept(c) for c in self.queue):
                corruption = rng.choice(sorted(set(self.config.p4_kinds) - {"wrong_escalation"}) or ["wrong_action"])
                accept = lambda c: True  # noqa: E731
        else:
            accept = lambda c: True  # noqa: E731
        found = self._live_case(accept)
        if found is None:
            return None
        case, question, golden, retrieval = found
        answer = correct_answer(case)
        extras = ()
        if style == "extra":
            extras = extra_sentences(rng, len(answer.steps), rng.randint(1, self.config.max_extras),
                                     closed=case.facts.get("case_status") == "closed")
            answer = Answer(answer.header, answer.steps, extras)
        perturbation: dict[str, Any] | None = None
        if family == "P2":
            n_values = 2 if rng.random() < self.config.two_value_share else 1
            answer, perturbation = contradict(answer, case.facts, rng, n_values, kind=variety, pool=self.pool,
                                              avoid=self.golden_values[golden["golden_id"]])
        elif family == "P4":
            answer, perturbation = corrupt(answer, case.procedure, corruption, rng, case.facts, in_scope)
        elif family == "P3":
            perturbation = {"kind": "benign_extra", "extras": [text for _, text in extras]}
        variant = rng.choice(ANSWER_VARIANTS)
        rng.getrandbits(48)  # the draw that was the id before ids were content hashes: keeps the suite's content
        item = {"item_id": "", "question": question, "live_context": render_context(case),
                "reference": golden["reference"], "candidate": render_answer(answer, variant)}
        truth = {"item_id": "", "family": family, "family_name": FAMILY_NAMES[family],
                 "should_penalize": SHOULD_PENALIZE[family], "style": style, "variant": variant,
                 "world_seed": self.seed, "case_id": case.case_id, "procedure_id": case.procedure_id,
                 "reference_golden_id": golden["golden_id"], "reference_case_id": golden["case_id"],
                 "perturbation": perturbation, "variety": _variety(family, perturbation),
                 "retrieval_top1_correct": self.procedure_of[retrieval["top1"]] == case.procedure_id}
        item["item_id"] = truth["item_id"] = item_id(item, truth)
        return item, truth, {"item_id": item["item_id"], "set": "judged", **retrieval}

    def gating_item(self) -> tuple[dict, dict, dict] | None:
        """One out-of-scope question (its runbook has no golden reference), or None if the world has none."""
        if not self.oos:
            return None
        if not self.oos_left:  # each out-of-scope case once before any is asked about again
            self.oos_left = sorted(self.oos, key=lambda c: c.case_id)
            self.rng.shuffle(self.oos_left)
        case = self.oos_left.pop()
        question = render_question(case, self.rng)
        golden, retrieval = self._retrieve(question)
        self.rng.getrandbits(48)  # the draw that was the id before ids were content hashes: keeps the suite's content
        item = {"item_id": "", "question": question, "live_context": render_context(case),
                "reference": golden["reference"],
                "candidate": render_answer(correct_answer(case), self.rng.choice(ANSWER_VARIANTS))}
        truth = {"item_id": "", "should_abstain": True, "world_seed": self.seed, "case_id": case.case_id,
                 "procedure_id": case.procedure_id, "retrieved_procedure_id": self.procedure_of[retrieval["top1"]]}
        item["item_id"] = truth["item_id"] = gating_id(item, truth)
        return item, truth, {"item_id": item["item_id"], "set": "gating", **retrieval}


def build_suite(worlds: Sequence[tuple[int, Sequence[SupportCase]]], config: SuiteConfig | None = None,
                world_meta: Iterable[dict] = ()) -> Suite:
    """Build a suite from (world seed, completed cases) pairs."""
    config = config or SuiteConfig()
    config.validate()
    if not worlds:
        raise InputError("no worlds to build from")
    rng = random.Random(f"cargo-suite:{config.seed}")
    plan = plan_items(config, len(worlds), rng)
    items, truth, retrieval, golden, gating, gating_truth = [], [], [], [], [], []
    cycles = {"P2": CONTRADICTIONS, "P4": tuple(config.p4_kinds)}
    turns = {"P2": 0, "P4": 0}
    dropped: dict[str, int] = {}    # planned items with no clean live case left, or repeating one, per family
    seen: set[str] = set()
    for (world_seed, cases), specs in zip(worlds, plan):
        builder = _WorldBuilder(world_seed, cases, config, random.Random(f"cargo-world:{config.seed}:{world_seed}"))
        golden += builder.golden
        for family, style in specs:
            variety = None
            if family in cycles:
                variety = cycles[family][turns[family] % len(cycles[family])]
                turns[family] += 1
            made = builder.item(family, style, variety)
            if made is None or made[0]["item_id"] in seen:  # no clean live case left, or a case drawn again alike
                dropped[family] = dropped.get(family, 0) + 1
                continue
            seen.add(made[0]["item_id"])
            items.append(made[0]); truth.append(made[1]); retrieval.append(made[2])
        for _ in range(config.gating_per_world):
            made = builder.gating_item()
            if made:
                gating.append(made[0]); gating_truth.append(made[1]); retrieval.append(made[2])
    refuse_repeats(truth + gating_truth)
    key = lambda row: row["item_id"]
    items.sort(key=key); truth.sort(key=key); retrieval.sort(key=key); gating.sort(key=key); gating_truth.sort(key=key)
    golden.sort(key=lambda g: g["golden_id"])
    meta = _meta(config, worlds, world_meta, items, truth, gating, golden)
    meta["dropped_items"] = dict(sorted(dropped.items()))
    return Suite(meta, items, truth, golden, retrieval, gating, gating_truth)


def _variety(family: str, perturbation: dict | None) -> str | None:
    """The P2 value kind (of the first changed value) or the P4 kind; None for P1 and P3."""
    if family == "P2":
        change = perturbation["changes"][0]
        return value_kind(change["field"], change["original"])
    return perturbation["kind"] if family == "P4" else None


def _meta(config, worlds, world_meta, items, truth, gating, golden) -> dict[str, Any]:
    by_id = {i["item_id"]: i for i in items}
    counts = {f: sum(1 for t in truth if t["family"] == f) for f in FAMILIES}
    styles = {f: {s: sum(1 for t in truth if t["family"] == f and t["style"] == s) for s in ("plain", "extra")}
              for f in FAMILIES}
    length = {f: round(statistics.fmean(len(by_id[t["item_id"]]["candidate"]) for t in truth if t["family"] == f), 1)
              for f in FAMILIES if counts[f]}
    kinds: dict[str, int] = {}
    p2_kinds: dict[str, int] = {}
    for t in truth:
        if t["family"] == "P4":
            kinds[t["perturbation"]["kind"]] = kinds.get(t["perturbation"]["kind"], 0) + 1
        if t["family"] == "P2":
            change = t["perturbation"]["changes"][0]
            kind = value_kind(change["field"], change["original"])
            p2_kinds[kind] = p2_kinds.get(kind, 0) + 1
    return {"format_version": FORMAT_VERSION, "kind": "cargo-bench", "config": asdict(config),
            "surface_baseline": surface_baselines(items, truth),
            "world_seeds": [seed for seed, _ in worlds], "worlds": list(world_meta),
            "counts": counts, "items": len(items), "gating_items": len(gating), "golden": len(golden),
            "shortcut_readers": reader_scores(items, truth),
            "styles": styles, "mean_candidate_chars": length, "p4_kinds": dict(sorted(kinds.items())),
            "p2_kinds": dict(sorted(p2_kinds.items()))}


def suite_from_world_objects(worlds: Sequence, config: SuiteConfig | None = None) -> Suite:
    """Build a suite from loaded World objects."""
    pairs = [(world.seed, cases_from_world(world)) for world in worlds]
    meta = [{"seed": w.seed, "counts": dict(w.meta.get("counts", {}))} for w in worlds]
    return build_suite(pairs, config, meta)


def write_suite(suite: Suite, out_dir: Path) -> None:
    """Write a suite directory atomically, with its manifest."""
    with staged_directory(Path(out_dir)) as tmp:
        write_suite_files(suite, tmp)
        write_manifest(tmp)


def write_suite_files(suite: Suite, directory: Path) -> None:
    """Write a suite's files into an existing directory (no manifest)."""
    directory = Path(directory)
    write_json(directory / "suite.json", suite.meta)
    write_jsonl(directory / "items.jsonl", (CargoItem.from_json(row).to_json() for row in suite.items))
    write_jsonl(directory / "truth.jsonl", (CargoTruth.from_json(row).to_json() for row in suite.truth))
    write_jsonl(directory / "golden.jsonl", suite.golden)
    write_jsonl(directory / "retrieval.jsonl", suite.retrieval)
    write_jsonl(directory / "gating.jsonl", suite.gating)
    write_jsonl(directory / "gating_truth.jsonl", suite.gating_truth)
