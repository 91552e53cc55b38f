"""The definitions the report shows beside each study's tables: every family, metric and score it uses."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from benchmark_builders.cargo.records import FAMILY_TABLE, families_in
from orgbench.core.tables import Table



def _families(present: Iterable[str] = ()) -> tuple[tuple[str, str], ...]:
    """The definition of each family a CARGO table shows: orgbench's own, then each plugin family ``present``."""
    shown = families_in(present)
    return tuple((f"{family.code} {family.name}", family.definition) for family in FAMILY_TABLE if family.code in shown)


DEFINITIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "cargo": (
        *_families(),
        ("penalty rate", "penalised (verdict fail) / judged items of a family; cannot_decide, unparsed answers and "
                         "errors are counted apart, never as 'not penalised'."),
        ("DI", "discrimination index = TP − FP: TP is the penalty rate pooled over P2 ∪ P4, FP over P1 ∪ P3. "
               "1 is perfect, 0 is no discrimination."),
        ("95% CI", "item-level bootstrap, 10,000 resamples, seed 0; with several judge seeds an item's value is its "
                   "mean over seeds before resampling."),
        ("conditions", "NoRef: no reference; Direct: the reference is the target; Direct+Ctx: plus the live context; "
                       "CARGO: the reference is a procedural exemplar for another case, facts come from the "
                       "context, only contradicted claims are penalised; CARGO+Auth: plus an explicit authority "
                       "split; CARGO−Ctx / −Exemplar / −unv: CARGO without the context, the 'different instance' "
                       "framing, or the 'unverifiable' status."),
        ("Δ vs paper", "our value minus the paper's for the same condition and family (gpt-oss-120b, mean of 3 "
                       "judge seeds)."),
        ("τ, coverage, selective risk, AURC", "the judge decides only when the retrieval margin (top-1 minus top-2 "
                                              "runbook similarity) is at least τ; coverage is the share decided; "
                                              "selective risk the share of those decided wrongly (or out of scope); "
                                              "AURC the area under the risk–coverage curve (lower is better)."),
    ),
    "groundeval": (
        ("Perspective", "as of time T, could actor A have known fact F? Truth: the access policy at T and when F was "
                        "first stated."),
        ("Counterfactual", "did cause C lead to effect E? Truth: causal links joined by key, plus decoys close in "
                           "time with no join (truth: no causal link)."),
        ("Silence", "did response R follow trigger X? Truth: triggers with and without a response, and the search "
                    "space where R would be recorded."),
        ("tool / context mode", "tool: the agent searches and fetches through the gated runtime, every call "
                                "recorded; context: it gets a pre-filtered window. Both apply the same gates."),
        ("gates", "horizon (created after as_of), actor (not visible to this actor then), subsystem (outside the "
                  "role). A withheld item is never shown, not even in snippets or counts."),
        ("S_answer", "the answer's score by the track's rules (booleans, evidence and blocked-subsystem overlap, "
                     "cause and effect ids, mechanism)."),
        ("S_traj", "the trajectory's score: gate-respecting calls, evidence found and cited, the required search "
                   "space covered. On Perspective: .30 (1 − actor-violation share) + .25 (1 − subsystem share) + "
                   ".20 grounding + .15 (1 − horizon share) + .10 dead-end recovery, so an agent that makes no call "
                   "scores at least .80, and 1.0 where the truth requires no evidence."),
        ("v (violation rate)", "tool calls with any gate violation / tool calls (0 when there are none)."),
        ("S_adj", "(w_a · S_answer + w_t · S_traj) · (1 − v)²; weights .40/.60 Perspective, .50/.50 "
                  "Counterfactual, .30/.70 Silence."),
        ("correct, invalid path", "questions answered correctly through at least one violating call."),
    ),
    "assurance": (
        ("packet", "the text the judge reads for one target step: prefix packets end at the target, full packets "
                   "go on to the end."),
        ("P0–P3", "cumulative controls. P0 none; P1 stop on a failed check; P2 exact-byte SHA-256 checks before "
                  "dispatch and at read time; P3 reverse matching (every tool result answers a call, user calls "
                  "included)."),
        ("reached judge", "the recording stub read a packet from this case's run: an altered or stale byte got "
                          "through."),
        ("stopped at / by", "the pipeline stage (build, check, stage, emit, dispatch) and the requirement that "
                            "refused the case first."),
        ("G", "later-context contrast = (F_E − P_E) − (F_C − P_C): error flags on full minus prefix packets for "
              "error targets, minus the same for comparison targets; on original (calls omitted) and restored "
              "packets, with a cluster bootstrap over trajectories."),
    ),
}


#: The breakdown rows naming the kinds a CARGO family holds in these results (results/cargo/breakdown.csv).
KIND_ROWS = {"P2": ("P2 value kind", "value kinds"), "P4": ("P4 kind", "corruptions")}


def definitions(directory: Path, key: str) -> tuple[tuple[str, str], ...]:
    """The definitions of study ``key``; CARGO's P2 and P4 name the kinds its ``breakdown.csv`` holds."""
    defined = DEFINITIONS.get(key, ())
    breakdown = Path(directory) / "breakdown.csv"
    if key != "cargo" or not breakdown.is_file():
        return defined
    table = Table.from_csv(breakdown.read_text(encoding="utf-8"), breakdown)
    col = {name: i for i, name in enumerate(table.columns)}
    if not {"family", "by", "group"} <= set(col):
        return defined
    present = {str(row[col["family"]]) for row in table.rows}
    defined = (*_families(present), *defined[len(_families()):])
    kinds: dict[str, list[str]] = {}
    for row in table.rows:
        family, by, group = (str(row[col[name]]) for name in ("family", "by", "group"))
        if family in KIND_ROWS and by == KIND_ROWS[family][0] and group not in kinds.setdefault(family, []):
            kinds[family].append(group)
    out = []
    for term, text in defined:
        family = term.split(" ", 1)[0]
        if kinds.get(family):
            text += f" In these results, {KIND_ROWS[family][1]}: {', '.join(sorted(kinds[family]))}."
        out.append((term, text))
    return tuple(out)
