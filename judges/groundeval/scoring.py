"""The deterministic GroundEval scorer: answer score, trajectory score, violation rate, S_adj.

Per question, with ``n`` recorded calls::

    S_adj = (w_a · S_answer + w_t · S_traj) · (1 − v)²

``v`` is the share of calls that broke any gate (a call that broke two gates
counts once; v = 0 when n = 0). Per-gate counts attribute each violating call
to its first gate in precedence order horizon > actor > subsystem. The answer
and trajectory formulas are those of GROUNDEVAL.md; the choices the spec
leaves open are written next to the code that makes them. A malformed answer
(not JSON, wrong types, missing fields) or trace (not a list, or a call that
is not an object with a string ``tool``, an object ``args``, an integer
``seq``, a list of string ``returned_ids``, a string ``outcome``, an object of
boolean ``gates``) scores 0 with its reason; the scorer never raises on agent
output. In context mode the trajectory is the agent's citations: what it cites
from its context, and for Silence which of the context's searches
(``search:<subsystem>``, ``search:*`` for an unfiltered one) it cites. ``score_question`` takes the calls as
given; ``run.score_submissions`` first re-derives every call's gates from the
suite's corpus (``verify.py``), so a trace's own claims are never scored.
The profile (``scoring_profile.py``; default ``orgbench``) decides the
Counterfactual answer weights and whether the trajectory needs evidence sought
(``evidence_sought.py``) and the right verdict to earn anything; each score
records the profile's label.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import fastjsonschema

from benchmark_builders.groundeval.contracts import NO_LINK_MECHANISM, Truth
from benchmark_builders.groundeval.tracks import track as track_named
from judges.groundeval.call_shape import ShapedCalls, trace_problems, well_shaped
from judges.groundeval.evidence_sought import artifact_of, sought_in_context, sought_in_tool_mode, subject_scope
from judges.groundeval.question_score import QuestionScore
from judges.groundeval.runtime import tokenize
from judges.groundeval.scoring_profile import DEFAULT_PROFILE, PROFILES, WEIGHTS, ScoringProfile
from judges.groundeval.track_behaviour import behaviour

__all__ = ["WEIGHTS", "AnswerReading", "CompiledTruth", "Tally", "score_question"]
SEARCH_CITATION = "search:"          # context mode: cites one of the context's searches (search:<subsystem> | search:*)
_DEAD = frozenset({"empty", "not_found", "withheld", "invalid"})
_DEAD_NOT_EMPTY = _DEAD - {"empty"}
_NOTHING: frozenset[str] = frozenset()
_NO_GATES = {"horizon": False, "actor": False, "subsystem": False}   # a call that broke no gate


_MEMO_SIZE = 1 << 16      # bound on each memo below (cleared when full)
_ROUNDED: dict[float, float] = {}
_TOKENS: dict[str, frozenset[str]] = {}
_LABELS: dict[str, str] = {}         # a named mechanism, as a label


def _round6(x: float) -> float:
    """``round(x, 6)``, memoised: a question's scores take few distinct values and ``round`` is costly."""
    if not x:       # ±0.0 as given (a memo would hand -0.0 the entry of 0.0)
        return x
    rounded = _ROUNDED.get(x)
    if rounded is None:
        if len(_ROUNDED) >= _MEMO_SIZE:
            _ROUNDED.clear()
        rounded = _ROUNDED[x] = round(x, 6)
    return rounded


def _query_tokens(query: str) -> frozenset[str]:
    """The tokens of a search query, memoised (the same queries recur across agents and questions)."""
    tokens = _TOKENS.get(query)
    if tokens is None:
        if len(_TOKENS) >= _MEMO_SIZE:
            _TOKENS.clear()
        tokens = _TOKENS[query] = frozenset(tokenize(query))
    return tokens


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
    scope: frozenset[str] = frozenset()  # lower-cased ids in scope (evidence_sought.py): subject, selectors, evidence

    @staticmethod
    def of(truth: Truth, subject: Mapping[str, Any] | None = None) -> "CompiledTruth":
        """Compile ``truth``; ``subject`` (the contract's) adds the records the question is about to the scope."""
        refs = set(truth.required_evidence) | set(truth.permitted_evidence) | set(truth.cause_evidence) | set(truth.effect_evidence)
        canon: dict[str, str] = {}
        for ref in sorted(refs):
            canon[ref] = ref
            canon.setdefault(ref.rsplit("@", 1)[0], ref)
        space = []
        scope = subject_scope(subject) | {artifact_of(ref) for ref in refs}
        for item in truth.required_search_space:
            tokens = tokenize(str(item["selector"]))
            space.append((str(item["subsystem"]), tokens[0] if tokens else ""))
            scope.update(tokens[:1])
        return CompiledTruth(
            truth.question_id, truth.track, truth.kind, truth.difficulty, bool(truth.gold[track_named(truth.track).verdict]),
            dict(truth.gold), canon,
            frozenset(truth.required_evidence), frozenset(truth.permitted_evidence) | frozenset(truth.required_evidence),
            frozenset(truth.cause_evidence), frozenset(truth.effect_evidence),
            frozenset(truth.gold.get("blocked_subsystems", ())), frozenset(_label(a) for a in truth.mechanism_aliases),
            frozenset(truth.correct_actors), tuple(space), frozenset(s for s in scope if s))


def _jaccard(truth: frozenset[str], answer: set[str]) -> float:
    if not truth and not answer:
        return 1.0
    return len(truth & answer) / len(truth | answer)


def evidence_overlap(required: frozenset[str], permitted: frozenset[str], cited: set[str]) -> float:
    """|cited ∩ required| / |required ∪ (cited − permitted)|: extra citations that were permitted cost nothing; 1 when both sides are empty."""
    extra = cited - permitted - required
    denominator = len(required) + len(extra)
    return 1.0 if denominator == 0 else len(required & cited) / denominator


class _AnswerValidator:
    """A track's ``answer_json_schema`` compiled by fastjsonschema, and each property's, to name the first problem."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.whole = fastjsonschema.compile(dict(schema))
        self.required = tuple(schema["required"])
        self.fields = {key: (fastjsonschema.compile(dict(sub)), sub) for key, sub in schema["properties"].items()
                       if "type" in sub}

    def problem(self, raw: dict[str, Any]) -> str | None:
        """None when ``raw`` follows the schema, else the first problem in schema order (required fields first)."""
        try:
            self.whole(raw)
            return None
        except fastjsonschema.JsonSchemaValueException:
            pass
        for key in self.required:
            if key not in raw:
                return f"missing field {key}"
            if self._fails(key, raw[key]):
                return f"field {key} is a {type(raw[key]).__name__}, not {_type_names(self.fields[key][1])}"
        for key, (_, sub) in self.fields.items():
            if key not in self.required and key in raw and self._fails(key, raw[key]):
                return f"field {key} is not a list of strings" if sub["type"] == "array" else \
                    f"field {key} is a {type(raw[key]).__name__}, not {_type_names(sub)}"
        return "answer does not follow its schema"       # not reached: every rule of the schema is one checked above

    def _fails(self, key: str, value: Any) -> bool:
        try:
            self.fields[key][0](value)
            return False
        except fastjsonschema.JsonSchemaValueException:
            return True


_PY_NAMES = {"boolean": "bool", "string": "str", "integer": "int", "number": "float", "null": "null",
             "object": "dict", "array": "list"}
_VALIDATORS: dict[str, _AnswerValidator] = {}


def _type_names(sub: Mapping[str, Any]) -> str:
    kinds = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
    return " or ".join(_PY_NAMES[k] for k in kinds)


def answer_validator(track: str) -> _AnswerValidator:
    """The compiled validator of ``track``'s answer schema (compiled once per track)."""
    validator = _VALIDATORS.get(track)
    if validator is None:
        validator = _VALIDATORS[track] = _AnswerValidator(track_named(track).answer_json_schema)
    return validator


def parse_answer(raw: Any, track: str) -> tuple[dict[str, Any] | None, str | None]:
    """The answer as a dict, or None and the reason it is malformed (its track's JSON Schema, validated)."""
    if raw.__class__ is not dict:
        if isinstance(raw, (str, bytes)):
            try:
                raw = json.loads(raw)
            except (ValueError, RecursionError):   # not JSON, not UTF-8, too deep, or an integer too long to read
                return None, "answer is not JSON"
        if not isinstance(raw, dict):
            return None, f"answer is a {type(raw).__name__}, not an object"
    problem = answer_validator(track).problem(raw)
    return (None, problem) if problem else (raw, None)


def _zero(truth: CompiledTruth, reason: str, calls: list[dict[str, Any]] | Any, mode: str,
          problems: list[dict[str, Any]] | None = None) -> QuestionScore:
    diagnostics: dict[str, Any] = {"answer": {}, "trajectory": {}, "calls": calls if isinstance(calls, list) else []}
    if problems:
        diagnostics["malformed_calls"] = problems
    return QuestionScore(truth.question_id, truth.track, truth.kind, truth.difficulty, mode, 0.0, 0.0, 0.0, 0.0, False,
                         len(calls) if isinstance(calls, list) else 0, reason, diagnostics=diagnostics)


def _malformed_trace(truth: CompiledTruth, calls: Any, mode: str, problems: list[dict[str, Any]]) -> QuestionScore:
    first = problems[0]
    reason = first["problem"] if first["call"] is None else f"trace has a malformed call: call {first['call']}: {first['problem']}"
    return _zero(truth, reason, calls, mode, problems)


@dataclass(slots=True)
class Tally:
    """What a question's calls add up to: violations by first broken gate, what was fetched, dead ends, searches."""

    n: int
    horizon: int = 0
    actor: int = 0
    subsystem: int = 0
    fetched: set[str] = field(default_factory=set)
    dead_ends: int = 0
    recovered: int = 0
    searches: list[tuple[str | None, frozenset[str], list[str]]] = field(default_factory=list)


def _tally(calls: list[dict[str, Any]], context: bool, silence: bool, dead: frozenset[str] = _DEAD) -> Tally:
    """Count the calls (context mode: the builder's calls are provenance; the agent's acts are its citations)."""
    tally = Tally(0 if context else len(calls))
    pending_dead = 0
    for call in calls:
        gates = call["gates"]
        tool = call["tool"]
        if context and tool == "cite_artifact":
            tally.n += 1
        if gates == _NO_GATES:       # (every gate value is a boolean by now)
            broken = 0
        elif gates.get("horizon"):     # the first gate the call broke: 1 horizon, 2 actor, 3 subsystem
            broken = 1
        elif gates.get("actor"):
            broken = 2
        elif gates.get("subsystem"):
            broken = 3
        else:
            broken = 0
        if broken and (not context or tool == "cite_artifact"):
            if broken == 1:
                tally.horizon += 1
            elif broken == 2:
                tally.actor += 1
            else:
                tally.subsystem += 1
        outcome = call["outcome"]
        if outcome == "ok":
            tally.recovered += pending_dead
            pending_dead = 0
            if not silence and (tool == "fetch_artifact" or (context and tool != "cite_artifact")):
                tally.fetched.update(call["returned_ids"])     # (Silence never reads what was fetched)
        elif outcome in dead:
            tally.dead_ends += 1
            pending_dead += 1
        if silence and not broken and tool == "search_artifacts":
            args = call["args"]
            query = args.get("query")
            if isinstance(query, str):
                sub = args.get("subsystem")
                tally.searches.append((sub if isinstance(sub, str) else None, _query_tokens(query),
                                       call["returned_ids"]))
    return tally


#: One track's part of a score: s_answer, its parts, s_traj, its parts.
_TrackScore = tuple[float, dict[str, Any], float, dict[str, Any]]


@dataclass(slots=True)
class AnswerReading:
    """What the scorer has read of one well-formed answer and its calls: what a track's ``score`` is given."""

    truth: CompiledTruth
    answer: dict[str, Any]
    verdict_ok: bool
    tally: Tally
    cited: set[str]                   # cited artifact ids, canonical refs where the truth knows them
    raw_cited: Sequence[str]          # the citations as given (context mode: the searches' removed)
    cited_searches: frozenset[str] | set[str]   # context mode: the searches it cites (subsystem, or "*")
    context: bool
    profile: ScoringProfile


def score_perspective(r: AnswerReading) -> _TrackScore:
    """The Perspective track's answer and trajectory scores."""
    return _perspective(r.truth, r.answer, r.verdict_ok, r.tally, r.cited, r.context)


def score_counterfactual(r: AnswerReading) -> _TrackScore:
    """The Counterfactual track's answer and trajectory scores (the profile's answer weights)."""
    return _counterfactual(r.truth, r.answer, r.verdict_ok, r.tally, r.cited, r.context, r.profile.counterfactual)


def score_silence(r: AnswerReading) -> _TrackScore:
    """The Silence track's scores; in context mode a search counts when cited, or when an id it returned is."""
    searched = r.tally.searches
    if r.context:
        cited_any = r.cited | set(r.raw_cited)
        searched = [(s, tokens, ids) for s, tokens, ids in searched
                    if (s if s is not None else "*") in r.cited_searches or not cited_any.isdisjoint(ids)]
    return _silence(r.truth, r.verdict_ok, r.tally, searched)


def _perspective(truth: CompiledTruth, answer: dict[str, Any], verdict_ok: bool, tally: Tally, cited: set[str],
                 context: bool) -> _TrackScore:
    if verdict_ok:
        blocked = _jaccard(truth.blocked, set(answer.get("blocked_subsystems", ())))
        evidence = evidence_overlap(truth.required, truth.permitted, cited)
        s_answer = 0.6 + 0.2 * blocked + 0.2 * evidence
    else:
        blocked = evidence = 0.0
        s_answer = 0.0
    answer_parts = {"verdict": verdict_ok, "blocked_overlap": blocked, "evidence_overlap": evidence}
    if truth.required:   # context mode: "fetched" is "in the context", so this is the cited evidence
        grounding = len(truth.required & tally.fetched & cited) / len(truth.required)
    else:   # nothing required: full grounding unless something not permitted was cited
        grounding = 1.0 if cited <= truth.permitted else 0.0
    dead_ends, n = tally.dead_ends, tally.n
    recovery = 1.0 if dead_ends == 0 or context else tally.recovered / dead_ends  # context mode: the builder's calls
    a, h, s = (tally.actor / n, tally.horizon / n, tally.subsystem / n) if n else (0.0, 0.0, 0.0)
    s_traj = 0.30 * (1 - a) + 0.25 * (1 - s) + 0.20 * grounding + 0.15 * (1 - h) + 0.10 * recovery
    traj_parts = {"actor_violations": tally.actor, "subsystem_violations": tally.subsystem,
                  "horizon_violations": tally.horizon, "grounding": grounding, "dead_ends": dead_ends,
                  "dead_end_recovery": recovery}
    return s_answer, answer_parts, s_traj, traj_parts


def _mechanism_named(truth: CompiledTruth, named: Any) -> bool:
    """The answer's mechanism is the true one ("no mechanism" is right exactly when there is no link)."""
    if named is None:
        return truth.gold["causal_mechanism"] in (None, NO_LINK_MECHANISM)
    label = _LABELS.get(named)
    if label is None:
        if len(_LABELS) >= _MEMO_SIZE:
            _LABELS.clear()
        label = _LABELS[named] = _label(named)
    return label in truth.aliases


def _counterfactual(truth: CompiledTruth, answer: dict[str, Any], verdict_ok: bool, tally: Tally, cited: set[str],
                    context: bool, weight: Mapping[str, float]) -> _TrackScore:
    gold = truth.gold
    mechanism = _mechanism_named(truth, answer["causal_mechanism"])
    cause_id = answer["cause_event_id"] == gold["cause_event_id"]
    effect_id = answer["effect_event_id"] == gold["effect_event_id"]
    direction = answer["mechanism_direction"] == gold["mechanism_direction"]
    evidence = evidence_overlap(truth.required, truth.permitted, cited)
    people = bool(truth.actors.intersection(answer.get("actors", ())))
    s_answer = (weight["outcome"] * verdict_ok + weight["mechanism"] * mechanism + weight["cause_id"] * cause_id
                + weight["effect_id"] * effect_id + weight["direction"] * direction + weight["evidence"] * evidence
                + weight["actor"] * people)
    answer_parts = {"outcome": verdict_ok, "mechanism": mechanism, "cause_id": cause_id, "effect_id": effect_id,
                    "direction": direction, "evidence_overlap": evidence, "correct_actor": people}
    seen = tally.fetched & cited if context else tally.fetched
    cause_found = not truth.cause.isdisjoint(seen)
    effect_found = not truth.effect.isdisjoint(seen)
    coverage = len(truth.required & seen) / len(truth.required) if truth.required else 1.0
    s_traj = (0.20 * cause_found + 0.20 * effect_found + 0.35 * coverage + 0.15 * (tally.horizon == 0)
              + 0.10 * mechanism)
    traj_parts = {"cause_evidence_found": cause_found, "effect_evidence_found": effect_found,
                  "evidence_coverage": coverage, "horizon_violations": tally.horizon, "mechanism_named": mechanism}
    return s_answer, answer_parts, s_traj, traj_parts


def _silence(truth: CompiledTruth, verdict_ok: bool, tally: Tally, searched: Sequence[tuple[str | None,
             frozenset[str], list[str]]]) -> _TrackScore:
    covered = 0
    missing = []
    for sub, selector in truth.search_space:
        if any((s is None or s == sub) and selector in tokens for s, tokens, _ in searched):
            covered += 1
        else:
            missing.append(sub)
    coverage = covered / len(truth.search_space) if truth.search_space else 1.0
    s_traj = 0.80 * coverage + 0.20 * (tally.horizon == 0)
    traj_parts = {"search_space_coverage": coverage, "uncovered_subsystems": missing,
                  "horizon_violations": tally.horizon}
    return (1.0 if verdict_ok else 0.0), {"verdict": verdict_ok}, s_traj, traj_parts


def score_question(truth: CompiledTruth, raw_answer: Any, calls: Any, mode: str = "tool", *,
                   trace_problems_found: list[dict[str, Any]] | None = None,
                   profile: ScoringProfile | None = None) -> QuestionScore:
    """Score one answer and its recorded calls against one compiled truth, with full diagnostics.

    ``trace_problems_found`` (from ``trace_problems``) marks a trace already found malformed as a claim: the
    question then scores 0 with the first problem as its reason and every problem in the diagnostics.
    ``profile`` defaults to ``orgbench``; the score records its label.
    """
    profile = profile or PROFILES[DEFAULT_PROFILE]
    row = _score(truth, raw_answer, calls, mode, trace_problems_found, profile)
    label = profile.label
    return row if row.scoring == label else replace(row, scoring=label)


def _score(truth: CompiledTruth, raw_answer: Any, calls: Any, mode: str,
           trace_problems_found: list[dict[str, Any]] | None, profile: ScoringProfile) -> QuestionScore:
    track = truth.track
    answer, reason = parse_answer(raw_answer, track)
    if answer is None:
        assert reason is not None       # parse_answer gives a reason with every None
        return _zero(truth, reason, calls, mode)
    if trace_problems_found:
        return _malformed_trace(truth, calls, mode, trace_problems_found)
    if not isinstance(calls, list):
        return _malformed_trace(truth, calls, mode, trace_problems(calls))
    if calls.__class__ is not ShapedCalls and not well_shaped(calls):
        return _malformed_trace(truth, calls, mode, trace_problems(calls))
    context = mode == "context"
    record = track_named(track)
    acts = behaviour(track)
    tally = _tally(calls, context, acts.tallies_searches, _DEAD if profile.empty_search_is_dead_end else _DEAD_NOT_EMPTY)
    n = tally.n
    violating = tally.horizon + tally.actor + tally.subsystem
    v = violating / n if n else 0.0

    canon = truth.canon
    raw_cited = answer.get("evidence_artifacts", ())
    cited_searches: frozenset[str] | set[str] = _NOTHING
    if context:     # search:<subsystem> names one of the context's searches, not an artifact
        cited_searches = {c[len(SEARCH_CITATION):] for c in raw_cited if c.startswith(SEARCH_CITATION)}
        if cited_searches:
            raw_cited = [c for c in raw_cited if not c.startswith(SEARCH_CITATION)]
    cited = {canon.get(c, c) for c in raw_cited} if raw_cited else set()
    verdict_ok = answer[record.verdict] is truth.verdict
    s_answer, answer_parts, s_traj, traj_parts = acts.score(
        AnswerReading(truth, answer, verdict_ok, tally, cited, raw_cited, cited_searches, context, profile))
    if profile.evidence_sought:
        sought = (sought_in_context(calls, cited, cited_searches, truth.scope) if context
                  else sought_in_tool_mode(calls, truth.scope))
        traj_parts["evidence_sought"] = sought
        if not sought:
            s_traj = 0.0
    if profile.verdict_gates_trajectory and not verdict_ok:
        s_traj = 0.0
    wa, wt = profile.weights.get(track) or record.weights
    s_adj = (wa * s_answer + wt * s_traj) * (1.0 - v) ** 2
    return QuestionScore(truth.question_id, track, truth.kind, truth.difficulty, mode, _round6(s_answer), _round6(s_traj),
                         _round6(v) if violating else 0.0, _round6(s_adj), verdict_ok, n, None,
                         diagnostics={"answer": answer_parts, "trajectory": traj_parts, "calls": calls},
                         scoring=profile.label)


def unanswered(truth: CompiledTruth, mode: str) -> QuestionScore:
    """The row for a suite question the agent did not answer (scored 0)."""
    return _zero(truth, "no answer", [], mode)


def unknown_question(question_id: Any, mode: str) -> QuestionScore:
    """The row for an answer whose question id is not in the suite (scored 0)."""
    return QuestionScore(question_id, None, None, None, mode, 0.0, 0.0, 0.0, 0.0, False, 0, "unknown question id",
                         diagnostics={"answer": {}, "trajectory": {}, "calls": []})

