"""The assurance study for ``orgbench reproduce``: the fault study and the later-context contrast.

Stages cached under ``options.work_dir/assurance``: a simulated world, the
trajectory suite drawn from its support cases and, with a built-in judge, the
results below (copied from ``results-s<seed>-<judge>``). Results written to
``out_dir``: faults.md, faults.csv and faults.tex (22 cases x P0..P3 with the
recording stub, the paper's first stop beside ours); contrast.md, contrast.json,
contrast.csv and contrast.tex (the built-in step judge, or ``options.judge``); drilldown.jsonl for the HTML report; NOTES.md.
Everything is deterministic, so a rerun writes byte-identical files.
"""

from __future__ import annotations

from pathlib import Path

from orgbench.stages import module_fingerprint, run_stage
from orgbench.studies import ReproduceOptions

DEFAULT_SEED = 7
#: What the paper claims of its fault study, in its own words, and how ours differs.
PAPER_FAULT_CLAIM = (
    "The paper: \"Three added controls stopped 18 of 19 constructed fault cases before the stub read any\n"
    "packet. The remaining stale script never ran.\" Its line-ending (CRLF) change made before staging \"was\n"
    "not among the 19 cases\"; by code inspection the paper judges that P2 and P3 would accept it (staging\n"
    "hashed normalised text).")


def _first_stop(outcomes: list, case: str) -> str:
    """Where our controls first stop ``case``: 'P2 (dispatch, scripts-exact)', or 'no control' if none does."""
    from judges.assurance.pipeline import CONTROLS

    rows = {o.control: o for o in outcomes if o.case == case}
    return next((f"{c} ({rows[c].stopped_at}, {rows[c].stopped_by})" for c in CONTROLS
                 if c in rows and rows[c].stopped_at and not rows[c].reached_judge), "no control")
WORLD_DAYS = 60
TRAJECTORIES = 60


def _world_stage(directory: Path, seed: int, fresh: bool) -> None:
    from simulator.config import load_config
    from simulator.simulate import simulate
    from simulator.world import save_world

    def build(tmp: Path) -> None:
        save_world(simulate(load_config(seed=seed, days=WORLD_DAYS)), tmp / "world")

    inputs = {"stage": "assurance-world", "seed": seed, "days": WORLD_DAYS, "format": 1,
              "code": module_fingerprint("simulator.simulate", "simulator.world")}
    run_stage(directory, inputs, build, fresh=fresh)


def _suite_stage(directory: Path, world_dir: Path, seed: int, fresh: bool) -> None:
    from benchmark_builders.trajectories.records import write_suite_files
    from benchmark_builders.trajectories.simulate import cases_from_world, simulate_trajectories
    from orgbench.core.storage import sha256_file
    from simulator.world import load_world

    def build(tmp: Path) -> None:
        world = load_world(world_dir)
        cases = cases_from_world(world)
        trajectories, labels = simulate_trajectories(cases, TRAJECTORIES, seed)
        write_suite_files(tmp, trajectories, labels, {"built_by": "orgbench reproduce assurance", "world_seed": seed,
                                                      "seed": seed, "cases": len(cases)})

    inputs = {"stage": "assurance-suite", "seed": seed, "n": TRAJECTORIES, "simulator": 2,
              "world": sha256_file(world_dir / "MANIFEST.json"),
              "code": module_fingerprint("benchmark_builders.trajectories.simulate", "benchmark_builders.trajectories.records")}
    run_stage(directory, inputs, build, fresh=fresh)


def reproduce(out_dir: Path, options: ReproduceOptions) -> None:
    """Run the fault study, the mutation study and the contrast; write their tables under ``out_dir``.

    With a built-in judge everything after the suite is one stage (``results-s<seed>-<judge>``), keyed on the
    suite's manifest and the code: a rerun with nothing changed copies the files it wrote.
    """
    from judges.backends.registry import is_builtin
    from orgbench.stages import published_stage, stage_digest
    from orgbench.studies.descriptor import ASSURANCE

    seed = options.seeds[0] if options.seeds else DEFAULT_SEED
    work = Path(options.work_dir) / "assurance"
    _world_stage(work / f"world-s{seed}", seed, options.fresh)
    suite = work / f"suite-s{seed}-n{TRAJECTORIES}"
    _suite_stage(suite, work / f"world-s{seed}" / "world", seed, options.fresh)
    judge = options.judge or ASSURANCE.builtin_names()[0]
    if not is_builtin(judge):      # a model's verdicts are asked again each time (its run keeps a journal)
        _write_results(Path(out_dir), work, suite, seed, judge, options)
        return
    inputs = {"stage": "assurance-results", "seed": seed, "judge": judge, "suite": stage_digest(suite),
              "code": module_fingerprint("orgbench.studies.assurance")}
    published_stage(work / f"results-s{seed}-{judge.replace(':', '-')}", inputs,
                    lambda tmp: _write_results(tmp, work, suite, seed, judge, options), Path(out_dir),
                    fresh=options.fresh)


def _write_results(out_dir: Path, work: Path, suite: Path, seed: int, judge: str, options: ReproduceOptions) -> None:
    """Run the fault study, the mutation study and the contrast with ``judge``; write every file under ``out_dir``."""
    from judges.assurance.contrast import drilldown_records as packet_rows
    from orgbench.report.fault_report import drilldown_records as fault_rows
    from judges.backends import make_backend
    from judges.backends.registry import is_builtin
    from orgbench.report.assurance_outputs import run_contrast, run_faults, run_mutations
    from orgbench.core.storage import dumps, write_text_atomic

    faults_line, outcomes = run_faults(out_dir)
    mutation_lines = run_mutations(out_dir)
    contrast_line, judged = run_contrast(suite, out_dir, make_backend(judge, base_url=options.base_url), 2, per_packet_csv=False,
                                         work=work / f"contrast-pipeline-s{seed}")
    rows = fault_rows(outcomes) + packet_rows(judged)
    write_text_atomic(out_dir / "drilldown.jsonl", "".join(dumps(row) + "\n" for row in rows))
    import json

    summary = json.loads((out_dir / "contrast.json").read_text(encoding="utf-8"))
    per = summary["per_trajectory"]
    if is_builtin(judge):
        judge_note = [f"`{judge}` is a built-in procedural judge that reads only packet text; it shows the mechanism",
                      "(blank steps judged from later context), not how an LLM judge behaves. `--judge openai:MODEL`",
                      "puts an LLM in its place."]
    else:
        judge_note = [f"The contrast above is `{judge}`'s: its verdicts through the OpenAI-compatible endpoint"
                      + (f" at {options.base_url}" if options.base_url else "") + ",",
                      "2 draws per packet, a flag when both draws flag an error. The fault study always uses the",
                      "recording stub, so that what reached the judge is known byte for byte."]
    readme = [
        f"World seed {seed}, {WORLD_DAYS} days; {TRAJECTORIES} simulated support-agent trajectories, "
        f"{summary['trajectories']} with both targets in {summary['clusters_by_request']} clusters (shared user "
        f"requests); judge `{judge}` (2 draws, consensus flags).",
        "Regenerate with `orgbench reproduce assurance` (or `orgbench assure faults --out DIR` and",
        "`orgbench assure contrast --source SUITE --out DIR`). See docs/assurance.md.",
        "",
        "### Fault study (faults.md, faults.csv, faults.tex)",
        "",
        "19 constructed fault cases of the paper's Table II, a CRLF line-ending case, and two fault-free",
        "controls, each under P0..P3 with the recording stub as the judge; each case's first stop in the",
        "paper is in the last column.",
        "",
        faults_line,
        "",
        PAPER_FAULT_CLAIM,
        f"Here the stale script is first stopped under {_first_stop(outcomes, 'extra-stale-script')} and the CRLF",
        f"case under {_first_stop(outcomes, 'crlf-before-staging')}: every packet hash is exact-byte from build to read.",
        "",
        "### Mutation study (mutations.md, mutations.csv; obligations.md, obligations.csv)",
        "",
        "Every case -- the paper's 19 and CRLF, those of a helper who wrote cases without reading the issue,",
        "and the ones issue 15 names -- under P3 with the recording stub, three times: both checkers, the inline",
        "checker only (run again on disk: one checker run twice) and the disk audit only (a second checker",
        "written apart: JSON Schema and rules over the packet text).",
        "",
        *mutation_lines,
        "",
        "### Later-context contrast (contrast.md, contrast.json, contrast.csv, contrast.tex)",
        "",
        contrast_line.rsplit(" -> ", 1)[0] + ".",
        f"Per trajectory: original {per['original']['mean']:.3f} (95% CI {per['original']['ci95'][0]:.3f} to "
        f"{per['original']['ci95'][1]:.3f}), restored {per['restored']['mean']:.3f} "
        f"({per['restored']['ci95'][0]:.3f} to {per['restored']['ci95'][1]:.3f}), reduction "
        f"{per['reduction']['mean']:.3f} ({per['reduction']['ci95'][0]:.3f} to {per['reduction']['ci95'][1]:.3f}); "
        f"G 95% CI original {summary['G_ci95']['original'][0]:.1f} to {summary['G_ci95']['original'][1]:.1f}, "
        f"restored {summary['G_ci95']['restored'][0]:.1f} to {summary['G_ci95']['restored'][1]:.1f}; "
        f"cluster bootstrap over {summary['clusters_by_request']} shared user requests (clusters), "
        f"{summary['bootstrap']['resamples']} resamples. Packets built, checked, staged, emitted and dispatched "
        "by the checked pipeline under P3.",
        "The paper (J0): G = 13 original, 2 restored, reduction 0.37 per trajectory (0.17 to 0.53).",
        *judge_note,
        "`drilldown.jsonl`: every (case, control) of the fault study, and every prefix packet with its verdicts.",
        "",
    ]
    write_text_atomic(out_dir / "NOTES.md", "\n".join(readme))
