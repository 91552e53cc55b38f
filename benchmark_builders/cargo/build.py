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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from benchmark_builders.cargo.answers import Answer, correct_answer
from benchmark_builders.cargo.cases import SupportCase, cases_by_procedure, cases_from_world, shown_history
from benchmark_builders.cargo.derived import contradict_derived, derived_values
from benchmark_builders.cargo.identity import gating_id, golden_id, item_id, refuse_repeats
from benchmark_builders.cargo.perturb import (
    NoContradiction, available_corruptions, contradict, corrupt, has_near_miss, world_relations,
)
from benchmark_builders.cargo.plan import SuiteConfig, plan_items
from benchmark_builders.cargo.summary import gating_summary, suite_meta, variety_of
from benchmark_builders.cargo.records import (
    FAMILY_NAMES, FAMILY_TABLE, SHOULD_PENALIZE, CargoItem, CargoTruth,
)
from benchmark_builders.cargo.retrieval import GoldenIndex, best_allowed, best_of_revision, best_per_group, margin
from benchmark_builders.cargo.wording import (
    ANSWER_VARIANTS, extra_sentences, phrases, render_answer, render_context, render_question, render_reference,
)
from orgbench.core.errors import InputError
from simulator.procedures import DEFAULT_RUNBOOKS, Runbooks
from orgbench.core.storage import staged_directory, write_json, write_jsonl, write_manifest

#: Facts that name the case's own entities and events: a reference of another case states none of them.
#: (An approver, a diagnostic code, an amount or a firmware version may recur: few managers, codes, lines.)
ENTITY_FACTS: frozenset[str] = frozenset({
    "case_id", "account_id", "account_name", "contact_name", "contact_email", "asset_serial", "purchase_date",
    "warranty_end", "opened_at", "backup_id", "dispatch_id", "visit_date", "rma_number", "license_key",
    "target_account_id", "reset_token_id", "invoice_id", "credit_id", "log_bundle_id", "recovery_job_id",
})
_FAMILY = {f.code: f for f in FAMILY_TABLE}


def _entities(case: SupportCase) -> frozenset[str]:
    return frozenset(v for k, v in case.facts.items() if k in ENTITY_FACTS)


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


class _WorldBuilder:
    """Items of one world: its golden set, its live cases, its gating questions."""

    def __init__(self, world_seed: int, cases: Sequence[SupportCase], config: SuiteConfig, rng: random.Random,
                 runbooks: Runbooks = DEFAULT_RUNBOOKS):
        self.seed, self.config, self.rng, self.runbooks = world_seed, config, rng, runbooks
        # each revision its own group: a reference follows the case's steps; references are closed cases only
        groups = cases_by_procedure(c for c in cases if not c.is_open)
        self.pool: dict[str, list[str]] = {}
        self.relations = world_relations([c.facts for c in cases])
        for case in cases:
            for name, value in case.facts.items():
                self.pool.setdefault(name, []).append(value)
        self.golden: list[dict] = []
        self.golden_values: dict[str, frozenset[str]] = {}
        self.golden_entities: dict[str, frozenset[str]] = {}
        self.live: dict[str, list[SupportCase]] = {}
        self.oos: list[SupportCase] = []
        for runbook in sorted(groups, key=lambda k: ([p.procedure_id for p in runbooks.procedures].index(k.split("@")[0]), k)):
            group = groups[runbook]
            if group[0].procedure_id in (config.out_of_scope or ()):
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
        golden_cases = {g["case_id"] for g in self.golden}
        self.queues: dict[str, list[SupportCase]] = {"closed": [c for pid in sorted(self.live) for c in self.live[pid]]}
        for state in ("open_at_end", "mid_case"):  # never a golden case half-way: its reference would be itself
            self.queues[state] = sorted((c for c in cases if c.state == state and c.runbook in self.live
                                         and c.case_id not in golden_cases), key=lambda c: (c.runbook, c.case_id))
        self.used: set[str] = set()
        self.oos_left: list[SupportCase] = []
        self.gating_made = 0
        for state in self.queues:
            rng.shuffle(self.queues[state])
        self.cursors = dict.fromkeys(self.queues, 0)

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

    def _next_case(self, state: str, accept=lambda case: True) -> SupportCase | None:
        queue = self.queues[state]
        if not self.queues["closed"]:
            raise InputError(f"world seed {self.seed}: no live cases left after the golden set; "
                             "simulate more days or people")
        for offset in range(len(queue)):
            case = queue[(self.cursors[state] + offset) % len(queue)]
            if accept(case):
                self.cursors[state] = (self.cursors[state] + offset + 1) % len(queue)
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

    def _live_case(self, state: str, accept) -> tuple[SupportCase, str, dict, dict] | None:
        """A live case, its question and a reference of another case sharing no entity value (ENTITY_FACTS).

        Unused cases first, a used one again only when no unused one has a clean reference; None when no accepted
        case has one (the item is dropped)."""
        fresh = lambda c: accept(c) and c.case_id not in self.used  # noqa: E731
        for allowed in (fresh, accept):
            found = self._clean_pair(state, allowed) if any(allowed(c) for c in self.queues[state]) else None
            if found is not None:
                self.used.add(found[0].case_id)
                return found
        return None

    def _clean_pair(self, state: str, allowed) -> tuple[SupportCase, str, dict, dict] | None:
        """Up to one pass over the queue: the first allowed case whose retrieved reference is clean; else the first
        for which another reference of the retrieved runbook and revision is; else None."""
        fallback = None
        for _ in range(len(self.queues[state])):
            case = self._next_case(state, allowed)
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

    def _state(self, state: str, accept) -> str:
        """The case state an item takes: the planned one, else another open one, else closed (when the world has
        no such open case left to accept)."""
        for option in (state, "mid_case" if state == "open_at_end" else "open_at_end", "closed"):
            if any(accept(c) for c in self.queues[option]):
                return option
        return "closed"

    def item(self, family: str, style: str, variety: str | Sequence[str] | None, state: str = "closed",
             variant: str | None = None, runbook: str | None = None) -> tuple[dict, dict, dict] | None:
        """One judged item, its truth and its retrieval record (``variety``: the P2 value kind, or the P4 kinds in
        order of preference; ``state``: the case state planned; ``variant``: the wording; ``runbook``: the runbook
        wanted, taken when a live case of it is left); None when no live case is left with a clean reference
        (``_live_case``) or its answer states too few values for a self-consistent P2 contradiction."""
        rng = self.rng
        in_scope = [p for p in self.runbooks.procedures if p.procedure_id not in (self.config.out_of_scope or ())]
        cases = [c for q in self.queues.values() for c in q]
        wanted = lambda c: runbook is None or c.procedure_id == runbook  # noqa: E731
        accept = wanted if any(wanted(c) for c in cases) else (lambda c: True)
        corruption = variety if isinstance(variety, str) or variety is None else None
        if family == "P4":
            kinds = [variety] if isinstance(variety, str) else list(variety or ())

            def applies(kind: str, case: SupportCase) -> bool:
                return kind in available_corruptions(case.procedure, case.done, self.runbooks.all) and (
                    kind != "wrong_action" or has_near_miss(case.procedure, case.facts, in_scope))
            options = [(k, r) for r in (True, False) for k in kinds]   # the wanted runbook first, then any
            for kind, on_runbook in options:
                test = (lambda c, k=kind, o=on_runbook: applies(k, c) and (not o or wanted(c)))
                if any(test(c) for c in cases):
                    corruption, accept = kind, test
                    break
            else:
                return None
        found = self._live_case(self._state(state, accept), accept)
        if found is None:
            return None
        case, question, golden, retrieval = found
        answer = correct_answer(case)
        extras: tuple[tuple[int, str], ...] = ()
        if style == "extra":
            extras = extra_sentences(rng, sum(s.done for s in answer.steps), rng.randint(1, self.config.max_extras),
                                     closed=case.facts.get("case_status") == "closed", done=not case.is_open)
            answer = Answer(answer.header, answer.steps, extras)
        try:
            candidate, perturbation = self._perturb(family, corruption, case, answer, golden, in_scope)
        except (NoContradiction, ValueError):  # too few values stated (an early open case), or no such corruption
            return None
        if family == "P3":
            perturbation = {"kind": "benign_extra", "extras": [text for _, text in extras]}
        variant = variant or rng.choice(ANSWER_VARIANTS)
        item = {"item_id": "", "question": question, "live_context": render_context(case),
                "reference": golden["reference"],
                "candidate": candidate if isinstance(candidate, str) else render_answer(candidate, variant)}
        stated = correct_answer(case).values()
        truth = {"item_id": "", "family": family, "family_name": FAMILY_NAMES[family],
                 "should_penalize": SHOULD_PENALIZE[family], "style": style, "variant": variant,
                 "world_seed": self.seed, "case_id": case.case_id, "procedure_id": case.procedure_id,
                 "reference_golden_id": golden["golden_id"], "reference_case_id": golden["case_id"],
                 "perturbation": perturbation, "variety": variety_of(family, perturbation),
                 "retrieval_top1_correct": self.procedure_of[retrieval["top1"]] == case.procedure_id,
                 "case_state": case.state, "next_steps": [s.step_id for s in correct_answer(case).steps if not s.done],
                 "derived": {d.fact: d.kind for d in derived_values(case) if d.fact in stated}}
        item["item_id"] = truth["item_id"] = item_id(item, truth)
        return item, truth, {"item_id": item["item_id"], "set": "judged", **retrieval}

    def _perturb(self, family: str, variety: str | None, case: SupportCase, answer: Answer, golden: dict,
                 in_scope: list) -> tuple[Answer | str, dict[str, Any] | None]:
        """The candidate's answer and its perturbation record: a P2 contradiction of a value of kind ``variety``
        (a derived value: a wrong computation of it), a P4 corruption of kind ``variety``; else unchanged."""
        rng = self.rng
        if family in ("P2", "P4") and variety is None:
            raise ValueError(f"a {family} item needs a kind")       # the plan gives each one
        if family == "P2":
            assert variety is not None
            n_values = 2 if rng.random() < self.config.two_value_share else 1
            if variety == "derived":
                made = contradict_derived(answer, derived_values(case), rng)
                if made is not None:
                    return made
                variety = "identifier"
            for kind in dict.fromkeys((variety, "identifier")):  # a date no other seen offset fits: an identifier
                try:
                    return contradict(answer, case.facts, rng, n_values, kind=kind, pool=self.pool,
                                      avoid=self.golden_values[golden["golden_id"]] | shown_history(case),
                                      relations=self.relations)
                except NoContradiction:
                    if kind == "identifier":
                        raise
        if family == "P4":
            assert variety is not None
            return corrupt(answer, case.procedure, variety, rng, case.facts, in_scope, done=case.done,
                           revisions=self.runbooks.all)
        perturb = _FAMILY[family].perturber()    # a plugin's family makes its own candidate
        return perturb(answer, golden["reference"], rng) if perturb else (answer, None)

    def gating_item(self) -> tuple[dict, dict, dict] | None:
        """One out-of-scope question (its runbook has no golden reference), or None if the world has none."""
        if not self.oos:
            return None
        if not self.oos_left:  # each out-of-scope case once before any is asked about again
            self.oos_left = sorted(self.oos, key=lambda c: c.case_id)
            self.rng.shuffle(self.oos_left)
        case = self.oos_left.pop()
        near = self.gating_made % 2 == 0 and case.procedure.category in phrases()["symptoms_near"]  # every other one
        self.gating_made += 1
        question = render_question(case, self.rng, near)
        golden, retrieval = self._retrieve(question)
        self.rng.getrandbits(48)  # the draw that was the id before ids were content hashes: keeps the suite's content
        item = {"item_id": "", "question": question, "live_context": render_context(case),
                "reference": golden["reference"],
                "candidate": render_answer(correct_answer(case), self.rng.choice(ANSWER_VARIANTS))}
        truth = {"item_id": "", "should_abstain": True, "world_seed": self.seed, "case_id": case.case_id,
                 "procedure_id": case.procedure_id, "retrieved_procedure_id": self.procedure_of[retrieval["top1"]],
                 "near_vocabulary": near}
        item["item_id"] = truth["item_id"] = gating_id(item, truth)
        return item, truth, {"item_id": item["item_id"], "set": "gating", **retrieval}


def _runbooks_of(worlds: Sequence[tuple[int, Sequence[SupportCase]]]) -> Runbooks:
    """The runbooks every case of ``worlds`` follows (one pack per suite; the default pack's when no case)."""
    found = {c.runbooks for _, cases in worlds for c in cases}
    if len(found) > 1:
        raise InputError(f"worlds: made from {len(found)} different domain packs "
                         f"({', '.join(sorted(r.pack for r in found))}); a suite is built from one pack's worlds")
    return found.pop() if found else DEFAULT_RUNBOOKS


def build_suite(worlds: Sequence[tuple[int, Sequence[SupportCase]]], config: SuiteConfig | None = None,
                world_meta: Iterable[dict] = ()) -> Suite:
    """Build a suite from (world seed, completed cases) pairs, with the runbooks of the pack the cases follow."""
    runbooks = _runbooks_of(worlds)
    config = (config or SuiteConfig()).for_runbooks(runbooks)
    config.validate(runbooks)
    if not worlds:
        raise InputError("no worlds to build from")
    rng = random.Random(f"cargo-suite:{config.seed}")
    plan = plan_items(config, len(worlds), rng, ANSWER_VARIANTS)
    items, truth, retrieval, golden, gating, gating_truth = [], [], [], [], [], []
    p2_kinds = tuple(config.p2_kinds)
    used_p4: dict[str, int] = dict.fromkeys(config.p4_kinds, 0)
    # every family deals the in-scope runbooks in turn, from its own shuffled order: runbooks balanced by family
    in_scope = sorted(p.procedure_id for p in runbooks.procedures if p.procedure_id not in (config.out_of_scope or ()))
    deal = {family: rng.sample(in_scope, len(in_scope)) for family in FAMILY_NAMES}
    dealt = dict.fromkeys(FAMILY_NAMES, 0)
    turns = 0
    dropped: dict[str, int] = {}    # planned items with no clean live case left, no contradiction, or repeating one
    seen: set[str] = set()
    for (world_seed, cases), specs in zip(worlds, plan):
        builder = _WorldBuilder(world_seed, cases, config, random.Random(f"cargo-world:{config.seed}:{world_seed}"),
                                runbooks)
        golden += builder.golden
        for family, style, state, variant in specs:
            variety: str | tuple[str, ...] | None = None
            if family == "P2":
                variety = p2_kinds[turns % len(p2_kinds)]
                turns += 1
            elif family == "P4":   # the least used kind first
                variety = tuple(sorted(used_p4, key=lambda k: (used_p4[k], config.p4_kinds.index(k))))
            runbook = deal[family][dealt[family] % len(in_scope)]
            dealt[family] += 1
            made = builder.item(family, style, variety, state, variant, runbook)
            if made is None or made[0]["item_id"] in seen:  # no clean live case left, or a case drawn again alike
                dropped[family] = dropped.get(family, 0) + 1
                continue
            if family == "P4":
                used_p4[made[1]["variety"]] += 1
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
    meta = suite_meta(config, worlds, world_meta, items, truth, gating, golden)
    if runbooks.pack != DEFAULT_RUNBOOKS.pack:   # a default suite's suite.json is as before packs
        meta["pack"] = runbooks.pack
    meta["dropped_items"] = dict(sorted(dropped.items()))
    meta["gating"] = gating_summary(gating_truth, retrieval)
    return Suite(meta, items, truth, golden, retrieval, gating, gating_truth)


def suite_from_world_objects(worlds: Sequence, config: SuiteConfig | None = None,
                             runbooks: Runbooks | None = None) -> Suite:
    """Build a suite from loaded World objects (``runbooks``: their pack's; default: the pack world.json names)."""
    pairs = [(world.seed, cases_from_world(world, runbooks)) for world in worlds]
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
