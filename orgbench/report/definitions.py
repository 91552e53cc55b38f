"""The definitions the report shows beside each study's tables: every family, metric and score it uses."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from benchmark_builders.cargo.records import FAMILY_TABLE, families_in
from benchmark_builders.groundeval.tracks import BUILTIN_TRACKS
from judges.groundeval.scoring_profile import DEFAULT_PROFILE, PROFILES
from orgbench.core.tables import Table



def _families(present: Iterable[str] = ()) -> tuple[tuple[str, str], ...]:
    """The definition of each family a CARGO table shows: orgbench's own, then each plugin family ``present``."""
    shown = families_in(present)
    return tuple((f"{family.code} {family.name}", family.definition) for family in FAMILY_TABLE if family.code in shown)


def _tracks() -> tuple[tuple[str, str], ...]:
    """Each GroundEval track's question and how its truth is decided, from its record."""
    return tuple((t.name.capitalize(), f"{t.summary[:1].upper()}{t.summary[1:]} Truth: {t.truth}")
                 for t in BUILTIN_TRACKS)


def _weights() -> str:
    """The S_adj weights (w_a/w_t) of each GroundEval track, from its record."""
    return ", ".join(f"{t.weights[0]:.2f}/{t.weights[1]:.2f} {t.name.capitalize()}".replace("0.", ".")
                     for t in BUILTIN_TRACKS)


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
        *_tracks(),
        ("tool / context mode", "tool: the agent searches and fetches through the gated runtime, every call "
                                "recorded; context: it gets a pre-filtered window. Both apply the same gates."),
        ("gates", "horizon (created after as_of), actor (not visible to this actor then), subsystem (outside the "
                  "role). A withheld item is never shown, not even in snippets or counts."),
        ("S_answer", "the answer's score by the track's rules (booleans, evidence and blocked-subsystem overlap, "
                     "mechanism); cause and effect ids earn nothing, since every Counterfactual question states them."),
        ("S_traj", "the trajectory's score: gate-respecting calls, evidence found and cited, the required search "
                   f"space covered (scoring profile {PROFILES[DEFAULT_PROFILE].label}). It is 0 when the verdict is wrong, and 0 unless the "
                   "agent sought evidence: in tool mode at least one call relevant to the question, in context mode "
                   "a citation in scope. A constant answer with no look earns no trajectory credit."),
        ("v (violation rate)", "tool calls with any gate violation / tool calls (0 when there are none)."),
        ("S_adj", f"(w_a · S_answer + w_t · S_traj) · (1 − v)²; weights {_weights()}."),
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
