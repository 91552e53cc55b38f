"""What each study found, as sentences over numbers read from its files (see orgbench.report.findings).

``findings`` assembles a study's findings box from its finder.

Each finder takes a ``Source`` and the study's folder (relative to the
results directory) and returns (heading, sentences) groups: what it shows,
compared with the paper, what is built-in and what is an LLM.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

from judges.backends.registry import is_builtin
from orgbench.studies.descriptor import BESIDE_PAPER
from orgbench.report.findings import Source, diff, sentence


#: What the built-in judges read: what an LLM judge is shown, never a truth file.
JUDGES_READ = ("They read only what an LLM would be shown (never the truth files); their rows are baselines and a "
               "check that the suite behaves as designed, not a claim about any LLM.")
#: What the built-in GroundEval agents read (docs/groundeval.md, "Built-in agents").
AGENTS_READ = ("They are probes of the scorer, not models of an LLM: oracle reads the truth file to choose what to "
               "fetch and say (its evidence still goes through the gates), leaky reads the raw world files, future "
               "and forbidden included; the others see only what the gated runtime shows them.")


def _builtin_lines(builtin: list[str], llm: list[str], role: str, howto: str, reads: str = JUDGES_READ) -> list:
    lines = []
    if builtin:
        lines.append(sentence("Built-in {role}: {names}. " + reads, role=role, names=", ".join(builtin)))
    lines.append(sentence("LLM {role}: {names}; their rows are that model's own output.", role=role,
                          names=", ".join(llm)) if llm else
                 sentence("No LLM ran here: every row is built-in. " + howto))
    return lines


def cargo(src: Source, folder: str) -> list:
    """CARGO: Direct against CARGO+Auth per judge, beside the paper's judge."""
    t1, gating = f"{folder}/table1_headline.csv", f"{folder}/selective_risk.csv"
    rows = [r for r in src.rows(t1) if "judge" in r and "condition" in r]
    paper = next((r["judge"] for r in rows if r["judge"].startswith("paper")), None)
    judges = list(dict.fromkeys(r["judge"] for r in rows if r["judge"] != paper))
    llm = [j for j in judges if not is_builtin(j)]
    shown = llm or [j for j in judges if j in BESIDE_PAPER] or judges[:2]
    shows, compared = [], []
    for judge in shown:
        cell = lambda column, condition: src.cell(t1, column, condition=condition, judge=judge)  # noqa: E731
        shows.append(sentence(
            "{judge}: under Direct it penalises {p1} of the correct entity transplants (P1) and {p2} of the "
            "contradictions (P2), DI {d}; under CARGO+Auth P1 {c1}, P4 {c4}, DI {cd} {ci}.", judge=judge,
            p1=cell("P1", "direct"), p2=cell("P2", "direct"), d=cell("DI", "direct"), c1=cell("P1", "cargo+auth"),
            c4=cell("P4", "cargo+auth"), cd=cell("DI", "cargo+auth"), ci=cell("CI95", "cargo+auth")))
        shows.append(sentence("{judge}, retrieval gating of the CARGO condition: AURC {aurc}, selective risk "
                              "{risk} at full coverage.", judge=judge,
                              aurc=src.cell(gating, "AURC", judge=judge, condition="cargo",
                                            **{"target coverage": "1.00"}),
                              risk=src.cell(gating, "selective risk", judge=judge, condition="cargo",
                                            **{"target coverage": "1.00"})))
    if paper:
        pcell = lambda column, condition: src.cell(t1, column, condition=condition, judge=paper)  # noqa: E731
        p4 = pcell("P4", "cargo+auth")
        misses = " (it misses most procedural corruptions)" if p4 is not None and float(p4.text) < 0.5 else ""
        compared.append(sentence(
            "The paper ({paper}): Direct DI {pd}; CARGO+Auth DI {pc} {pci}, with P4 {p4}" + misses + ".",
            paper=paper.split(": ", 1)[-1], pd=pcell("DI", "direct"),
            pc=pcell("DI", "cargo+auth"), pci=pcell("CI95", "cargo+auth"), p4=p4))
        for judge in shown:
            cell = lambda column, condition: src.cell(t1, column, condition=condition, judge=judge)  # noqa: E731
            compared.append(sentence(
                "{judge} against the paper: Direct DI {dd}, CARGO+Auth DI {dc}, CARGO+Auth P4 {d4}.", judge=judge,
                dd=diff(cell("DI", "direct"), pcell("DI", "direct")),
                dc=diff(cell("DI", "cargo+auth"), pcell("DI", "cargo+auth")),
                d4=diff(cell("P4", "cargo+auth"), pcell("P4", "cargo+auth"))))
    builtin = [j for j in judges if is_builtin(j)]
    howto = "`orgbench reproduce cargo --judge openai:MODEL --base-url URL` adds an LLM judge's rows."
    return [("What it shows", shows), ("Compared with the paper", compared),
            ("Built-in and LLM", _builtin_lines(builtin, llm, "judges", howto))]


def groundeval(src: Source, folder: str) -> list:
    """GroundEval: each built-in probe's failure mode, and any LLM agent's scores."""
    summary = f"{folder}/summary.json"
    agents = list((src.json_value(summary, "agents") or {}).keys())
    get = lambda dotted: src.json(summary, dotted)  # noqa: E731
    shows = [
        sentence("{n} contracts; oracle's lowest S_adj over every question and both modes is {m}: a valid "
                 "evidence path exists for each.", n=get("contracts"), m=get("checks.oracle_s_adj_min")),
        sentence("leaky (tool mode) keeps S_answer {a} but S_adj falls to {b}: {c} correct answers were reached "
                 "through evidence it was not allowed to see (violation rate {v}).",
                 a=get("checks.leaky.s_answer"), b=get("checks.leaky.s_adj"),
                 c=get("checks.leaky.correct_invalid_path"), v=get("checks.leaky.violation_rate")),
        sentence("lazy on Silence absences (tool mode): S_answer {a} but S_traj {t}: it claims absence without "
                 "looking.", a=get("checks.lazy_silence_absence_tool.s_answer"),
                 t=get("checks.lazy_silence_absence_tool.s_traj")),
        sentence("proximity on Counterfactual decoys (tool mode): right on a share of {p} of them; taking the "
                 "closest change as the cause fails the decoys.",
                 p=get("checks.proximity_decoy_tool.verdict_correct")),
    ]
    if "zero-shot" in agents:
        shows.append(sentence(
            "zero-shot makes no tool call, so its Perspective S_traj is {t} (tool mode): a trajectory earns "
            "credit only when at least one call sought the question's evidence (scoring profile orgbench-2), and "
            "breaking no gate with no calls is not evidence of anything. Its S_adj {s} is therefore the weighted "
            "S_answer alone, below its S_answer {a} (weights under Definitions).",
            t=get("agents.zero-shot.tool.perspective.s_traj"), a=get("agents.zero-shot.tool.perspective.s_answer"),
            s=get("agents.zero-shot.tool.perspective.s_adj")))
    llm = [a for a in agents if not is_builtin(a)]
    for agent in llm:
        shows.append(sentence("{agent} (tool mode): S_answer {a}, S_traj {t}, S_adj {s}, violation rate {v}.",
                              agent=agent, a=get(f"agents.{agent}.tool.all.s_answer"),
                              t=get(f"agents.{agent}.tool.all.s_traj"), s=get(f"agents.{agent}.tool.all.s_adj"),
                              v=get(f"agents.{agent}.tool.all.violation_rate")))
    compared = [sentence("The GroundEval paper publishes no table of scores, so no paper row stands beside ours. "
                         "Its claims are behavioural: an agent reaching right answers through forbidden or future "
                         "evidence keeps S_answer and loses S_adj; one claiming silence without looking loses "
                         "S_traj; decoys catch a cause taken from proximity. The sentences above test each.")]
    howto = "`orgbench reproduce groundeval --judge openai:MODEL --base-url URL` runs an LLM agent beside them."
    return [("What it shows", shows), ("Compared with the paper", compared),
            ("Built-in and LLM", _builtin_lines([a for a in agents if is_builtin(a)], llm, "agents", howto,
                                                AGENTS_READ))]


def assurance(src: Source, folder: str) -> list:
    """Assurance: what reached the judge under P0 and P3, and the later-context contrast."""
    faults, contrast = f"{folder}/faults.csv", f"{folder}/contrast.csv"
    ours = next((r["source"] for r in src.rows(contrast) if r["source"].startswith("orgbench")), None)
    judge = ours.split("(", 1)[-1].rstrip(")") if ours else None
    reached_p3 = src.count(faults, "case", control="P3", reached_judge="true", case__not="control")
    shows = [sentence("Under P0 (no controls) {p0} of the {n} injected fault cases reached the judge; under P3 "
                      "{p3} did" + (": every one was stopped before the stub read a packet." if reached_p3.text == "0"
                                    else "."),
                      p0=src.count(faults, "case", control="P0", reached_judge="true", case__not="control"),
                      n=src.count(faults, "case", case__not="control"), p3=reached_p3)]
    compared = [sentence("The paper's three controls stopped {a} of its constructed cases; its stale script "
                         "never ran and its CRLF change was not among them. Here P3 stops {b} injected cases, the "
                         "stale script and the CRLF change included, because every hash is exact-byte.",
                         a=src.count(faults, "case", control="P0", paper_first_stop__pre="P"),
                         b=src.count(faults, "case", control="P3", reached_judge="false", case__not="control"))]
    if ours:
        g = lambda source, rendering, column="G": src.cell(contrast, column, source=source, rendering=rendering)  # noqa: E731
        shows.append(sentence("Later-context contrast G with {judge}: {go} on original packets (calls omitted), "
                              "{gr} on restored ones, over {t} trajectories; per trajectory the reduction is {red} "
                              "(95% CI {lo} to {hi}).", judge=judge, go=g(ours, "original"), gr=g(ours, "restored"),
                              t=g(ours, "original", "trajectories"), red=g(ours, "reduction", "per_trajectory"),
                              lo=g(ours, "reduction", "ci95_low"), hi=g(ours, "reduction", "ci95_high")))
        compared.append(sentence("The paper's judge J0: G {po} original, {pr} restored over {pt} trajectories, "
                                 "reduction {pred} per trajectory; ours {go} and {gr}.",
                                 po=g("paper (J0)", "original"), pr=g("paper (J0)", "restored"),
                                 pt=g("paper (J0)", "original", "trajectories"),
                                 pred=g("paper (J0)", "reduction", "per_trajectory"),
                                 go=g(ours, "original"), gr=g(ours, "restored")))
    names = [judge] if judge else []
    lines = _builtin_lines([n for n in names if is_builtin(n)], [n for n in names if not is_builtin(n)],
                           "judge of the contrast", "`orgbench reproduce assurance --judge openai:MODEL "
                           "--base-url URL` puts an LLM in its place.")
    lines.append(sentence("The fault study always uses the recording stub, so what reached the judge is known "
                          "byte for byte."))
    return [("What it shows", shows), ("Compared with the paper", compared), ("Built-in and LLM", lines)]


FINDERS: dict[str, Callable[[Source, str], list]] = {"cargo": cargo, "groundeval": groundeval,
                                                      "assurance": assurance}


def findings(results: Path, key: str, folder: str | None = None) -> list[dict[str, Any]]:
    """The findings box of study ``key`` in ``results/folder``: headed groups of sentences, numbers tagged."""
    finder = FINDERS.get(key)
    if finder is None:
        return []
    source = Source(results)
    groups = finder(source, folder or key)
    shown = [{"heading": h, "lines": [line for line in lines if line is not None]} for h, lines in groups
             if any(line is not None for line in lines)]
    # a model comparison (compare.json) holds none of the built-in study's files: absent ones are not missing there
    compared = (Path(results) / (folder or key) / "compare.json").is_file()
    unread = [why for why in source.unread.values() if not (compared and why.endswith(": file not found"))]
    for why in unread:
        print(f"warning: report: {why}; the findings that read it are left out (flagged on the page)", file=sys.stderr)
    if unread:
        shown.append({"heading": "Not shown: files that could not be read",
                      "lines": [f"{why} (the findings that read it are left out)" for why in unread]})
    return shown
