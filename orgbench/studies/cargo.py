"""The CARGO study: worlds → suite → judgments under every condition → Tables 1–3 and the gating figure.

Offline by default: the four built-in judges (literal, grounded, token-f1,
noref), each deterministic, so one judge seed suffices. With
``options.judge`` (e.g. ``openai:MODEL`` and ``options.base_url``) that judge
runs instead, with judge seeds 0, 1, 2, in a resumable run directory.

Stages under ``options.work_dir / "cargo"`` (reused when their inputs match):
``suite`` (worlds are simulated in memory; the suite is what is kept) and
``runs/<judge>`` and ``tables/<seeds>`` (the files below, copied into the
results) for the built-in judges; an LLM judge's resumable run is
``runs/<judge>-<digest>``, the digest taken over everything that changes its
answers (judge, endpoint, judge seeds, conditions, the suite's content).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from judges.backends.registry import is_builtin
from orgbench.stages import module_fingerprint
from orgbench.studies import ReproduceOptions
from orgbench.studies.descriptor import cargo_builtin_judges

BUILTIN_JUDGES = cargo_builtin_judges()
LLM_JUDGE_SEEDS = (0, 1, 2)
RUN_CONDITIONS = ("all", "rubric-swap", "cargo+kinds")
RULES_VERSION = 1  # bump to force every CARGO stage to rebuild (code changes already do)


def _suite_stage(work: Path, seeds: tuple[int, ...], fresh: bool) -> Path:
    from benchmark_builders.cargo import SuiteConfig, suite_from_world_objects, write_suite_files
    from benchmark_builders.cargo.worlds import CARGO_WORLD, simulate_worlds
    from dataclasses import asdict
    from orgbench.stages import run_stage

    config = SuiteConfig()
    inputs = {"stage": "cargo-suite", "rules": RULES_VERSION, "seeds": list(seeds), "world": CARGO_WORLD,
              "suite": asdict(config), "code": module_fingerprint("benchmark_builders.cargo", "benchmark_builders.cargo.worlds")}

    def build(tmp: Path) -> None:
        write_suite_files(suite_from_world_objects(simulate_worlds(seeds), config), tmp)

    directory = work / "suite"
    run_stage(directory, inputs, build, fresh=fresh)
    return directory


def _jobs(suite: Path, seeds: tuple[int, ...]) -> list:
    from benchmark_builders.cargo.records import read_items
    from judges.cargo_run import make_jobs
    from judges.conditions import VARIANTS, parse_conditions

    return make_jobs(read_items(suite), parse_conditions("all", rubric_swap=True) + list(VARIANTS.values()), seeds)


def _builtin_run(work: Path, suite: Path, spec: str, fresh: bool) -> Path:
    from judges.backends import EndpointConfig
    from judges.cargo_run import run_cargo_jobs
    from orgbench.stages import run_stage
    from orgbench.core.storage import read_json

    suite_hash = read_json(suite / "MANIFEST.json")["stage_inputs"]
    inputs = {"stage": "cargo-run", "rules": RULES_VERSION, "judge": spec, "suite": suite_hash, "seeds": [0],
              "code": module_fingerprint("judges.cargo_run", "judges.conditions", "judges.backends.builtin",
                                         "judges.claims", "judges.value_claims")}   # a built-in judge's rules too

    def build(tmp: Path) -> None:
        run_cargo_jobs(_jobs(suite, (0,)), spec, tmp, suite=suite, conditions=list(RUN_CONDITIONS),
                       seeds=(0,), endpoint=EndpointConfig(concurrency=8))

    directory = work / "runs" / spec.replace(":", "-")
    run_stage(directory, inputs, build, fresh=fresh)
    return directory


def _llm_run(work: Path, suite: Path, options: ReproduceOptions) -> Path:
    """Judge the suite with ``options.judge`` in a resumable run directory keyed on what changes its answers.

    The directory name carries a digest of the judge, the endpoint, the judge
    seeds, the conditions and the suite's content digest: the same settings
    resume the same run (nothing finished is asked again), different settings
    get their own directory, and ``--fresh`` deletes the run (and its response
    cache) and asks again.
    """
    import shutil

    judge = options.judge
    if judge is None:
        raise ValueError("an LLM run needs options.judge")

    from judges.backends import EndpointConfig
    from judges.cargo_run import run_cargo_jobs
    from judges.cargo_scores import suite_binding
    from orgbench.stages import fingerprint

    key = {"stage": "cargo-llm-run", "rules": RULES_VERSION, "judge": judge, "base_url": options.base_url,
           "judge_seeds": list(LLM_JUDGE_SEEDS), "conditions": list(RUN_CONDITIONS),
           "suite_digest": suite_binding(suite)[0]["suite_digest"]}
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", judge)
    run_dir = work / "runs" / f"{slug}-{fingerprint(key)[:12]}"
    if options.fresh and run_dir.exists():
        shutil.rmtree(run_dir)
    run_cargo_jobs(_jobs(suite, LLM_JUDGE_SEEDS), judge, run_dir, suite=suite,
                   conditions=list(RUN_CONDITIONS), seeds=LLM_JUDGE_SEEDS,
                   endpoint=EndpointConfig(base_url=options.base_url,
                                           concurrency=int(options.extra.get("concurrency", 16))), progress=True,
                   totals=options.extra.get("totals"))
    return run_dir


def reproduce(out_dir: Path, options: ReproduceOptions) -> None:
    """Build the default suite, judge it under every condition and write results/cargo."""
    from benchmark_builders.cargo.worlds import DEFAULT_SEEDS
    from orgbench.stages import published_stage, stage_digest

    seeds = tuple(options.seeds) if options.seeds else DEFAULT_SEEDS
    work = Path(options.work_dir) / "cargo"
    suite = _suite_stage(work, seeds, options.fresh)
    if options.judge and not is_builtin(options.judge):   # a resumable run, not a stage: its tables are rewritten
        runs = [_llm_run(work, suite, options)]
        _write_results(Path(out_dir), suite, seeds, runs, options)
        return
    specs = [options.judge] if options.judge else list(BUILTIN_JUDGES)   # deterministic: one judge seed, a stage
    runs = [_builtin_run(work, suite, spec, options.fresh) for spec in specs]
    inputs = {"stage": "cargo-tables", "rules": RULES_VERSION, "seeds": list(seeds), "judges": specs,
              "stages": [stage_digest(suite)] + [stage_digest(run) for run in runs],
              "code": module_fingerprint("orgbench.studies.cargo")}
    name = "-".join(map(str, seeds)) + ("-" + options.judge.replace(":", "-") if options.judge else "")
    published_stage(work / "tables" / name, inputs, lambda tmp: _write_results(tmp, suite, seeds, runs, options),
                    Path(out_dir), fresh=options.fresh)


def _write_results(out_dir: Path, suite: Path, seeds: tuple[int, ...], runs: list[Path],
                   options: ReproduceOptions) -> None:
    """Tables 1-3, the gating figure, the drill-down and NOTES.md from the runs' judgments, under ``out_dir``."""
    from orgbench.report.cargo_tables import write_tables

    write_tables(runs, suite, out_dir)
    _write_drilldown(out_dir, suite, runs)
    _write_notes(out_dir, suite, seeds, runs, options)


def _judges_line(runs: list[Path], options: ReproduceOptions) -> str:
    """Which judges produced these tables: built-in (deterministic) and LLM endpoints, with their judge seeds."""
    from orgbench.core.storage import read_json

    builtin: dict[str, list[str]] = {}
    parts = []
    for run in runs:
        meta = read_json(run / "run.json")
        judge, judge_seeds = meta.get("judge", run.name), meta.get("parameters", {}).get("seeds", [])
        seeds = ", ".join(map(str, judge_seeds))
        if is_builtin(judge):
            builtin.setdefault(seeds, []).append(f"`{judge}`")
        else:
            where = (meta.get("backend") or {}).get("base_url") or options.base_url
            parts.append(f"`{judge}`" + (f" at {where}" if where else "") +
                         f" (judge seeds {seeds}; an item's rate is its mean over seeds)")
    parts = [f"{', '.join(names)} (built-in, deterministic, judge seed {seeds})"
             for seeds, names in builtin.items()] + parts
    return "; ".join(parts)


def _write_notes(out_dir: Path, suite: Path, seeds: tuple[int, ...], runs: list[Path],
                 options: ReproduceOptions) -> None:
    from benchmark_builders.cargo.records import families_in
    from benchmark_builders.cargo.worlds import CARGO_WORLD
    from orgbench.core.storage import read_json, write_text_atomic

    meta = read_json(suite / "suite.json")
    judges = [read_json(run / "run.json").get("judge", run.name) for run in runs]
    builtin = [j for j in judges if is_builtin(j)]
    llm = [j for j in judges if not is_builtin(j)]
    counts = ", ".join(f"{k} {meta['counts'][k]}" for k in families_in(meta["counts"]))   # suite.json sorts keys
    caveats = []
    if builtin:
        caveats.append(f"The built-in judges ({', '.join(builtin)}) are procedural baselines that read only the "
                       "rendered request; they show that the\nsuite behaves as designed (see docs/cargo.md), not how "
                       "an LLM judge behaves.")
    if llm:
        caveats.append(f"The rows of {', '.join(llm)} are that model's judgments through the OpenAI-compatible "
                       "endpoint, read from\nits run directory; they are the numbers to set beside the paper's.")
    else:
        caveats.append("No LLM judged this suite; `--judge openai:MODEL --base-url URL` puts one in place of the "
                       "built-in judges.")
    text = f"""# CARGO-Bench results

Suite: {meta['items']} items ({counts}) from {len(seeds)} simulated worlds (seeds {", ".join(map(str, seeds))};
{CARGO_WORLD['people']} people over {CARGO_WORLD['days']} days each), {meta['gating_items']} out-of-scope gating
questions, {meta['golden']} golden references.
Judges: {_judges_line(runs, options)}. The paper's rows are
gpt-oss-120b, mean of 3 seeds (Table 3: seed 0, 150 items).

- `table1_headline.*`, `table2_ablations.*`, `table3_rubric_swap.*`: penalty rate per family and
  DI = TP − FP with a 95% item-level bootstrap CI (10,000 resamples, seed 0), our rows beside the paper's;
  no CI where a judge gave one verdict to every item ("one verdict, no CI": resampling can only repeat its DI).
- `risk_coverage.png` / `.csv`: CARGO condition gated by retrieval margin (top-1 minus top-2 runbook
  similarity); loss 1 for a wrong or missing decision, a wrong top-1 runbook, or an out-of-scope question.
- `selective_risk.*`: selective risk at target coverages 0.5, 0.8, 0.9 and 1.0, beside the coverage
  actually reached (the smallest any τ gives that is at least the target), τ and AURC.
- `scores.json`: every condition's scores per judge, and AURC / selective risk at fixed coverages.
- `breakdown.csv` / `.md`: penalty rate per P2 value kind, per P4 kind and per answer style.
- `cargo+kinds` (Table 2) is not a paper condition: CARGO naming the suite's four corruption kinds.
- `drilldown.jsonl`, `drilldown_shared.json`: per item and condition, every judge's verdict and the
  unsupported claims of the grounded judge (or of the one judge that ran); per item, the texts the judge saw and the truth (for the HTML report).

{chr(10).join(caveats)} P3 (benign divergence) is
this project's reconstruction: the paper does not define it.
"""
    write_text_atomic(out_dir / "NOTES.md", text)


def _clip(text: str, limit: int = 180) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _write_drilldown(out_dir: Path, suite: Path, runs: list[Path]) -> None:
    """drilldown.jsonl (one record per item and condition) and drilldown_shared.json (each item's texts)."""
    from judges.cargo_scores import load_cargo_judgments
    from orgbench.core.storage import read_json, write_json, write_jsonl
    from orgbench.core.jsonl import read_jsonl

    items = {row["item_id"]: row for row in read_jsonl(suite / "items.jsonl").values}
    truth = {row["item_id"]: row for row in read_jsonl(suite / "truth.jsonl").values}
    shared = {}
    for item_id, item in items.items():
        fact = truth[item_id]
        change = fact.get("perturbation") or {}
        shared[item_id] = [
            {"heading": "Question", "text": item["question"]},
            {"heading": "Live context", "text": item["live_context"]},
            {"heading": "Retrieved reference", "text": item["reference"]},
            {"heading": "Candidate answer", "text": item["candidate"]},
            {"heading": "Truth (never shown to the judge)",
             "text": f"family {fact['family']} ({fact['family_name']}); should penalise: {fact['should_penalize']}; "
                     f"perturbation: {json.dumps(change, sort_keys=True) if change else 'none'}"},
        ]
    verdicts: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for run in runs:
        judge = read_json(run / "run.json").get("judge", run.name)
        first_seed: dict[tuple[str, str], Any] = {}
        for row in load_cargo_judgments(run):
            key = (row.item_id, row.condition)
            if key not in first_seed or row.seed < first_seed[key].seed:
                first_seed[key] = row
        for key, row in first_seed.items():
            verdicts.setdefault(key, []).append((judge, row))
    records = []
    for (item_id, condition), rows in sorted(verdicts.items()):
        fact = truth[item_id]
        table = []
        fields = {"item": item_id, "family": fact["family"], "condition": condition}
        for judge, row in rows:
            verdict = row.verdict.verdict if row.verdict else "unparsed"
            claims = row.verdict.claims if row.verdict else ()
            flagged = sum(1 for c in claims if c.status == "contradicted")
            table.append([judge, verdict, str(row.penalized), len(claims), flagged])
            fields[judge.split(":")[-1]] = verdict
        main_judge, main = next(((j, r) for j, r in rows if j.endswith("grounded")), rows[0])
        penalized = main.penalized
        fields["outcome"] = ("undecided" if penalized is None
                             else "correct" if penalized == fact["should_penalize"] else "wrong")
        claims = main.verdict.claims if main.verdict else ()
        records.append({
            "id": f"{item_id}.{condition}", "title": f"{item_id} under {condition}", "shared": item_id,
            "fields": fields,
            "sections": [
                {"heading": "Verdicts", "columns": ["judge", "verdict", "penalized", "claims", "contradicted"],
                 "rows": table},
                {"heading": f"Claims {main_judge} did not find supported "
                            f"({sum(1 for c in claims if c.status == 'supported')} of {len(claims)} supported)",
                 "columns": ["claim", "status"],
                 "rows": [[_clip(c.text), c.status] for c in claims if c.status != "supported"]},
            ],
        })
    write_jsonl(out_dir / "drilldown.jsonl", records)
    write_json(out_dir / "drilldown_shared.json", shared)
