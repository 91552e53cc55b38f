"""The GroundEval study: default worlds → contracts → every built-in agent in tool and context mode → tables.

Stages under ``options.work_dir / "groundeval"`` (reused when their inputs
match): ``suites/seed-N`` (the world is simulated in memory from the default
config; the suite keeps its corpus), ``runs/seed-N/<agent>-<mode>`` and
``tables/<seeds>`` (scoring and every file below, copied into ``out_dir``).
Runs record no latency, so every file — and everything under ``out_dir``:
the tables, the figure ``agents_by_track.png`` and ``drilldown.jsonl`` — is
byte-identical on a rerun. With ``options.judge = "openai:MODEL"`` (and
``options.base_url``) that agent runs too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from benchmark_builders.groundeval.tracks import BUILTIN_TRACKS
from judges.groundeval.agent_registry import MODES
from judges.groundeval.agents import BUILTIN_AGENTS as AGENTS
from orgbench.stages import module_fingerprint
from orgbench.studies import ReproduceOptions
from orgbench.studies.groundeval_scores import GroupScore, SeededScore

DEFAULT_SEEDS = (0, 1, 2)
RULES_VERSION = 2  # bump to force every GroundEval stage to rebuild (code changes already do)


def _suite_stage(work: Path, seed: int, fresh: bool) -> Path:
    from benchmark_builders.groundeval.build import build_suite
    from orgbench.stages import run_stage
    from simulator.config import load_config
    from simulator.simulate import simulate

    inputs = {"stage": "groundeval-suite", "rules": RULES_VERSION, "seed": seed, "world": "default",
              "code": module_fingerprint("benchmark_builders.groundeval.build", "simulator.simulate")}

    def build(tmp: Path) -> None:
        world = simulate(load_config(seed=seed))
        build_suite(tmp / "suite", world=world, name=f"default-seed-{seed}")

    directory = work / "suites" / f"seed-{seed}"
    run_stage(directory, inputs, build, fresh=fresh)
    return directory / "suite"


def _run_stage(work: Path, seed: int, suite: Path, spec: str, mode: str, fresh: bool, shared: dict[str, Any],
               base_url: str | None) -> Path:
    from judges.backends.registry import takes_base_url
    from judges.groundeval.run import run_agent
    from judges.groundeval.runtime import Corpus
    from judges.groundeval.traces import load_corpus_world
    from orgbench.stages import run_stage
    from orgbench.core.storage import read_json

    suite_hash = read_json(suite.parent / "MANIFEST.json")["stage_inputs"]
    inputs = {"stage": "groundeval-run", "rules": RULES_VERSION, "suite": suite_hash, "agent": spec, "mode": mode,
              "base_url": base_url if takes_base_url(spec) else None,
              "code": module_fingerprint("judges.groundeval.run", "judges.groundeval.traces")}

    def build(tmp: Path) -> None:
        if "corpus" not in shared:
            shared["world"] = load_corpus_world(suite)
            shared["corpus"] = Corpus(shared["world"])
        run_agent(suite, spec, mode, tmp / "run", record_latency=False, base_url=base_url,
                  corpus=shared["corpus"], world=shared["world"])

    directory = work / "runs" / f"seed-{seed}" / f"{spec.replace(':', '-').replace('/', '-')}-{mode}"
    run_stage(directory, inputs, build, fresh=fresh)
    return directory / "run"


def _write_table(out: Path, name: str, header: list[str], rows: list[list[Any]], caption: str) -> None:
    from orgbench.core.tables import Table, write_table

    table = Table.from_lists(header, rows, title=caption, text_columns=3)
    write_table(out, name, table, heading="", latex={"caption_first": True, "small": False})


HARD_KIND_NAMES = tuple(f"{t.name}/{kind}" for t in BUILTIN_TRACKS for kind in t.hard_kinds)


def _hard_kinds(rows: Sequence[SeededScore], per_seed: bool = True) -> dict[str, Any]:
    """S_answer, verdict correct, S_adj (and n) of bm25, proximity, follow and oracle per hard kind and mode, over
    all hard kinds, and (``per_seed``) the same for each seed under ``"per_seed"`` (summary.json's object)."""
    out: dict[str, Any] = {}
    for name in HARD_KIND_NAMES + ("all hard kinds",):
        kinds = HARD_KIND_NAMES if name == "all hard kinds" else (name,)
        picked = [r.score for r in rows if f"{r.score.track}/{r.score.kind}" in kinds]
        out[name] = {agent: {mode: {"n": group.n, "s_answer": round(group.s_answer, 4),
                                    "verdict_correct": round(group.verdict_correct, 4), "s_adj": round(group.s_adj, 4)}
                             for mode in MODES
                             for group in [GroupScore.of([s for s in picked if s.agent == agent and s.mode == mode])]}
                     for agent in ("bm25", "proximity", "follow", "oracle")}
    if per_seed:
        seeds = sorted({r.seed for r in rows})
        out["per_seed"] = {str(seed): _hard_kinds([r for r in rows if r.seed == seed], False) for seed in seeds}
    return out


def _hard_lines(hard: dict[str, Any]) -> str:
    lines = []
    for name, agents in hard.items():
        if name == "per_seed":
            continue
        parts = [f"{a} {v['tool']['s_answer']:.3f} / {v['context']['s_answer']:.3f}" for a, v in agents.items()]
        lines.append(f"  - {name} (n = {agents['bm25']['tool']['n']} per agent and mode): " + ", ".join(parts))
    return "\n".join(lines)


def reproduce(out_dir: Path, options: ReproduceOptions) -> None:
    """Build contracts from the default worlds, run every built-in agent in both modes, score, write the tables.

    Scoring and the tables are a stage of their own (``tables/<seeds>``), keyed on every suite and run
    stage's manifest and on the code: a rerun with nothing changed copies the files it wrote.
    """
    from orgbench.stages import published_stage, stage_digest

    seeds = tuple(options.seeds) if options.seeds else DEFAULT_SEEDS
    work = Path(options.work_dir) / "groundeval"
    if options.judge:       # an agent this study can run (reproduce refuses any other, naming it)
        from orgbench.studies.descriptor import GROUNDEVAL

        GROUNDEVAL.check(options.judge)
    agents = list(AGENTS) + ([options.judge] if options.judge and options.judge not in AGENTS else [])
    stages: list[tuple[int, Path, list[Path]]] = []
    for seed in seeds:
        suite = _suite_stage(work, seed, options.fresh)
        shared: dict[str, Any] = {}
        runs = [_run_stage(work, seed, suite, spec, mode, options.fresh, shared, options.base_url)
                for spec in agents for mode in MODES]
        if "corpus" in shared:     # built for the runs: kept for scoring, which loads it memory-mapped
            _keep_index(suite, shared["corpus"], work / "index")
        stages.append((seed, suite, runs))
    inputs = {"stage": "groundeval-tables", "rules": RULES_VERSION, "seeds": list(seeds), "agents": agents,
              "base_url": options.base_url,
              "stages": [[stage_digest(suite.parent)] + [stage_digest(run.parent) for run in runs]
                         for _, suite, runs in stages],
              "code": module_fingerprint("orgbench.studies.groundeval")}
    name = "-".join(map(str, seeds)) + ("-" + re.sub(r"[^A-Za-z0-9._-]+", "-", options.judge) if options.judge else "")
    published_stage(work / "tables" / name, inputs,
                    lambda tmp: _score_and_write(tmp, work, stages, agents, seeds, options.base_url), Path(out_dir),
                    fresh=options.fresh)


def _keep_index(suite: Path, corpus: Any, cache: Path) -> None:
    """Keep the suite's index built for its runs in ``cache`` (as ``open_corpus`` would), unless it is there."""
    from judges.groundeval.corpus_store import corpus_key, save_corpus

    where = cache / corpus_key(suite)
    if not where.exists():
        try:
            save_corpus(corpus, where)
        except OSError:
            pass       # a read-only or full disk: scoring builds the index again


def _score_and_write(out: Path, work: Path, stages: list[tuple[int, Path, list[Path]]], agents: list[str],
                     seeds: tuple[int, ...], base_url: str | None) -> None:
    """Score every run of every seed against its suite and write the study's tables under ``out``."""
    from judges.groundeval.run import score_submissions
    from judges.groundeval.traces import load_submissions, load_suite
    from orgbench.report.groundeval_drilldown import records as drilldown_records

    all_rows: list[SeededScore] = []
    drill: list[dict[str, Any]] = []
    for seed, suite, runs in stages:
        submissions = [sub for run in runs for sub in load_submissions(run)[0]]
        rows, _ = score_submissions(suite, submissions, index_cache=work / "index")
        all_rows.extend(SeededScore(seed, r) for r in rows)
        contracts = {c.question_id: c for c in load_suite(suite)[1]}
        answers = {(s.question_id, s.agent, s.mode): s.answer for s in submissions}
        drill.extend(drilldown_records([r for r in rows if r.mode == "tool"], contracts, answers,
                                       {qid: seed for qid in contracts}))
    write_study_tables(out, all_rows, drill, agents, seeds, base_url)


def write_study_tables(out: Path, all_rows: Sequence[SeededScore], drill: list[dict[str, Any]], agents: list[str],
                       seeds: tuple[int, ...], base_url: str | None = None, where: str | None = None) -> None:
    """Write the tables, the figure, drilldown.jsonl, summary.json and README.md from scored rows.

    ``where`` names the suites for scores from elsewhere (``tables groundeval``); the README's notes on
    the built-in probes are written only for the default worlds, where every probe ran.
    """
    from benchmark_builders.groundeval.tracks import track, track_names
    from orgbench.report.groundeval_figure import track_bars_png
    from orgbench.core.storage import dumps, write_bytes_atomic, write_json, write_text_atomic

    out.mkdir(parents=True, exist_ok=True)
    main_rows: list[list[Any]] = []
    kind_rows: list[list[Any]] = []
    summary: dict[str, dict[str, dict[str, GroupScore]]] = {}        # agent -> mode -> track -> rounded scores
    tracks = track_names(r.score.track for r in all_rows)
    for spec in agents:
        for mode in MODES:
            mine = [r.score for r in all_rows if r.score.agent == spec and r.score.mode == mode]
            for name in tracks + ("all",):
                group = GroupScore.of([s for s in mine if name == "all" or s.track == name])
                summary.setdefault(spec, {}).setdefault(mode, {})[name] = group.rounded()
                main_rows.append([spec, mode, name, group.n, group.s_answer, group.s_traj, group.s_adj,
                                  group.violation_rate, group.correct_invalid_path])
            for name in tracks:
                for kind in track(name).kinds:
                    group = GroupScore.of([s for s in mine if s.track == name and s.kind == kind])
                    kind_rows.append([spec, mode, f"{name}/{kind}", group.n, group.verdict_correct, group.s_answer,
                                      group.s_traj, group.s_adj, group.violation_rate])
    summary_json = {spec: {mode: {track: group.to_json() for track, group in tracks.items()}
                           for mode, tracks in modes.items()} for spec, modes in summary.items()}
    total = len({(r.seed, r.score.question_id) for r in all_rows})
    short_where = where or f"seeds {', '.join(map(str, seeds))}"
    where = where or f"the default worlds (seeds {', '.join(map(str, seeds))})"
    llm_agents = [a for a in agents if a not in AGENTS]
    scoring = sorted({r.score.scoring or "unrecorded" for r in all_rows})     # the scoring profiles' labels
    scored_by = f"scoring {', '.join(scoring)}"
    who = "built-in agents" + (f" and {', '.join(llm_agents)}" if llm_agents else "")
    _write_table(out, "table_agents", ["agent", "mode", "track", "n", "S_answer", "S_traj", "S_adj", "violation rate",
                                       "correct, invalid path"], main_rows,
                 f"GroundEval: {who} on {total} contracts from {where}, tool and context mode; {scored_by}.")
    _write_table(out, "table_kinds", ["agent", "mode", "track/kind", "n", "verdict correct", "S_answer", "S_traj",
                                      "S_adj", "violation rate"], kind_rows,
                 "GroundEval by question kind: decoys (counterfactual/decoy) and absences (silence/absence) "
                 f"separate the heuristics; the hard kinds ({', '.join(HARD_KIND_NAMES)}) need a join followed "
                 f"through an intermediate record; {scored_by}.")
    write_bytes_atomic(out / "agents_by_track.png", track_bars_png(
        summary_json, agents, MODES, tracks,
        f"GroundEval, {total} contracts ({short_where}): S_answer vs S_adj per agent and track"))
    drill.sort(key=lambda r: r["id"])
    if len({r["id"] for r in drill}) != len(drill):
        raise AssertionError("groundeval drill-down: question ids repeat across seeds")
    write_text_atomic(out / "drilldown.jsonl", "".join(dumps(r) + "\n" for r in drill))
    oracle_min = min((r.score.s_adj for r in all_rows if r.score.agent == "oracle"), default=0.0)
    checks: dict[str, Any] = {
        "oracle_s_adj_min": oracle_min,
        "leaky": summary.get("leaky", {}).get("tool", {}).get("all"),
        "lazy_silence_absence_tool": _tool_kind(all_rows, "lazy", "absence"),
        "proximity_decoy_tool": _tool_kind(all_rows, "proximity", "decoy"),
    }
    present = {name for name in ("oracle", "leaky", "lazy", "proximity") if name in summary}
    checks = {k: v for k, v in checks.items() if k.split("_")[0] in present}
    hard = _hard_kinds(all_rows)
    write_json(out / "summary.json", {"seeds": list(seeds), "contracts": total, "scoring": scoring,
                                      "agents": summary_json,
                                      "hard_kinds": hard,
                                      "checks": {k: v.rounded().to_json() if isinstance(v, GroupScore) else v
                                                 for k, v in checks.items()}})
    if present == {"oracle", "leaky", "lazy", "proximity"} and "bm25" in summary:
        _write_readme(out, all_rows, checks, hard, total, seeds, llm_agents, base_url)


def _tool_kind(rows: Sequence[SeededScore], agent: str, kind: str) -> GroupScore:
    """What ``agent`` scores in tool mode on the questions of ``kind``."""
    return GroupScore.of([r.score for r in rows if r.score.agent == agent and r.score.mode == "tool"
                          and r.score.kind == kind])


def _write_readme(out: Path, all_rows: Sequence[SeededScore], checks: dict[str, Any], hard: dict[str, Any], total: int,
                  seeds: tuple[int, ...], llm_agents: list[str], base_url: str | None) -> None:
    """README.md of the reproduced study: what each built-in probe shows, with its numbers."""
    from orgbench.core.storage import write_text_atomic

    oracle_min = checks["oracle_s_adj_min"]
    lazy: GroupScore = checks["lazy_silence_absence_tool"]
    bm25_decoy = _tool_kind(all_rows, "bm25", "decoy")
    prox: GroupScore = checks["proximity_decoy_tool"]
    leaky: GroupScore = checks["leaky"]
    llm_line = (f" and the LLM agent{'s' if len(llm_agents) > 1 else ''} {', '.join(llm_agents)} (through "
                f"the OpenAI-compatible endpoint{' at ' + base_url if base_url else ''})"
                if llm_agents else "")
    write_text_atomic(out / "README.md", f"""# GroundEval: reproduced results

{total} contracts (Perspective, Counterfactual with decoys, Silence) from the default worlds, seeds
{', '.join(map(str, seeds))}; every built-in agent{llm_line} in tool and context mode; scored by the deterministic
scorer ({', '.join(sorted({r.score.scoring or "unrecorded" for r in all_rows}))}). Rebuild with `orgbench reproduce groundeval` (byte-identical on rerun with the built-in agents).

- oracle: lowest S_adj over every contract and both modes = {oracle_min:.3f} (a valid path exists for each question).
- leaky (tool mode): S_answer {leaky.s_answer:.3f} but S_adj {leaky.s_adj:.3f}; violation rate
  {leaky.violation_rate:.3f}; {leaky.correct_invalid_path} correct answers reached through an invalid path.
- lazy on Silence absences (tool mode): S_answer {lazy.s_answer:.3f}, S_traj {lazy.s_traj:.3f} (it never searched).
- proximity on Counterfactual decoys (tool mode): verdict correct on {prox.verdict_correct:.0%} of them
  (bm25: {bm25_decoy.verdict_correct:.0%}); S_answer {prox.s_answer:.3f}, S_adj {prox.s_adj:.3f}.
- hard kinds (the join must be followed through an intermediate record; S_answer tool / context):
{_hard_lines(hard)}

Tables: `table_agents.{{md,csv,tex}}` (per agent, mode and track), `table_kinds.{{md,csv,tex}}` (per question kind).
Figure: `agents_by_track.png` (S_answer beside S_adj per agent, one panel per track, tool mode above context mode).
Drill-down: `drilldown.jsonl` (one record per question and agent in tool mode: question, answer, score parts, and
every call with its gates as the scorer re-derived them from the suite's policy), shown in the HTML report.
""")
