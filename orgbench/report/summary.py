"""The report's first screen: what each study found, in plain words, with the paper's number beside ours.

One card per study found under the results directory; every number is a
tagged ``Num`` read from the study's files (``orgbench.report.findings``), so
the same test that recomputes the findings boxes recomputes these.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from judges.backends.registry import is_builtin
from orgbench.report.findings import Source, sentence
from orgbench.studies.descriptor import BESIDE_PAPER


def _cargo(src: Source, folder: str) -> list[Markup | None]:
    t1 = f"{folder}/table1_headline.csv"
    rows = [r for r in src.rows(t1) if "judge" in r and "condition" in r]
    paper = next((r["judge"] for r in rows if r["judge"].startswith("paper")), None)
    judges = list(dict.fromkeys(r["judge"] for r in rows if r["judge"] != paper))
    judge = next((j for j in judges if not is_builtin(j)), None) or \
        next((j for j in BESIDE_PAPER if j in judges), None)
    if judge is None or paper is None:
        return []

    def cell(column: str, condition: str, who: str) -> Any:
        return src.cell(t1, column, condition=condition, judge=who)

    return [
        sentence("Comparing a live answer with a reference written for another case punishes correct answers: "
                 "under Direct, {judge} penalises {p1} of the correct entity transplants (P1); the paper's judge "
                 "{pp1}.", judge=judge, p1=cell("P1", "direct", judge), pp1=cell("P1", "direct", paper)),
        sentence("Treating the reference as a procedural exemplar and taking facts from the live context (CARGO+Auth) "
                 "lifts discrimination: DI {dd} → {dc} for {judge}; the paper {pd} → {pc}.", judge=judge,
                 dd=cell("DI", "direct", judge), dc=cell("DI", "cargo+auth", judge),
                 pd=cell("DI", "direct", paper), pc=cell("DI", "cargo+auth", paper)),
        sentence("Procedural corruptions (P4) penalised under CARGO+Auth: {c4} for {judge}, {p4} for the paper's "
                 "judge.", judge=judge, c4=cell("P4", "cargo+auth", judge), p4=cell("P4", "cargo+auth", paper)),
    ]


def _groundeval(src: Source, folder: str) -> list[Markup | None]:
    summary = f"{folder}/summary.json"
    get = lambda dotted: src.json(summary, dotted)  # noqa: E731
    return [
        sentence("Every question has a valid evidence path: the oracle's lowest S_adj over {n} questions is {m}.",
                 n=get("contracts"), m=get("checks.oracle_s_adj_min")),
        sentence("A right answer reached through forbidden or future evidence keeps its answer score and loses the "
                 "adjusted one: leaky S_answer {a}, S_adj {b} ({c} correct answers on an invalid path).",
                 a=get("checks.leaky.s_answer"), b=get("checks.leaky.s_adj"),
                 c=get("checks.leaky.correct_invalid_path")),
        sentence("Claiming silence without looking is caught by the trajectory score: lazy S_answer {a}, "
                 "S_traj {t} on absences. The paper publishes no score table: its claims are these behaviours.",
                 a=get("checks.lazy_silence_absence_tool.s_answer"),
                 t=get("checks.lazy_silence_absence_tool.s_traj")),
    ]


def _assurance(src: Source, folder: str) -> list[Markup | None]:
    faults, contrast = f"{folder}/faults.csv", f"{folder}/contrast.csv"
    ours = next((r["source"] for r in src.rows(contrast) if r["source"].startswith("orgbench")), None)
    lines = [sentence("Exact-byte checks keep altered and stale bytes from the judge: with no controls (P0) {p0} of "
                      "{n} injected faults reached it, with all controls (P3) {p3}; the paper's controls stopped "
                      "{pa} of its cases.",
                      p0=src.count(faults, "case", control="P0", reached_judge="true", case__not="control"),
                      n=src.count(faults, "case", case__not="control"),
                      p3=src.count(faults, "case", control="P3", reached_judge="true", case__not="control"),
                      pa=src.count(faults, "case", control="P0", paper_first_stop__pre="P"))]
    if ours:
        g = lambda source, rendering: src.cell(contrast, "G", source=source, rendering=rendering)  # noqa: E731
        lines.append(sentence("Restoring the calls a packet omitted changes the later-context contrast G: ours "
                              "{go} → {gr}, the paper's judge {po} → {pr}.", go=g(ours, "original"),
                              gr=g(ours, "restored"), po=g("paper (J0)", "original"), pr=g("paper (J0)", "restored")))
    return lines


CARDS = {"cargo": ("CARGO-Bench", _cargo), "groundeval": ("GroundEval", _groundeval),
         "assurance": ("Judge-input assurance", _assurance)}


def summary_cards(results: Any, studies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One card per study shown: its key, short name and plain sentences (numbers tagged)."""
    src = Source(results)
    cards = []
    for study in studies:
        if study["key"] not in CARDS:
            continue
        name, finder = CARDS[study["key"]]
        lines = [line for line in finder(src, study.get("folder") or study["key"]) if line is not None]
        if lines:
            cards.append({"key": study["key"], "name": name, "lines": lines})
    return cards
