"""The deterministic GroundEval scorer: answer score, trajectory score, violation rate, S_adj.

Per question, with ``n`` recorded calls::

    S_adj = (w_a · S_answer + w_t · S_traj) · (1 − v)²

``v`` is the share of calls that broke any gate (a call that broke two gates
counts once; v = 0 when n = 0). Per-gate counts attribute each violating call
to its first gate in precedence order horizon > actor > subsystem. The answer
and trajectory formulas are those of GROUNDEVAL.md; the choices the spec
leaves open are written next to the code that makes them. A malformed answer
(not JSON, wrong types, missing fields) or trace scores 0 with its reason;
the scorer never raises on agent output. ``score_question`` takes the calls as
given; ``run.score_submissions`` first re-derives every call's gates from the
suite's corpus (``verify.py``), so a trace's own claims are never scored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from benchmark_builders.groundeval.contracts import COUNTERFACTUAL, PERSPECTIVE, SILENCE, Truth
from judges.groundeval.runtime import tokenize

WEIGHTS: dict[str, tuple[float, float]] = {PERSPECTIVE: (0.40, 0.60), COUNTERFACTUAL: (0.50, 0.50), SILENCE: (0.30, 0.70)}
VERDICT = {PERSPECTIVE: "could_actor_have_known", COUNTERFACTUAL: "outcome_changed", SILENCE: "exists"}
_REQUIRED = {
    PERSPECTIVE: (("could_actor_have_known", bool),),
    COUNTERFACTUAL: (("outcome_changed", bool), ("causal_mechanism", str), ("cause_event_id", str),
                     ("effect_event_id", str), ("mechanism_direction", str)),
    SILENCE: (("exists", bool),),
}
_LISTS = {PERSPECTIVE: ("evidence_artifacts", "blocked_subsystems"), COUNTERFACTUAL: ("evidence_artifacts", "actors"),
          SILENCE: ("evidence_artifacts",)}
_DEAD = frozenset({"empty", "not_found", "withheld", "invalid"})


def _label(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True, slots=True)
class CompiledTruth:
    """A truth record turned into the sets scoring needs (built once per question, reused per answer)."""

    question_id: str
    track: str
    kind: str
    difficulty: str
    verdict: bool
    gold: Mapping[str, Any]
    canon: Mapping[str, str]             # cited id (ID@N or ID) -> canonical ref, for required/permitted refs
    required: frozenset[str]
    permitted: frozenset[str]
    cause: frozenset[str]
    effect: frozenset[str]
    blocked: frozenset[str]
    aliases: frozenset[str]
    actors: frozenset[str]
    search_space: tuple[tuple[str, str], ...]

    @staticmethod
    def of(truth: Truth) -> "CompiledTruth":
        refs = set(truth.required_evidence) | set(truth.permitted_evidence) | set(truth.cause_evidence) | set(truth.effect_evidence)
        canon: dict[str, str] = {}
        for ref in sorted(refs):
            canon[ref] = ref
            canon.setdefault(ref.rsplit("@", 1)[0], ref)
        space = []
        for item in truth.required_search_space:
            tokens = tokenize(str(item["selector"]))
            space.append((str(item["subsystem"]), tokens[0] if tokens else ""))
        return CompiledTruth(
            truth.question_id, truth.track, truth.kind, truth.difficulty, bool(truth.gold[VERDICT[truth.track]]), dict(truth.gold), canon,
            frozenset(truth.required_evidence), frozenset(truth.permitted_evidence) | frozenset(truth.required_evidence),
            frozenset(truth.cause_evidence), frozenset(truth.effect_evidence),
            frozenset(truth.gold.get("blocked_subsystems", ())), frozenset(_label(a) for a in truth.mechanism_aliases),
            frozenset(truth.correct_actors), tuple(space))


def _jaccard(truth: frozenset[str], answer: set[str]) -> float:
    if not truth and not answer:
        return 1.0
    return len(truth & answer) / len(truth | answer)


def evidence_overlap(required: frozenset[str], permitted: frozenset[str], cited: set[str]) -> float:
    """|cited ∩ required| / |required ∪ (cited − permitted)|: extra citations that were permitted cost nothing; 1 when both sides are empty."""
    extra = cited - permitted - required
    denominator = len(required) + len(extra)
    return 1.0 if denominator == 0 else len(required & cited) / denominator


def parse_answer(raw: Any, track: str) -> tuple[dict[str, Any] | None, str | None]:
    """The answer as a dict, or None and the reason it is malformed."""
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, "answer is not JSON"
    if not isinstance(raw, dict):
        return None, f"answer is a {type(raw).__name__}, not an object"
    for key, kind in _REQUIRED[track]:
        if key not in raw:
            return None, f"missing field {key}"
        if not isinstance(raw[key], kind):
            return None, f"field {key} is a {type(raw[key]).__name__}, not {kind.__name__}"
    for key in _LISTS[track]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            return None, f"field {key} is not a list of strings"
    return raw, None


def _zero(truth: CompiledTruth, reason: str, calls: list[dict[str, Any]] | Any, mode: str) -> dict[str, Any]:
    return {"question_id": truth.question_id, "track": truth.track, "kind": truth.kind, "difficulty": truth.difficulty,
            "mode": mode, "s_answer": 0.0, "s_traj": 0.0,
            "v": 0.0, "s_adj": 0.0, "answer_correct": False, "n_calls": len(calls) if isinstance(calls, list) else 0,
            "malformed": reason, "trace_tampered": False,
            "diagnostics": {"answer": {}, "trajectory": {}, "calls": calls if isinstance(calls, list) else []}}


def score_question(truth: CompiledTruth, raw_answer: Any, calls: Any, mode: str = "tool") -> dict[str, Any]:
    """Score one answer and its recorded calls against one compiled truth, with full diagnostics."""
    track = truth.track
    answer, reason = parse_answer(raw_answer, track)
    if answer is None:
        return _zero(truth, reason, calls, mode)
    if not isinstance(calls, list):
        return _zero(truth, "trace is not a list of calls", calls, mode)

    # -- calls: violations (first gate in precedence order), what was fetched, searches, dead ends
    n = 0
    horizon = actor = subsystem = 0
    fetched: set[str] = set()
    dead_ends = recovered = 0
    pending_dead = 0
    searches: list[tuple[str | None, set[str]]] = []
    context = mode == "context"
    silence = track == SILENCE
    for call in calls:
        if type(call) is not dict:
            return _zero(truth, "trace has a malformed call", calls, mode)
        gates = call.get("gates")
        if type(gates) is not dict:
            return _zero(truth, "trace has a malformed call", calls, mode)
        tool = call.get("tool")
        bad = False
        # context mode: the builder's calls are provenance; the agent's own acts are its citations
        if not context or tool == "cite_artifact":
            n += 1
            if gates["horizon"] if "horizon" in gates else False:
                horizon += 1
                bad = True
            elif gates["actor"] if "actor" in gates else False:
                actor += 1
                bad = True
            elif gates["subsystem"] if "subsystem" in gates else False:
                subsystem += 1
                bad = True
        outcome = call.get("outcome")
        if outcome in _DEAD:
            dead_ends += 1
            pending_dead += 1
        elif outcome == "ok":
            recovered += pending_dead
            pending_dead = 0
            if tool == "fetch_artifact" or (context and tool != "cite_artifact"):
                returned = call.get("returned_ids", ())
                if type(returned) is not list:
                    return _zero(truth, "trace has a malformed call", calls, mode)
                fetched.update(returned)
        if silence and not bad and tool == "search_artifacts":
            args = call.get("args") or {}
            query = args.get("query")
            if isinstance(query, str):
                sub = args.get("subsystem")
                searches.append((sub if isinstance(sub, str) else None, set(tokenize(query))))
    violating = horizon + actor + subsystem
    v = violating / n if n else 0.0

    canon = truth.canon
    cited = {canon.get(c, c) for c in answer.get("evidence_artifacts", ())}
    verdict_ok = answer[VERDICT[track]] is truth.verdict

    if track == PERSPECTIVE:
        if verdict_ok:
            blocked = _jaccard(truth.blocked, set(answer.get("blocked_subsystems", ())))
            evidence = evidence_overlap(truth.required, truth.permitted, cited)
            s_answer = 0.6 + 0.2 * blocked + 0.2 * evidence
        else:
            blocked = evidence = 0.0
            s_answer = 0.0
        answer_parts = {"verdict": verdict_ok, "blocked_overlap": blocked, "evidence_overlap": evidence}
        if truth.required:
            grounding = len(truth.required & fetched & cited) / len(truth.required)
        else:   # nothing required: full grounding unless something not permitted was cited
            grounding = 1.0 if cited <= truth.permitted else 0.0
        recovery = 1.0 if dead_ends == 0 or context else recovered / dead_ends  # context mode: the calls are the builder's
        a, h, s = (actor / n, horizon / n, subsystem / n) if n else (0.0, 0.0, 0.0)
        s_traj = 0.30 * (1 - a) + 0.25 * (1 - s) + 0.20 * grounding + 0.15 * (1 - h) + 0.10 * recovery
        traj_parts = {"actor_violations": actor, "subsystem_violations": subsystem, "horizon_violations": horizon,
                      "grounding": grounding, "dead_ends": dead_ends, "dead_end_recovery": recovery}
    elif track == COUNTERFACTUAL:
        gold = truth.gold
        mechanism = _label(answer["causal_mechanism"]) in truth.aliases
        cause_id = answer["cause_event_id"] == gold["cause_event_id"]
        effect_id = answer["effect_event_id"] == gold["effect_event_id"]
        direction = answer["mechanism_direction"] == gold["mechanism_direction"]
        evidence = evidence_overlap(truth.required, truth.permitted, cited)
        people = bool(truth.actors.intersection(answer.get("actors", ())))
        s_answer = (0.20 * verdict_ok + 0.20 * mechanism + 0.20 * cause_id + 0.20 * effect_id + 0.10 * direction
                    + 0.05 * evidence + 0.05 * people)
        answer_parts = {"outcome": verdict_ok, "mechanism": mechanism, "cause_id": cause_id, "effect_id": effect_id,
                        "direction": direction, "evidence_overlap": evidence, "correct_actor": people}
        seen = fetched & cited if context else fetched
        cause_found = bool(truth.cause & seen)
        effect_found = bool(truth.effect & seen)
        coverage = len(truth.required & seen) / len(truth.required) if truth.required else 1.0
        s_traj = (0.20 * cause_found + 0.20 * effect_found + 0.35 * coverage + 0.15 * (horizon == 0)
                  + 0.10 * mechanism)
        traj_parts = {"cause_evidence_found": cause_found, "effect_evidence_found": effect_found,
                      "evidence_coverage": coverage, "horizon_violations": horizon, "mechanism_named": mechanism}
    else:
        s_answer = 1.0 if verdict_ok else 0.0
        answer_parts = {"verdict": verdict_ok}
        covered = 0
        missing = []
        for sub, selector in truth.search_space:
            if any((s is None or s == sub) and selector in tokens for s, tokens in searches):
                covered += 1
            else:
                missing.append(sub)
        coverage = covered / len(truth.search_space) if truth.search_space else 1.0
        s_traj = 0.80 * coverage + 0.20 * (horizon == 0)
        traj_parts = {"search_space_coverage": coverage, "uncovered_subsystems": missing, "horizon_violations": horizon}
    wa, wt = WEIGHTS[track]
    s_adj = (wa * s_answer + wt * s_traj) * (1.0 - v) ** 2
    return {"question_id": truth.question_id, "track": track, "kind": truth.kind, "difficulty": truth.difficulty,
            "mode": mode, "s_answer": round(s_answer, 6),
            "s_traj": round(s_traj, 6), "v": round(v, 6), "s_adj": round(s_adj, 6), "answer_correct": verdict_ok,
            "n_calls": n, "malformed": None, "trace_tampered": False,
            "diagnostics": {"answer": answer_parts, "trajectory": traj_parts, "calls": calls}}


def unanswered(truth: CompiledTruth, mode: str) -> dict[str, Any]:
    """The row for a suite question the agent did not answer (scored 0)."""
    return _zero(truth, "no answer", [], mode)


def unknown_question(question_id: Any, mode: str) -> dict[str, Any]:
    """The row for an answer whose question id is not in the suite (scored 0)."""
    return {"question_id": question_id, "track": None, "kind": None, "difficulty": None, "mode": mode, "s_answer": 0.0, "s_traj": 0.0, "v": 0.0,
            "s_adj": 0.0, "answer_correct": False, "n_calls": 0, "malformed": "unknown question id", "trace_tampered": False,
            "diagnostics": {"answer": {}, "trajectory": {}, "calls": []}}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of S_answer, S_traj, S_adj, the violation rate and the correct-answer-invalid-path count."""
    n = len(rows)
    calls = sum(r["n_calls"] for r in rows)
    violating = sum(round(r["v"] * r["n_calls"]) for r in rows)
    return {
        "n": n,
        "s_answer": round(sum(r["s_answer"] for r in rows) / n, 4) if n else 0.0,
        "s_traj": round(sum(r["s_traj"] for r in rows) / n, 4) if n else 0.0,
        "s_adj": round(sum(r["s_adj"] for r in rows) / n, 4) if n else 0.0,
        "violation_rate": round(violating / calls, 4) if calls else 0.0,
        "correct_invalid_path": sum(1 for r in rows if r["answer_correct"] and r["v"] > 0),
        "malformed": sum(1 for r in rows if r["malformed"]),
        "tampered_traces": sum(1 for r in rows if r.get("trace_tampered")),
    }
