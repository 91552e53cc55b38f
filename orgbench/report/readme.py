"""results/README.md: what each file shows, where its numbers come from, how they compare with the papers."""

from __future__ import annotations

from pathlib import Path

from benchmark_builders.cargo.records import FAMILIES
from judges.backends.registry import is_builtin
from orgbench.core.storage import read_text
from orgbench.core.tables import Table
from orgbench.studies.descriptor import BESIDE_PAPER, PAPER_JUDGE
from orgbench.studies.descriptor import STUDIES

LLM_HOWTO = """\
To put an LLM in place of the built-in judges and agents, run for example

    orgbench reproduce --judge openai:MODEL --base-url http://127.0.0.1:8000/v1 --out results-llm

and the same tables are written from its judgments (CARGO: judge seeds 0, 1, 2; GroundEval: the model
runs as an agent beside the built-in ones; assurance: the model judges the contrast packets)."""


def judges_present(results: Path, folders: dict[str, str] | None = None) -> dict[str, list[str]]:
    """The judges (CARGO, the assurance contrast) and agents (GroundEval) whose numbers each study folder holds.

    Each study's descriptor says how its folder is read (``Study.present``); ``folders`` maps a study to its
    folder under ``results`` when it is not the descriptor's.
    """
    found: dict[str, list[str]] = {}
    for study in STUDIES.all():
        present = study.load("present")
        names = present(results / (folders or {}).get(study.name, study.where)) if present else None
        if names is not None:
            found[study.name] = names
    return found


def render_provenance(results: Path) -> str:
    """'Where the numbers come from', written from the judges and agents the results actually hold."""
    present = judges_present(results)
    lines = ["## Where the numbers come from", ""]
    any_llm = any_builtin = False
    for study, names in present.items():
        descriptor = STUDIES.require(study, "results")
        what, role = descriptor.rows_from or descriptor.title, descriptor.rows_are or descriptor.serves
        builtin = [n for n in names if is_builtin(n)]
        llm = [n for n in names if not is_builtin(n)]
        any_llm, any_builtin = any_llm or bool(llm), any_builtin or bool(builtin)
        parts = []
        if builtin:
            parts.append("built-in (procedural, offline, deterministic): " + ", ".join(f"`{n}`" for n in builtin))
        if llm:
            parts.append("**LLM** through an OpenAI-compatible endpoint: " + ", ".join(f"`{n}`" for n in llm))
        lines.append(f"- {study} — {what}, {role}: " + "; ".join(parts) + ".")
    if "assurance" in present:
        lines.append("- assurance — fault study: the recording stub (no judge model), so that what reached the "
                     "judge is known byte for byte.")
    lines.append("")
    if any_builtin:
        lines += ["Rows named `builtin:*` (and GroundEval's bare agent names) come from the built-in judges and agents.",
                  "They read only the rendered request an LLM judge would read — never the truth files — so their",
                  "rows are honest baselines and a check that every item is decidable from what the judge is shown,",
                  "not a claim about any LLM."]
    if any_llm:
        lines += ["Rows named after a model (`openai:MODEL`) come from that model: its own judgments and answers, read",
                  "back from its run directories — the rows to set beside the paper's."]
    lines += ["", "Rows marked *paper* are the published numbers (CARGO: gpt-oss-120b, mean of 3 judge seeds;",
              "assurance: the paper's fault study and its J0 contrast)."]
    if not any_llm:
        lines += ["No number here comes from an LLM. " + LLM_HOWTO]
    return "\n".join(lines) + "\n"


DESCRIPTIONS = {
    "table1_headline": "Table 1: headline conditions, penalty rate per family and DI [95% CI], paper row beside ours",
    "table2_ablations": "Table 2: CARGO component ablations (−Ctx, −Exemplar, −unv)",
    "table3_rubric_swap": "Table 3: rubric swap, prompt × rubric",
    "risk_coverage": "retrieval gating: risk against coverage as τ varies (each judge its own dash and markers, "
                     "so identical curves stay apart)",
    "scores": "every condition's scores per judge, AURC and selective risk",
    "drilldown": "per-record detail behind the HTML report's drill-down",
    "drilldown_shared": "texts shared by drill-down records (what the judge saw, and the truth)",
    "table_agents": "S_answer, S_traj, S_adj, violation rate per agent, mode and track",
    "table_kinds": "the same per question kind (positives, negatives, decoys, absences)",
    "agents_by_track": "S_answer beside S_adj per agent, one panel per track (Perspective, Counterfactual, "
                       "Silence), tool mode above context mode",
    "selective_risk": "selective risk at target coverages 0.5/0.8/0.9/1.0, the coverage actually reached (smallest "
                      "≥ target), τ and AURC",
    "summary": "the scorer's summary per agent, mode and track",
    "faults": "fault study: each case under P0–P3 (reached_judge, stopped_at, stopped_by), ours beside the paper's "
              "first stop",
    "contrast": "later-context contrast G on original and restored packets, paper (J0) beside ours",
    "mutations": "mutation study under P3: each case with both checkers, the inline checker only and the disk "
                 "audit only (stopped, neutralised or missed, and by which check)",
    "obligations": "evidence per obligation: mutation cases tried, stopped, neutralised and missed",
    "breakdown": "penalty rate per P2 value kind, per P4 kind and per answer style, for every judge and condition",
    "NOTES": "notes on this study, inlined above",
    "README": "notes on this study, inlined above",
}
KIND = {".md": "Markdown", ".csv": "CSV", ".tex": "LaTeX", ".png": "PNG figure", ".jsonl": "JSONL", ".json": "JSON"}


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    return Table.from_csv(read_text(path, "CSV table"), path).records()


def _demote(text: str, top: int = 3) -> str:
    """Shift a note's headings so that its highest one sits at level ``top``."""
    lines = text.rstrip().splitlines()
    levels = [len(line) - len(line.lstrip("#")) for line in lines if line.startswith("#")]
    shift = top - min(levels) if levels else 0
    return "\n".join("#" * shift + line if line.startswith("#") else line for line in lines)


def cargo_comparison(directory: Path) -> list[str]:
    rows = _rows(directory / "table1_headline.csv") + _rows(directory / "table2_ablations.csv")
    if not rows:
        return []
    paper = PAPER_JUDGE
    by = {(r["condition"], r["judge"]): r for r in rows}
    conditions = list(dict.fromkeys(r["condition"] for r in rows))
    ours = [j for j in dict.fromkeys(r["judge"] for r in rows) if j != paper]
    llm = [j for j in ours if not is_builtin(j)]
    beside = [j for j in BESIDE_PAPER if j in ours]
    shown = llm + beside if llm else beside or ours
    families = [f for f in FAMILIES if f in rows[0]]        # the table's family columns
    grid = []
    for condition in conditions:
        cells = [condition]
        for judge in [paper] + shown:
            r = by.get((condition, judge))
            cells.append("–" if r is None else " / ".join(str(r[f]) for f in families) + f", DI {r['DI']}")
        grid.append(cells)
    out = Table.from_lists(("condition", f"paper {' / '.join(families)}, DI", *shown), grid).to_markdown().splitlines()
    text = ["### Compared with the paper", "",
            "The paper's judge penalises every correct transplant under Direct (DI .00) and recovers under",
            "CARGO (DI ≈ .57) while missing most procedural corruptions (P4 .20)."]
    if llm:
        text += [f"Beside it: {', '.join(f'`{j}`' for j in llm)} (an LLM judge, this folder's numbers to compare "
                 "with the paper's)"
                 + (f" and the built-in {', '.join(f'`{j}`' for j in shown if is_builtin(j))}." if len(shown) > len(llm)
                    else ".")]
    if "builtin:literal" in shown:
        text += ["The literal judge shows the Direct failure on our suite."]
    if "builtin:grounded" in shown:
        text += ["The grounded judge reads the same CARGO prompts as a rule-based reader: it checks the values,",
                 "counts and ages an answer states against the context and its steps against the reference's. Its",
                 "rates show what such a reader catches from what the judge is shown — not how an LLM judge behaves."]
    return text + [""] + out + [""]


PAPER_FAULT_CLAIM = ("the paper: \"Three added controls stopped 18 of 19 constructed fault cases before the stub "
                     "read any packet. The remaining stale script never ran.\" Its CRLF line-ending change \"was not "
                     "among the 19 cases\" (by code inspection, P2 and P3 would accept it)")


def assurance_comparison(directory: Path) -> list[str]:
    faults = _rows(directory / "faults.csv")
    contrast = {(r["source"].split(" ")[0], r["rendering"]): r for r in _rows(directory / "contrast.csv")}
    if not faults:
        return []
    injected = sorted({r["case"] for r in faults if not r["case"].startswith("control")})
    p3_reached = sorted({r["case"] for r in faults if r["control"] == "P3" and r["reached_judge"] == "true"})
    stopped = len(injected) - len([c for c in p3_reached if c in injected])
    lines = ["### Compared with the paper", "",
             f"- Fault study: {PAPER_FAULT_CLAIM}. Here {stopped} of {len(injected)} injected faults (its 19 "
             f"cases rebuilt, and the CRLF change) are stopped under P3, the stale script and the CRLF change "
             f"included, because every hash is exact-byte; `faults.*` gives the paper's first stop per case."]
    if ("paper", "original") in contrast and ("orgbench", "original") in contrast:
        p = contrast
        judge = next((r["source"].split(" ", 1)[1].strip("()") for k, r in contrast.items()
                      if k[0] == "orgbench" and " " in r["source"]), "")
        who = (f"built-in step judge `{judge}`" if is_builtin(judge) else f"LLM judge `{judge}`") if judge else "ours"
        lines.append(
            f"- Later-context contrast G (original → restored): paper J0 {p[('paper', 'original')]['G']} → "
            f"{p[('paper', 'restored')]['G']} over {p[('paper', 'original')]['trajectories']} trajectories; ours "
            f"{p[('orgbench', 'original')]['G']} → {p[('orgbench', 'restored')]['G']} over "
            f"{p[('orgbench', 'original')]['trajectories']} ({who})." + (
                " Restoring the calls shrinks the contrast in both."
                if all(float(p[(src, "restored")]["G"]) < float(p[(src, "original")]["G"])
                       for src in ("paper", "orgbench")) else ""))
    return lines + [""]


def groundeval_comparison(directory: Path) -> list[str]:
    return ["### Compared with the paper", "",
            "The GroundEval summary publishes no score table to set ours beside; what it claims is",
            "behavioural, and the tables show each: an agent that reaches correct answers through forbidden",
            "or future evidence (`leaky`) keeps S_answer but loses S_adj; one that claims absence without",
            "looking (`lazy`) loses the Silence trajectory score; one that takes the closest change as the",
            "cause (`proximity`) fails the decoys that the public preprint did not generate.", ""]


def render_results_readme(results: Path) -> str:
    """The text of results/README.md for the studies present under ``results``."""
    lines = ["# Results", "",
             "Written by `orgbench reproduce` (with the defaults, byte for byte what is committed). `index.html` is the interactive",
             "report (`orgbench report --results results`): every table with the papers' numbers beside ours,",
             "the figures, the fault matrix and a drill-down per item, question and case.", ""]
    lines += [render_provenance(results)]
    for descriptor in STUDIES.all():
        study = descriptor.where
        directory = results / study
        if not directory.is_dir():
            continue
        lines += [f"## {study}", "", descriptor.note or descriptor.title, ""]
        for notes in ("NOTES.md", "README.md"):
            if (directory / notes).is_file():
                lines += [_demote((directory / notes).read_text(encoding="utf-8")), ""]
        comparison = descriptor.load("comparison")
        lines += comparison(directory) if comparison else []
        groups: dict[str, list[str]] = {}
        for path in sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith(".")):
            groups.setdefault(path.stem, []).append(path.suffix)
        files = []
        for stem, suffixes in groups.items():
            names = ", ".join(f"`{study}/{stem}{s}`" for s in suffixes)
            kinds = ", ".join(KIND.get(s, s) for s in suffixes)
            files.append([names, f"{DESCRIPTIONS[stem]} ({kinds})" if stem in DESCRIPTIONS else kinds])
        lines += Table.from_lists(("files", "what they show"), files).to_markdown().splitlines()
        lines.append("")
    return "\n".join(lines)
