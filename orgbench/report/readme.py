"""results/README.md: what each file shows, where its numbers come from, how they compare with the papers."""

from __future__ import annotations

import csv
from pathlib import Path

PROVENANCE = """\
## Where the numbers come from

Every number here was computed by `orgbench reproduce` with its defaults:
seeded worlds, suites built from them with ground truth by construction, and
the **built-in** procedural judges and agents, offline. The built-in judges
read only the rendered request an LLM judge would read — never the truth
files — so their rows are honest baselines and a check that every item is
decidable from what the judge is shown, not a claim about any LLM.

Rows marked *paper* are the published numbers (CARGO: gpt-oss-120b, mean of 3
judge seeds; assurance: the paper's fault study and its J0 contrast). To put an
LLM in place of the built-in judges, run for example

    orgbench reproduce cargo --judge openai:MODEL --base-url http://127.0.0.1:8000/v1 --out results-llm

and the same tables are written from its judgments.
"""

STUDY_NOTES = {
    "cargo": "CARGO-Bench (Chhabra et al.): penalty rates per family and DI per prompt condition, the rubric "
             "swap, and retrieval gating (risk–coverage).",
    "groundeval": "GroundEval: built-in agents scored by the deterministic scorer, in tool and context mode, "
                  "per track.",
    "assurance": "Judge-input assurance (Xia et al.): the constructed fault cases under controls P0–P3, and the "
                 "later-context contrast on original (calls omitted) and restored packets.",
}

DESCRIPTIONS = {
    "table1_headline": "Table 1: headline conditions, penalty rate per family and DI [95% CI], paper row beside ours",
    "table2_ablations": "Table 2: CARGO component ablations (−Ctx, −Exemplar, −unv)",
    "table3_rubric_swap": "Table 3: rubric swap, prompt × rubric",
    "risk_coverage": "retrieval gating: risk against coverage as τ varies",
    "scores": "every condition's scores per judge, AURC and selective risk",
    "drilldown": "per-record detail behind the HTML report's drill-down",
    "drilldown_shared": "texts shared by drill-down records (what the judge saw, and the truth)",
    "table_agents": "S_answer, S_traj, S_adj, violation rate per agent, mode and track",
    "table_kinds": "the same per question kind (positives, negatives, decoys, absences)",
    "track_scores": "per-track bars: S_answer and S_adj per agent",
    "summary": "the scorer's summary per agent, mode and track",
    "faults": "fault study: one row per (case, control) with reached_judge, stopped_at, stopped_by",
    "contrast": "later-context contrast G on original and restored packets, paper (J0) beside ours",
    "NOTES": "notes on this study, inlined above",
    "README": "notes on this study, inlined above",
}
KIND = {".md": "Markdown", ".csv": "CSV", ".tex": "LaTeX", ".png": "PNG figure", ".jsonl": "JSONL", ".json": "JSON"}


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _demote(text: str, top: int = 3) -> str:
    """Shift a note's headings so that its highest one sits at level ``top``."""
    lines = text.rstrip().splitlines()
    levels = [len(line) - len(line.lstrip("#")) for line in lines if line.startswith("#")]
    shift = top - min(levels) if levels else 0
    return "\n".join("#" * shift + line if line.startswith("#") else line for line in lines)


def _cargo_comparison(directory: Path) -> list[str]:
    rows = _rows(directory / "table1_headline.csv") + _rows(directory / "table2_ablations.csv")
    if not rows:
        return []
    by = {(r["condition"], r["judge"]): r for r in rows}
    conditions = list(dict.fromkeys(r["condition"] for r in rows))
    out = ["| condition | paper P1 / P3 / P2 / P4, DI | builtin:grounded | builtin:literal |", "|---|---|---|---|"]
    for condition in conditions:
        cells = []
        for judge in ("paper: gpt-oss-120b", "builtin:grounded", "builtin:literal"):
            r = by.get((condition, judge))
            cells.append("–" if r is None else f"{r['P1']} / {r['P3']} / {r['P2']} / {r['P4']}, DI {r['DI']}")
        out.append(f"| {condition} | " + " | ".join(cells) + " |")
    return ["### Compared with the paper", "",
            "The paper's judge penalises every correct transplant under Direct (DI .00) and recovers under",
            "CARGO (DI ≈ .57) while missing most procedural corruptions (P4 .20). The literal judge shows the",
            "Direct failure on our suite; the grounded judge reads the same CARGO prompts. It compares step",
            "actions exactly, so its P4 rate shows that every corruption is decidable from what the judge is",
            "shown — not how an LLM judge behaves.", ""] + out + [""]


def _assurance_comparison(directory: Path) -> list[str]:
    faults = _rows(directory / "faults.csv")
    contrast = {(r["source"].split(" ")[0], r["rendering"]): r for r in _rows(directory / "contrast.csv")}
    if not faults:
        return []
    injected = sorted({r["case"] for r in faults if not r["case"].startswith("control")})
    p3_reached = sorted({r["case"] for r in faults if r["control"] == "P3" and r["reached_judge"] == "true"})
    lines = ["### Compared with the paper", "",
             f"- Fault study: the paper's controls stopped 18 of 19 faults and missed the CRLF change; here "
             f"{len(injected) - len([c for c in p3_reached if c in injected])} of {len(injected)} injected faults "
             f"(its 19 and the CRLF case) are stopped under P3, because every hash is exact-byte."]
    if ("paper", "original") in contrast and ("orgbench", "original") in contrast:
        p, o = contrast, contrast
        lines.append(
            f"- Later-context contrast G (original → restored): paper J0 {p[('paper', 'original')]['G']} → "
            f"{p[('paper', 'restored')]['G']} over {p[('paper', 'original')]['trajectories']} trajectories; ours "
            f"{o[('orgbench', 'original')]['G']} → {o[('orgbench', 'restored')]['G']} over "
            f"{o[('orgbench', 'original')]['trajectories']} (built-in step judge)." + (
                " Restoring the calls shrinks the contrast in both."
                if all(float(c[(src, "restored")]["G"]) < float(c[(src, "original")]["G"])
                       for c in (contrast,) for src in ("paper", "orgbench")) else ""))
    return lines + [""]


def _groundeval_comparison(directory: Path) -> list[str]:
    return ["### Compared with the paper", "",
            "The GroundEval summary publishes no score table to set ours beside; what it claims is",
            "behavioural, and the tables show each: an agent that reaches correct answers through forbidden",
            "or future evidence (`leaky`) keeps S_answer but loses S_adj; one that claims absence without",
            "looking (`lazy`) loses the Silence trajectory score; one that takes the closest change as the",
            "cause (`proximity`) fails the decoys that the public preprint did not generate.", ""]


COMPARISONS = {"cargo": _cargo_comparison, "groundeval": _groundeval_comparison, "assurance": _assurance_comparison}


def render_results_readme(results: Path) -> str:
    """The text of results/README.md for the studies present under ``results``."""
    lines = ["# Results", "",
             "Regenerated byte for byte by `orgbench reproduce` (defaults). `index.html` is the interactive",
             "report (`orgbench report --results results`): every table with the papers' numbers beside ours,",
             "the figures, the fault matrix and a drill-down per item, question and case.", ""]
    for study in ("cargo", "groundeval", "assurance"):
        directory = results / study
        if not directory.is_dir():
            continue
        lines += [f"## {study}", "", STUDY_NOTES[study], ""]
        for notes in ("NOTES.md", "README.md"):
            if (directory / notes).is_file():
                lines += [_demote((directory / notes).read_text(encoding="utf-8")), ""]
        lines += COMPARISONS[study](directory)
        groups: dict[str, list[str]] = {}
        for path in sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith(".")):
            groups.setdefault(path.stem, []).append(path.suffix)
        lines += ["| files | what they show |", "|---|---|"]
        for stem, suffixes in groups.items():
            names = ", ".join(f"`{study}/{stem}{s}`" for s in suffixes)
            kinds = ", ".join(KIND.get(s, s) for s in suffixes)
            lines.append(f"| {names} | {DESCRIPTIONS.get(stem, kinds)} ({kinds}) |")
        lines.append("")
    lines += [PROVENANCE]
    return "\n".join(lines)
