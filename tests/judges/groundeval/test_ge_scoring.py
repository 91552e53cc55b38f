"""The scorer, term by term, against hand-computed values."""

import pytest

from benchmark_builders.groundeval.contracts import Truth
from judges.groundeval.call_shape import CALL_FIELDS, ShapedCalls, call_problem, claim_parts, trace_problems, well_shaped
from judges.groundeval.runtime import tokenize
from judges.groundeval.scoring_profile import PROFILES
from judges.groundeval.question_score import summarize
from judges.groundeval.scoring import (
    CompiledTruth, _query_tokens, _round6, evidence_overlap, score_question,
)

def close(value):
    """Scores are rounded to 6 decimals."""
    return pytest.approx(value, abs=1e-6)


NONE = {"horizon": False, "actor": False, "subsystem": False}


def call(tool="fetch_artifact", ids=(), outcome="ok", args=None, **gates):
    return {"seq": 0, "tool": tool, "args": args or {}, "returned_ids": list(ids), "outcome": outcome,
            "gates": {**NONE, **gates}, "latency_ms": None}


def truth(track="perspective", kind="positive", gold=None, required=(), permitted=(), space=(), aliases=(),
          actors=(), cause=(), effect=()):
    return CompiledTruth.of(Truth("Q-1", track, kind, "easy", gold or {}, tuple(required), tuple(permitted),
                                  tuple(space), tuple(aliases), tuple(actors), tuple(cause), tuple(effect), ""))


POSITIVE = truth(gold={"could_actor_have_known": True, "blocked_subsystems": [], "evidence_artifacts": ["A@1"]},
                 required=["A@1"], permitted=["A@1", "B@1"])


def preprint(*args, **kwargs):
    return score_question(*args, profile=PROFILES["preprint"], **kwargs)


def test_perspective_positive_full_marks():
    row = score_question(POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A@1"],
                                    "blocked_subsystems": []}, [call(ids=["A@1"])])
    assert (row.s_answer, row.s_traj, row.v, row.s_adj) == (1.0, 1.0, 0.0, 1.0)


def test_horizon_takes_precedence_and_two_gates_count_once():
    calls = [call(ids=["A@1"]), call(outcome="withheld", horizon=True, subsystem=True),
             call(outcome="withheld", actor=True, subsystem=True), call(outcome="withheld", subsystem=True)]
    row = score_question(POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A@1"]}, calls)
    parts = row.diagnostics["trajectory"]
    assert (parts["horizon_violations"], parts["actor_violations"], parts["subsystem_violations"]) == (1, 1, 1)
    # v = 3 violating calls / 4; traj = .30(1-1/4) + .25(1-1/4) + .20·1 + .15(1-1/4) + .10·0 (three dead ends, no ok after)
    assert row.v == 0.75
    assert row.s_traj == close(0.30 * 0.75 + 0.25 * 0.75 + 0.20 + 0.15 * 0.75 + 0.0)
    assert row.s_adj == close((0.4 * 1.0 + 0.6 * row.s_traj) * 0.25 ** 2)
    assert row.answer_correct is True


def test_no_calls_means_v_zero_and_a_correct_negative_without_evidence_is_fully_grounded():
    """(The preprint profile: upstream's weights, trajectory credit whatever was sought.)"""
    negative = truth(kind="permission_negative", gold={"could_actor_have_known": False,
                                                       "blocked_subsystems": ["deploys"], "evidence_artifacts": []})
    row = preprint(negative, {"could_actor_have_known": False, "blocked_subsystems": ["deploys"],
                                    "evidence_artifacts": []}, [])
    assert row.v == 0.0 and row.n_calls == 0
    assert row.diagnostics["trajectory"]["grounding"] == 1.0
    assert (row.s_answer, row.s_traj, row.s_adj) == (1.0, 1.0, 1.0)


def test_perspective_answer_parts_and_dead_end_recovery():
    """(The preprint profile: upstream's weights, trajectory credit whatever was sought.)"""
    negative = truth(kind="permission_negative", gold={"could_actor_have_known": False,
                                                       "blocked_subsystems": ["deploys", "hr"], "evidence_artifacts": []},
                     permitted=["C@1"])
    # blocked: |{deploys}∩{deploys,hr}| / |∪| = 1/2; evidence: cites C@1 (permitted) and X@1 (not): 0 / (0 + 1) = 0
    row = preprint(negative, {"could_actor_have_known": False, "blocked_subsystems": ["deploys"],
                                    "evidence_artifacts": ["C@1", "X@1"]},
                         [call(tool="search_artifacts", outcome="empty"), call(ids=["C@1"]), call(outcome="not_found")])
    assert row.s_answer == close(0.6 + 0.2 * 0.5 + 0.2 * 0.0)
    traj = row.diagnostics["trajectory"]
    assert traj["grounding"] == 0.0 and traj["dead_ends"] == 2 and traj["dead_end_recovery"] == 0.5
    assert row.s_traj == close(0.30 + 0.25 + 0.0 + 0.15 + 0.10 * 0.5)
    wrong = preprint(negative, {"could_actor_have_known": True}, [])
    assert wrong.s_answer == 0.0 and wrong.answer_correct is False


def test_evidence_overlap_ignores_permitted_extras_and_accepts_bare_ids():
    assert evidence_overlap(frozenset({"A@1"}), frozenset({"A@1", "B@1"}), {"A@1", "B@1"}) == 1.0
    assert evidence_overlap(frozenset({"A@1", "D@2"}), frozenset({"A@1"}), {"A@1", "Z@1"}) == close(1 / 3)
    assert evidence_overlap(frozenset(), frozenset(), set()) == 1.0
    row = score_question(POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A"]}, [call(ids=["A@1"])])
    assert row.s_adj == 1.0


COUNTERFACTUAL = truth(track="counterfactual", kind="causal",
                       gold={"outcome_changed": True, "causal_mechanism": "config_regression", "cause_event_id": "EV-1",
                             "effect_event_id": "EV-2", "mechanism_direction": "cause_to_effect"},
                       required=["CHG-1@3", "INC-1@2"], permitted=["CHG-1@3", "INC-1@2"],
                       aliases=["config_regression", "bad config push"], actors=["P-1", "P-2"],
                       cause=["CHG-1@3"], effect=["INC-1@2"])


def test_counterfactual_answer_and_trajectory_terms():
    """(The preprint profile: upstream's weights, trajectory credit whatever was sought.)"""
    answer = {"outcome_changed": True, "causal_mechanism": "Bad config push", "cause_event_id": "EV-1",
              "effect_event_id": "EV-9", "mechanism_direction": "effect_to_cause", "evidence_artifacts": ["CHG-1@3"],
              "actors": ["P-2", "P-7"]}
    row = preprint(COUNTERFACTUAL, answer, [call(ids=["CHG-1@3"]), call(outcome="withheld", horizon=True)])
    # answer: .2 outcome + .2 alias + .2 cause + 0 effect + 0 direction + .05·(1/2) + .05 actor
    assert row.s_answer == close(0.2 + 0.2 + 0.2 + 0.025 + 0.05)
    # traj: .2 cause found + 0 effect + .35·(1/2) + 0 (a horizon violation) + .10 mechanism named
    assert row.s_traj == close(0.2 + 0.175 + 0.10)
    assert row.v == 0.5 and row.s_adj == close((0.5 * row.s_answer + 0.5 * row.s_traj) * 0.25)


def test_silence_coverage_needs_the_selector_in_each_subsystem():
    """(The preprint profile: upstream's weights, trajectory credit whatever was sought.)"""
    absence = truth(track="silence", kind="absence", gold={"exists": False},
                    space=[{"subsystem": "postmortems", "selector": "INC-4"}, {"subsystem": "wiki", "selector": "INC-4"}])
    calls = [call("search_artifacts", outcome="empty", args={"query": "postmortem INC-4", "subsystem": "postmortems"}),
             call("search_artifacts", outcome="empty", args={"query": "INC-40", "subsystem": "wiki"}),
             call("search_artifacts", outcome="empty", args={"query": "INC-4", "subsystem": "hr"}, subsystem=True)]
    row = preprint(absence, {"exists": False}, calls)
    assert row.diagnostics["trajectory"]["search_space_coverage"] == 0.5
    assert row.diagnostics["trajectory"]["uncovered_subsystems"] == ["wiki"]
    assert row.s_traj == close(0.8 * 0.5 + 0.2)
    assert row.s_adj == close((0.3 * 1.0 + 0.7 * row.s_traj) * (1 - 1 / 3) ** 2)
    lazy = preprint(absence, {"exists": False}, [])
    assert (lazy.s_answer, lazy.s_traj, lazy.s_adj) == (1.0, 0.2, close(0.3 + 0.7 * 0.2))
    covered = preprint(absence, {"exists": False},
                             [call("search_artifacts", outcome="empty", args={"query": "inc-4", "subsystem": None})])
    assert covered.s_adj == 1.0


@pytest.mark.parametrize("answer, reason", [
    ("not json {", "answer is not JSON"),
    ("[1, 2]", "answer is a list, not an object"),
    ({"evidence_artifacts": []}, "missing field could_actor_have_known"),
    ({"could_actor_have_known": "yes"}, "field could_actor_have_known is a str, not bool"),
    ({"could_actor_have_known": True, "evidence_artifacts": "A@1"}, "field evidence_artifacts is not a list of strings"),
    (None, "answer is a NoneType, not an object"),
])
def test_malformed_answers_score_zero_with_a_reason(answer, reason):
    row = score_question(POSITIVE, answer, [call(ids=["A@1"])])
    assert (row.s_answer, row.s_traj, row.s_adj, row.malformed) == (0.0, 0.0, 0.0, reason)


def test_malformed_trace_and_context_mode_citations():
    assert score_question(POSITIVE, {"could_actor_have_known": True}, "calls").malformed == \
        "the trace is a str, not a list of calls"
    assert score_question(POSITIVE, {"could_actor_have_known": True}, [1]).malformed == \
        "trace has a malformed call: call 1: not an object (a int)"
    context_calls = [call("search_artifacts", ids=["A@1"]), call(ids=["A@1"]),
                     call("cite_artifact", ids=["A@1"]), call("cite_artifact", outcome="withheld", horizon=True)]
    row = score_question(POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A@1", "F@2"]},
                         context_calls, mode="context")
    assert row.n_calls == 2 and row.v == 0.5          # only the agent's citations count in context mode


def test_context_mode_dead_end_recovery_is_1_even_after_a_dead_end():
    answer = {"could_actor_have_known": True, "evidence_artifacts": ["A@1"]}
    context = score_question(POSITIVE, answer, [call("search_artifacts", ids=["A@1"]), call(ids=["A@1"]),
                                                call("cite_artifact", ids=["A@1"]),
                                                call("cite_artifact", outcome="not_found")], mode="context")
    assert context.diagnostics["trajectory"]["dead_ends"] == 1
    assert context.diagnostics["trajectory"]["dead_end_recovery"] == 1.0
    tool = score_question(POSITIVE, answer, [call(outcome="not_found")], mode="tool")
    assert tool.diagnostics["trajectory"]["dead_ends"] == 1 and tool.diagnostics["trajectory"]["dead_end_recovery"] < 1


def test_summary_counts_correct_answers_through_invalid_paths():
    rows = [score_question(POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A@1"]},
                           [call(ids=["A@1"]), call(outcome="withheld", actor=True)]),
            score_question(POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A@1"]}, [call(ids=["A@1"])])]
    summary = summarize(rows)
    assert summary["correct_invalid_path"] == 1 and summary["violation_rate"] == 0.3333
    assert summary["n"] == 2 and summary["s_answer"] == 1.0


@pytest.mark.parametrize("bad, problem", [
    (dict(call("search_artifacts"), args=["ESC-23"]), "args is a list, not an object"),
    (dict(call(), tool=["fetch_artifact"]), "tool is a list, not a string"),
    ({k: v for k, v in call().items() if k != "tool"}, "no tool"),
    ({k: v for k, v in call().items() if k != "args"}, "no args"),
    (dict(call(), returned_ids="A@1"), "returned_ids is a str, not a list"),
    (dict(call(), returned_ids=["A@1", 7]), "returned_ids holds a int, not only strings"),
    (dict(call(), seq="1"), "seq is a str, not an integer"),
    (dict(call(), seq=True), "seq is a bool, not an integer"),
    (dict(call(), outcome=["ok"]), "outcome is a list, not a string"),
    (dict(call(), gates=[True]), "gates is a list, not an object"),
    (dict(call(), gates={"horizon": "no"}), "a gate is a str, not a boolean"),
    ("fetch A@1", "not an object (a str)"),
])
def test_every_malformed_call_shape_scores_the_question_zero_with_its_reason(bad, problem):
    for track_truth, answer in ((POSITIVE, {"could_actor_have_known": True, "evidence_artifacts": ["A@1"]}),
                                (SILENCE_ABSENCE, {"exists": False})):
        for mode in ("tool", "context"):
            row = score_question(track_truth, answer, [call(ids=["A@1"]), bad], mode=mode)
            assert row.malformed == f"trace has a malformed call: call 2: {problem}"
            assert (row.s_answer, row.s_traj, row.s_adj) == (0.0, 0.0, 0.0)
            assert row.diagnostics["malformed_calls"] == [{"call": 2, "problem": problem}]


SILENCE_ABSENCE = truth(track="silence", kind="absence", gold={"exists": False}, permitted=["INC-4@2"],
                        space=[{"subsystem": "postmortems", "selector": "INC-4"}, {"subsystem": "wiki", "selector": "INC-4"}])


def _builder_search(where, query, ids=(), **gates):
    return call("search_artifacts", ids=ids, outcome="ok" if ids else "empty",
                args={"query": query, "subsystem": where, "limit": 8}, **gates)


def test_context_mode_silence_coverage_counts_only_the_searches_the_agent_cites():
    """The builder's searches are provenance: coverage needs the agent to cite a search (or an id it returned)."""
    context_calls = [_builder_search("postmortems", "did INC-4 get a postmortem"),
                     _builder_search("wiki", "did INC-4 get a postmortem", ids=["WIKI-9@1"]),
                     _builder_search("hr", "did INC-4 get a postmortem", subsystem=True)]
    lazy = preprint(SILENCE_ABSENCE, {"exists": False, "evidence_artifacts": []}, context_calls, mode="context")
    assert lazy.diagnostics["trajectory"]["search_space_coverage"] == 0.0
    assert (lazy.s_traj, lazy.s_adj) == (close(0.2), close(0.3 + 0.7 * 0.2))
    half = preprint(SILENCE_ABSENCE, {"exists": False, "evidence_artifacts": ["search:postmortems"]},
                          context_calls, mode="context")
    assert half.diagnostics["trajectory"]["uncovered_subsystems"] == ["wiki"] and half.n_calls == 0
    full = preprint(SILENCE_ABSENCE, {"exists": False, "evidence_artifacts": ["search:postmortems", "WIKI-9@1"]},
                          context_calls + [call("cite_artifact", ids=["WIKI-9@1"])], mode="context")
    assert full.s_adj == 1.0
    # a cited search that broke a gate covers nothing; in tool mode citations of searches mean nothing
    assert preprint(SILENCE_ABSENCE, {"exists": False, "evidence_artifacts": ["search:hr"]},
                          context_calls, mode="context").diagnostics["trajectory"]["search_space_coverage"] == 0.0
    assert preprint(SILENCE_ABSENCE, {"exists": False, "evidence_artifacts": []},
                          context_calls[:2], mode="tool").diagnostics["trajectory"]["search_space_coverage"] == 1.0


DECOY = truth(track="counterfactual", kind="decoy",
              gold={"outcome_changed": False, "causal_mechanism": "no_causal_link", "cause_event_id": "EV-1",
                    "effect_event_id": "EV-2", "mechanism_direction": "no_causal_link"},
              required=["CHG-1@3", "INC-1@2"], aliases=["no_causal_link", "none"], actors=["P-1"],
              cause=["CHG-1@3"], effect=["INC-1@2"])


def test_counterfactual_null_ids_and_mechanism_are_answers_not_malformed():
    """(The preprint profile: upstream's weights, trajectory credit whatever was sought.)"""
    answer = {"outcome_changed": False, "causal_mechanism": None, "cause_event_id": None, "effect_event_id": "EV-2",
              "mechanism_direction": "no_causal_link", "evidence_artifacts": ["CHG-1@3", "INC-1@2"], "actors": ["P-1"]}
    calls = [call(ids=["CHG-1@3"]), call(ids=["INC-1@2"])]
    row = preprint(DECOY, answer, calls)
    # null mechanism matches "no link"; a null cause id does not match EV-1
    assert row.malformed is None and row.answer_correct is True
    assert row.diagnostics["answer"]["mechanism"] is True and row.diagnostics["answer"]["cause_id"] is False
    assert row.s_answer == close(0.2 + 0.2 + 0.0 + 0.2 + 0.1 + 0.05 + 0.05)
    causal = preprint(COUNTERFACTUAL, dict(answer, outcome_changed=True, effect_event_id=None), calls)
    assert causal.diagnostics["answer"]["mechanism"] is False and causal.diagnostics["answer"]["effect_id"] is False
    null_truth = truth(track="counterfactual", kind="decoy",
                       gold={"outcome_changed": False, "causal_mechanism": None, "cause_event_id": None,
                             "effect_event_id": None, "mechanism_direction": "no_causal_link"})
    both_null = preprint(null_truth, answer | {"effect_event_id": None}, [])
    assert both_null.diagnostics["answer"] == {"outcome": True, "mechanism": True, "cause_id": True,
                                                        "effect_id": True, "direction": True, "evidence_overlap": 0.0,
                                                        "correct_actor": False}
    assert preprint(DECOY, answer | {"cause_event_id": 7}, calls).malformed == \
        "field cause_event_id is a int, not str or null"


ODD_CALLS = [call(), call(ids=[3]), call(ids="A@1"), call(outcome=None), call(outcome=4), dict(call(), seq=True),
             {"tool": "fetch_artifact", "args": {}}, {"tool": "fetch_artifact", "args": {}, "seq": "1"},
             {"tool": 5, "args": {}}, {"args": {}}, {"tool": "x", "args": []}, [], "call", None,
             dict(call(), gates={"horizon": 1}), dict(call(), gates=[]), dict(call(), returned_ids=None)]


@pytest.mark.parametrize("claim", [False, True])
@pytest.mark.parametrize("position", range(len(ODD_CALLS)))
def test_the_shape_fast_path_agrees_with_call_problem(position, claim):
    odd = ODD_CALLS[position]
    problem = call_problem(odd, claim=claim)
    assert trace_problems([call(), odd], claim=claim) == ([] if problem is None else [{"call": 2, "problem": problem}])


class _DictKind(dict):
    """Not a JSON object: a call of this class is malformed however its fields look."""


#: Values tried in each field in turn (the others as ``call()`` makes them); MISSING leaves the field out.
_MISSING = object()
_TRIED = (_MISSING, None, "A@1", 3, True, 1.5, [], ["A@1"], ["A@1", 3], [True], {}, {"horizon": True},
          {"horizon": 1}, {"horizon": None}, _DictKind())


@pytest.mark.parametrize("field", [f.name for f in CALL_FIELDS])
def test_the_trace_checks_agree_with_call_problem_on_every_field(field):
    """``well_shaped`` and ``claim_parts`` are written out from CALL_FIELDS, the table ``call_problem`` reads."""
    for value in _TRIED:
        odd = {k: v for k, v in (call() | {field: value}).items() if v is not _MISSING}
        for shaped in (odd, _DictKind(odd)):
            assert well_shaped([call(), shaped]) is (call_problem(shaped) is None), (field, value, type(shaped))
            assert (claim_parts(shaped) is None) is (call_problem(shaped, claim=True) is not None), (field, value)
    assert call_problem(_DictKind(call())) == "not an object (a _DictKind)" and not well_shaped([_DictKind(call())])


def test_memoised_rounding_and_query_tokens_match_the_plain_ones():
    for x in (0.0, -0.0, 1.0000000000000002, 0.1234565, 0.8 * 0.75 + 0.2 * (1 / 3), 2.5e-7, 1 / 3):
        for _ in range(2):   # a miss, then a hit
            assert repr(_round6(x)) == repr(round(x, 6))
    assert _query_tokens("INC-22 rollback") == frozenset(tokenize("INC-22 rollback")) == _query_tokens("INC-22 rollback")


def test_checked_and_verifier_built_calls_score_alike():
    calls = [call(ids=["A@1"]), call(outcome="withheld", actor=True), call(tool="search_artifacts", outcome="empty")]
    answer = {"could_actor_have_known": True, "evidence_artifacts": ["A@1"]}
    assert score_question(POSITIVE, answer, calls) == score_question(POSITIVE, answer, ShapedCalls(calls))


# -- the orgbench profile (scoring_profile.py): trajectory credit only for evidence sought, with the right verdict

def _negative():
    return CompiledTruth.of(Truth("Q-2", "perspective", "temporal_negative", "easy",
                                  {"could_actor_have_known": False, "blocked_subsystems": [], "evidence_artifacts": []},
                                  (), (), (), (), (), (), (), ""), {"entity": {"kind": "case", "id": "CASE-7"}})


def test_a_negative_without_looking_earns_no_trajectory_and_one_that_searched_in_scope_earns_it_all():
    no = {"could_actor_have_known": False, "blocked_subsystems": [], "evidence_artifacts": []}
    lazy = score_question(_negative(), no, [])
    assert (lazy.s_answer, lazy.s_traj, lazy.s_adj, lazy.scoring) == (1.0, 0.0, 0.4, "orgbench-2")
    assert lazy.diagnostics["trajectory"]["evidence_sought"] is False
    elsewhere = score_question(_negative(), no, [call("search_artifacts", ids=["WIKI-1@1"], args={"query": "lunch"})])
    assert elsewhere.s_traj == 0.0 and elsewhere.s_adj == 0.4
    looked = score_question(_negative(), no, [call("search_artifacts", outcome="empty", args={"query": "case-7"})])
    assert (looked.s_traj, looked.s_adj) == (1.0, 1.0)        # an empty search is an answer, not a dead end
    assert preprint(_negative(), no, []).s_adj == 1.0            # upstream: the gate terms count as clean


def test_a_wrong_verdict_earns_no_trajectory_and_stated_ids_earn_nothing():
    calls = [call(ids=["A@1"])]
    wrong = score_question(POSITIVE, {"could_actor_have_known": False, "evidence_artifacts": ["A@1"]}, calls)
    assert (wrong.s_answer, wrong.s_traj, wrong.s_adj) == (0.0, 0.0, 0.0)
    assert preprint(POSITIVE, {"could_actor_have_known": False, "evidence_artifacts": ["A@1"]}, calls).s_traj == 1.0
    absence = truth("silence", "absence", {"exists": False}, space=[{"subsystem": "postmortems", "selector": "INC-1"}])
    searched = [call("search_artifacts", args={"query": "INC-1", "subsystem": "postmortems"}, outcome="empty")]
    assert score_question(absence, {"exists": True}, searched).s_adj == 0.0
    assert preprint(absence, {"exists": True}, searched).s_adj == close(0.7)
    decoy = truth("counterfactual", "decoy", {"outcome_changed": False, "causal_mechanism": "no_causal_link",
                                               "cause_event_id": "E1", "effect_event_id": "E2",
                                               "mechanism_direction": "no_causal_link"}, required=["CHG-1@1"])
    copied = {"outcome_changed": False, "causal_mechanism": None, "cause_event_id": "E1", "effect_event_id": "E2",
              "mechanism_direction": "no_causal_link"}
    row = score_question(decoy, copied, [])      # verdict, mechanism and direction: .2+.2+.1 of the .6 that count
    assert row.s_answer == close(0.5 / 0.6) and row.s_traj == 0.0
    assert row.s_adj == close(0.5 * row.s_answer) and row.s_adj <= 0.45


def test_context_mode_trajectory_needs_a_cited_artifact_or_search_in_scope():
    no = {"could_actor_have_known": False, "blocked_subsystems": [], "evidence_artifacts": []}
    built = [call("search_artifacts", ids=["CASE-7@1"], args={"query": "CASE-7", "subsystem": None})]
    assert score_question(_negative(), no, built, mode="context").s_traj == 0.0
    cited = score_question(_negative(), no | {"evidence_artifacts": ["search:*"]}, built, mode="context")
    assert cited.s_traj == 1.0 and cited.s_adj == 1.0
